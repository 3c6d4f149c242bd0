"""Read rve's gmsh .msh with PETSc's DMPlex (the reader DAMASK's mesh solver
and other PETSc codes use) and check it against independent counts.

usage: petsc_msh.py MESH.msh periodic|plain
Checks:
  - cells = the tetrahedra gmsh's own Python API reads from the file;
  - vertices = the nodes once opposite box faces are identified (periodic:
    coordinates reduced modulo the box, exact since rve writes the images at
    exactly the period) or all nodes (plain);
  - Euler characteristic V - E + F - C of the complex PETSc built: 0 for a
    periodic mesh (a 3-torus: only if PETSc glued the faces through
    $Periodic), 1 for a plain box (a ball);
  - "Cell Sets": one stratum per grain physical group, with that group's
    tetrahedra count.
Prints one line per failure; exit status 1 if any, else 0.
"""
import sys

import gmsh
import numpy as np
from petsc4py import PETSc


def gmsh_counts(path):
    gmsh.initialize(["", "-v", "0"])
    gmsh.open(path)
    tags, xyz, _ = gmsh.model.mesh.getNodes()
    xyz = np.asarray(xyz).reshape(-1, 3)
    groups = {}
    for dim, tag in gmsh.model.getPhysicalGroups(3):
        n = 0
        for e in gmsh.model.getEntitiesForPhysicalGroup(dim, tag):
            types, etags, _ = gmsh.model.mesh.getElements(dim, e)
            n += sum(len(t) for t in etags)
        groups[tag] = n
    gmsh.finalize()
    return xyz, groups


def main():
    path, kind = sys.argv[1], sys.argv[2]
    xyz, groups = gmsh_counts(path)
    lo, hi = xyz.min(axis=0), xyz.max(axis=0)
    if kind == "periodic":
        red = xyz.copy()
        for a in range(3):
            red[red[:, a] == hi[a], a] -= hi[a] - lo[a]  # the image on the low face
        want_v = len(np.unique(red, axis=0))
        want_chi = 0
    else:
        want_v, want_chi = len(xyz), 1
    dm = PETSc.DMPlex().createFromFile(path, interpolate=True)
    n = [dm.getDepthStratum(d) for d in range(4)]
    count = [b - a for a, b in n]
    chi = count[0] - count[1] + count[2] - count[3]
    fails = []
    if count[3] != sum(groups.values()):
        fails.append("PETSc read %d cells, gmsh %d" % (count[3], sum(groups.values())))
    if count[0] != want_v:
        fails.append("PETSc has %d vertices, %d expected" % (count[0], want_v))
    if chi != want_chi:
        fails.append("Euler characteristic %d, %d expected" % (chi, want_chi))
    label = "Cell Sets"
    ids = dm.getLabelIdIS(label).getIndices() if dm.hasLabel(label) else []
    got = {int(i): dm.getStratumSize(label, int(i)) for i in ids}
    if got != groups:
        diff = sorted(set(got.items()) ^ set(groups.items()))[:4]
        fails.append("Cell Sets differ from the physical groups: %s" % diff)
    print("%s: %d cells, %d vertices (%d nodes), V-E+F-C = %d, %d cell sets"
          % (kind, count[3], count[0], len(xyz), chi, len(got)))
    for f in fails:
        print("FAIL " + f)
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

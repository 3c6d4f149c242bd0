#!/usr/bin/env python3
"""Oracles of a periodic mesh written by rve mesh --format msh,inp,vtk --pairs
STEM-pairs.txt -o STEM, from coordinates alone (nothing the mesher reports is
trusted), read by real clients: gmsh's Python API (.msh 4.1: $Periodic,
physical groups), meshio (.inp, .vtk) and an independent parser of the Abaqus
*Equation constraints.  Box [0, L].

Usage: periodic_oracle.py STEM LX,LY,LZ NGRAINS   (exit 0: all passed)
Used by tests/test_periodic.sh and bench/bench_periodic.sh."""
import sys, re, numpy as np, gmsh, meshio
stem = sys.argv[1]
L = np.array([float(x) for x in sys.argv[2].split(",")])
NG = int(sys.argv[3])
res = []
def ok(name, cond):
    res.append(bool(cond))
    if not cond:
        print("FAIL:", name)

# ---- .msh 4.1 through gmsh
gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.open(stem + ".msh")
tags, xyz, _ = gmsh.model.mesh.getNodes()
xyz = xyz.reshape(-1, 3)
pos = {int(t): i for i, t in enumerate(tags)}
key = {tuple(x.tobytes() for x in p): i for i, p in enumerate(xyz)}
def find(p):
    return key.get(tuple(np.float64(x).tobytes() for x in p))
# every node on a box face has its translate, bit for bit, on the opposite face
missing = 0
near = 0
for p in xyz:
    for a in range(3):
        if p[a] != 0 and p[a] != L[a] and (abs(p[a]) < 1e-9 or abs(p[a] - L[a]) < 1e-9):
            near += 1
        if p[a] == L[a] or p[a] == 0:
            q = p.copy(); q[a] = 0.0 if p[a] == L[a] else L[a]
            if find(q) is None:
                missing += 1
ok("no node near a box face off it", near == 0)
ok("every box-face node has its exact translate", missing == 0)
# gmsh's periodic node correspondence: exact translations
npairs = 0; bad = 0
for dim in (0, 1, 2):
    for (dd, t) in gmsh.model.getEntities(dim):
        tm, nt, ntm, tfo = gmsh.model.mesh.getPeriodicNodes(dd, t)
        if tm == t or len(nt) == 0:
            continue
        T = np.array(tfo).reshape(4, 4)
        for a, b in zip(nt, ntm):
            pa, pb = xyz[pos[int(a)]], xyz[pos[int(b)]]
            npairs += 1
            shift = T[:3, 3]
            q = pb.copy()
            for k in range(3):
                if shift[k] != 0:
                    q[k] = L[k] if pb[k] == 0 else pb[k] + shift[k]
            if not np.array_equal(pa, q):
                bad += 1
ok("gmsh lists periodic nodes", npairs > 0)
ok("gmsh periodic nodes are exact translates", bad == 0)
# tets: every one in exactly one grain group; volumes
ett, etags, enodes = gmsh.model.mesh.getElements(3)
alltets = set(int(t) for t in etags[0])
seen = {}
grains = 0
for (dd, pt) in gmsh.model.getPhysicalGroups(3):
    grains += 1
    ok("group named grainN", gmsh.model.getPhysicalName(3, pt) == "grain%d" % pt)
    for ent in gmsh.model.getEntitiesForPhysicalGroup(3, pt):
        _, et, _ = gmsh.model.mesh.getElements(3, int(ent))
        for t in et[0]:
            seen[int(t)] = seen.get(int(t), 0) + 1
ok("%d grain groups" % NG, grains == NG)
ok("every tet in exactly one grain", set(seen) == alltets and all(v == 1 for v in seen.values()))
tet = np.array([pos[int(n)] for n in enodes[0]]).reshape(-1, 4)
P = xyz[tet]
vol = np.einsum("ij,ij->i", P[:, 1] - P[:, 0], np.cross(P[:, 2] - P[:, 0], P[:, 3] - P[:, 0])) / 6
ok("positive tets", (vol > 0).all())
ok("mesh volume = box volume", abs(vol.sum() - L.prod()) < 1e-12)
# free triangles: the set on an upper face is the translate of the lower one
faces = np.sort(np.concatenate([tet[:, [1, 2, 3]], tet[:, [0, 2, 3]], tet[:, [0, 1, 3]], tet[:, [0, 1, 2]]]), axis=1)
u, c = np.unique(faces, axis=0, return_counts=True)
free = u[c == 1]
ok("faces shared by at most two tets", (c <= 2).all())
nside = 0
for a in range(3):
    lo = set(tuple(f) for f in free if (xyz[f, a] == 0).all())
    hi = set()
    for f in free:
        if (xyz[f, a] == L[a]).all():
            tr = []
            for n in f:
                q = xyz[n].copy(); q[a] = 0.0
                tr.append(find(q))
            hi.add(tuple(sorted(tr)))
    ok("free triangles on %s1 = translate of %s0" % ("xyz"[a], "xyz"[a]), lo == hi and len(lo) > 0)
    nside += len(lo) + len(hi)
ok("every free triangle on a box face", nside == len(free))
gmsh.finalize()

# ---- .inp through meshio, and its *Equation constraints by our own parser
m = meshio.read(stem + ".inp")
ok("inp nodes = msh nodes + 3 reference nodes", len(m.points) == len(xyz) + 3)
ok("inp tets = msh tets", sum(len(cb.data) for cb in m.cells if cb.type == "tetra") == len(tet))
names = set(m.cell_sets.keys())
ok("inp: one element set per grain", len([n for n in names if n.startswith("grain")]) == NG)
for s in ["X0", "X1", "Y0", "Y1", "Z0", "Z1", "EDGE_Y0Z0", "EDGE_X1Y1", "CORNER_000", "CORNER_111", "RP_X"]:
    ok("inp node set " + s, s in m.point_sets)
text = open(stem + ".inp").read().split("\n")
nodes = {}
i = 0
eqs = []
while i < len(text):
    line = text[i].strip()
    if line.lower().startswith("*node") and not line.lower().startswith("*nset"):
        i += 1
        while i < len(text) and not text[i].startswith("*"):
            f = text[i].split(",")
            nodes[int(f[0])] = np.array([float(x) for x in f[1:4]])
            i += 1
        continue
    if line.lower().startswith("*equation"):
        n = int(text[i + 1]); terms = []
        i += 2
        while len(terms) < n:
            f = [x.strip() for x in text[i].split(",") if x.strip()]
            terms += [(int(f[k]), int(f[k + 1]), float(f[k + 2])) for k in range(0, len(f), 3)]
            i += 1
        eqs.append(terms)
        continue
    i += 1
rp = {}
for a, s in enumerate("XYZ"):
    rp[a] = int(m.point_sets["RP_" + s][0]) + 1
nkey = {tuple(np.float64(x).tobytes() for x in p): n for n, p in nodes.items()}
upper = [n for n, p in nodes.items() if n not in rp.values() and any(p[a] == L[a] for a in range(3))]
first = {}
good = 0
for e in eqs:
    (s, dof, c0), (mst, dof2, c1) = e[0], e[1]
    first[(s, dof)] = first.get((s, dof), 0) + 1
    p = nodes[s]
    q = p.copy(); want = set()
    for a in range(3):
        if p[a] == L[a]:
            q[a] = 0.0; want.add(rp[a])
    okm = nkey.get(tuple(np.float64(x).tobytes() for x in q)) == mst
    okrp = set(t[0] for t in e[2:]) == want and all(t[1] == dof and t[2] == -1.0 for t in e[2:])
    good += okm and okrp and c0 == 1.0 and c1 == -1.0 and dof2 == dof
ok("every equation: node, its exact lower translate, the right reference nodes, coefficients 1 -1", good == len(eqs))
ok("every upper-face node and dof constrained exactly once",
   set(first) == set((n, k) for n in upper for k in (1, 2, 3)) and all(v == 1 for v in first.values()))
masters = set(e[1][0] for e in eqs)
ok("no master is eliminated", not (masters & set(s for s, _ in first)))
# the pairs table agrees with the equations
pairs = [tuple(map(int, l.split()[:2])) for l in open(stem + "-pairs.txt") if not l.startswith("#")]
ok("pairs table = equation pairs", sorted(pairs) == sorted(set((e[0][0], e[1][0]) for e in eqs)))

# ---- .vtk through meshio: grain as cell data, same tets
v = meshio.read(stem + ".vtk")
g = np.concatenate([x for x in v.cell_data["grain"]])
ok("vtk grain per tet", len(g) == len(tet) and g.min() >= 1 and g.max() <= NG)
print("oracle: %d passed, %d failed" % (sum(res), len(res) - sum(res)))
sys.exit(0 if all(res) else 1)

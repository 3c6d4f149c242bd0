#!/usr/bin/env python3
"""tess_fan_volume.py TESS MSH: every grain's meshed volume (meshio, the
tetrahedra of its physical group) equals its volume in the .tess, computed
here with numpy from the written vertices and face points: each face is the
fan of triangles from its face point (Neper's regularised faces), so a face
point written on a vertex stands for the fan from that vertex.  Exit 1 when
a grain differs by more than 1e-9 of the box volume."""
import sys
from collections import defaultdict

import meshio
import numpy as np



def read_pieces(path):
    """vertices, faces (loop, face point), polyhedra (signed face lists) and
    the *id of each polyhedron (the sections' layout: Neper's format 3.5;
    pieces of one grain share their *id, and a piece removed by the
    regularisation has no face, which Neper's files do not have, so the
    sections are read here rather than by neper_tess_check.py)"""
    text = open(path).read()

    def section(name, nxt):
        return iter(text[text.index(name):text.index(nxt)].split()[1:])

    cell = text[text.index("**cell"):text.index("**vertex")].split()
    n = int(cell[1])
    ids = [int(x) for x in cell[cell.index("*id") + 1:cell.index("*id") + 1 + n]]
    t = section("**vertex", "**edge")
    V = np.array([[float(next(t)) for _ in range(5)][1:4] for _ in range(int(next(t)))])
    t = section("**face", "**polyhedron")
    faces = []
    for _ in range(int(next(t))):
        next(t)
        vs = [int(next(t)) - 1 for _ in range(int(next(t)))]
        for _ in range(int(next(t)) + 4 + 2):   # edges, equation, state, point index
            next(t)
        faces.append((vs, np.array([float(next(t)) for _ in range(3)])))
    t = section("**polyhedron", "**domain")
    polys = []
    for _ in range(int(next(t))):
        next(t)
        polys.append([int(next(t)) for _ in range(int(next(t)))])
    return V, faces, polys, ids


def piece_volume(V, faces, fl):
    """the fan (o, p, q) of every loop edge: o . (p x q) / 6 over a closed
    surface (pieces are small: no cancellation worth the name)"""
    s = 0.0
    for sf in fl:
        vs, o = faces[abs(sf) - 1]
        P = V[vs if sf > 0 else vs[::-1]]
        s += np.einsum("ij,j->i", np.cross(P, np.roll(P, -1, axis=0)), o).sum() / 6
    return s


def tess_volumes(path):
    """per-grain volumes of the pieces"""
    V, faces, polys, ids = read_pieces(path)
    vol = defaultdict(float)
    for pid, fl in enumerate(polys):
        vol[ids[pid]] += piece_volume(V, faces, fl)
    return vol


def mesh_volumes(path):
    m = meshio.read(path)
    vol = defaultdict(float)
    for blk, tags in zip(m.cells, m.cell_data["gmsh:physical"]):
        if blk.type != "tetra":
            continue
        X = m.points[blk.data]
        v = np.einsum("ij,ij->i", X[:, 1] - X[:, 0], np.cross(X[:, 2] - X[:, 0], X[:, 3] - X[:, 0])) / 6
        for g, x in zip(tags, v):
            vol[int(g)] += x
    return vol


def main(argv):
    tv, mv = tess_volumes(argv[1]), mesh_volumes(argv[2])
    total = sum(tv.values())
    worst = max(abs(tv[g] - mv.get(g, 0.0)) for g in tv)
    same = set(tv) == set(mv)
    print("%d grains; largest |meshed - .tess fan volume| %.3g (box %.6g)" % (len(tv), worst, total))
    return 0 if same and worst <= 1e-9 * total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

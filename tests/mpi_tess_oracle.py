"""Volumes and neighbours of the cells of a Neper .tess file, for the MPI
tests (tests/test_mpi_tess.sh, tests/test_mpi_pvol.sh): the file is read by
the independent reader tests/neper_tess_check.py (not rve's), each volume is
the divergence theorem over the polyhedron's faces, and two polyhedra are
neighbours when they share a face."""
import neper_tess_check as n


def tess_cells(path):
    """(volumes, neighbour lists 1..n ascending) of the .tess at path."""
    F = {}
    T = n.Toks(open(path).read())
    for w in ("***tess", "**format", "3.5", "**general"):
        T.expect(w)
    T.int("dimension", 3, 3)
    T.word("type")
    T.expect("**cell")
    n.read_cell(T, F, True)
    n.read_entities(T, F, True)
    V = F["ver"]
    owner = {}
    vols = []
    for pid in range(1, len(F["poly"])):
        vol = 0.0
        for sf in F["poly"][pid]:
            owner.setdefault(abs(sf), []).append(pid)
            loop = F["face"][abs(sf)]["v"]
            loop = loop if sf > 0 else loop[::-1]
            m = len(loop)
            c = [sum(V[x][a] for x in loop) / m for a in range(3)]
            for k in range(m):
                vol += n.dot(c, n.cross(V[loop[k]], V[loop[(k + 1) % m]])) / 6
        vols.append(vol)
    nbs = [set() for _ in vols]
    for ps in owner.values():
        if len(ps) == 2:
            nbs[ps[0] - 1].add(ps[1])
            nbs[ps[1] - 1].add(ps[0])
    return vols, [sorted(s) for s in nbs]

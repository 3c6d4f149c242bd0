#!/usr/bin/env python3
"""periodic_short_edges.py TESS JSON LX,LY,LZ [--none-off-tiny]: the short edges a periodic
`rve reg --json` reports, counted again with numpy from the written .tess of
pieces (nothing rve reports but the threshold is trusted).

An edge of the periodic RVE is a class of edges of the pieces equal up to a
translation by the period: an edge on a box face and its copy on the
opposite face (bit-identical tangential coordinates, normal coordinates
exactly 0 and L) are one edge, counted once.  The class is found here from
coordinates alone: both end points are moved from the upper box planes to
the lower ones, and the key is the pair of moved points with the shift each
received relative to the other.  A class is "on a tiny cell" when any of its
edges borders a piece whose volume (fans from the written face points) is
below threshold^3.  Checks short_edges_after and
short_edges_after_on_tiny_cells; prints the counts, also per copy (every
edge of every piece, copies apart) to show what the rule changes.
Exit 0 when both agree (and, with --none-off-tiny, every short edge is on a
tiny piece or a copy of one: issue 16's acceptance), 1 otherwise."""
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tess_fan_volume import piece_volume, read_pieces  # noqa: E402


def main(argv):
    V, faces, polys, _ = read_pieces(argv[1])
    rep = json.load(open(argv[2]))
    rep = rep.get("reg", rep)
    L = np.array([float(x) for x in argv[3].split(",")])
    thr = float(rep["threshold"])
    vol = [piece_volume(V, faces, fl) for fl in polys]
    face_cells = [[] for _ in faces]
    for k, fl in enumerate(polys):
        for sf in fl:
            face_cells[abs(sf) - 1].append(k)
    tiny = np.array(vol) < thr ** 3

    def canon(i):
        p = V[i].copy()
        sh = [0, 0, 0]
        for a in range(3):
            if p[a] == L[a]:
                p[a], sh[a] = 0.0, 1
        return p.tobytes(), sh

    cls = {}   # periodic class -> on a tiny piece
    copies = {}
    for f, (vs, _) in enumerate(faces):
        on_tiny = any(tiny[k] for k in face_cells[f])
        for i in range(len(vs)):
            p, q = vs[i], vs[(i + 1) % len(vs)]
            if not np.linalg.norm(V[p] - V[q]) < thr:
                continue
            (cp, sp), (cq, sq) = canon(p), canon(q)
            if cp > cq:
                cp, sp, cq, sq = cq, sq, cp, sp
            key = (cp, cq, tuple(b - a for a, b in zip(sp, sq)))
            cls[key] = cls.get(key, False) or on_tiny
            e = (min(p, q), max(p, q))
            copies[e] = copies.get(e, False) or on_tiny
    n_all, n_tiny = len(cls), sum(cls.values())
    print("threshold %.6g: short edges per periodic edge %d (%d on tiny pieces or their copies); "
          "per copy %d (%d on tiny pieces); rve reports %d (%d)"
          % (thr, n_all, n_tiny, len(copies), sum(copies.values()), rep["short_edges_after"],
             rep["short_edges_after_on_tiny_cells"]))
    if "--none-off-tiny" in argv[4:] and n_all != n_tiny:
        print("FAIL: %d short edges on pieces of at least threshold^3" % (n_all - n_tiny))
        return 1
    return 0 if (n_all, n_tiny) == (rep["short_edges_after"], rep["short_edges_after_on_tiny_cells"]) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))

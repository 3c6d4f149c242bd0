#!/bin/sh
# test_pack_dem.sh - what a DEM code reads from `rve pack` (issue 22): the
# bodies file with compound bodies (pieces), the VTK surfaces with body and
# piece ids read by meshio (a real client), the contacts file; the lid
# method (deposition with a lid): no overlap by an independent oracle
# (separating axes over every piece pair, in Python), bodies inside the
# walls.  Skips (77) without a Python that has meshio and numpy.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_python test_pack_dem "meshio, numpy"
lib_init pack-dem
# 16 non-convex bodies written as compounds of boxes: 8 L (two boxes) and
# 8 U (three boxes), so that the oracle below stays cheap
awk 'function box(x0, y0, z0, x1, y1, z1) {
         printf " poly 8"
         for (c = 0; c < 8; c++)
             printf " %g %g %g", (c % 2 ? x1 : x0), (int(c / 2) % 2 ? y1 : y0), (c >= 4 ? z1 : z0)
     }
     BEGIN { for (i = 0; i < 16; i++) {
         if (i % 2 == 0) { printf "compound 2"; box(0, 0, 0, 5, 2, 2); box(0, 2, 0, 2, 5, 2) }
         else { printf "compound 3"; box(0, 0, 0, 2, 5, 2); box(3, 0, 0, 5, 5, 2); box(2, 0, 0, 3, 2, 2) }
         printf "\n" } }' >"$T/lu.txt"
check "compound bodies, walls, lid" 0 "$RVE" pack -q --bodies "$T/lu.txt" --method lid --time 20 --seed 3 --json \
    -o "$T/g.txt" --vtk "$T/g.vtk" --contacts "$T/g.ct" --contact-tol 0.05
grep_f "lid in the json" '"method":"lid"' "$T/out"
ok "compound lines" "[ \$(grep -c '^compound ' $T/g.txt) -eq 16 ]"
check "compound bodies and soft" 2 "$RVE" pack -q --bodies "$T/lu.txt" --method soft -o "$T/z.txt"
check "lid refuses a periodic box" 2 "$RVE" pack -q --bodies "$T/lu.txt" --method lid --periodic -o "$T/z.txt"
absent "no output after the refusal" "$T/z.txt"
check "unknown method" 2 "$RVE" pack -q --size 1 -n 4 --method drop -o "$T/z.txt"
check "spheres by lid" 0 "$RVE" pack -q --size 'uniform(0.8,1.2)' -n 40 --method lid --time 20 -o "$T/s.txt" \
    --vtk "$T/s.vtk" --contacts "$T/s.ct" --json
grep_f "spheres: lid" '"method":"lid"' "$T/out"

RVE="$RVE" T="$T" SRC="$SRC" "$PY" - <<'PYEOF'
import os, math, itertools, sys
import numpy as np, meshio

T = os.environ["T"]
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests"))
from rot_oracle import Checker
check = Checker()

def read_bodies(path):
    """Bodies of a pack file, parsed here: list of lists of pieces (n x 3 arrays), spheres as (c, r)."""
    L = None
    bodies = []
    for line in open(path):
        w = line.split()
        if not w:
            continue
        if w[0] == "#":
            if w[1] == "domain":
                L = [float(x) for x in w[2:5]]
            continue
        if w[0] == "sphere":
            bodies.append(("sphere", np.array([float(x) for x in w[1:4]]), float(w[4])))
            continue
        k, np_ = 0, 1
        if w[0] == "compound":
            np_ = int(w[1]); k = 2
        pieces = []
        for _ in range(np_):
            assert w[k] == "poly"
            n = int(w[k + 1]); k += 2
            pieces.append(np.array([float(x) for x in w[k:k + 3 * n]]).reshape(n, 3)); k += 3 * n
        bodies.append(("poly", pieces))
    return L, bodies

def sat_gap(A, B):
    """Largest separation of two convex point sets over the candidate axes
    (normals of every vertex triple of each, cross products of every pair of
    edges): > 0 separated, <= 0 overlapping by minus that much at most."""
    axes = []
    for P in (A, B):
        for i, j, k in itertools.combinations(range(len(P)), 3):
            axes.append(np.cross(P[j] - P[i], P[k] - P[i]))
    ea = [A[j] - A[i] for i, j in itertools.combinations(range(len(A)), 2)]
    eb = [B[j] - B[i] for i, j in itertools.combinations(range(len(B)), 2)]
    for a in ea:
        axes.extend(np.cross(a, np.array(eb)))
    ax = np.array(axes)
    nn = np.linalg.norm(ax, axis=1)
    ax = ax[nn > 1e-12] / nn[nn > 1e-12, None]
    pa, pb = A @ ax.T, B @ ax.T
    gap = np.maximum(pb.min(0) - pa.max(0), pa.min(0) - pb.max(0))
    return gap.max()

# --- the lid packing of decomposed grains
L, bodies = read_bodies(T + "/g.txt")
check("16 bodies", len(bodies) == 16, len(bodies))
allv = np.vstack([p for b in bodies for p in b[1]])
size = np.mean([np.linalg.norm(np.vstack(b[1]) - np.vstack(b[1]).mean(0), axis=1).max() for b in bodies])
check("inside the walls", allv.min() >= 0 and (allv <= np.array(L)).all(), (allv.min(0), allv.max(0), L))
worst = math.inf
for (i, a), (j, b) in itertools.combinations(enumerate(bodies), 2):
    for P in a[1]:
        for Q in b[1]:
            if np.linalg.norm(P.mean(0) - Q.mean(0)) > np.linalg.norm(P - P.mean(0), axis=1).max() + \
                    np.linalg.norm(Q - Q.mean(0), axis=1).max():
                continue
            worst = min(worst, sat_gap(P, Q))
check("no overlap between pieces (SAT oracle)", worst > -1e-9 * size, worst)
phi_box = sum(1 for _ in bodies)  # count only; the fraction is in the json
# the lid: the top of the box is at the highest body
check("lid on the highest body", abs(allv[:, 2].max() - L[2]) <= 1e-6 * size, (allv[:, 2].max(), L[2]))

# --- the VTK surfaces through meshio: body and piece ids
m = meshio.read(T + "/g.vtk")
body = np.concatenate([np.asarray(c).ravel() for c in m.cell_data["body"]]).astype(int)
piece = np.concatenate([np.asarray(c).ravel() for c in m.cell_data["piece"]]).astype(int)
check("one id per body", sorted(set(body.tolist())) == list(range(16)), sorted(set(body.tolist())))
for k, b in enumerate(bodies):
    got = len(set(piece[body == k].tolist()))
    if got != len(b[1]):
        check("pieces of body %d in the VTK" % k, False, (got, len(b[1])))
        break
else:
    check("pieces per body in the VTK equal the bodies file", True)
tri = np.vstack([c.data for c in m.cells if c.type == "triangle"])
pts = m.points
# every triangle of body k, piece p lies on the hull of that piece: its vertices are piece vertices
okv = True
for k, b in enumerate(bodies):
    for p, P in enumerate(b[1]):
        t = tri[(body == k) & (piece == p)]
        if len(t) == 0:
            okv = False
            continue
        d = np.abs(pts[t.ravel()][:, None, :] - P[None, :, :]).max(2).min(1)
        okv = okv and d.max() <= 1e-9 * size
check("VTK triangles lie on their pieces' vertices", okv)
# closed surfaces: every edge of a piece's triangles is shared by two of them
closed = True
for k in range(16):
    for p in set(piece[body == k].tolist()):
        t = tri[(body == k) & (piece == p)]
        e = np.sort(np.vstack([t[:, [0, 1]], t[:, [1, 2]], t[:, [2, 0]]]), axis=1)
        _, cnt = np.unique(e, axis=0, return_counts=True)
        closed = closed and (cnt == 2).all()
check("each piece surface is closed", closed)

# --- the contacts file: as documented, gap consistent with the witnesses
def read_contacts(path):
    rows = [l.split() for l in open(path) if not l.startswith("#")]
    return [(int(r[0]), int(r[1]), tuple(map(int, r[2:5])), int(r[5]), int(r[6]),
             float(r[7]), np.array(list(map(float, r[8:11]))), np.array(list(map(float, r[11:14]))),
             np.array(list(map(float, r[14:17])))) for r in rows]
head = open(T + "/g.ct").readline().split()
cts = read_contacts(T + "/g.ct")
check("contacts header count", head[:2] == ["#", "contacts"] and int(head[2]) == len(cts), head)
check("some contacts", len(cts) >= 3, len(cts))
for (i, j, sh, ia, ib, s, n, p, q) in cts:
    okc = 0 <= i <= j < 16 and sh == (0, 0, 0) and abs(np.linalg.norm(n) - 1) < 1e-12
    okc = okc and np.linalg.norm(q - p - s * n) <= 1e-9 * size and s > 0
    # pieces ia of i and ib of j: separated by s along n (so their distance is
    # at least s), p and q on their support planes, and no axis of the
    # separating axis test separates them by more than s (the distance bounds
    # every axis separation)
    P, Q = bodies[i][1][ia], bodies[j][1][ib]
    okc = okc and abs((Q @ n).min() - (P @ n).max() - s) <= 1e-9 * size
    okc = okc and abs(p @ n - (P @ n).max()) <= 1e-9 * size and abs(q @ n - (Q @ n).min()) <= 1e-9 * size
    okc = okc and sat_gap(P, Q) <= s + 1e-9 * size
    if not okc:
        check("contact %d-%d" % (i, j), False, (sh, ia, ib, s))
        break
else:
    check("contacts: unit normals, q - p = s n, the pieces apart by s along n, no axis farther", True)

# --- spheres by lid: closed forms
L, sp = read_bodies(T + "/s.txt")
c = np.array([b[1] for b in sp]); r = np.array([b[2] for b in sp])
d = np.linalg.norm(c[:, None] - c[None], axis=2) - r[:, None] - r[None]
np.fill_diagonal(d, np.inf)
check("spheres: no overlap", d.min() > -1e-9, d.min())
check("spheres: inside the walls", ((c - r[:, None]) >= 0).all() and ((c + r[:, None]) <= np.array(L)).all())
check("spheres: lid on the highest", abs((c[:, 2] + r).max() - L[2]) < 1e-6)
cts = read_contacts(T + "/s.ct")
tol = float(open(T + "/s.ct").readline().split()[4])
want = sorted((i, j) for i in range(len(sp)) for j in range(i + 1, len(sp)) if d[i, j] <= tol)
check("sphere contacts: the pairs within tol", sorted((x[0], x[1]) for x in cts) == want, (len(cts), len(want)))
err = max([abs(x[5] - d[x[0], x[1]]) + np.linalg.norm(x[6] - (c[x[1]] - c[x[0]]) / np.linalg.norm(c[x[1]] - c[x[0]]))
           for x in cts] + [0])
check("sphere contacts: gaps and normals (closed form)", err < 1e-12, err)
m = meshio.read(T + "/s.vtk")
body = np.concatenate([np.asarray(x).ravel() for x in m.cell_data["body"]]).astype(int)
check("sphere VTK: 40 bodies", len(set(body.tolist())) == 40)
print("pack-dem-python: %d passed, %d failed" % (check.passed, check.failed))
raise SystemExit(1 if check.failed else 0)
PYEOF
if [ $? -eq 0 ]; then ok; else ko "python checks (meshio, SAT oracle, closed forms)"; fi
lib_finish

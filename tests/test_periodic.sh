#!/bin/sh
# Periodic meshes from the command line, read back by real clients: gmsh's
# Python API (.msh 4.1: $Periodic, physical groups), meshio (.inp, .vtk) and
# an independent parser of the Abaqus *Equation constraints.  Oracles use
# coordinates alone: nothing the mesher reports is trusted.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init periodic
lib_python test_periodic "gmsh, meshio, numpy"
d=$T

# 24 seeds from a fixed linear congruential generator, with weights.
awk 'BEGIN { s = 12345; for (i = 0; i < 24; i++) { for (k = 0; k < 4; k++) {
    s = (s * 1103515245 + 12345) % 2147483648; v[k] = s / 2147483648 }
    printf "%.6f %.6f %.6f %.6f\n", 2 * v[0], v[1], v[2], 0.05 * v[3] } }' >"$d/seeds.txt"
check "mesh periodic seeds" 0 "$RVE" mesh --seeds "$d/seeds.txt" --domain 2,1,1 --periodic \
    --format msh,inp,vtk --pairs "$d/m-pairs.txt" -o "$d/m" -q
# regularised first: still exactly periodic
check "mesh periodic seeds --reg" 0 "$RVE" mesh --seeds "$d/seeds.txt" --domain 2,1,1 --periodic --reg \
    --format msh,inp,vtk --pairs "$d/r-pairs.txt" -o "$d/r" -q
check "mesh --periodic without --seeds" 2 "$RVE" mesh x.tess --periodic -o "$d/x.msh"
check "pairs of a non-periodic mesh" 2 "$RVE" mesh --seeds "$d/seeds.txt" --domain 2,1,1 \
    --pairs "$d/np.txt" -o "$d/np.msh" -q

for stem in m r; do
    check "python oracles on $stem (gmsh, meshio, equations)" 0 "$PY" "$SRC/tests/periodic_oracle.py" "$d/$stem" 2,1,1 24
    cat "$T/out"
done

# ---- end to end (issue 16): rve gen --periodic, rve reg, rve mesh of the
# regularised pieces: still exactly periodic, read back by the same oracles
check "gen periodic" 0 "$RVE" gen -n 40 --domain 1,1,1 --periodic --morpho gg -o "$d/g.tess" -q
check "reg periodic" 0 "$RVE" reg "$d/g.tess" -o "$d/gr.tess" -q --json
ok "reg periodic: short edges reported" 'grep -q "short_edges_after" "$T/out"'
check "reg periodic --map refused" 2 "$RVE" reg "$d/g.tess" -o "$d/x.tess" --map "$d/g.tess" -q
ok "refused reg wrote nothing" '[ ! -e "$d/x.tess" ]'
check "mesh of the regularised periodic tessellation" 0 "$RVE" mesh "$d/gr.tess" --format msh,inp,vtk \
    --pairs "$d/e-pairs.txt" -o "$d/e" -q
check "python oracles on the end-to-end mesh" 0 "$PY" "$SRC/tests/periodic_oracle.py" "$d/e" 1,1,1 40
cat "$T/out"

# ---- the Neper/FEPX flavour (.msh 2.2 with $Periodicity, $NSets, $Fasets):
# read by gmsh, and its sections by an independent parser
check "mesh periodic --format fepx" 0 "$RVE" mesh --seeds "$d/seeds.txt" --domain 2,1,1 --periodic --reg \
    --format msh,fepx -o "$d/f" -q
check "mesh non-periodic --format fepx" 0 "$RVE" mesh --seeds "$d/seeds.txt" --domain 2,1,1 \
    --format fepx -o "$d/n.msh" -q
cat >"$d/fepx.py" <<'PY'
import sys, numpy as np, gmsh
path, periodic = sys.argv[1], sys.argv[2] == "1"
L = np.array([2.0, 1.0, 1.0])
res = []
def ok(name, cond):
    res.append(bool(cond))
    if not cond:
        print("FAIL:", name)
sec = {}
lines = open(path).read().split("\n")
i = 0
while i < len(lines):
    if lines[i].startswith("$") and not lines[i].startswith("$End"):
        name = lines[i][1:]
        j = lines.index("$End" + name, i)
        sec[name] = lines[i + 1:j]
        i = j
    i += 1
ok("format 2.2", sec["MeshFormat"][0].split()[0] == "2.2")
X = {int(l.split()[0]): np.array([float(x) for x in l.split()[1:4]]) for l in sec["Nodes"][1:]}
ok("node count", len(X) == int(sec["Nodes"][0]))
el = [list(map(int, l.split())) for l in sec["Elements"][1:]]
tets = [e for e in el if e[1] == 4]
tris = {e[0]: e for e in el if e[1] == 2}
ok("element count", len(el) == int(sec["Elements"][0]))
ok("24 elsets (grain physical tags)", len(set(e[3] for e in tets)) == 24)
# gmsh reads the file: same tetrahedra
gmsh.initialize(); gmsh.option.setNumber("General.Terminal", 0)
gmsh.open(path)
_, etg, _ = gmsh.model.mesh.getElements(3)
ok("gmsh reads the tetrahedra", sum(len(x) for x in etg) == len(tets))
gmsh.finalize()
P = np.array([[X[n] for n in e[5:9]] for e in tets])
vol = np.einsum("ij,ij->i", P[:, 1] - P[:, 0], np.cross(P[:, 2] - P[:, 0], P[:, 3] - P[:, 0])) / 6
ok("volume = box", abs(vol.sum() - L.prod()) < 1e-9)
# node sets: faces, edges, corners by coordinates
ns = sec["NSets"]
k = 1
sets = {}
while k < len(ns):
    name, n = ns[k], int(ns[k + 1]); k += 2
    ids = []
    while len(ids) < n:
        ids += list(map(int, ns[k].split())); k += 1
    sets[name] = set(ids)
ok("26 node sets", len(sets) == int(ns[0]) == 26)
def on(n, a, s):
    return abs(X[n][a] - s * L[a]) <= 1e-9 * L[a]
good = 0
for name, ids in sets.items():
    cond = [("xyz".index(name[c]), int(name[c + 1])) for c in range(0, len(name), 2)]
    want = set(n for n in X if all(on(n, a, s) for a, s in cond))
    good += ids == want and len(ids) > 0
ok("node sets = nodes on their faces, edges, corners", good == 26)
# face sets: triangles of each face, on it, listed in $Elements
fa = sec["Fasets"]
k = 1; good = 0; nf = 0
while k < len(fa):
    name, n = fa[k], int(fa[k + 1]); k += 2
    a, s = "xyz".index(name[0]), int(name[1])
    rows = [list(map(int, fa[k + r].split())) for r in range(n)]; k += n
    good += n > 0 and all(r[0] in tris and tris[r[0]][5:8] == r[1:4] and all(on(q, a, s) for q in r[1:4]) for r in rows)
    nf += 1
ok("6 face sets of triangles on their faces", nf == 6 and good == 6)
if periodic:
    pr = [list(map(int, l.split())) for l in sec["Periodicity"][1:]]
    ok("pair count", len(pr) == int(sec["Periodicity"][0]) > 0)
    exact = all(all(X[s][a] == (X[m][a] + L[a] if sh[a] else X[m][a]) and (not sh[a] or X[m][a] == 0)
                    for a in range(3)) for s, m, *sh in pr)
    ok("$Periodicity: node = master + shift L exactly", exact)
    upper = set(n for n in X if any(X[n][a] == L[a] for a in range(3)))
    ok("every upper-face node paired once", sorted(p[0] for p in pr) == sorted(upper))
else:
    ok("no $Periodicity without periodicity", "Periodicity" not in sec)
print("fepx: %d passed, %d failed" % (sum(res), len(res) - sum(res)))
sys.exit(0 if all(res) else 1)
PY
check "FEPX .msh of the periodic mesh (gmsh, our parser)" 0 "$PY" "$d/fepx.py" "$d/f-fepx.msh" 1
cat "$T/out"
check "FEPX .msh of the non-periodic mesh (gmsh, our parser)" 0 "$PY" "$d/fepx.py" "$d/n.msh" 0
cat "$T/out"

# ---- short edges left, counted per edge of the periodic RVE (an edge and
# its copies on the opposite box faces once) and as on a tiny cell when any
# copy borders a piece below threshold^3: numpy on the written .tess
# (tests/periodic_short_edges.py).  Seed 1 at --rsel 1.6 leaves 12 short
# edges of pieces, 7 edges of the periodic RVE, all on tiny pieces or their
# copies (9 per copy): counting per copy, or not following the copies, fails
# (main before this change reported 38 (29)).
check "gen periodic 150" 0 "$RVE" gen -n 150 --domain 1,1,1 --periodic --morpho gg --seed 1 -o "$d/s.tess" -q
check "reg periodic --rsel 1.6" 0 "$RVE" reg "$d/s.tess" --rsel 1.6 -o "$d/sr.tess" -q --json
cp "$T/out" "$d/sr.json"
check "short edges per periodic edge, tiny copies included (numpy)" 0 "$PY" \
    "$SRC/tests/periodic_short_edges.py" "$d/sr.tess" "$d/sr.json" 1,1,1 --none-off-tiny
cat "$T/out"
ok "the case has short edges whose copies count apart" \
    'awk "/per periodic edge/ { exit !(\$8 > 0 && \$18 > \$8) }" "$T/out"'
# Seed 4 at --rsel 1.6: the collapses leave short edges on pieces above the
# threshold cube, so the regularisation runs again lengthening them
# (short_edges_stretched > 0, which happens only then); none may be left off
# the tiny pieces, and the pieces must still mesh exactly periodically.
check "gen periodic 150, seed 4" 0 "$RVE" gen -n 150 --domain 1,1,1 --periodic --morpho gg --seed 4 -o "$d/s4.tess" -q
check "reg periodic --rsel 1.6, seed 4" 0 "$RVE" reg "$d/s4.tess" --rsel 1.6 -o "$d/sr4.tess" -q --json
cp "$T/out" "$d/sr4.json"
ok "the second run lengthened edges" '! grep -q "\"short_edges_stretched\":0," "$d/sr4.json"'
check "no short edge off the tiny pieces (numpy)" 0 "$PY" \
    "$SRC/tests/periodic_short_edges.py" "$d/sr4.tess" "$d/sr4.json" 1,1,1 --none-off-tiny
cat "$T/out"
check "mesh of the lengthened pieces" 0 "$RVE" mesh "$d/sr4.tess" --format msh,inp,vtk --pairs "$d/l-pairs.txt" \
    -o "$d/l" -q
check "python oracles on the lengthened pieces' mesh" 0 "$PY" "$SRC/tests/periodic_oracle.py" "$d/l" 1,1,1 150
tail -n 1 "$T/out"

lib_finish

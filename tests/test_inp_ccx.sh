#!/bin/sh
# Abaqus .inp solved by CalculiX (ccx, a real reader of Abaqus decks), checked
# against closed forms (tests/ccx_periodic.py):
#  - periodic RVE, one isotropic material, macroscopic displacement gradient H
#    through RP_X/RP_Y/RP_Z and the *Equation sets: u = H (x - x0) at every node;
#  - periodic RVE, a different modulus per grain: volume-averaged strain = sym(H);
#  - non-periodic mesh, u = H x on the face sets X0..Z1: affine at every node.
# Each check is shown able to fail: a deck with one *Equation removed, or one
# node left out of a face set, must be refused by the same oracle.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init inp_ccx
lib_python inp_ccx "numpy"
command -v ccx >/dev/null 2>&1 || { echo "SKIP inp_ccx: no ccx (Debian package calculix-ccx)"; exit 77; }
ORACLE="$SRC/tests/ccx_periodic.py"

solve() { # description, expected status (0 pass, 1 oracle refuses), mesh, case
    rm -rf "$T/w" && mkdir "$T/w"
    check "$1" "$2" "$PY" "$ORACLE" "$3" "$T/w" "$4"
    sed 's/^/  /' "$T/out"
}

n=20 cl=0.2
[ -n "${RVE_TEST_LONG:-}" ] && n=200 cl=0.1
check "gen periodic" 0 "$RVE" gen -n $n --periodic --seed 2 --ori random -o "$T/p.tess"
check "mesh periodic .inp" 0 "$RVE" mesh "$T/p.tess" --reg --cl $cl --format inp -o "$T/p.inp"
check "gen" 0 "$RVE" gen -n $n --seed 3 --ori random -o "$T/b.tess"
check "mesh .inp" 0 "$RVE" mesh "$T/b.tess" --reg --cl $cl --format inp -o "$T/b.inp"

solve "periodic, homogeneous: u = H (x - x0)" 0 "$T/p.inp" affine
solve "periodic, a modulus per grain: <eps> = sym(H)" 0 "$T/p.inp" average
solve "non-periodic, u = H x on the face sets: affine" 0 "$T/b.inp" faces

# the oracles can fail: one *Equation (3 lines) dropped; one X1 node dropped
"$PY" - "$T/p.inp" "$T/p_cut.inp" "$T/b.inp" "$T/b_cut.inp" <<'PYEOF'
import sys
lines = open(sys.argv[1]).read().split("\n")
k = [i for i, l in enumerate(lines) if l.startswith("*Equation")]
i = k[len(k) // 2]
open(sys.argv[2], "w").write("\n".join(lines[:i] + lines[i + 3:]))
lines = open(sys.argv[3]).read().split("\n")
sets, cur = {}, None
for i, l in enumerate(lines):
    if l.startswith("*"):
        cur = l.split("nset=")[1] if l.startswith("*Nset") else None
        sets[cur] = (i + 1, [])
    elif cur:
        sets[cur][1].extend(int(v) for v in l.split(",") if v.strip())
others = set().union(*[sets[f][1] for f in ("X0", "Y0", "Y1", "Z0", "Z1")])
start, x1 = sets["X1"]
drop = [v for v in x1 if v not in others][0]  # on face X1 only
i = start
while not lines[i].startswith("*"):
    ids = [v for v in lines[i].split(",") if v.strip() and int(v) != drop]
    lines[i] = ", ".join(v.strip() for v in ids)
    i += 1
open(sys.argv[4], "w").write("\n".join(l for l in lines if l != ""))
PYEOF
solve "mutation: an *Equation dropped is seen" 1 "$T/p_cut.inp" affine
solve "mutation: a face-set node dropped is seen" 1 "$T/b_cut.inp" faces
lib_finish

#!/bin/sh
# gmsh .msh read by PETSc's DMPlex (petsc4py; the reader of DAMASK's mesh
# solver and other PETSc codes), checked by tests/petsc_msh.py against gmsh's
# own reading and exact counts: cells, vertices after the periodic
# identification, the Euler characteristic of the complex PETSc built (0 for
# a periodic RVE: a 3-torus, only if PETSc glued the faces through $Periodic;
# 1 for a plain box) and one "Cell Sets" stratum per grain.  The same check
# refuses a periodic mesh whose $Periodic section was removed.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init msh_petsc
lib_python msh_petsc "numpy, gmsh"
# Debian's petsc4py.pth looks under $PETSC_DIR (default /usr/lib/petsc, set
# up only with petsc-dev): point it at the installed real build
if [ -z "${PETSC_DIR:-}" ]; then
    for d in /usr/lib/petscdir/petsc*/x86_64-linux-gnu-real /usr/lib/petscdir/petsc*/*-real; do
        [ -d "$d/lib/python3/dist-packages/petsc4py" ] && { PETSC_DIR=$d; export PETSC_DIR; break; }
    done
fi
"$PY" -c "import petsc4py" 2>/dev/null || { echo "SKIP msh_petsc: no petsc4py (Debian package python3-petsc4py)"; exit 77; }

read_petsc() { # description, expected status, mesh, periodic|plain
    check "$1" "$2" "$PY" "$SRC/tests/petsc_msh.py" "$3" "$4"
    sed 's/^/  /' "$T/out"
}

n=20 cl=0.2
[ -n "${RVE_TEST_LONG:-}" ] && n=300 cl=0.08
check "gen periodic" 0 "$RVE" gen -n $n --periodic --seed 4 --ori random -o "$T/p.tess"
check "mesh periodic" 0 "$RVE" mesh "$T/p.tess" --reg --cl $cl -o "$T/p.msh"
check "gen" 0 "$RVE" gen -n $n --seed 5 -o "$T/b.tess"
check "mesh" 0 "$RVE" mesh "$T/b.tess" --reg --cl $cl -o "$T/b.msh"
read_petsc "periodic RVE read by PETSc as a 3-torus" 0 "$T/p.msh" periodic
read_petsc "plain mesh read by PETSc as a ball" 0 "$T/b.msh" plain
sed '/^\$Periodic$/,/^\$EndPeriodic$/d' "$T/p.msh" >"$T/cut.msh"
read_petsc "mutation: without \$Periodic the periodic check fails" 1 "$T/cut.msh" periodic
lib_finish

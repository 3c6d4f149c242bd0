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

lib_finish

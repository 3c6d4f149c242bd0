#!/bin/sh
# Distributed tessellation (issue 20, docs/mpi.md): mpirun -np P rve tess
# -o CELLS.h5 writes per-cell volumes and neighbour lists.  Oracle: the
# serial program's .tess of the same seeds, read by the independent Neper
# reader tests/neper_tess_check.py (volumes by the divergence theorem over
# its faces, neighbours as the polyhedra sharing a face), to 1e-9 (the
# .tess prints 12-13 digits); and the runs at P = 2, 3, 4 against P = 1 to
# 1e-12 relative (only the clipping order of the cells changes).  Voronoi
# (-n) and Laguerre (--seeds with weights); faults.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init mpi_tess
lib_mpi mpi_tess
lib_python mpi_tess "h5py, numpy"
cd "$T" || exit 1
cat >cmp.py <<'PY'
# cmp.py TESS|H5 H5 TOL: volumes (relative) and neighbour lists
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[4])
def from_h5(p):
    with h5py.File(p, "r") as f:
        v = f["volume"][()]; d = f["degree"][()]; nb = f["neighbours"][()]
    if nb.ndim == 1: nb = nb.reshape(len(v), -1)
    return v, [sorted(int(x) for x in nb[i, :d[i]]) for i in range(len(v))]
def from_tess(p):
    from mpi_tess_oracle import tess_cells
    v, nb = tess_cells(p)
    return np.array(v), nb
a = from_tess(sys.argv[1]) if sys.argv[1].endswith(".tess") else from_h5(sys.argv[1])
b = from_h5(sys.argv[2]); tol = float(sys.argv[3])
if len(a[0]) != len(b[0]): sys.exit("cell counts %d and %d" % (len(a[0]), len(b[0])))
e = np.max(np.abs(a[0] - b[0]) / np.abs(a[0]))
if not e <= tol: sys.exit("volumes differ by %.3g relative" % e)
bad = [i for i in range(len(a[1])) if a[1][i] != b[1][i]]
if bad: sys.exit("neighbours of %d cells differ (cell %d: %s vs %s)" % (len(bad), bad[0] + 1, a[1][bad[0]], b[1][bad[0]]))
PY
cmp() { # description, reference, file, tolerance
    if "$PY" cmp.py "$2" "$3" "$4" "$SRC/tests" >cmp.err 2>&1; then ok; else ko "$1: $(cat cmp.err)"; fi
}
# Voronoi, a flat box (slabs thinner than a cell at P = 4)
check "serial .tess (oracle)" 0 "$RVE" tess -n 300 --rng-seed 21 --domain 1,1.5,0.6 -o v.tess
for p in 1 2 3 4; do
    check "cell table -np $p" 0 mpi $p tess -n 300 --rng-seed 21 --domain 1,1.5,0.6 -o v$p.h5 --json
    cmp "Voronoi -np $p against the serial .tess" v.tess v$p.h5 1e-9
    [ $p -gt 1 ] && cmp "Voronoi -np $p against -np 1" v1.h5 v$p.h5 1e-12
    absent "no temporary (-np $p)" v$p.h5.rve-tmp
done
grep_f "JSON names the ranks" '"ranks":4' "$T/out"
# Laguerre: weights from a file
"$PY" -c "
import numpy as np
r = np.random.default_rng(5)
np.savetxt('ls.txt', np.column_stack([r.random((250, 3)) * [1, 1, 1.3], r.random(250) * 0.07]), fmt='%.17g')"
check "serial Laguerre .tess" 0 "$RVE" tess --seeds ls.txt --domain 1,1,1.3 -o l.tess
for p in 1 2 3 4; do
    check "Laguerre cell table -np $p" 0 mpi $p tess --seeds ls.txt --domain 1,1,1.3 -o l$p.h5
    cmp "Laguerre -np $p against the serial .tess" l.tess l$p.h5 1e-9
    [ $p -gt 1 ] && cmp "Laguerre -np $p against -np 1" l1.h5 l$p.h5 1e-12
done
# refusals and faults
check "cell table without mpirun refused" 2 "$RVE" tess -n 10 -o x.h5
absent "nothing written" x.h5
check "a .tess under -np 2 refused" 2 mpi 2 tess -n 10 -o x.tess
absent "no .tess" x.tess
check "periodic cell table refused" 2 mpi 2 tess -n 10 --periodic -o x.h5
check "seeds outside the box: every rank stops" 1 mpi 3 tess --seeds ls.txt --domain 0.5 -o y.h5
one_line "bad seeds: one line"
absent "bad seeds: no file" y.h5
lib_finish

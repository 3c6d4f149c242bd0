#!/bin/sh
# Distributed prescribed volumes (issue 20, docs/mpi.md): mpirun -np P rve
# gen --volumes V -o CELLS.h5 solves the semi-discrete transport problem with
# each rank building only its slab's cells.  Oracles, independent of the
# distributed code:
#  - the prescribed targets: the seeds and weights the run wrote are
#    tessellated again by the serial program (rve tess --seeds, one process)
#    and the volumes of that .tess, computed by the independent Neper reader
#    tests/neper_tess_check.py (divergence theorem over its faces), meet the
#    tolerance 1e-3 against the targets of V scaled to the box;
#  - the serial solver (rve gen --volumes, no mpirun) on the same seeds: its
#    volumes meet the same tolerance, and the distributed volumes equal them
#    to 1e-6 relative (the same Newton steps; only the order of sums differs);
#  - the cell table's own volumes equal the .tess ones to 1e-9.
# P = 1, 2, 3, 4; faults: a bad volume on every rank, periodic refused.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init mpi_pvol
lib_mpi mpi_pvol
lib_python mpi_pvol "h5py, numpy"
export OMP_NUM_THREADS=1
cd "$T" || exit 1
"$PY" -c "
import numpy as np
np.savetxt('v.txt', np.random.default_rng(3).lognormal(0, 0.5, 300), fmt='%.17g')"
D=1,1,1.3
cat >seeds.py <<'PY'
# seeds.py H5 OUT: the seeds x y z w of the cell table as a seed file
import sys, h5py, numpy as np
with h5py.File(sys.argv[1], "r") as f:
    np.savetxt(sys.argv[2], f["seeds"][()], fmt="%.17g")
PY
cat >vols.py <<'PY'
# vols.py V.txt SERIAL_VALUES TESS H5 SRC/tests [SEEDTOL]: targets, serial and
# distributed volumes; seed positions equal to the serial ones (to SEEDTOL
# when given: after Lloyd steps the centroids come from other clipping orders)
import sys, h5py, numpy as np
sys.path.insert(0, sys.argv[5])
from mpi_tess_oracle import tess_cells
def tess_volumes(p):
    return np.array(tess_cells(p)[0])
t = np.loadtxt(sys.argv[1]); t = t * (1 * 1 * 1.3) / t.sum()
ser = np.loadtxt(sys.argv[2]); vs = ser[:, 5]
vt = tess_volumes(sys.argv[3])
with h5py.File(sys.argv[4], "r") as f:
    vh = f["volume"][()]; s = f["seeds"][()]
err = []
e = np.max(np.abs(vt - t) / t)
if not e <= 1e-3: err.append("volumes of the re-tessellated result off the targets by %.3g" % e)
e = np.max(np.abs(vs - t) / t)
if not e <= 1e-3: err.append("serial volumes off the targets by %.3g" % e)
e = np.max(np.abs(vt - vs) / t)
if not e <= 1e-6: err.append("distributed and serial volumes differ by %.3g relative" % e)
e = np.max(np.abs(vh - vt) / vt)
if not e <= 1e-9: err.append("cell table and .tess volumes differ by %.3g" % e)
if len(sys.argv) > 6:
    e = np.max(np.abs(s[:, :3] - ser[:, 1:4]))
    if not e <= float(sys.argv[6]): err.append("seed positions differ from the serial run's by %.3g" % e)
elif not np.array_equal(s[:, :3], ser[:, 1:4]): err.append("seed positions differ from the serial run's")
if err: sys.exit("; ".join(err))
PY
check "serial --volumes" 0 "$RVE" gen --volumes v.txt --domain $D --seed 5 -o s.tess --values s.txt
for p in 1 2 3 4; do
    check "--volumes -np $p" 0 mpi $p gen --volumes v.txt --domain $D --seed 5 -o m$p.h5 --json
    grep_f "JSON names the ranks (-np $p)" "\"ranks\":$p" "$T/out"
    if "$PY" seeds.py m$p.h5 w$p.txt 2>py.err && "$RVE" tess --seeds w$p.txt --domain $D -o w$p.tess 2>>py.err &&
        "$PY" vols.py v.txt s.txt w$p.tess m$p.h5 "$SRC/tests" >>py.err 2>&1; then ok
    else ko "volumes -np $p: $(cat py.err)"; fi
    absent "no temporary (-np $p)" m$p.h5.rve-tmp
done
# --lloyd 2: two Lloyd steps, each followed by a solve, as the serial run
check "serial --volumes --lloyd 2" 0 "$RVE" gen --volumes v.txt --domain $D --seed 5 --lloyd 2 -o sl.tess --values sl.txt
for p in 1 2 3; do
    check "--volumes --lloyd 2 -np $p" 0 mpi $p gen --volumes v.txt --domain $D --seed 5 --lloyd 2 -o ml$p.h5
    if "$PY" seeds.py ml$p.h5 wl$p.txt 2>py.err && "$RVE" tess --seeds wl$p.txt --domain $D -o wl$p.tess 2>>py.err &&
        "$PY" vols.py v.txt sl.txt wl$p.tess ml$p.h5 "$SRC/tests" 1e-9 >>py.err 2>&1; then ok
    else ko "--lloyd 2 -np $p: $(cat py.err)"; fi
done
# faults: every rank stops with one line, nothing written
printf '1\n2\n-3\n4\n' >bad.txt
check "a negative volume (-np 2)" 1 mpi 2 gen --volumes bad.txt --domain $D -o bad.h5
absent "no output after the failure" bad.h5
check "periodic refused (-np 2)" 2 mpi 2 gen --volumes v.txt --domain $D --periodic -o per.h5
check "no --count and no .h5 refused (-np 2)" 2 mpi 2 gen --volumes v.txt --domain $D -o per.tess
lib_finish

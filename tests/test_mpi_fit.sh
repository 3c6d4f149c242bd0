#!/bin/sh
# Distributed fit (issue 20, docs/mpi.md): mpirun -np P rve fit MAP -o
# OUT.tess fits by z slabs (rve_mpi_fit).  Oracles, independent of the
# distributed code:
#  - the serial fit (rve fit, one process) of the same map with the same
#    options: the distributed accuracy is within 0.1 point of it (or above);
#    at P = 1 the .tess is the serial one, byte for byte;
#  - tests/mpi_fit_oracle.py: the accuracy of the written .tess, from its
#    *seed and *id sections by a numpy brute force over all seeds, equals the
#    accuracy the run reports (summed over the ranks' slabs) to 1e-9, and so
#    does the serial `rve raster OUT.tess --like MAP` read with h5py.
# A small synthetic map (rve raster of an rve gen tessellation) at P = 1..4;
# the bundled data/dct/dct.tif at P = 1..4 with RVE_TEST_LONG=1.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init mpi_fit
lib_mpi mpi_fit
lib_python mpi_fit "h5py, numpy"
export OMP_NUM_THREADS=1
cd "$T" || exit 1
jget() { # jget FILE KEY: a number of a JSON summary
    "$PY" -c "import json, sys; print(repr(float(json.load(open(sys.argv[1]))[sys.argv[2]])))" "$1" "$2"
}
# within A B TOL: |A - B| <= TOL; below A B TOL: A >= B - TOL
within() { "$PY" -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(0 if abs(a - b) <= t else 1)" "$@"; }
notbelow() { "$PY" -c "import sys; a, b, t = map(float, sys.argv[1:]); sys.exit(0 if a >= b - t else 1)" "$@"; }

# fit_case MAP MAP.dream3d NAME PS OPTS...: serial fit of MAP, then the
# distributed fit at every P of PS, each checked against the serial accuracy
# and the oracle (which reads the same map as MAP.dream3d)
fit_case() {
    map=$1 omap=$2 name=$3 ps=$4; shift 4
    check "$name: serial fit" 0 "$RVE" fit "$map" -o "$name-s.tess" --no-report -q --json "$@"
    cp "$T/out" "$name-s.json"
    as=$(jget "$name-s.json" voxel_accuracy_final)
    for p in $ps; do
        check "$name: fit -np $p" 0 mpi "$p" fit "$map" -o "$name-$p.tess" -q --json "$@"
        cp "$T/out" "$name-$p.json"
        grep_f "$name: JSON names the ranks (-np $p)" "\"ranks\":$p" "$name-$p.json"
        ap=$(jget "$name-$p.json" accuracy)
        ok "$name -np $p: accuracy $ap within 0.1 point of the serial $as (or above)" "notbelow $ap $as 0.001"
        if "$RVE" raster "$name-$p.tess" --like "$map" -o "$name-r$p.dream3d" -q 2>py.err &&
            "$PY" "$SRC/tests/mpi_fit_oracle.py" "$omap" "$name-$p.tess" "$name-r$p.dream3d" >orc.txt 2>>py.err; then
            ab=$(sed -n 's/^brute //p' orc.txt) ar=$(sed -n 's/^raster //p' orc.txt)
            ok "$name -np $p: oracle brute force $ab = reported $ap" "within $ab $ap 1e-9"
            ok "$name -np $p: serial raster of the .tess $ar = reported $ap" "within $ar $ap 1e-9"
        else ko "$name -np $p: oracle: $(cat py.err)"; fi
        absent "$name: no history nor report under mpirun (-np $p)" "$name-$p.csv"
    done
    case " $ps " in *" 1 "*) same "$name: -np 1 writes the serial .tess" "$name-s.tess" "$name-1.tess" ;; esac
}

"$RVE" gen -n 50 --seed 4 -o g.tess -q && "$RVE" raster g.tess --grid 36,36,36 -o syn.dream3d -q ||
    { echo "mpi_fit: could not make the synthetic map"; exit 1; }
fit_case syn.dream3d syn.dream3d syn "1 2 3 4" -j 1 --polish 6 --hinge 100 --classify 50

# faults: every rank stops with one line (exit 1), nothing written
printf 'not a map' >bad.tif
check "--history refused under mpirun (-np 2)" 2 mpi 2 fit syn.dream3d -o h.tess --history h.csv
absent "no output after the refusal" h.tess
check "a bad map (-np 2)" 1 mpi 2 fit bad.tif -o bad.tess
one_line "a bad map: one line"
grep_f "a bad map: the line names the file" "bad.tif" "$T/err"
absent "no output after the failure" bad.tess

if [ -n "${RVE_TEST_LONG:-}" ]; then
    DCT=$SRC/data/dct
    if [ -f "$DCT/dct.tif" ] && [ -f "$DCT/dct.dream3d" ]; then
        fit_case "$DCT/dct.tif" "$DCT/dct.dream3d" dct "1 2 3 4" -j 1
    else echo "mpi_fit: no $DCT/dct.tif, dct case skipped"; fi
fi
lib_finish

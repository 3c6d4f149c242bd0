#!/bin/sh
# bench_load.sh - the parallel commands beside one busy process (issue 18).
# Each command runs -j 2 alone, -j 2 beside a CPU hog (one busy loop), -j 1
# beside the hog, and -j 2 beside the hog with OMP_WAIT_POLICY=active (the
# spinning the program now avoids).  Target: "-j 2 + hog" no slower than
# "-j 1 + hog".  Wall seconds, best of $REPS (default 1) runs.
# On a loaded machine the figures are noisy: read the ratios, not the times.
RVE=${RVE:-./rve}
REPS=${REPS:-1}
T=$(mktemp -d /tmp/rve-bench-load-XXXXXX)
hog=""
trap '[ -n "$hog" ] && kill $hog 2>/dev/null; rm -rf "$T"' EXIT
DCT="${RVE_SRCDIR:-.}/data/dct/dct.tif"
if [ ! -f "$DCT" ]; then
    "$RVE" convert -q --synth "$T/dct.tif" --size 100,100,100 --seeds 360 || exit 1
    DCT="$T/dct.tif"
fi
now() { date +%s.%N; }
# secs: best wall time of REPS runs of the command
secs() {
    best=""
    r=0
    while [ $r -lt "$REPS" ]; do
        r=$((r + 1))
        t0=$(now)
        "$@" >/dev/null 2>&1 || { echo "FAILED"; return; }
        t1=$(now)
        best=$(awk -v a="$t0" -v b="$t1" -v c="$best" 'BEGIN { d = b - a; if (c == "" || d < c) c = d; printf "%.2f", c }')
    done
    echo "$best"
}
# inputs: a fit and its regularisation (made once, not timed)
"$RVE" fit -q "$DCT" -o "$T/fit.tess" --no-report --sweeps 2 --polish 2 || exit 1
"$RVE" reg -q "$T/fit.tess" -o "$T/reg.tess" --map "$DCT" || exit 1

printf '%-8s %9s %9s %9s %9s %10s %12s\n' command "idle -j2" "hog -j2" "hog -j1" "hog active" "hog/idle" "hog -j2/-j1"
bench() { # name, command... (the thread option is added here)
    name=$1
    shift
    idle=$(secs "$@" -j 2)
    sh -c 'while :; do :; done' &
    hog=$!
    loaded=$(secs "$@" -j 2)
    one=$(secs "$@" -j 1)
    active=$(export OMP_WAIT_POLICY=active; secs "$@" -j 2)
    kill $hog 2>/dev/null
    wait $hog 2>/dev/null
    hog=""
    awk -v n="$name" -v i="$idle" -v l="$loaded" -v o="$one" -v a="$active" 'BEGIN {
        printf "%-8s %9s %9s %9s %9s %9.2fx %11.2fx\n", n, i, l, o, a, (i > 0 ? l / i : 0), (o > 0 ? l / o : 0) }'
}
bench fit "$RVE" fit -q "$DCT" -o "$T/f2.tess" --no-report --sweeps 2 --polish 2
bench reg "$RVE" reg -q "$T/fit.tess" -o "$T/r2.tess" --map "$DCT"
bench gen "$RVE" gen -q -n 300 --domain 1,1,1 --morpho 'size:lognormal(1,0.35)' -o "$T/g.tess"
bench tess "$RVE" tess -q -n 20000 -o "$T/t.tess"
bench raster "$RVE" raster -q "$T/fit.tess" --like "$DCT" -o "$T/r.tif"
bench mesh "$RVE" mesh -q "$T/reg.tess" -o "$T/m.msh"

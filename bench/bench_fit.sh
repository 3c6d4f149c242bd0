#!/bin/sh
# bench_fit.sh - fit speed and accuracy (issues 7 and 19): CPU seconds per
# stage and voxel accuracy for the bundled data/dct and every grain map of
# ../shared/data that `rve fit` reads, then SV vs Johnson on in100-a and a
# synthetic ~2500-grain 200^3 map (BENCH_FIT_BIG=1 only: 10 minutes).
#
# CPU seconds are the process's (CLOCK_PROCESS_CPUTIME_ID, from the
# `cpu_seconds` object of `rve fit --json`), attributed to the stage that
# reported next; they count the work of all threads, so they depend far
# less on the machine's load than wall seconds (both are printed, with the
# load).  Threads: BENCH_THREADS (default 1, so that CPU = wall when idle).
# Peer figures (Neper 4.10 on in100-a: 80.28 % in 837 s) are in
# ../shared/anchors.md.
RVE=${RVE:-./rve}
SRC=${RVE_SRCDIR:-..}
SHARED=${RVE_SHARED_DATA:-$SRC/../shared/data}
TH=${BENCH_THREADS:-1}
T=$(mktemp -d /tmp/rve-bench-fit-XXXXXX)
trap 'rm -rf "$T"' EXIT
j() { sed -n "s/.*\"$2\":\([^,}]*\).*/\1/p" "$1"; }
row() { # name json
    printf '%-34s %8s s  accuracy %s -> %s  objective %s -> %s  empty %s\n' "$1" "$(j "$2" seconds)" \
        "$(j "$2" voxel_accuracy_initial)" "$(j "$2" voxel_accuracy_final)" \
        "$(j "$2" objective_initial)" "$(j "$2" objective_final)" "$(j "$2" empty_cells)"
}
# one line per map: stage CPU seconds, wall seconds, accuracy per stage
stage_row() { # name json
    python3 - "$1" "$2" <<'EOF'
import json, sys
name, path = sys.argv[1], sys.argv[2]
d = json.load(open(path))
c = d.get("cpu_seconds", {})
acc = {s["stage"]: s["voxel_accuracy"] for s in d.get("stages", [])}
f = lambda k: "%7.1f" % c[k] if k in c else "      -"
a = lambda k: "%7.3f" % (100 * acc[k]) if k in acc else "      -"
print("%-18s %5d | %s %s %s %s %s %s | %s %7.1f | %s %s %s %s" % (
    name, d["cells"], f("initial"), f("eq6.5"), f("surrogate"), f("classify"), f("polish"), f("other"),
    f("total"), d["seconds"], a("initial"), a("eq6.5"), a("classify"), a("polish")))
EOF
}
echo "bench_fit: $(date -u '+%Y-%m-%d %H:%M UTC'), $(uname -m) $(nproc) cores," \
    "$(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -1)," \
    "commit $(git -C "$SRC" rev-parse --short HEAD 2>/dev/null || echo unknown), threads $TH"
echo "load at start: $(uptime | sed "s/.*load average: //")"
echo "map                cells |  CPU s: initial  eq6.5 surrog. classif. polish  other |   total  wall s | accuracy %: initial  eq6.5 classify final"
for map in "$SRC/data/dct/dct.tif" "$SHARED"/*.tif "$SHARED"/neper/*.tesr "$SHARED"/pymicro/*.h5; do
    [ -f "$map" ] || continue
    name=$(basename "$map" | sed 's/\.[^.]*$//')
    if "$RVE" fit "$map" -o "$T/$name.tess" --no-report -q --json -j "$TH" > "$T/$name.json" 2> "$T/$name.err"; then
        stage_row "$name" "$T/$name.json"
    else
        echo "$name: not fitted ($(head -1 "$T/$name.err"))"
    fi
done
echo "load at end: $(uptime | sed "s/.*load average: //")"
IN="$SHARED/in100-a.tif"
if [ -f "$IN" ]; then
    for sub in sv johnson; do
        "$RVE" fit "$IN" -o "$T/in100-$sub.tess" --no-report -q --json --sub $sub --res 2 --evals 25 --sweeps 8 \
            > "$T/in100-$sub.json" && row "in100-a --sub $sub" "$T/in100-$sub.json"
    done
    echo "in100-a SV/Johnson time ratio: $(awk -v a="$(j "$T/in100-sv.json" seconds)" -v b="$(j "$T/in100-johnson.json" seconds)" 'BEGIN{printf "%.2f", a/b}')"
    echo "Neper 4.10 defaults (anchors): 837 s, 80.28 %, 2 empty cells"
else
    echo "in100-a: skipped (../shared/data absent)"
fi
if [ "${BENCH_FIT_BIG:-0}" = 1 ]; then
    if "$RVE" convert --synth --size 200,200,200 --seeds 2500 "$T/big.tif" -q 2>/dev/null; then
        "$RVE" fit "$T/big.tif" -o "$T/big.tess" --no-report -q --json --res 2 --max-time 600 > "$T/big.json" &&
            row "synthetic 200^3 (--res 2, cap 600 s)" "$T/big.json"
    else
        echo "synthetic 200^3: skipped (rve convert --synth failed)"
    fi
else
    echo "synthetic 200^3: skipped (BENCH_FIT_BIG=1 runs it, 10 minutes)"
fi

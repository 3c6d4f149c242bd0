#!/bin/sh
# The openGJK comparison by transfer (docs/dist.md, "Benchmark and the
# transfer to openGJK").  openGJK is not packaged for Debian and is not to be
# copied, so its figures in ../shared/anchors.md (measured elsewhere, beside
# the kernels of commit THEN, the "rve default" there) are carried over:
#     est. ours/openGJK = (ours now / ours THEN, same run, same mode)
#                         x (anchors' rve / anchors' openGJK).
# Builds bench/bench_dist twice, statically with the kernels of this tree and
# of THEN (-DBENCH_THEN), runs R run pairs pinned to one core (posed bodies,
# then bare vertex arrays), and prints the estimate per row.
# Run from the build directory after `make bench/bench_dist`:
#     sh ../bench/dist_transfer.sh          (R = 2, THEN = dfe3362, core 1)
# Environment: RVE_TRANSFER_RUNS (R), RVE_TRANSFER_THEN, RVE_TRANSFER_CPU,
# RVE_PEER_LIBS (the peers' link flags; default: Bullet float64, FCL, libccd).
set -e
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(pwd)
runs=${RVE_TRANSFER_RUNS:-2}
then_rev=${RVE_TRANSFER_THEN:-dfe3362}
cpu=${RVE_TRANSFER_CPU:-1}
libs=${RVE_PEER_LIBS:-"-lBulletSoftBody-float64 -lBulletDynamics-float64 -lBulletCollision-float64 -lLinearMath-float64 -lfcl -lccd -loctomap -loctomath"}
peers=$build/bench/bench_dist-bench_dist_peers.o
if [ ! -f "$peers" ] || [ ! -f "$build/config.h" ]; then
    echo "dist_transfer: run from the build directory after 'make bench/bench_dist'" >&2
    exit 2
fi
if ! git -C "$src" cat-file -e "$then_rev^{commit}" 2>/dev/null; then
    echo "dist_transfer: skipped: commit $then_rev is not in $src (a clone with history is needed)"
    exit 0
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dist_transfer.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM HUP
mkdir "$tmp/then"
git -C "$src" archive "$then_rev" include src | tar -x -C "$tmp/then"
build_bench() { # tree out [flags]
    tree=$1 out=$2
    shift 2
    gcc -std=c11 -D_GNU_SOURCE -DHAVE_CCD "$@" -O2 -I"$tree/include" -I"$tree/src" -I"$build" -I"$src/bench" \
        "$src/bench/bench_dist.c" "$tree"/src/dist/*.c "$tree/src/util/err.c" "$tree/src/util/afile.c" \
        "$peers" -lstdc++ $libs -lqhull_r -lm -o "$out"
}
build_bench "$src" "$tmp/now"
build_bench "$tmp/then" "$tmp/then_bin" -DBENCH_THEN
echo "dist_transfer: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$src" describe --always --dirty), then $then_rev, core $cpu, load $(cut -d' ' -f1-3 /proc/loadavg)"
r=1
while [ "$r" -le "$runs" ]; do
    nice taskset -c "$cpu" "$tmp/now" >"$tmp/now_posed_$r"
    RVE_BENCH_DIST_OURS=1 nice taskset -c "$cpu" "$tmp/then_bin" >"$tmp/then_posed_$r"
    RVE_BENCH_DIST_OURS=1 RVE_BENCH_DIST_WORLD=1 nice taskset -c "$cpu" "$tmp/now" >"$tmp/now_world_$r"
    RVE_BENCH_DIST_OURS=1 RVE_BENCH_DIST_WORLD=1 nice taskset -c "$cpu" "$tmp/then_bin" >"$tmp/then_world_$r"
    r=$((r + 1))
done
echo "dist_transfer: done, load $(cut -d' ' -f1-3 /proc/loadavg)"
python3 "$src/bench/dist_transfer_est.py" "$tmp" "$runs"

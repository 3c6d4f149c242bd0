#!/bin/sh
# The openGJK comparison run directly, when the user has openGJK's source.
# openGJK is not packaged for Debian and is never copied into this project;
# point OPENGJK_SRC at a checkout of https://github.com/MattiaMontanari/openGJK
# (its scalar/ folder, or an older tree with openGJK.c at the top) and this
# builds bench/bench_dist with an "openGJK" column (openGJK at -O2, as the
# issue's figures were measured; ours at -O3, the library's default flags),
# then runs it pinned to one core, posed bodies and bare vertex arrays.
# Without OPENGJK_SRC it says so and exits 0.
# Run from the build directory after `make bench/bench_dist`:
#     OPENGJK_SRC=$HOME/openGJK sh ../bench/dist_opengjk.sh
# Environment: RVE_OPENGJK_CPU (core, default 1), RVE_BENCH_DIST_MAXN,
# RVE_OPENGJK_CFLAGS (openGJK's flags, default -O2; its own CMake release
# build uses "-O3 -finline-functions"), RVE_OURS_CFLAGS (default -O3),
# RVE_PEER_LIBS (the peers' link flags; default: Bullet float64, FCL, libccd).
set -e
src=$(cd "$(dirname "$0")/.." && pwd)
build=$(pwd)
cpu=${RVE_OPENGJK_CPU:-1}
ogflags=${RVE_OPENGJK_CFLAGS:--O2}
ourflags=${RVE_OURS_CFLAGS:--O3}
libs=${RVE_PEER_LIBS:-"-lBulletSoftBody-float64 -lBulletDynamics-float64 -lBulletCollision-float64 -lLinearMath-float64 -lfcl -lccd -loctomap -loctomath"}
peers=$build/bench/bench_dist-bench_dist_peers.o
if [ -z "$OPENGJK_SRC" ]; then
    echo "dist_opengjk: skipped: set OPENGJK_SRC to a checkout of openGJK (not packaged, not copied here)"
    exit 0
fi
og=
for d in "$OPENGJK_SRC/scalar" "$OPENGJK_SRC/lib" "$OPENGJK_SRC"; do
    for f in "$d/openGJK.c" "$d/src/openGJK.c"; do
        if [ -z "$og" ] && [ -f "$f" ] && [ -f "$d/include/openGJK/openGJK.h" ]; then og=$f inc=$d/include; fi
    done
done
if [ -z "$og" ]; then
    echo "dist_opengjk: $OPENGJK_SRC: no openGJK.c beside include/openGJK/openGJK.h" >&2
    exit 2
fi
if [ ! -f "$peers" ] || [ ! -f "$build/config.h" ]; then
    echo "dist_opengjk: run from the build directory after 'make bench/bench_dist'" >&2
    exit 2
fi
tmp=$(mktemp -d "${TMPDIR:-/tmp}/dist_opengjk.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM HUP
# shellcheck disable=SC2086
gcc -std=c11 $ogflags -I"$inc" -c "$og" -o "$tmp/openGJK.o"
# shellcheck disable=SC2086
gcc -std=c11 -D_GNU_SOURCE -DHAVE_CCD -DHAVE_OPENGJK $ourflags -I"$inc" -I"$src/include" -I"$src/src" -I"$build" -I"$src/bench" \
    "$src/bench/bench_dist.c" "$src"/src/dist/*.c "$src/src/util/err.c" "$src/src/util/afile.c" \
    "$tmp/openGJK.o" "$peers" -lstdc++ $libs -lqhull_r -lm -o "$tmp/bench_dist"
echo "dist_opengjk: $(date -u '+%Y-%m-%d %H:%M UTC'), commit $(git -C "$src" describe --always --dirty 2>/dev/null || echo '?'), openGJK $og ($ogflags, ours $ourflags), core $cpu, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo "== posed bodies (ours: body vertices with poses; openGJK: world-frame arrays) =="
nice taskset -c "$cpu" "$tmp/bench_dist"
echo "== bare vertex arrays (ours and openGJK: world-frame arrays) =="
RVE_BENCH_DIST_WORLD=1 nice taskset -c "$cpu" "$tmp/bench_dist"

#!/bin/sh
# bench_mpi.sh - distributed runs of the MPI build (docs/mpi.md): for
# P = 1, 2, 4 ranks (mpirun --oversubscribe; one OpenMP thread per rank, so
# that beyond the machine's cores CPU time, not wall time, is the figure):
#  - raster of N = 10^6 Voronoi cells (seeds streamed, rve tess --grid) to
#    G^3 = 512^3 voxels in one DREAM3D file written collectively;
#  - distributed tessellation of 10^6 cells (rve tess -n, volumes and
#    neighbours written collectively) when this build has it;
# and prints per-rank CPU seconds (the largest and the sum), cells per
# CPU-second, peak resident memory per rank (largest) against 1/P of P = 1.
# RVE_BENCH_MPI_BIG=1 adds the acceptance run: 10^7 cells to 1024^3 with
# P = 4 (about 5 GB in all; tens of minutes of CPU), then the same map from
# one serial process.  Sizes can be changed
# with RVE_BENCH_MPI_N, RVE_BENCH_MPI_GRID, RVE_BENCH_MPI_RANKS;
# RVE_BENCH_MPI_SKIP_TESS=1 runs the raster only.
# RVE_BENCH_MPI_FIT=1 adds the distributed fit: a Voronoi grain map of
# RVE_BENCH_MPI_FIT_N (2000) grains on RVE_BENCH_MPI_FIT_GRID^3 (128^3)
# voxels (rve tess -n --grid), fitted by the serial rve fit (/usr/bin/time)
# and by mpirun -np P rve fit: CPU, peak memory per rank and accuracy.
# RVE_BENCH_MPI_FIT_MAP=FILE fits that map instead (e.g. a 256^3 map of
# 10^4 grains: rve gen -n 10000 -o g.tess; rve raster g.tess --grid
# 256,256,256 -o m.h5), RVE_BENCH_MPI_FIT_OPTS adds fit options (e.g.
# "--sweeps 2 --polish 2 --hinge 20 --classify 5" for a light fit),
# RVE_BENCH_MPI_FIT_SKIP_SERIAL=1 skips the serial rve fit.  Every rank
# reads only its slab and halo (docs/mpi.md); the per-rank rows give the
# layers read, the voxels read and the peak memory, and RVE_BENCH_MPI_FIT_WHOLE=P
# adds a run at P ranks of the whole-map path (every rank reads the map
# whole, RVE_MPI_FIT_WHOLE=1) for comparison.
# RVE_BENCH_MPI_SKIP_RASTER=1 skips the raster and tessellation runs.
# Usage: make bench-mpi, or RVE=build-mpi/rve sh bench/bench_mpi.sh
set -eu
RVE=${RVE:-./rve}
MPIRUN=${RVE_MPIRUN:-mpirun}
N=${RVE_BENCH_MPI_N:-1000000}
G=${RVE_BENCH_MPI_GRID:-512}
RANKS=${RVE_BENCH_MPI_RANKS:-1 2 4}
command -v "$MPIRUN" >/dev/null 2>&1 || { echo "bench_mpi: no mpirun: skipped"; exit 0; }
if [ "$(id -u)" -eq 0 ]; then export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1; fi
export OMP_NUM_THREADS=1
T=$(mktemp -d "${TMPDIR:-/tmp}/rve-bench-mpi.XXXXXX")
trap 'rm -rf "$T"' EXIT
py=/usr/bin/python3
summary() { # label P json-file -> one table row (python reads the per-rank arrays)
    "$py" - "$1" "$2" "$3" <<'PY'
import json, sys
label, p, f = sys.argv[1], int(sys.argv[2]), sys.argv[3]
j = json.load(open(f))
cpu = j["rank_cpu_seconds"]; rss = j["rank_peak_rss_mb"]
n = j.get("seeds", j.get("cells", 0))
print("| %-22s | %d | %8.1f | %8.1f | %10.0f | %8.0f | %8.1f |" % (label, p, max(cpu), sum(cpu), n / sum(cpu), max(rss), j["seconds"]))
PY
}
echo "load: $(cut -d' ' -f1-3 /proc/loadavg)   $(getconf _NPROCESSORS_ONLN) cores, $(free -g | awk '/Mem:/ {print $2}') GiB"
if [ -z "${RVE_BENCH_MPI_SKIP_RASTER:-}" ]; then
    echo "| run                    | P | CPU max s | CPU sum s | cells/CPU-s | RSS max MB | wall s |"
    echo "|------------------------|---|----------|----------|------------|----------|--------|"
fi
for p in $RANKS; do
    [ -z "${RVE_BENCH_MPI_SKIP_RASTER:-}" ] || break
    "$MPIRUN" --quiet --oversubscribe -np "$p" "$RVE" tess -q -n "$N" --grid "$G,$G,$G" -o "$T/r.dream3d" --json >"$T/r.json"
    summary "raster $N -> $G^3" "$p" "$T/r.json"
    rm -f "$T/r.dream3d" "$T/r.dream3d.xdmf"
    if [ -z "${RVE_BENCH_MPI_SKIP_TESS:-}" ] && "$RVE" help tess | grep -q "cell table"; then
        "$MPIRUN" --quiet --oversubscribe -np "$p" "$RVE" tess -q -n "$N" -o "$T/c.h5" --json >"$T/c.json"
        summary "tess $N" "$p" "$T/c.json"
        rm -f "$T/c.h5"
    fi
done
if [ -n "${RVE_BENCH_MPI_BIG:-}" ]; then
    "$MPIRUN" --quiet --oversubscribe -np 4 "$RVE" tess -q -n 10000000 --grid 1024,1024,1024 -o "$T/big.dream3d" --json >"$T/big.json"
    summary "raster 10^7 -> 1024^3" 4 "$T/big.json"
    echo "file: $(du -h "$T/big.dream3d" | cut -f1)"
    rm -f "$T/big.dream3d" "$T/big.dream3d.xdmf"
    # the same map from one serial process (no mpirun), for comparison
    /usr/bin/time -f "%U %S %M %e" -o "$T/serial.time" "$RVE" tess -q -n 10000000 --grid 1024,1024,1024 -j 1 \
        -o "$T/big.dream3d" >/dev/null
    awk '{printf "| %-22s | serial | %8.1f | %8.1f | %10.0f | %8.0f | %8.1f |\n", "raster 10^7 -> 1024^3", \
        $1 + $2, $1 + $2, 1e7 / ($1 + $2), $3 / 1024, $4}' "$T/serial.time"
fi
if [ -n "${RVE_BENCH_MPI_FIT:-}" ]; then
    NF=${RVE_BENCH_MPI_FIT_N:-2000} GF=${RVE_BENCH_MPI_FIT_GRID:-128}
    FOPTS=${RVE_BENCH_MPI_FIT_OPTS:-}
    FMAP=${RVE_BENCH_MPI_FIT_MAP:-}
    if [ -z "$FMAP" ]; then
        FMAP=$T/f.dream3d
        "$RVE" tess -q -n "$NF" --grid "$GF,$GF,$GF" -o "$FMAP"
    fi
    echo "fit of $FMAP, options: ${FOPTS:-defaults}; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
    echo "| fit                    | P | CPU max s | CPU sum s | accuracy | RSS max MB | wall s |"
    echo "|------------------------|---|----------|----------|----------|----------|--------|"
    if [ -z "${RVE_BENCH_MPI_FIT_SKIP_SERIAL:-}" ]; then
        # shellcheck disable=SC2086
        /usr/bin/time -f "%U %S %M %e" -o "$T/fs.time" "$RVE" fit -q -j 1 "$FMAP" -o "$T/fs.tess" --no-report \
            --json $FOPTS >"$T/fs.json"
        acc=$("$py" -c "import json, sys; print(json.load(open(sys.argv[1]))['voxel_accuracy_final'])" "$T/fs.json")
        awk -v a="$acc" '{printf "| %-22s | serial | %8.1f | %8.1f | %.5f | %8.0f | %8.1f |\n", "fit (serial rve fit)", \
            $1 + $2, $1 + $2, a, $3 / 1024, $4}' "$T/fs.time"
    fi
    for p in $RANKS ${RVE_BENCH_MPI_FIT_WHOLE:+whole}; do
        np=$p whole=
        [ "$p" = whole ] && np=$RVE_BENCH_MPI_FIT_WHOLE whole=1
        # shellcheck disable=SC2086
        RVE_MPI_FIT_WHOLE=$whole "$MPIRUN" --quiet --oversubscribe -np "$np" "$RVE" fit -q -j 1 "$FMAP" \
            -o "$T/f$p.tess" --json $FOPTS >"$T/f.json"
        "$py" - "$np" "$T/f.json" <<'PY'
import json, sys
p, j = int(sys.argv[1]), json.load(open(sys.argv[2]))
cpu = j["rank_cpu_seconds"]; rss = j["rank_peak_rss_mb"]
lay = j.get("rank_layers_read", []); vox = j.get("rank_voxels_read", [])
how = j.get("map_read", "?")
print("| %-22s | %d | %8.1f | %8.1f | %.5f | %8.0f | %8.1f |" % ("fit (%s, halo %d, %d col.)" % (how, j["halo_layers"], j["colours"]),
      p, max(cpu), sum(cpu), j["accuracy"], max(rss), j["seconds"]))
print("  per rank: CPU %s s, RSS %s MB; layers read %s; voxels read %s; accuracy by round %s" % (
      " ".join("%.1f" % c for c in cpu), " ".join("%.0f" % r for r in rss),
      " ".join("%d..%d" % (a, b) for a, b in lay), " ".join("%d" % v for v in vox),
      " ".join("%.5f" % a for a in j["accuracy_rounds"])))
PY
    done
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"

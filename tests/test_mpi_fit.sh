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
# Partial reads (each rank reads its slab and halo: TIFF page ranges, HDF5
# hyperslabs): the .tess equals, byte for byte, the one of the whole-map
# path (RVE_MPI_FIT_WHOLE=1: every rank reads the map whole, as before) at
# every P, for DREAM3D and TIFF maps; the voxels each rank reports having
# read equal its slab plus the halo, both computed here from the map with
# numpy (layers: contiguous blocks, the first nz % P one deeper; halo: the
# largest z extent of a grain); a .tesr map is read whole, with a note.
# The seeds exchanged (exchange_bytes) are 32 bytes per grain in round 1 and
# per grain owned by the round's colour after it (from the per-rank owned
# counts, colours and rounds the run reports).
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
        grep_f "$name: the map is read by layers (-np $p)" '"map_read":"layers"' "$name-$p.json"
        check "$name: fit -np $p, whole-map path" 0 env RVE_MPI_FIT_WHOLE=1 "$MPIRUN" --quiet --oversubscribe \
            -np "$p" "$RVE" fit "$map" -o "$name-w$p.tess" -q "$@"
        same "$name -np $p: the partial reads write the whole-map path's .tess" "$name-w$p.tess" "$name-$p.tess"
    done
    case " $ps " in *" 1 "*) same "$name: -np 1 writes the serial .tess" "$name-s.tess" "$name-1.tess" ;; esac
}

"$RVE" gen -n 50 --seed 4 -o g.tess -q && "$RVE" raster g.tess --grid 36,36,36 -o syn.dream3d -q ||
    { echo "mpi_fit: could not make the synthetic map"; exit 1; }
fit_case syn.dream3d syn.dream3d syn "1 2 3 4" -j 1 --polish 6 --hinge 100 --classify 50

# partial reads: a map with grains much thinner than the map, as TIFF
# pages and as DREAM3D hyperslabs; voxels read per rank against numpy
"$RVE" gen -n 150 --seed 5 -o g4.tess -q && "$RVE" raster g4.tess --grid 24,24,64 -o part.dream3d -q &&
    "$RVE" raster g4.tess --grid 24,24,64 -o part.tif -q && "$RVE" raster g4.tess --grid 24,24,64 -o part.tesr -q ||
    { echo "mpi_fit: could not make the layered map"; exit 1; }
light="-j 1 --polish 2 --hinge 20 --classify 5"
# voxels_oracle MAP.dream3d RUN.json P: each rank's voxels read = slab + halo
voxels_oracle() {
    "$PY" - "$1" "$2" "$3" <<'PYEOF'
import json, sys
import h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
ids = f["DataContainers/ImageDataContainer/CellData/FeatureIds"][...][..., 0]  # (z, y, x)
nz, ny, nx = ids.shape
P = int(sys.argv[3])
halo = 0
for l in np.unique(ids[ids > 0]):
    z = np.nonzero((ids == l).any(axis=(1, 2)))[0]
    halo = max(halo, int(z.max() - z.min() + 1))
want, k0 = [], 0
for r in range(P):
    k1 = k0 + nz // P + (1 if r < nz % P else 0)
    want.append(nx * ny * (min(nz, k1 + halo) - max(0, k0 - halo)) if P > 1 else nx * ny * nz)
    k0 = k1
j = json.load(open(sys.argv[2]))
got = j["rank_voxels_read"]
print("halo", halo, "want", want, "got", got)
# the exchange: every grain's seed in round 1, then the grains owned by the
# round's colour (rank mod colours), 32 bytes each
own, C, rounds = j["rank_grains_owned"], j["colours"], len(j["accuracy_rounds"]) - 1
xb = 32 * sum(own) + sum(32 * own[r] for rd in range(2, rounds + 1) for r in range(P) if (rd - 2) % C == r % C)
print("exchange", xb, j["exchange_bytes"])
sys.exit(0 if got == want and (P == 1 or min(got) < nx * ny * nz) and (P == 1 or xb == j["exchange_bytes"]) else 1)
PYEOF
}
# part_case FMT PS WHOLE_PS: layers at every P of PS (voxels checked), the
# whole-map path too at every P of WHOLE_PS (the same .tess)
part_case() {
    fmt=$1
    for p in $2; do
        check "part.$fmt: fit -np $p" 0 mpi "$p" fit "part.$fmt" -o "pt-$fmt-$p.tess" -q --json $light
        cp "$T/out" "pt-$fmt-$p.json"
        ok "part.$fmt -np $p: voxels read per rank = slab + halo (numpy), seeds exchanged = the moved grains'" \
            "voxels_oracle part.dream3d pt-$fmt-$p.json $p >vox-$fmt-$p.txt"
        case " $3 " in *" $p "*)
            check "part.$fmt: fit -np $p, whole-map path" 0 env RVE_MPI_FIT_WHOLE=1 "$MPIRUN" --quiet \
                --oversubscribe -np "$p" "$RVE" fit "part.$fmt" -o "pw-$fmt-$p.tess" -q $light
            same "part.$fmt -np $p: partial reads give the whole-map path's .tess" "pw-$fmt-$p.tess" "pt-$fmt-$p.tess" ;;
        esac
    done
}
part_case dream3d "1 2 4" "2 4"
part_case tif "1 4" "4"
check "part: serial fit of the TIFF map" 0 "$RVE" fit part.tif -o pt-s.tess --no-report -q $light
same "part: -np 1 on the TIFF pages writes the serial .tess" pt-s.tess pt-tif-1.tess
# a map that cannot be read by layers: read whole, one note, the same fit
check "part.tesr: fit -np 4 (read whole)" 0 mpi 4 fit part.tesr -o pt-tesr-4.tess --json $light
grep_f "part.tesr: JSON says the map was read whole" '"map_read":"whole"' "$T/out"
grep_f "part.tesr: one note says why" "read whole by every rank: only TIFF and HDF5" "$T/err"
same "part.tesr: the same .tess as the TIFF's pages (-np 4)" pt-tif-4.tess pt-tesr-4.tess

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

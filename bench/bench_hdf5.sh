#!/bin/sh
# bench_hdf5.sh - reading grain maps from HDF5 beside TIFF: a 200^3 map of
# about 2500 grains (rve convert --synth) written as a multi-page TIFF and as a
# DREAM3D SIMPL file with per-voxel Bunge angles (each grain's orientation
# with 0.5 degree of noise, cubic) and no feature table, so that reading it
# also averages the voxel orientations of every grain under cubic symmetry.
# Each file is converted to .raw (the same write for both); the median of 3
# runs is printed.  Needs a Python with h5py and numpy to write the DREAM3D
# file (skipped without).
RVE=${RVE:-./rve}
PY=
for p in python3 /usr/bin/python3; do
    if "$p" -c 'import h5py, numpy' 2>/dev/null; then PY=$p; break; fi
done
if [ -z "$PY" ]; then echo "bench_hdf5: skipped (no Python with h5py and numpy)"; exit 0; fi
T=$(mktemp -d /tmp/rve-bench-hdf5.XXXXXX)
trap 'rm -rf "$T"' EXIT
"$RVE" convert -q --synth --size 200,200,200 --seeds 2500 "$T/big.tif" || exit 1
"$RVE" convert -q "$T/big.tif" "$T/big.raw" --bytes 4 || exit 1
T="$T" "$PY" - <<'PY' || exit 1
import os, numpy as np, h5py
T = os.environ["T"]
n = 200
ids = np.fromfile(os.path.join(T, "big.raw"), dtype="<u4").reshape(n, n, n).astype(np.int32)
rng = np.random.default_rng(7)
g = int(ids.max())
open(os.path.join(T, "ngrains"), "w").write("%d\n" % len(np.unique(ids[ids > 0])))
eu = np.stack([rng.uniform(0, 2 * np.pi, g + 1), np.arccos(rng.uniform(-1, 1, g + 1)),
               rng.uniform(0, 2 * np.pi, g + 1)], axis=1)
cell = eu[ids] + rng.normal(0, np.radians(0.5) / np.sqrt(3), ids.shape + (3,))
with h5py.File(os.path.join(T, "big.dream3d"), "w") as f:
    f.attrs["FileVersion"] = np.bytes_("7.0")
    dc = f.create_group("DataContainers/ImageDataContainer")
    geo = dc.create_group("_SIMPL_GEOMETRY")
    geo["DIMENSIONS"] = np.array([n, n, n], np.int64)
    geo["ORIGIN"] = np.zeros(3, np.float32)
    geo["SPACING"] = np.ones(3, np.float32)
    c = dc.create_group("CellData")
    c["FeatureIds"] = ids[..., None]
    c["EulerAngles"] = cell.astype(np.float32)
    c["Phases"] = np.ones((n, n, n, 1), np.int32)
    dc.create_group("Phase Data")["CrystalStructures"] = np.array([[999], [1]], np.uint32)
PY
median3() { sort -n | sed -n 2p; }
time_convert() { # input
    for r in 1 2 3; do
        s=$(date +%s.%N)
        "$RVE" convert -q -j 1 "$1" "$T/out.raw" --bytes 4 || exit 1
        e=$(date +%s.%N)
        echo "$s $e" | awk '{ printf "%.3f\n", $2 - $1 }'
        rm -f "$T/out.raw"
    done | median3
}
tt=$(time_convert "$T/big.tif")
th=$(time_convert "$T/big.dream3d")
echo "200^3 map, $(cat "$T/ngrains") grains: TIFF $(wc -c <"$T/big.tif") B, DREAM3D $(wc -c <"$T/big.dream3d") B (per-voxel Euler angles)"
echo "read + write .raw, median of 3, one thread (wall s):"
echo "  TIFF (labels only)                         $tt"
echo "  DREAM3D (labels, voxel angles, grain means) $th"
echo "$tt $th" | awk '{ printf "  ratio DREAM3D / TIFF: %.2f\n", $2 / $1 }'

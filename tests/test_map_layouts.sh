#!/bin/sh
# test_map_layouts.sh - grain-map readers on file layouts real users' files
# have.  One small labelled volume (a brute-force Voronoi of a few seeds: the
# oracle is the numpy array itself) is written here in many layouts -- HDF5
# (DREAM3D SIMPL/NX, pymicro, LabDCT) through h5py with every integer type,
# both byte orders, chunking and filters; multi-page TIFF through libtiff
# itself (ctypes: strips/tiles, LZW/Deflate/PackBits, big-endian, BigTIFF);
# Neper .tesr ascii/binary8/16/32 with and without **oridata -- and each must
# come back through `rve convert` with exactly the same labels, voxel size,
# origin and per-grain orientations, or be refused with one line naming the
# file (exit 1), never a crash.  Skips (77) without a Python that has h5py and
# numpy; the TIFF part is skipped (counted as nothing) without libtiff.
# RVE_TEST_LONG=1 (make check-long) adds every 1/40 prefix of twelve of the files.
RVE=${RVE:-./rve}
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_python map_layouts "h5py, numpy"
T=$(mktemp -d "${TMPDIR:-/tmp}/rve-layouts.XXXXXX") || exit 1
[ -n "${RVE_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
RVE="$RVE" T="$T" SRC="$SRC" "$PY" "$SRC/tests/map_layouts.py"

#!/bin/sh
# The libraries export exactly their documented API (issue 21): the dynamic
# symbols of librve.so are the functions the public headers declare
# (scripts/api-symbols), every one of them, nothing else (no rve_cx_*, no
# lopt_*, no voro++); librve-dist.so exports rve/dist.h and the util.h
# functions of err.c and afile.c, and needs neither libpng nor gsl.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init symbols

command -v nm >/dev/null 2>&1 || { echo "symbols: nm not found: skipped"; exit 77; }
lib=$BUILD/.libs/librve.so
dlib=$BUILD/.libs/librve-dist.so
[ -f "$lib" ] || { echo "symbols: $lib not built (static build?): skipped"; exit 77; }

exported() { # library -> sorted names of its defined dynamic symbols, less the linker's own
    nm -D --defined-only "$1" | awk '{ print $NF }' \
        | grep -v -x -e __bss_start -e _edata -e _end -e _init -e _fini | LC_ALL=C sort -u
}
compare() { # description, wanted list, exported list
    if [ ! -s "$2" ]; then ko "$1: no declared functions found"; return; fi
    if cmp -s "$2" "$3"; then ok; else
        ko "$1: declared and exported differ"
        LC_ALL=C comm -23 "$2" "$3" | sed 's/^/  declared, not exported: /' | head -20
        LC_ALL=C comm -13 "$2" "$3" | sed 's/^/  exported, not declared: /' | head -20
    fi
}

# rve/mpi.h is the MPI module's (its own library, MPI build only: docs/mpi.md)
sh "$SRC/scripts/api-symbols" $(ls "$SRC"/include/rve/*.h | grep -v '/mpi\.h$') >"$T/decl" || ko "api-symbols failed"
exported "$lib" >"$T/exp"
compare "librve.so" "$T/decl" "$T/exp"
n=$(wc -l <"$T/exp")
echo "librve.so exports $n functions"
# the script itself: inline functions and typedefs are not declarations,
# a known function and a known internal are where they should be
ok "api-symbols finds rve_gjk_dist" 'grep -q -x rve_gjk_dist "$T/decl"'
ok "api-symbols skips the inline rve_map_index" '! grep -q -x rve_map_index "$T/decl"'
ok "rve_cx_reg hidden" '! grep -q -x rve_cx_reg "$T/exp"'
ok "no lopt_, tess_, pack_, tv_, synth_, cpoly_ names" '! grep -q -E "^(lopt|tess|pack|tv|synth|cpoly)_" "$T/exp"'
ok "no C++ names" '! grep -q "^_Z" "$T/exp"'

if [ -f "$dlib" ]; then
    { sh "$SRC/scripts/api-symbols" "$SRC/include/rve/dist.h"
      sh "$SRC/scripts/api-symbols" "$SRC/include/rve/util.h" \
          | grep -E '^rve_(status_|err_|afile_|write_file_atomic$|path_same_file$)'; } | LC_ALL=C sort -u >"$T/ddecl"
    exported "$dlib" >"$T/dexp"
    compare "librve-dist.so" "$T/ddecl" "$T/dexp"
    if command -v readelf >/dev/null 2>&1; then
        readelf -d "$dlib" | grep NEEDED >"$T/dneed"
        readelf -d "$lib" | grep NEEDED >"$T/need"
        ok "librve-dist needs libqhull_r" 'grep -q "libqhull_r" "$T/dneed"'
        ok "librve-dist needs neither libpng, gsl, tiff, hdf5, gmsh nor voro++" \
            '! grep -q -E "lib(png|gsl|tiff|hdf5|gmsh|voro)" "$T/dneed"'
        ok "librve does not need libpng (pictures are the program's)" '! grep -q "libpng" "$T/need"'
    fi
else
    ko "$dlib not built"
fi

lib_finish

#!/bin/sh
# make install into a temporary folder (DESTDIR), then a small program built
# with nothing but `pkg-config --cflags --libs rve-dist` (issue 21): the
# installed headers, library and rve-dist.pc are enough; also rve.pc and the
# man pages are installed.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init install

command -v pkg-config >/dev/null 2>&1 || { echo "install: pkg-config not found: skipped"; exit 77; }
# the compiler and flags of the build (a sanitizer build's library needs them)
CC=${RVE_CC:-${CC:-cc}}
CFLAGS=${RVE_CFLAGS:-}
LDFLAGS=${RVE_LDFLAGS:-}
command -v "${CC%% *}" >/dev/null 2>&1 || { echo "install: no C compiler ($CC): skipped"; exit 77; }

root=$T/root
check "make install DESTDIR" 0 make -C "$BUILD" install DESTDIR="$root"
pcdist=$(find "$root" -name rve-dist.pc | head -n 1)
pcfull=$(find "$root" -name rve.pc | head -n 1)
ok "rve-dist.pc installed" '[ -n "$pcdist" ]'
ok "rve.pc installed" '[ -n "$pcfull" ]'
ok "rve/dist.h installed" '[ -n "$(find "$root" -path "*/include/rve/dist.h")" ]'
ok "man page rve.1 installed" '[ -n "$(find "$root" -path "*/man1/rve.1")" ]'
ok "man page rve-dist.1 installed" '[ -n "$(find "$root" -path "*/man1/rve-dist.1")" ]'
ok "rve.pc lists OpenMP, HDF5, qhull and voro++, not gmsh (loaded when meshing)" \
    'grep "^Libs.private:" "$pcfull" | grep -q -- "-lqhull_r" && ! grep "^Libs.private:" "$pcfull" | grep -q -- "-lgmsh" &&
     grep "^Libs.private:" "$pcfull" | grep -q -- "-lvoro++" && grep "^Libs.private:" "$pcfull" | grep -q -- "hdf5"'
solib=$(find "$root" -name 'librve.so.*' -type f | head -n 1)
ok "installed librve.so does not need libgmsh at start-up" \
    '[ -n "$solib" ] && objdump -p "$solib" | grep -q "NEEDED.*libgsl" && ! objdump -p "$solib" | grep -q "NEEDED.*libgmsh"'

if [ -n "$pcdist" ]; then
    # the installed tree as the system root: pkg-config prefixes -I and -L with it
    PKG_CONFIG_PATH=$(dirname "$pcdist"); export PKG_CONFIG_PATH
    PKG_CONFIG_LIBDIR=$PKG_CONFIG_PATH; export PKG_CONFIG_LIBDIR
    PKG_CONFIG_SYSROOT_DIR=$root; export PKG_CONFIG_SYSROOT_DIR
    flags=$(pkg-config --cflags --libs rve-dist) || ko "pkg-config rve-dist"
    ok "rve-dist flags point into the install" 'echo "$flags" | grep -q -- "-L$root"'
    cat >"$T/prog.c" <<'C'
#include <rve/dist.h>
#include <stdio.h>
int main(void)
{
    rve_shape a, b;
    rve_dist_result r;
    const double c0[3] = {0, 0, 0}, c1[3] = {3, 0, 0};
    rve_err err;
    rve_shape_sphere(&a, c0, 1);
    rve_shape_sphere(&b, c1, 0.5);
    if (rve_gjk_dist(&a, &b, NULL, NULL, &r) != RVE_GJK_CONVERGED) return 1;
    rve_err_clear(&err);
    printf("%.6f %s\n", r.d, rve_status_name(rve_err_set(&err, RVE_EDATA, "f", "x")));
    return 0;
}
C
    # shellcheck disable=SC2086
    check "program built with pkg-config rve-dist only" 0 $CC $CFLAGS -std=c11 -Wall -Wextra -o "$T/prog" "$T/prog.c" $LDFLAGS $flags
    libdir=$(echo "$flags" | tr ' ' '\n' | sed -n 's/^-L//p' | head -n 1)
    check "program runs on the installed library" 0 env LD_LIBRARY_PATH="$libdir" "$T/prog"
    ok "sphere distance 1.5" 'grep -q "^1.500000 " "$T/out"'
    ok "linked librve-dist, not librve" 'env LD_LIBRARY_PATH="$libdir" ldd "$T/prog" | grep -q "librve-dist" &&
        ! env LD_LIBRARY_PATH="$libdir" ldd "$T/prog" | grep -q "librve\.so"'
    # and the full library with rve.pc, which requires the system's gsl.pc and
    # libtiff-4.pc: the installed prefix given as a variable, not as a sysroot
    unset PKG_CONFIG_SYSROOT_DIR PKG_CONFIG_LIBDIR
    pfx=$(pkg-config --variable=prefix rve)
    fflags=$(pkg-config --define-variable=prefix="$root$pfx" --cflags --libs rve) || ko "pkg-config rve"
    # (the pipeline's header and symbols are installed: rve/pipeline.h, in rve.h)
    printf '#include <rve/rve.h>\nint main(void) { rve_err e; rve_err_clear(&e); rve_pipeline_opts o;\n  rve_pipeline_opts_init(&o); return o.regularise == 1 && o.mesh_enabled == 1 ? rve_status_exit_code(RVE_OK) : 3; }\n' >"$T/full.c"
    # shellcheck disable=SC2086
    check "program built with pkg-config rve" 0 $CC $CFLAGS -std=c11 -o "$T/full" "$T/full.c" $LDFLAGS $fflags
    libdir=$(echo "$fflags" | tr ' ' '\n' | sed -n 's/^-L//p' | head -n 1)
    check "it runs on the installed librve" 0 env LD_LIBRARY_PATH="$libdir" "$T/full"
fi

lib_finish

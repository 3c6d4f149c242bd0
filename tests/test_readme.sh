#!/bin/sh
# The README's library example, compiled and run against the built library:
# the distance of a unit sphere at the origin to a unit cube centred at x = 3
# is 3 - 0.5 - 1 = 1.5 exactly (closed form).
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init test_readme
src=$SRC
bld=$BUILD
d=$T

awk '/^## The library/ { inlib = 1 } inlib && /^```c$/ { on = 1; next } on && /^```$/ { exit } on { print }' \
    "$src/README.md" >"$d/ex.c"
ok "README has a C example" "[ -s '$d/ex.c' ]"
lib=$(ls "$bld"/.libs/librve.so 2>/dev/null | head -n 1)
if [ -z "$lib" ]; then echo "SKIP: no shared librve in $bld/.libs"; exit 77; fi
# the build's compiler and flags: a sanitized library needs its runtime
# shellcheck disable=SC2086
${RVE_CC:-cc} ${RVE_CFLAGS:-} -std=c11 -Wall -Wextra -Werror -I"$src/include" "$d/ex.c" -o "$d/ex" \
    ${RVE_LDFLAGS:-} -L"$bld/.libs" -Wl,-rpath,"$bld/.libs" -lrve -lm 2>"$d/cc.err"
ok "README example compiles without warnings" "[ -x '$d/ex' ]" || cat "$d/cc.err"
if [ -x "$d/ex" ]; then
    "$d/ex" >"$d/out"
    ok "README example exits 0" "[ $? -eq 0 ]"
    ok "README example prints the exact distance 1.5" "grep -qx 'distance 1.5' '$d/out'"
fi
lib_finish

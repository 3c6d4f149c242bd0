#!/bin/sh
# rve gen: options, errors, outputs (issue 9).
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init gen

check "help" 0 "$RVE" gen --help
grep_f "help has an example" "Example" "$T/out"
grep_f "help names --volumes" "--volumes" "$T/out"
check "no output" 2 "$RVE" gen -n 10 --morpho gg
# without --morpho nor --volumes: the documented default morphology gg
check "no morpho nor volumes: gg" 0 "$RVE" gen -q -j 1 -n 10 -o "$T/d.tess"
check "explicit gg" 0 "$RVE" gen -q -j 1 -n 10 --morpho gg -o "$T/e.tess"
same "the default is gg" "$T/d.tess" "$T/e.tess"
check "both morpho and volumes" 2 "$RVE" gen -n 10 --morpho gg --volumes "$T/none.txt" -o "$T/a.tess"
check "no -n" 2 "$RVE" gen -o "$T/a.tess"
# the progress bar's closing line (-v prints it) and the summary give the
# JSON's iteration count and objective (stopped by --time-limit long before
# --max-iter: the bar must not claim the cap)
check "progress vs summary" 0 "$RVE" gen -v -j 1 -n 40 --max-iter 100000 --time-limit 1 -o "$T/p.tess" --json
its=$(sed -n 's/.*"iterations":\([0-9]*\).*/\1/p' "$T/out")
obj=$(sed -n 's/.*"objective":\([-0-9.eE+]*\).*/\1/p' "$T/out")
bar=$(grep '^gen \[' "$T/err" | tail -1)
ok "bar ends at the iterations done ($its): $bar" "printf '%s' '$bar' | grep -q ' $its/100000 '"
want=$(awk -v x="$obj" 'BEGIN { printf "%.4g", x }')
ok "bar ends at the JSON objective ($want): $bar" "printf '%s' '$bar' | grep -q 'objective $want\$'"
grep_f "summary names the JSON objective" "iterations.*objective $want\$" "$T/err"
check "bad morpho" 2 "$RVE" gen -n 10 --morpho "diameq:foo(1,2)" -o "$T/a.tess"
grep_f "bad morpho named" "unknown distribution" "$T/err"
absent "no output after a usage error" "$T/a.tess"
check "bad domain" 2 "$RVE" gen -n 10 --domain 1,0,1 --morpho gg -o "$T/a.tess"
check "bad -n" 2 "$RVE" gen -n 0 --morpho gg -o "$T/a.tess"

printf '1\n2\n-3\n' >"$T/bad.txt"
check "negative volume" 1 "$RVE" gen --volumes "$T/bad.txt" -o "$T/a.tess"
grep_f "bad volume file and line named" "bad.txt: line 3" "$T/err"
absent "no output after a data error" "$T/a.tess"
check "missing volume file" 1 "$RVE" gen --volumes "$T/none.txt" -o "$T/a.tess"

# prescribed volumes: 50 cells with volumes 1..5
i=0; : >"$T/v.txt"; while [ $i -lt 50 ]; do echo $((i % 5 + 1)) >>"$T/v.txt"; i=$((i + 1)); done
check "volumes" 0 "$RVE" gen -q --volumes "$T/v.txt" --domain 2,1,1 -o "$T/v.tess" --values "$T/v.val" --json
grep_f "volumes json" '"max_rel_volume_error"' "$T/out"
grep_f "tess written" "\*\*\*tess" "$T/v.tess"
# independent check of the volumes in the values table: cell i has volume (i%5+1)/150 * 2
if awk '!/^#/ { want = (($1 - 1) % 5 + 1) / 150 * 2; e = ($6 - want) / want; if (e < 0) e = -e; if (e > 1e-3) bad++ }
        END { exit bad > 0 }' "$T/v.val"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: volumes table"; fi
check "volumes with Lloyd steps" 0 "$RVE" gen -q --volumes "$T/v.txt" --domain 2,1,1 --lloyd 3 -o "$T/l.tess" --values "$T/l.val"
if awk '!/^#/ { want = (($1 - 1) % 5 + 1) / 150 * 2; e = ($6 - want) / want; if (e < 0) e = -e; if (e > 1e-3) bad++ }
        END { exit bad > 0 }' "$T/l.val"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: volumes after Lloyd"; fi
check "--lloyd without --volumes" 2 "$RVE" gen -n 10 --morpho gg --lloyd 2 -o "$T/a.tess"
check "volumes periodic" 0 "$RVE" gen -q --volumes "$T/v.txt" --periodic -o "$T/p.tess"
printf '0.5 0.5 0.5\n' >"$T/s.txt"
check "seed count mismatch" 1 "$RVE" gen --volumes "$T/v.txt" --seeds "$T/s.txt" -o "$T/a.tess"

# morphology
check "gg" 0 "$RVE" gen -q -n 100 --morpho gg --max-iter 5 -o "$T/g.tess" --plot "$T/g.png" --json
grep_f "gg json has KS" '"ks"' "$T/out"
grep_f "gg json names 1-sphericity" '"1-sphericity"' "$T/out"
if [ -s "$T/g.png" ]; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: no plot"; fi
grep_f "gg json counts the search's moves" '"moves":' "$T/out"
# a constant target: equal cells; the deviation is reported, not a KS distance (a
# step CDF would read about 0.5 for a perfect result); the values table is the oracle
check "constant diameq" 0 "$RVE" gen -q -n 50 --morpho diameq:1 -o "$T/k.tess" --values "$T/k.val" --json
grep_f "constant: max_rel_dev in json" '"max_rel_dev":' "$T/out"
if grep -q '"diameq":{"ks"' "$T/out"; then fail=$((fail + 1)); echo "FAIL: KS for a constant target"; else pass=$((pass + 1)); fi
dev=$(sed -n 's/.*"max_rel_dev":\([0-9.e+-]*\).*/\1/p' "$T/out")
if awk -v d="$dev" '!/^#/ { n++; v[n] = $6 } END { m = 0; for (i = 1; i <= n; i++) m += v[i]; m /= n;
        w = 0; for (i = 1; i <= n; i++) { e = (v[i] - m) / m; if (e < 0) e = -e; if (e > w) w = e }
        exit !(d != "" && d < 1e-3 && w < 3e-3) }' "$T/k.val"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: constant target not met (dev $dev)"; fi
check "correlated sizes" 0 "$RVE" gen -q -n 100 --morpho gg --size-corr 3 --max-iter 5 -o "$T/c.tess" --json
grep_f "json echoes --size-corr" '"size_corr":3' "$T/out"
grep_f "json has the neighbour size correlation" '"neighbour_size_correlation":' "$T/out"
check "bad --size-corr" 2 "$RVE" gen -n 10 --morpho gg --size-corr -1 -o "$T/a.tess"
check "--size-corr without --morpho" 2 "$RVE" gen --volumes "$T/v.txt" --size-corr 2 -o "$T/a.tess"
check "vtk output" 0 "$RVE" gen -q -n 30 --morpho "size:lognormal(1,0.5)" -o "$T/g.vtk"

lib_finish

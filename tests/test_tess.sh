#!/bin/sh
# rve tess / rve raster from the command line: outputs checked against closed forms.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init tess
d=$T

check "tess --help" 0 "$RVE" tess --help
grep_f "tess help has an example" "Examples:" "$d/out"
check "raster --help" 0 "$RVE" raster --help
check "tess without output" 2 "$RVE" tess -n 10
check "tess with -n and --seeds" 2 "$RVE" tess -n 10 --seeds x -o "$d/a.tess"
check "tess bad domain" 2 "$RVE" tess -n 10 --domain 1,0,1 -o "$d/a.tess"
check "tess bad periodic axes" 2 "$RVE" tess -n 10 --periodic=xw -o "$d/a.tess"

# a 2 x 2 x 2 lattice of seeds: eight unit cubes, 27 vertices, 54 edges, 36 faces
for z in 0.5 1.5; do for y in 0.5 1.5; do for x in 0.5 1.5; do echo "$x $y $z 0.25"; done; done; done >"$d/lat.txt"
check "tess lattice" 0 "$RVE" tess --seeds "$d/lat.txt" --domain 2 -o "$d/lat.tess" --json -q
grep_f "lattice: 27 vertices" '"vertices":27,' "$d/out"
grep_f "lattice: 54 edges" '"edges":54,' "$d/out"
grep_f "lattice: 36 faces" '"faces":36,' "$d/out"
grep_f "lattice: volume 8" '"volume":8,' "$d/out"
grep_f "tess file header" '^\*\*\*tess' "$d/lat.tess"
grep_f "tess file has a domain" '^ \*\*domain' "$d/lat.tess"
check "tess lattice vtk" 0 "$RVE" tess --seeds "$d/lat.txt" --domain 2 -o "$d/lat.vtk" -q
grep_f "vtk: 8 cells" '^CELLS 8 ' "$d/lat.vtk"
grep_f "vtk: volume data" '^SCALARS volume double' "$d/lat.vtk"

# rasterise it: 4 x 4 x 4 voxels, each cell gets 8 voxels (8-bit raw output)
check "raster lattice" 0 "$RVE" raster "$d/lat.tess" --grid 4,4,4 -o "$d/lat.raw" -q
ok "raster: 64 voxels" "[ \$(wc -c <'$d/lat.raw') -eq 64 ]"
ok "raster: 8 labels of 8 voxels" "[ \"\$(od -An -v -tu1 -w1 '$d/lat.raw' | sort -n | uniq -c | awk '{print \$1}' | sort -u)\" = 8 ]"
# voxel (0,0,0) is in cell 1, voxel (3,3,3) in cell 8
ok "raster: first voxel" "[ \$(od -An -tu1 -N1 '$d/lat.raw' | tr -d ' ') -eq 1 ]"
ok "raster: last voxel" "[ \$(od -An -tu1 -j63 -N1 '$d/lat.raw' | tr -d ' ') -eq 8 ]"

# --like: the grid of an existing map (size, voxel size, origin)
check "raster to tesr" 0 "$RVE" raster "$d/lat.tess" --grid 4,4,4 -o "$d/lat.tesr" -q
check "raster --like" 0 "$RVE" raster "$d/lat.tess" --like "$d/lat.tesr" -o "$d/like.raw" -q
ok "raster --like gives the same voxels" "cmp -s '$d/lat.raw' '$d/like.raw'"

# bad input: one-line error, exit 1, no output left behind
printf '0.5 0.5 0.5\n0.2 nan 0.1\n' >"$d/bad.txt"
check "bad seed file" 1 "$RVE" tess --seeds "$d/bad.txt" -o "$d/bad.tess"
grep_f "bad seed file names the line" "line 2" "$d/err"
ok "no output on failure" "[ ! -e '$d/bad.tess' ]"
printf '0.5 0.5 0.5\n2 0.5 0.5\n' >"$d/out.txt"
check "seed outside the domain" 1 "$RVE" tess -q --seeds "$d/out.txt" -o "$d/bad.tess"
ok "one-line error" "[ \$(wc -l <'$d/err') -eq 1 ]"
printf '***tess\n **format\n 3.5\n garbage\n' >"$d/bad.tess"
check "raster of a corrupt tess" 1 "$RVE" raster "$d/bad.tess" --grid 2,2,2 -o "$d/bad.raw"
ok "no raster output on failure" "[ ! -e '$d/bad.raw' ]"
check "missing file" 1 "$RVE" raster "$d/nosuch.tess" --grid 2,2,2 -o "$d/bad.raw"

# random and periodic tessellations
check "tess random" 0 "$RVE" tess -n 300 --rng-seed 5 -o "$d/r.tess" --json -q
grep_f "random: volume 1" '"volume":1,\|"volume":0.99999999999999\|"volume":1.0000000000000' "$d/out"
check "tess periodic" 0 "$RVE" tess -n 100 --periodic -o "$d/p.tess" --json -q
grep_f "periodic: volume 1" '"volume":1,\|"volume":0.99999999999999\|"volume":1.0000000000000' "$d/out"

# --seed (the spelling of gen, pack and run) and its old alias --rng-seed
check "tess --seed" 0 "$RVE" tess -n 40 --seed 5 -o "$d/s5.tess" -q
check "tess --rng-seed" 0 "$RVE" tess -n 40 --rng-seed 5 -o "$d/r5.tess" -q
check "tess --seed 6" 0 "$RVE" tess -n 40 --seed 6 -o "$d/s6.tess" -q
same "--seed and --rng-seed are one option" "$d/s5.tess" "$d/r5.tess"
ok "--seed changes the seeds" "! cmp -s '$d/s5.tess' '$d/s6.tess'"

lib_finish

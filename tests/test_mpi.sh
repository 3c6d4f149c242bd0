#!/bin/sh
# Distributed paths of the MPI build (issue 20, docs/mpi.md), each run with
# mpirun --oversubscribe -np 1, 2, 3 and 4:
#  - raster of seeds (rve tess --grid) and of a .tess (rve raster): the
#    HDF5 datasets and attributes equal those of the serial program's file
#    (h5py, every object), and the labels equal a brute-force numpy raster
#    (power distance, ties to the lowest seed) of seeds with weights;
#  - ensembles (rve gen --count): files equal K serial runs;
#  - faults: a failing rank stops every rank with one line and no file;
#    a subcommand that does not run distributed is refused;
#  - without mpirun the MPI build is the serial program (same bytes).
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init mpi
lib_mpi mpi
lib_python mpi "h5py, numpy"
cd "$T" || exit 1

# --- an independent reader and oracle (h5py, numpy)
cat >h5same.py <<'PY'
import sys, h5py, numpy as np
def objects(f):
    out = {}
    with h5py.File(f, "r") as h:
        out["/"] = (None, dict(h.attrs))
        h.visititems(lambda n, o: out.__setitem__(n, (o[()] if isinstance(o, h5py.Dataset) else None, dict(o.attrs))))
    return out
a = objects(sys.argv[1]); b = objects(sys.argv[2])
if sorted(a) != sorted(b): sys.exit("objects differ: %s" % sorted(set(a) ^ set(b)))
for k in a:
    (va, aa), (vb, ab) = a[k], b[k]
    if (va is None) != (vb is None): sys.exit(k + ": kind differs")
    if va is not None and (va.dtype != vb.dtype or va.shape != vb.shape or not np.array_equal(va, vb)):
        sys.exit(k + ": data differ")
    if sorted(aa) != sorted(ab) or any(not np.array_equal(aa[x], ab[x]) for x in aa):
        sys.exit(k + ": attributes differ")
PY
cat >oracle.py <<'PY'
# brute-force power-distance raster of seeds.txt on n voxels over [0, L);
# a 5th argument names periodic axes (e.g. xz): images by -1, 0, 1 periods
import sys, h5py, numpy as np
per = sys.argv[5] if len(sys.argv) > 5 else ""
n = [int(v) for v in sys.argv[2].split(",")]; L = [float(v) for v in sys.argv[3].split(",")]
s = np.loadtxt(sys.argv[4])
h = [L[a] / n[a] for a in range(3)]
c = [(np.arange(n[a]) + 0.5) * h[a] for a in range(3)]
z, y, x = np.meshgrid(c[2], c[1], c[0], indexing="ij")
best = np.full(z.shape, np.inf); lab = np.zeros(z.shape, dtype=np.int64)
offs = [(ox, oy, oz) for oz in (-1, 0, 1) for oy in (-1, 0, 1) for ox in (-1, 0, 1)
        if (ox == 0 or "x" in per) and (oy == 0 or "y" in per) and (oz == 0 or "z" in per)]
for i, (sx, sy, sz, w) in enumerate(s):
    for ox, oy, oz in offs:
        dx = x - (sx + ox * L[0]); dy = y - (sy + oy * L[1]); dz = z - (sz + oz * L[2])
        p = dx * dx + dy * dy + dz * dz - w * w
        m = p < best
        best[m] = p[m]; lab[m] = i + 1
with h5py.File(sys.argv[1], "r") as f:
    got = f["DataContainers/ImageDataContainer/CellData/FeatureIds"][()][..., 0]
    dims = f["DataContainers/ImageDataContainer/_SIMPL_GEOMETRY/DIMENSIONS"][()]
if list(dims) != n: sys.exit("DIMENSIONS %s" % dims)
if got.shape != lab.shape or not np.array_equal(got, lab):
    sys.exit("labels differ from brute force at %d voxels" % int(np.sum(got != lab)))
PY
h5same() { # description, file a, file b
    if "$PY" h5same.py "$2" "$3" >h5.err 2>&1; then ok; else ko "$1: $(cat h5.err)"; fi
}
oracle() { # description, file, grid, domain, seed file [, periodic axes]
    if "$PY" oracle.py "$2" "$3" "$4" "$5" ${6:-} >or.err 2>&1; then ok; else ko "$1: $(cat or.err)"; fi
}

# --- raster of generated seeds: serial file against P = 1..4
check "serial tess --grid" 0 "$RVE" tess -n 400 --rng-seed 3 --domain 1,1.2,0.9 --grid 27,31,23 -o s.dream3d
for p in 1 2 3 4; do
    check "tess --grid -np $p" 0 mpi $p tess -n 400 --rng-seed 3 --domain 1,1.2,0.9 --grid 27,31,23 -o m$p.dream3d --json
    h5same "tess --grid -np $p equals serial" s.dream3d m$p.dream3d
    grep_f "tess --grid -np $p json ranks" "\"ranks\":$p" "$T/out"
    absent "no temporary left (-np $p)" m$p.dream3d.rve-tmp
done
ok "xdmf written by rank 0" '[ -s m4.dream3d.xdmf ]'
# more ranks than layers: idle ranks take part in the collective write
check "tess --grid -np 4, 3 layers" 0 mpi 4 tess -n 50 --grid 9,8,3 -o thin.dream3d
check "serial, 3 layers" 0 "$RVE" tess -n 50 --grid 9,8,3 -o thin_s.dream3d
h5same "3 layers on 4 ranks equals serial" thin_s.dream3d thin.dream3d
# layers of 9 MB: the slab goes to HDF5 in batches of one layer (8 MB at most), ranks
# with fewer batches take part with empty selections
check "serial, 9 MB layers" 0 "$RVE" tess -n 30 --grid 1500,1500,10 -o wide_s.dream3d
for p in 2 3; do
    check "tess --grid -np $p, batched write" 0 mpi $p tess -n 30 --grid 1500,1500,10 -o wide$p.dream3d
    h5same "batched write -np $p equals serial" wide_s.dream3d wide$p.dream3d
    rm -f wide$p.dream3d wide$p.dream3d.xdmf
done
rm -f wide_s.dream3d wide_s.dream3d.xdmf

# --- Laguerre seeds with weights against brute force, serial and P = 1..4
"$PY" -c "
import numpy as np
r = np.random.default_rng(11)
s = np.column_stack([r.random((150, 3)) * [1.0, 0.8, 1.1], r.random(150) * 0.08])
s[7, :3] = s[3, :3]; s[7, 3] = s[3, 3]  # a duplicate: the tie goes to seed 4
np.savetxt('seeds.txt', s, fmt='%.17g')"
check "serial --seeds --grid" 0 "$RVE" tess --seeds seeds.txt --domain 1,0.8,1.1 --grid 20,17,23 -o ls.dream3d
oracle "serial Laguerre raster equals brute force" ls.dream3d 20,17,23 1,0.8,1.1 seeds.txt
for p in 1 2 3 4; do
    check "--seeds --grid -np $p" 0 mpi $p tess --seeds seeds.txt --domain 1,0.8,1.1 --grid 20,17,23 -o l$p.dream3d
    oracle "Laguerre raster -np $p equals brute force" l$p.dream3d 20,17,23 1,0.8,1.1 seeds.txt
    h5same "Laguerre raster -np $p equals serial" ls.dream3d l$p.dream3d
done

# --- rve raster of a .tess (labels from its cells)
sed 8d seeds.txt >seeds2.txt # without the duplicate, which a .tess refuses
check "tess file" 0 "$RVE" tess --seeds seeds2.txt --domain 1,0.8,1.1 -o c.tess
check "serial raster" 0 "$RVE" raster c.tess --grid 20,17,23 -o rs.dream3d
oracle "serial raster of the .tess equals brute force" rs.dream3d 20,17,23 1,0.8,1.1 seeds2.txt
for p in 1 2 3 4; do
    check "raster -np $p" 0 mpi $p raster c.tess --grid 20,17,23 -o r$p.dream3d
    h5same "raster -np $p equals serial" rs.dream3d r$p.dream3d
done
# the seeds and *id labels are streamed from the file under mpirun: cell ids
# other than 1..N (here 7 i + 3) must still label the voxels
"$PY" - <<'PY'
import re
t = open("c.tess").read()
a = t.index("*id") + 3; b = t.index("*seed")
n = len(t[a:b].split())
open("ids.tess", "w").write(t[:a] + "\n   " + " ".join(str(7 * i + 3) for i in range(1, n + 1)) + "\n  " + t[b:])
PY
check "serial raster, ids 7 i + 3" 0 "$RVE" raster ids.tess --grid 20,17,23 -o ris.dream3d
for p in 1 3; do
    check "raster -np $p, ids 7 i + 3" 0 mpi $p raster ids.tess --grid 20,17,23 -o ri$p.dream3d
    h5same "raster -np $p of ids 7 i + 3 equals serial" ris.dream3d ri$p.dream3d
done
# periodic tessellations: the seeds' images by -1, 0, 1 periods, in the
# serial order (rve_tess_rasterize), so ties and labels are the serial ones
for axes in xyz xz; do
    check "periodic ($axes) .tess" 0 "$RVE" tess --seeds seeds2.txt --domain 1,0.8,1.1 --periodic=$axes -o p$axes.tess
    check "serial raster, periodic $axes" 0 "$RVE" raster p$axes.tess --grid 20,17,23 -o ps$axes.dream3d
    oracle "serial periodic ($axes) raster equals brute force" ps$axes.dream3d 20,17,23 1,0.8,1.1 seeds2.txt $axes
    for p in 1 2 4; do
        check "raster -np $p, periodic $axes" 0 mpi $p raster p$axes.tess --grid 20,17,23 -o pm$axes$p.dream3d
        h5same "periodic ($axes) raster -np $p equals serial" ps$axes.dream3d pm$axes$p.dream3d
    done
done
oracle "periodic raster -np 4 equals brute force" pmxyz4.dream3d 20,17,23 1,0.8,1.1 seeds2.txt xyz
"$PY" -c "
t = open('c.tess').read(); a = t.index('*seed')
b = t.index('\n', t.index('\n', a) + 1)
open('bad.tess', 'w').write(t[:b] + '\n   2 0.5 nan 0.5 0' + t[t.index('\n', b + 1):])"
check "raster -np 2, a NaN seed in the .tess" 1 mpi 2 raster bad.tess --grid 20,17,23 -o bad.dream3d
one_line "bad .tess is one line"
grep_f "the message names the file" "bad.tess" "$T/err"
absent "no map from a bad .tess" bad.dream3d
check "raster -np 2 refuses a TIFF output" 2 mpi 2 raster c.tess --grid 20,17,23 -o r.tif
one_line "refusal is one line"
absent "no TIFF" r.tif

# --- faults: one failing rank stops all, one line, no file
for p in 2 3; do
    RVE_MPI_FAULT_RANK=1 check "rank 1 fails (-np $p)" 1 mpi $p tess -n 100 --grid 10,10,10 -o f$p.dream3d
    one_line "one line on failure (-np $p)"
    grep_f "the failing rank is named" "rank 1" "$T/err"
    absent "no output file (-np $p)" f$p.dream3d
    absent "no temporary (-np $p)" f$p.dream3d.rve-tmp
    absent "no xdmf (-np $p)" f$p.dream3d.xdmf
done
check "bad seed file on every rank" 1 mpi 3 tess --seeds nowhere.txt --domain 1 --grid 5,5,5 -o g.dream3d
one_line "bad input: one line"
absent "bad input: no file" g.dream3d
check "a serial-only subcommand is refused under -np 2" 2 mpi 2 stat s.dream3d
one_line "refusal: one line"
grep_f "refusal names the way out" "without mpirun" "$T/err"
check "stat under -np 1 runs" 0 mpi 1 stat s.dream3d

# --- without mpirun the MPI build is the serial program
check "tess without mpirun" 0 "$RVE" tess -n 60 --rng-seed 9 -o a.tess
check "tess -np 1" 0 mpi 1 tess -n 60 --rng-seed 9 -o b.tess
same "tess under -np 1 equals the program alone" a.tess b.tess

lib_finish

"""Layout variants of one small labelled volume, read back through rve.

Run by tests/test_map_layouts.sh (environment: RVE, T).  The oracle is the
numpy array the files are written from: labels voxel by voxel, voxel size
and origin to the last bit of the written value, orientations through the
closed forms of tests/rot_oracle.py.  A variant rve cannot take must be
refused with exit status 1 and one line on stderr naming the file."""
import ctypes
import ctypes.util
import math
import os
import subprocess
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.environ.get("SRC", ".."), "tests"))
from rot_oracle import Checker, eu2qu, angle  # noqa: E402

RVE, T = os.environ["RVE"], os.environ["T"]
check = Checker()

# ---------------------------------------------------------------- the volume
NX, NY, NZ = 19, 13, 6          # all different: a transposed read cannot pass
rng = np.random.default_rng(7)
SEEDS = rng.random((5, 3)) * [NX, NY, NZ]
zz, yy, xx = np.meshgrid(np.arange(NZ) + 0.5, np.arange(NY) + 0.5, np.arange(NX) + 0.5, indexing="ij")
d2 = [(xx - s[0]) ** 2 + (yy - s[1]) ** 2 + (zz - s[2]) ** 2 for s in SEEDS]
VOL = (np.argmin(np.array(d2), axis=0) + 1).astype(np.int64)  # (Z, Y, X), labels 1..5
VOL[0, 0, :3] = 0                                             # a few void voxels
assert sorted(set(VOL.flatten())) == [0, 1, 2, 3, 4, 5]
EUL = {g: np.array([0.3 * g, 0.2 + 0.1 * g, 1.0 + 0.25 * g]) for g in range(1, 6)}
SPACING = (0.5, 0.25, 2.0)
ORIGIN = (1.0, -2.0, 3.5)


def run(*args):
    return subprocess.run([RVE] + list(args), capture_output=True)


def read_tesr(path):
    """An ascii .tesr as rve writes it: dims, h, origin, labels (Z, Y, X), quats."""
    tok = open(path).read().split()
    i = tok.index("**general")
    dims = [int(v) for v in tok[i + 2:i + 5]]
    h = [float(v) for v in tok[i + 5:i + 8]]
    o = [float(v) for v in tok[tok.index("*origin") + 1:][:3]] if "*origin" in tok else [0.0, 0.0, 0.0]
    quats = None
    if "*ori" in tok and tok[tok.index("*ori") + 1].startswith("quaternion"):
        j = tok.index("*ori") + 2
        n = int(tok[tok.index("**cell") + 1])
        quats = np.array([float(v) for v in tok[j:j + 4 * n]]).reshape(n, 4)
    k = tok.index("**data") + 2
    lab = raw = np.array([int(v) for v in tok[k:k + dims[0] * dims[1] * dims[2]]], np.int64)
    if "*id" in tok:  # labels 1..N standing for the original ids
        n = int(tok[tok.index("**cell") + 1])
        j = tok.index("*id") + 1
        lab = np.array([0] + [int(v) for v in tok[j:j + n]], np.int64)[lab]
    raw = raw.reshape(dims[2], dims[1], dims[0])
    return dims, h, o, lab.reshape(dims[2], dims[1], dims[0]), quats, raw


def readback(name, path, extra=()):
    out = os.path.join(T, name + ".out.tesr")
    r = run("convert", "-q", "--ascii", *extra, path, out)
    if r.returncode != 0:
        return None, r
    return read_tesr(out), r


def expect_same(name, path, lab=None, h=(1, 1, 1), o=(0, 0, 0), eul=None, ids=None):
    """`path` must read back as `lab` ((Z, Y, X), original ids), h, o; with
    eul, the per-grain orientations (Bunge radians by id)."""
    lab = VOL if lab is None else lab
    got, r = readback(name, path)
    if got is None:
        check(name + ": read", False, r.stderr.decode(errors="replace").strip())
        return
    dims, gh, go, glab, quats, glab_raw = got
    check(name + ": dimensions", dims == [lab.shape[2], lab.shape[1], lab.shape[0]], str(dims))
    check(name + ": labels voxel by voxel", glab.shape == lab.shape and np.array_equal(glab, np.maximum(lab, 0)),
          "%d voxels differ" % (np.count_nonzero(glab != np.maximum(lab, 0)) if glab.shape == lab.shape else -1))
    check(name + ": voxel size", np.allclose(gh, h, rtol=1e-15, atol=0), "%s vs %s" % (gh, h))
    check(name + ": origin", np.allclose(go, o, rtol=1e-15, atol=1e-300), "%s vs %s" % (go, o))
    if eul is not None:
        ok = quats is not None
        worst = 0.0
        for g in set(np.unique(lab)) - {0}:
            li = np.flatnonzero(lab.flatten() == g)[0]
            gl = int(glab_raw.flatten()[li])  # the label rve gave grain g
            if not ok or gl > len(quats):
                ok = False
                break
            worst = max(worst, angle(quats[gl - 1], eu2qu(eul[g])))
        check(name + ": orientations", ok and worst < 1e-6, "worst %.3g rad" % worst)


def expect_refused(name, path, needle=None, sub="convert"):
    out = os.path.join(T, name + ".refused.tesr")
    r = run(sub, "-q", path, out) if sub == "convert" else run(sub, path)
    err = r.stderr.decode(errors="replace").strip()
    ok = r.returncode == 1 and len(err.split("\n")) == 1 and os.path.basename(path) in err and \
        (needle is None or needle in err) and not os.path.exists(out)
    check(name + ": refused with one line (exit 1)", ok, "exit %d: %r" % (r.returncode, err))


# ------------------------------------------------------------------- HDF5
def dream3d(path, ids, dtype=np.int32, chunks=None, gzip=False, shuffle=False, trailing=True,
            geom_dtype=np.float32, names=("ImageDataContainer", "CellData", "CellFeatureData",
                                          "CellEnsembleData"), eul_dtype=np.float32, feature=True,
            spacing=SPACING, origin=ORIGIN):
    dc_name, cell, feat, ens = names
    with h5py.File(path, "w") as f:
        f.attrs["FileVersion"] = np.bytes_("7.0")
        dc = f.create_group("DataContainers/" + dc_name)
        g = dc.create_group("_SIMPL_GEOMETRY")
        g["DIMENSIONS"] = np.array([ids.shape[2], ids.shape[1], ids.shape[0]], np.int64)
        g["ORIGIN"] = np.array(origin, geom_dtype)
        g["SPACING"] = np.array(spacing, geom_dtype)
        c = dc.create_group(cell)
        data = ids[..., None] if trailing else ids
        kw = {}
        if chunks:
            kw["chunks"] = chunks + ((1,) if trailing else ())
        if gzip:
            kw["compression"] = "gzip"
        if shuffle:
            kw["shuffle"] = True
        c.create_dataset("FeatureIds", data=data.astype(dtype), **kw)
        c.create_dataset("Phases", data=np.ones(data.shape, np.int32), **kw)
        if feature:
            n = int(max(ids.max(), 0))
            tab = np.zeros((n + 1, 3), eul_dtype)
            for gid, e in EUL.items():
                if gid <= n:
                    tab[gid] = e
            fd = dc.create_group(feat)
            fd["AvgEulerAngles"] = tab
            fd["Phases"] = np.ones((n + 1, 1), np.int32)
            en = dc.create_group(ens)
            en["CrystalStructures"] = np.array([[999], [1]], np.uint32)


INT_TYPES = ["i1", "u1", "i2", "u2", "i4", "u4", "i8", "u8"]

# every integer type, little and big endian, contiguous
for t in INT_TYPES:
    for bo in ("<", ">") if t[1] != "1" else ("<",):
        dt = np.dtype(bo + t)
        p = os.path.join(T, "d3d_%s%s.dream3d" % ("be" if bo == ">" else "le", t))
        dream3d(p, VOL, dtype=dt)
        h32 = tuple(float(np.float32(v)) for v in SPACING)
        o32 = tuple(float(np.float32(v)) for v in ORIGIN)
        expect_same("DREAM3D FeatureIds %s" % dt.str, p, h=h32, o=o32, eul=EUL)

# chunked + gzip + shuffle, (Z, Y, X) without the trailing 1, float64 geometry
p = os.path.join(T, "d3d_chunked.dream3d")
dream3d(p, VOL, dtype=">u2", chunks=(2, 5, 7), gzip=True, shuffle=True)
expect_same("DREAM3D chunked gzip+shuffle big-endian", p, h=tuple(float(np.float32(v)) for v in SPACING),
            o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
p = os.path.join(T, "d3d_zyx.dream3d")
dream3d(p, VOL, trailing=False, geom_dtype=np.float64, spacing=(0.1, 0.3, 0.7), origin=(0.1, 0.2, -0.3))
expect_same("DREAM3D (Z, Y, X) without the trailing 1, float64 geometry", p, h=(0.1, 0.3, 0.7),
            o=(0.1, 0.2, -0.3), eul=EUL)
p = os.path.join(T, "d3d_names.dream3d")
dream3d(p, VOL, names=("Small IN100 Slice", "EBSD Scan Data", "Grain Data", "Phase Data"),
        eul_dtype=np.float64, geom_dtype=np.float64)
expect_same("DREAM3D other attribute-matrix names, float64 EulerAngles", p, h=SPACING, o=ORIGIN, eul=EUL)

# ids with gaps and a huge id
gap = np.where(VOL > 0, 4 * VOL - 3, 0)   # 1, 5, 9, 13, 17
EUL_GAP = {4 * g - 3: e for g, e in EUL.items()}
p = os.path.join(T, "d3d_gaps.dream3d")
dream3d(p, gap, feature=False)
expect_same("DREAM3D ids with gaps (1, 5, 9, ...)", p, lab=gap, h=tuple(float(np.float32(v)) for v in SPACING),
            o=tuple(float(np.float32(v)) for v in ORIGIN))
huge = VOL.copy()
huge[VOL == 5] = 2**31 - 1
for feature in (False, True):
    p = os.path.join(T, "d3d_huge%d.dream3d" % feature)
    dream3d(p, huge, feature=False)
    if feature:  # a feature table that long would be absurd; phases per voxel only
        with h5py.File(p, "a") as f:
            del f["DataContainers/ImageDataContainer/CellData/Phases"]
            f["DataContainers/ImageDataContainer/CellData/Phases"] = np.ones(VOL.shape + (1,), np.int32)
    r = run("stat", p)
    err = r.stderr.decode(errors="replace").strip()
    check("DREAM3D id 2^31 - 1 (stat %d): reads or refuses in one line" % feature,
          (r.returncode == 0 and b"2147483647" in r.stdout) or (r.returncode == 1 and len(err.split("\n")) == 1),
          "exit %d %r" % (r.returncode, err[:200]))
    expect_same("DREAM3D id 2^31 - 1 (%d)" % feature, p, lab=huge,
                h=tuple(float(np.float32(v)) for v in SPACING), o=tuple(float(np.float32(v)) for v in ORIGIN))
p = os.path.join(T, "d3d_toohuge.dream3d")
big = VOL.copy()
big[VOL == 5] = 2**31
dream3d(p, big, dtype=np.int64, feature=False)
expect_refused("DREAM3D id 2^31", p, "too large")
p = os.path.join(T, "d3d_u64max.dream3d")
big = VOL.astype(np.uint64)
big[VOL == 5] = np.uint64(2**63 + 5)
dream3d(p, big, dtype=np.uint64, feature=False)
expect_refused("DREAM3D uint64 id 2^63 + 5 (named exactly)", p, "grain id 9223372036854775813 too large")

# one voxel, no voxels
one = np.array([[[3]]], np.int64)
p = os.path.join(T, "d3d_one.dream3d")
dream3d(p, one)
expect_same("DREAM3D 1x1x1", p, lab=one, h=tuple(float(np.float32(v)) for v in SPACING),
            o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
p = os.path.join(T, "d3d_empty.dream3d")
with h5py.File(p, "w") as f:
    dc = f.create_group("DataContainers/ImageDataContainer")
    dc["_SIMPL_GEOMETRY/DIMENSIONS"] = np.array([0, 0, 0], np.int64)
    dc["_SIMPL_GEOMETRY/SPACING"] = np.array([1, 1, 1], np.float32)
    dc["_SIMPL_GEOMETRY/ORIGIN"] = np.array([0, 0, 0], np.float32)
    dc.create_group("CellData").create_dataset("FeatureIds", shape=(0, 0, 0, 1), dtype=np.int32)
expect_refused("DREAM3D 0 voxels", p)

# truncated files: cut at half size (contiguous and chunked)
for src in ("d3d_lei4.dream3d", "d3d_chunked.dream3d"):
    blob = open(os.path.join(T, src), "rb").read()
    for frac in (0.5, 0.9):
        p = os.path.join(T, "cut%d_%s" % (int(frac * 100), src))
        open(p, "wb").write(blob[:int(len(blob) * frac)])
        expect_refused("truncated %s at %d %%" % (src, frac * 100), p)

# DREAM3D-NX with (Z, Y, X) ids and 64-bit geometry attributes
p = os.path.join(T, "nx.dream3d")
with h5py.File(p, "w") as f:
    f.attrs["FileVersion"] = np.bytes_("8.0")
    geo = f.create_group("DataStructure/Geometry")
    geo.attrs["_DIMENSIONS"] = np.array([NX, NY, NZ], np.uint64)
    geo.attrs["_ORIGIN"] = np.array(ORIGIN, np.float64)
    geo.attrs["_SPACING"] = np.array(SPACING, np.float64)
    geo.create_group("Cell Data").create_dataset("FeatureIds", data=VOL.astype(">i4"), chunks=(1, NY, NX),
                                                  compression="gzip")
expect_same("DREAM3D-NX big-endian chunked (Z, Y, X)", p, h=SPACING, o=ORIGIN)

# pymicro: grain_map [x, y, z] in each integer type, chunked, big-endian
for t in ("u1", ">i2", "<u2", ">i4", "<u4", ">i8", "<u8"):
    p = os.path.join(T, "pymicro_%s.h5" % t.replace(">", "be").replace("<", "le"))
    with h5py.File(p, "w") as f:
        c = f.create_group("CellData")
        c.create_dataset("grain_map", data=np.transpose(VOL, (2, 1, 0)).astype(t), chunks=(7, 5, 3),
                         compression="gzip", shuffle=True)
        c.attrs["spacing"] = np.array(SPACING, np.float32 if "2" in t else np.float64)
        c.attrs["origin"] = np.array(ORIGIN, np.float64)
    hh = tuple(float(np.float32(v)) for v in SPACING) if "2" in t else SPACING
    expect_same("pymicro grain_map %s" % t, p, h=hh, o=ORIGIN)

# LabDCT: GrainId (Z, Y, X) big-endian, chunked
p = os.path.join(T, "labdct.h5")
with h5py.File(p, "w") as f:
    f["LabDCT/Spacing"] = np.array(SPACING)
    f["LabDCT/Center"] = np.array([0.0, 0.0, 0.0])
    f.create_dataset("LabDCT/Data/GrainId", data=VOL.astype(">u2"), chunks=(1, NY, NX), compression="gzip")
expect_same("LabDCT GrainId big-endian chunked", p, h=SPACING,
            o=tuple(-0.5 * n * s for n, s in zip((NX, NY, NZ), SPACING)))


# other element types and filters
p = os.path.join(T, "d3d_float_ids.dream3d")
dream3d(p, VOL, dtype=np.float32)
expect_same("DREAM3D float32 FeatureIds holding integers", p, h=tuple(float(np.float32(v)) for v in SPACING),
            o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
p = os.path.join(T, "d3d_float_frac.dream3d")
dream3d(p, VOL + 0.5, dtype=np.float64)
expect_refused("DREAM3D FeatureIds 1.5, 2.5, ...", p, "FeatureIds")
p = os.path.join(T, "d3d_float_nan.dream3d")
fn = VOL.astype(np.float32)
fn[1, 1, 1] = np.nan
dream3d(p, fn, dtype=np.float32, feature=False)
expect_refused("DREAM3D FeatureIds with a NaN", p, "FeatureIds")
p = os.path.join(T, "d3d_scaleoffset.dream3d")
with h5py.File(p, "w") as f:
    f.attrs["FileVersion"] = np.bytes_("7.0")
    dc = f.create_group("DataContainers/ImageDataContainer")
    dc["_SIMPL_GEOMETRY/DIMENSIONS"] = np.array([NX, NY, NZ], np.int64)
    dc["_SIMPL_GEOMETRY/SPACING"] = np.array([1, 1, 1], np.float32)
    dc["_SIMPL_GEOMETRY/ORIGIN"] = np.array([0, 0, 0], np.float32)
    dc.create_group("CellData").create_dataset("FeatureIds", data=VOL[..., None].astype(np.int32),
                                               chunks=(2, NY, NX, 1), scaleoffset=0)
expect_same("DREAM3D scale-offset filter", p)
p = os.path.join(T, "d3d_fletcher.dream3d")
dream3d(p, VOL, chunks=(2, 5, 7), gzip=True)
with h5py.File(p, "a") as f:
    c = f["DataContainers/ImageDataContainer/CellData"]
    del c["FeatureIds"]
    c.create_dataset("FeatureIds", data=VOL[..., None].astype(np.int32), chunks=(1, NY, NX, 1), fletcher32=True)
expect_same("DREAM3D Fletcher-32 checksums", p, h=tuple(float(np.float32(v)) for v in SPACING),
            o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
with h5py.File(p, "r") as f:  # flip one byte of a checksummed chunk
    off = f["DataContainers/ImageDataContainer/CellData/FeatureIds"].id.get_chunk_info(2).byte_offset
blob = bytearray(open(p, "rb").read())
blob[off + 5] ^= 0x40
p = os.path.join(T, "d3d_fletcher_bad.dream3d")
open(p, "wb").write(bytes(blob))
expect_refused("DREAM3D Fletcher-32 checksum mismatch", p, "FeatureIds")
for name, kw in (("lzf", dict(compression="lzf")),):
    p = os.path.join(T, "d3d_%s.dream3d" % name)
    with h5py.File(p, "w") as f:
        dc = f.create_group("DataContainers/ImageDataContainer")
        dc["_SIMPL_GEOMETRY/DIMENSIONS"] = np.array([NX, NY, NZ], np.int64)
        dc.create_group("CellData").create_dataset("FeatureIds", data=VOL[..., None].astype(np.int32),
                                                   chunks=(2, NY, NX, 1), **kw)
    expect_refused("DREAM3D %s filter (not in the HDF5 library)" % name, p, "FeatureIds")
p = os.path.join(T, "d3d_dims.dream3d")
dream3d(p, VOL)
with h5py.File(p, "a") as f:
    f["DataContainers/ImageDataContainer/_SIMPL_GEOMETRY/DIMENSIONS"][...] = np.array([NY, NX, NZ], np.int64)
expect_refused("DREAM3D DIMENSIONS disagreeing with FeatureIds", p)
p = os.path.join(T, "d3d_string.dream3d")
with h5py.File(p, "w") as f:
    dc = f.create_group("DataContainers/ImageDataContainer")
    dc["_SIMPL_GEOMETRY/DIMENSIONS"] = np.array([1, 1, 1], np.int64)
    dc["CellData/FeatureIds"] = np.array([[[[b"abc"]]]])
expect_refused("DREAM3D string FeatureIds", p)
# a surface-mesh container sorted before the image one (DREAM3D meshing pipelines)
p = os.path.join(T, "d3d_two.dream3d")
dream3d(p, VOL, names=("SurfaceMesh", "CellData", "CellFeatureData", "CellEnsembleData"))
with h5py.File(p, "a") as f:
    f.move("DataContainers/SurfaceMesh", "DataContainers/Volume")
    tri = f.create_group("DataContainers/A TriangleDataContainer/_SIMPL_GEOMETRY")
    tri.attrs["GeometryTypeName"] = np.bytes_("TriangleGeometry")
    tri["SharedVertexList"] = np.zeros((3, 3), np.float32)
    tri["SharedTriList"] = np.array([[0, 1, 2]], np.int64)
expect_same("DREAM3D triangle container before the image container", p,
            h=tuple(float(np.float32(v)) for v in SPACING), o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
# pymicro 2D map (one slice, shaped (X, Y))
p = os.path.join(T, "pymicro2d.h5")
with h5py.File(p, "w") as f:
    f["CellData/grain_map"] = np.transpose(VOL[2], (1, 0)).astype(np.int32)
    f["CellData"].attrs["spacing"] = np.array([0.5, 0.25])
expect_same("pymicro 2D grain_map (X, Y)", p, lab=VOL[2:3], h=(0.5, 0.25, 0.5))
p = os.path.join(T, "pymicro2d_o.h5")
with h5py.File(p, "w") as f:
    f["CellData/grain_map"] = np.transpose(VOL[2], (1, 0)).astype(np.int32)
    f["CellData"].attrs["spacing"] = np.array([0.5, 0.25])
    f["CellData"].attrs["origin"] = np.array([-1.0, 2.0])
expect_same("pymicro 2D grain_map, 2D origin", p, lab=VOL[2:3], h=(0.5, 0.25, 0.5), o=(-1, 2, 0))
for name, attr, val in (("2 spacings for 3D", "spacing", np.array([0.5, 0.25])),
                        ("text spacing", "spacing", np.bytes_("0.5 0.5 0.5")),
                        ("4 spacings", "spacing", np.ones(4)), ("2 origins for 3D", "origin", np.ones(2))):
    p = os.path.join(T, "pymicro_bad_%s.h5" % attr)
    with h5py.File(p, "w") as f:
        f["CellData/grain_map"] = np.transpose(VOL, (2, 1, 0)).astype(np.int32)
        f["CellData"].attrs[attr] = val
    expect_refused("pymicro " + name, p, attr)
for name, val in (("2 values", np.array([1, 1], np.float32)), ("text", np.bytes_("1 1 1"))):
    for which in ("SPACING", "ORIGIN"):
        p = os.path.join(T, "d3d_bad_%s.dream3d" % which)
        dream3d(p, VOL)
        with h5py.File(p, "a") as f:
            del f["DataContainers/ImageDataContainer/_SIMPL_GEOMETRY/" + which]
            f["DataContainers/ImageDataContainer/_SIMPL_GEOMETRY/" + which] = val
        expect_refused("DREAM3D %s as %s" % (which, name), p, which)
p = os.path.join(T, "nx_bad.dream3d")
with h5py.File(p, "w") as f:
    geo = f.create_group("DataStructure/Geometry")
    geo.attrs["_DIMENSIONS"] = np.array([NX, NY, NZ], np.uint64)
    geo.attrs["_SPACING"] = np.array([1, 1], np.float64)
    geo.create_group("Cell Data").create_dataset("FeatureIds", data=VOL.astype("i4"))
expect_refused("DREAM3D-NX 2 spacings", p, "_SPACING")
# DIMENSIONS of other integer types; a Mask written by h5py from numpy
# booleans (an HDF5 enum) and as uint8; a user block before the HDF5 data
for dt in (np.int32, np.uint64, ">i8"):
    p = os.path.join(T, "d3d_dims_%s.dream3d" % np.dtype(dt).str.replace(">", "be").replace("<", "le"))
    dream3d(p, VOL)
    with h5py.File(p, "a") as f:
        del f["DataContainers/ImageDataContainer/_SIMPL_GEOMETRY/DIMENSIONS"]
        f["DataContainers/ImageDataContainer/_SIMPL_GEOMETRY/DIMENSIONS"] = np.array([NX, NY, NZ], dt)
    expect_same("DREAM3D DIMENSIONS %s" % np.dtype(dt).str, p, h=tuple(float(np.float32(v)) for v in SPACING),
                o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
mask = np.ones(VOL.shape, bool)
mask[:, :, -2:] = False
for mt in (bool, np.uint8, ">i2"):
    p = os.path.join(T, "d3d_mask_%s.dream3d" % np.dtype(mt).str.replace(">", "be").replace("<", "le").replace("|", ""))
    dream3d(p, VOL)
    with h5py.File(p, "a") as f:
        f["DataContainers/ImageDataContainer/CellData/Mask"] = mask[..., None].astype(mt)
    expect_same("DREAM3D Mask %s" % np.dtype(mt).str, p, lab=np.where(mask, VOL, 0),
                h=tuple(float(np.float32(v)) for v in SPACING), o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
p = os.path.join(T, "userblock.h5")
with h5py.File(p, "w", userblock_size=512) as f:
    f["LabDCT/Spacing"] = np.array(SPACING)
    f["LabDCT/Center"] = np.array([0.0, 0.0, 0.0])
    f["LabDCT/Data/GrainId"] = VOL.astype(np.int32)
expect_same("LabDCT after a 512-byte user block", p, h=SPACING, o=tuple(-0.5 * n * s for n, s in zip((NX, NY, NZ), SPACING)))
p = os.path.join(T, "not_hdf5.h5")
open(p, "w").write("grain ids\n1 2 3\n")
expect_refused(".h5 that is not HDF5", p, "not an HDF5 file")

# per-voxel big-endian float64 Euler angles (no feature table): the grains' means
p = os.path.join(T, "d3d_voxel_euler.dream3d")
dream3d(p, VOL, feature=False)
ev = np.zeros(VOL.shape + (3,))
for gid, e in EUL.items():
    ev[VOL == gid] = e
with h5py.File(p, "a") as f:
    f["DataContainers/ImageDataContainer/CellData/EulerAngles"] = ev.astype(">f8")
expect_same("DREAM3D voxel EulerAngles big-endian float64", p, h=tuple(float(np.float32(v)) for v in SPACING),
            o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)

# a 2D DREAM3D map (one slice)
p = os.path.join(T, "d3d_2d.dream3d")
dream3d(p, VOL[2:3])
expect_same("DREAM3D one slice", p, lab=VOL[2:3], h=tuple(float(np.float32(v)) for v in SPACING),
            o=tuple(float(np.float32(v)) for v in ORIGIN), eul=EUL)
# a chunked FeatureIds never fully written: unwritten chunks hold the fill value
p = os.path.join(T, "d3d_sparse_chunks.dream3d")
dream3d(p, VOL, feature=False)
with h5py.File(p, "a") as f:
    c = f["DataContainers/ImageDataContainer/CellData"]
    del c["FeatureIds"]
    d = c.create_dataset("FeatureIds", shape=VOL.shape + (1,), dtype=np.int32, chunks=(1, NY, NX, 1), fillvalue=0)
    d[:3] = VOL[:3, ..., None]
expect_same("DREAM3D chunks never written (fill value 0)", p, lab=np.concatenate([VOL[:3], 0 * VOL[3:]]),
            h=tuple(float(np.float32(v)) for v in SPACING), o=tuple(float(np.float32(v)) for v in ORIGIN))

# LabDCT with -1 as void
p = os.path.join(T, "labdct_neg.h5")
with h5py.File(p, "w") as f:
    f["LabDCT/Spacing"] = np.array([1.0, 1.0, 1.0])
    f["LabDCT/Center"] = np.array([NX / 2, NY / 2, NZ / 2])
    f["LabDCT/Data/GrainId"] = np.where(VOL == 0, -1, VOL).astype(np.int32)
expect_same("LabDCT GrainId -1 as void", p)

# -------------------------------------------------------------------- TIFF
lt = ctypes.util.find_library("tiff")
lib = ctypes.CDLL(lt) if lt else None
TAG = dict(width=256, length=257, bps=258, compression=259, photometric=262, description=270, spp=277,
           rowsperstrip=278, planar=284, predictor=317, tilewidth=322, tilelength=323, sampleformat=339,
           subfiletype=254, pagenumber=297, resolutionunit=296)
COMP = {"none": 1, "lzw": 5, "deflate": 8, "packbits": 32773}


def tiff_write(path, pages, mode="w", comp="none", tile=None, rows=3, signed=False, predictor=1,
               description=None, resolution=None, bits=None, spp=1, fmt=None, photometric=1, thumb_last=False):
    """Write `pages` (a list of (Y, X) integer arrays) with libtiff itself."""
    lib.TIFFOpen.restype = ctypes.c_void_p
    lib.TIFFOpen.argtypes = [ctypes.c_char_p, ctypes.c_char_p]
    tif = lib.TIFFOpen(path.encode(), mode.encode())
    assert tif, path
    tp = ctypes.c_void_p(tif)
    for k, a in enumerate(pages):
        a = np.ascontiguousarray(a)
        sf = lambda tag, v: lib.TIFFSetField(tp, ctypes.c_uint(TAG[tag]), ctypes.c_int(v))  # noqa: E731
        sf("width", a.shape[1])
        sf("length", a.shape[0])
        if spp > 1:
            a = np.ascontiguousarray(np.repeat(a[..., None], spp, axis=2))
        sf("bps", bits or 8 * a.dtype.itemsize)
        if bits:  # packed: every value written in bits of its own row bytes
            a = np.ascontiguousarray(np.packbits(np.unpackbits(a[..., None], axis=2)[..., 8 - bits:]
                                                 .reshape(a.shape[0], -1), axis=1))
        sf("spp", spp)
        sf("photometric", 2 if spp == 3 else photometric)
        if photometric == 3:
            cm = (ctypes.c_uint16 * (1 << (bits or 8)))(*[(i * 257) & 0xffff for i in range(1 << (bits or 8))])
            lib.TIFFSetField(tp, ctypes.c_uint(320), cm, cm, cm)
        if resolution:
            lib.TIFFSetField(tp, ctypes.c_uint(282), ctypes.c_double(resolution[0]))
            lib.TIFFSetField(tp, ctypes.c_uint(283), ctypes.c_double(resolution[1]))
            sf("resolutionunit", 1)
        if thumb_last and k == len(pages) - 1:
            sf("subfiletype", 1)
        sf("planar", 1)
        sf("compression", COMP[comp])
        sf("sampleformat", fmt or (2 if signed else 1))
        if predictor != 1:
            sf("predictor", predictor)
        if description and k == 0:
            lib.TIFFSetField(tp, ctypes.c_uint(TAG["description"]), ctypes.c_char_p(description.encode()))
        if tile:
            sf("tilewidth", tile[0])
            sf("tilelength", tile[1])
            tw, tl = tile
            for ty in range(0, a.shape[0], tl):
                for tx in range(0, a.shape[1], tw):
                    blk = np.zeros((tl, tw), a.dtype)
                    part = a[ty:ty + tl, tx:tx + tw]
                    blk[:part.shape[0], :part.shape[1]] = part
                    n = lib.TIFFComputeTile(tp, ctypes.c_uint(tx), ctypes.c_uint(ty), ctypes.c_uint(0),
                                            ctypes.c_ushort(0))
                    b = blk.tobytes()
                    assert lib.TIFFWriteEncodedTile(tp, ctypes.c_uint(n), b, ctypes.c_ssize_t(len(b))) >= 0
        else:
            sf("rowsperstrip", rows)
            for s, y in enumerate(range(0, a.shape[0], rows)):
                b = a[y:y + rows].tobytes()
                assert lib.TIFFWriteEncodedStrip(tp, ctypes.c_uint(s), b, ctypes.c_ssize_t(len(b))) >= 0
        assert lib.TIFFWriteDirectory(tp) == 1
    lib.TIFFClose(tp)


if lib is not None:
    for bits, t in ((8, "u1"), (16, "u2"), (32, "u4")):
        for mode in ("w", "wb", "w8", "wb8"):  # little / big endian, classic / BigTIFF
            for comp, tile, pred in (("none", None, 1), ("lzw", None, 2), ("deflate", (16, 16), 2),
                                     ("packbits", (16, 16), 1)):
                name = "tiff_%d_%s_%s_%s" % (bits, mode, comp, "tiled" if tile else "strips")
                p = os.path.join(T, name + ".tif")
                # native order in memory: libtiff itself swaps for "b" files
                tiff_write(p, [VOL[z].astype(t) for z in range(NZ)], mode=mode, comp=comp, tile=tile, predictor=pred)
                expect_same(name, p)
    for bits, t in ((8, "i1"), (16, "i2"), (32, "i4")):
        p = os.path.join(T, "tiff_signed%d.tif" % bits)
        tiff_write(p, [VOL[z].astype(t) for z in range(NZ)], signed=True, comp="deflate")
        expect_same("TIFF signed %d-bit" % bits, p)
    p = os.path.join(T, "tiff_signed_neg.tif")
    neg = np.where(VOL == 0, -1, VOL)
    tiff_write(p, [neg[z].astype("i2") for z in range(NZ)], signed=True)
    expect_same("TIFF signed 16-bit, -1 as void", p, lab=np.maximum(neg, 0))
    # ImageJ-style description with our exact geometry
    p = os.path.join(T, "tiff_geom.tif")
    tiff_write(p, [VOL[z].astype("u2") for z in range(NZ)], comp="lzw",
               description="ImageJ=1.54f\nimages=%d\nslices=%d\nspacing=2.0\nunit=micron\n"
                           "rve_h=0.5,0.25,2\nrve_origin=1,-2,3.5\n" % (NZ, NZ))
    expect_same("TIFF ImageJ description geometry", p, h=SPACING, o=ORIGIN)
    # ImageJ's own geometry: resolution tags (1/h, unit none) and spacing= for z
    p = os.path.join(T, "tiff_imagej.tif")
    tiff_write(p, [VOL[z].astype("u2") for z in range(NZ)], description="ImageJ=1.54f\nimages=%d\nslices=%d\n"
               "unit=micron\nspacing=2.0\nloop=false\n" % (NZ, NZ), resolution=(4.0, 2.0))
    expect_same("TIFF ImageJ resolution tags + spacing", p, h=(0.25, 0.5, 2.0))
    # pages of different bit depths (stacks assembled page by page)
    p = os.path.join(T, "tiff_mixed.tif")
    tiff_write(p, [VOL[z].astype("u1" if z % 2 else "u2") for z in range(NZ)], comp="deflate")
    expect_same("TIFF pages of 8 and 16 bits", p)
    # one slice
    p = os.path.join(T, "tiff_one.tif")
    tiff_write(p, [VOL[2].astype("u4")], tile=(16, 32), comp="lzw")
    expect_same("TIFF one tiled page", p, lab=VOL[2:3])
    # ImageJ's layout of stacks over 4 GB: one directory, the other images raw after the first
    p = os.path.join(T, "tiff_imagej_big.tif")
    tiff_write(p, [VOL[0].astype("u1")], rows=NY, description="ImageJ=1.54f\nimages=%d\nslices=%d\n" % (NZ, NZ))
    open(p, "ab").write(VOL[1:].astype("u1").tobytes())
    expect_refused("TIFF in ImageJ's one-directory large-stack layout", p, "ImageJ")
    # pages of different sizes: refused naming the page
    p = os.path.join(T, "tiff_sizes.tif")
    pages = [VOL[z].astype("u1") for z in range(NZ)]
    pages[3] = pages[3][:, :-1]
    tiff_write(p, pages)
    expect_refused("TIFF pages of different sizes", p, "page 4")
    # truncated TIFF
    blob = open(os.path.join(T, "tiff_16_w_deflate_tiled.tif"), "rb").read()
    p = os.path.join(T, "tiff_cut.tif")
    open(p, "wb").write(blob[:len(blob) // 2])
    expect_refused("TIFF cut at half size", p)
    blob = open(os.path.join(T, "tiff_32_wb8_lzw_strips.tif"), "rb").read()
    p = os.path.join(T, "tiff_cut_big.tif")
    open(p, "wb").write(blob[:len(blob) // 2])
    expect_refused("BigTIFF big-endian cut at half size", p)
    # layouts a label map cannot have, or that libtiff cannot give as labels
    for name, kw, arr in (("64-bit", {}, "u8"), ("4-bit", {"bits": 4}, "u1"), ("RGB", {"spp": 3}, "u1"),
                          ("float", {"fmt": 3}, "f4")):
        p = os.path.join(T, "tiff_%s.tif" % name)
        tiff_write(p, [VOL[z].astype(arr) for z in range(NZ)], **kw)
        expect_refused("TIFF %s samples" % name, p)
    p = os.path.join(T, "tiff_palette.tif")
    tiff_write(p, [VOL[z].astype("u1") for z in range(NZ)], photometric=3)
    expect_same("TIFF palette (indices are the labels)", p)
    p = os.path.join(T, "tiff_thumb.tif")
    tiff_write(p, [VOL[z].astype("u1") for z in range(NZ)] + [VOL[0, ::2, ::2].astype("u1")], thumb_last=True)
    expect_refused("TIFF with a reduced-resolution last page", p, "page 7")
else:
    print("map_layouts: no libtiff for ctypes, TIFF variants not run")

# -------------------------------------------------------------------- .tesr
def tesr(path, lab, fmt="ascii", oridata=False, cell=True, version="2.1"):
    n = int(lab.max())
    head = "***tesr\n **format\n   %s\n **general\n   3\n   %d %d %d\n   %r %r %r\n  *origin\n   %r %r %r\n" % (
        (version,) + (lab.shape[2], lab.shape[1], lab.shape[0]) + SPACING + ORIGIN)
    if cell:
        head += " **cell\n   %d\n  *id\n   %s\n  *ori\n   euler-bunge:passive\n" % (n, " ".join(str(i) for i in range(1, n + 1)))
        head += "".join("   %.17g %.17g %.17g\n" % tuple(np.degrees(EUL[g])) for g in range(1, n + 1))
        head += "  *crysym\n   cubic\n"
    flat = lab.flatten()
    body = head.encode() + b" **data\n   " + fmt.encode() + b"\n"
    if fmt == "ascii":
        body += (" ".join(str(v) for v in flat) + "\n").encode()
    else:
        big = fmt.endswith("_big")
        bits = int(fmt[6:].split("_")[0])
        t = {8: "u1", 16: "i2", 32: "i4"}[bits]
        body += flat.astype((">" if big else "<") + t).tobytes() + b"\n"
    if oridata:
        body += b" **oridata\n   euler-bunge\n   ascii\n"
        body += "".join("%.12g %.12g %.12g\n" % tuple(np.degrees(EUL.get(v, np.zeros(3)))) for v in flat).encode()
    body += b"***end\n"
    open(path, "wb").write(body)


for fmt in ("ascii", "binary8", "binary16", "binary32", "binary16_big", "binary32_big"):
    for od in (False, True):
        for ver in ("2.1", "2.2"):
            p = os.path.join(T, "t_%s_%d_%s.tesr" % (fmt, od, ver))
            tesr(p, VOL, fmt, oridata=od, version=ver)
            expect_same(".tesr %s %s%s" % (ver, fmt, " + **oridata" if od else ""), p, h=SPACING, o=ORIGIN)


# Windows line ends, tabs; a 2.0 file (data format under **format)
for fmt in ("ascii", "binary16"):
    p = os.path.join(T, "t_crlf_%s.tesr" % fmt)
    tesr(p, VOL, fmt, oridata=True)
    blob = open(p, "rb").read()
    i = blob.index(b"**data")
    head = blob[:i].replace(b"\n", b"\r\n").replace(b"   ", b"\t")
    rest = blob[i:]
    if fmt == "ascii":
        rest = rest.replace(b"\n", b"\r\n")
    else:
        rest = rest.replace(b"binary16\n", b"binary16\r\n", 1)
    open(p, "wb").write(head + rest)
    expect_same(".tesr %s with CRLF line ends and tabs" % fmt, p, h=SPACING, o=ORIGIN)
p = os.path.join(T, "t_20.tesr")
open(p, "w").write("***tesr\n **format\n   2.0 ascii\n **general\n   3\n   %d %d %d\n   1 1 1\n **data\n%s\n***end\n"
                   % (NX, NY, NZ, "\n".join(str(v) for v in VOL.flatten())))
expect_same(".tesr 2.0 (ascii under **format)", p)
p = os.path.join(T, "t_short.tesr")
tesr(p, VOL, "binary32")
blob = open(p, "rb").read()
open(p, "wb").write(blob[:len(blob) - 40])
expect_refused(".tesr binary32 cut short", p)

# 2D maps (EBSD): **general 2, two sizes, two voxel sizes, a 2D origin
sl = VOL[2:3]
for fmt in ("ascii", "binary8", "binary32_big"):
    p = os.path.join(T, "t2d_%s.tesr" % fmt)
    flat = sl.flatten()
    body = ("***tesr\n **format\n   2.1\n **general\n   2\n   %d %d\n   0.5 0.25\n  *origin\n   1 -2\n"
            " **data\n   %s\n" % (NX, NY, fmt)).encode()
    if fmt == "ascii":
        body += (" ".join(str(v) for v in flat) + "\n").encode()
    else:
        body += flat.astype({"binary8": "u1", "binary32_big": ">i4"}[fmt]).tobytes() + b"\n"
    body += b" **oridata\n   euler-bunge\n   ascii\n" + b"0 0 0\n" * flat.size + b"***end\n"
    open(p, "wb").write(body)
    got, r = readback("t2d_" + fmt, p)
    check(".tesr 2D %s: read" % fmt, got is not None, r.stderr.decode(errors="replace"))
    if got is not None:
        check(".tesr 2D %s: labels, voxel size, origin" % fmt,
              got[0][:2] == [NX, NY] and got[0][2] == 1 and np.array_equal(got[3], sl) and
              got[1][:2] == [0.5, 0.25] and got[2][:2] == [1, -2], str(got[:3]))
# external data file named by *file, after CRLF header lines
p = os.path.join(T, "t_ext.tesr")
open(os.path.join(T, "t_ext.raw"), "wb").write(VOL.flatten().astype(">i2").tobytes())
open(p, "wb").write(("***tesr\r\n **format\r\n   2.1\r\n **general\r\n   3\r\n   %d %d %d\r\n   1 1 1\r\n"
                     " **data\r\n   binary16_big\r\n  *file t_ext.raw\r\n***end\r\n" % (NX, NY, NZ)).encode())
expect_same(".tesr *file external binary16_big, CRLF", p)

# DAMASK grid: materials are label ranks, so id 2^31 - 1 costs no table of 2^31 entries
import base64  # noqa: E402
# (a .tesr: no phases, so no renumbering by the reader)
vti = os.path.join(T, "huge.vti")
tesr(os.path.join(T, "huge.tesr"), huge, "binary32", cell=False)
r = run("convert", "-q", "--material", os.path.join(T, "huge.yaml"), os.path.join(T, "huge.tesr"), vti)
ok = r.returncode == 0
if ok:
    lines = open(vti).read().split("\n")
    k = [i for i, l in enumerate(lines) if 'Name="material"' in l][0]
    raw = base64.b64decode(lines[k + 1].strip())
    mat = np.frombuffer(raw[8:], "<i4").reshape(VOL.shape)
    rank = {0: 5, 1: 0, 2: 1, 3: 2, 4: 3, 2**31 - 1: 4}
    ok = np.array_equal(mat, np.vectorize(rank.get)(huge)) and "grain 2147483647" in open(os.path.join(T, "huge.yaml")).read()
check("DAMASK .vti of a map with id 2^31 - 1: materials are label ranks", ok, r.stderr.decode(errors="replace"))

# RVE_TEST_LONG=1: every 1/40 prefix of twelve of the files above must read
# (a prefix may hold whole pages) or be refused in one line, never crash
if os.environ.get("RVE_TEST_LONG") == "1":
    cuts = ["d3d_lei4.dream3d", "d3d_chunked.dream3d", "nx.dream3d", "pymicro_bei2.h5", "labdct.h5",
            "d3d_fletcher.dream3d", "userblock.h5", "t_binary16_1_2.1.tesr", "t_ascii_1_2.2.tesr"]
    if lib is not None:
        cuts += ["tiff_16_wb8_deflate_tiled.tif", "tiff_32_w_lzw_strips.tif", "tiff_8_wb_packbits_tiled.tif"]
    for f in cuts:
        blob = open(os.path.join(T, f), "rb").read()
        bad = []
        for k in range(1, 40):
            p = os.path.join(T, "prefix" + os.path.splitext(f)[1])
            open(p, "wb").write(blob[:len(blob) * k // 40])
            r = run("stat", p)
            err = r.stderr.decode(errors="replace").strip()
            if r.returncode not in (0, 1) or (r.returncode == 1 and len(err.split("\n")) != 1):
                bad.append("%d/40: exit %d %r" % (k, r.returncode, err[:200]))
        check("prefixes of %s: read or refused in one line" % f, not bad, "; ".join(bad[:3]))

print("map_layouts: %d passed, %d failed" % (check.passed, check.failed))
sys.exit(1 if check.failed else 0)

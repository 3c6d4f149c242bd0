#!/bin/sh
# test_hdf5.sh - HDF5 grain maps: files written here with h5py in each layout
# (DREAM3D SIMPL and NX, LabDCT, pymicro), the same rotation in each layout's
# own convention, read back through `rve convert` to .tesr; bad input; the
# DREAM3D writer; the real pymicro files of ../shared/data.  Skips (77)
# without a Python that has h5py and numpy.
RVE=${RVE:-./rve}
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_python test_hdf5 "h5py, numpy"
T=$(mktemp -d "${TMPDIR:-/tmp}/rve-hdf5.XXXXXX") || exit 1
[ -n "${RVE_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
RVE="$RVE" T="$T" SRC="$SRC" SHARED="${RVE_SHARED_DATA:-}" "$PY" - <<'EOF'
import os, subprocess, math, time, sys
import numpy as np, h5py
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests"))
from rot_oracle import Checker, eu2qu, qu2eu, qmul, angle, group, CUBIC, sym_angle

RVE, T, SHARED = os.environ["RVE"], os.environ["T"], os.environ["SHARED"]

check = Checker()
CUBIC24 = CUBIC

def run(*args):
    return subprocess.run([RVE] + list(args), capture_output=True, text=True)

def tesr_quats(path):
    lines = open(path).read().split("\n")
    i = [k for k, l in enumerate(lines) if l.strip() == "*ori"][0]
    # passive (sample to crystal) spelled out: Neper 4.10 reads a bare descriptor as active
    assert lines[i + 1].strip() == "quaternion:passive"
    out = []
    for l in lines[i + 2:]:
        f = l.split()
        if len(f) != 4 or l.strip().startswith("*"):
            break
        out.append(np.array([float(x) for x in f]))
    return out

def convert_quats(name, path):
    out = os.path.join(T, name + ".tesr")
    r = run("convert", path, out)
    if r.returncode != 0:
        check(name + " converts", False, r.stderr)
        return None
    return tesr_quats(out)

# Two grains on a 4 x 3 x 2 map; grain 2's rotation is the one compared.
e1, e2 = [0.1, 0.2, 0.3], [0.3, 0.7, 1.1]
q1, q2 = eu2qu(e1), eu2qu(e2)
nx, ny, nz = 4, 3, 2
ids = np.zeros((nz, ny, nx), np.int32)  # (Z, Y, X): DREAM3D and LabDCT order
ids[:, :, :2] = 1
ids[:, :, 2:] = 2
ids[0, 0, 0] = 0  # one void voxel

def rod(q):
    return q[1:] / q[0]

def dream3d_simpl(path, feature=True, cell_euler=None, spacing_name="SPACING", bad_table=False):
    with h5py.File(path, "w") as f:
        f.attrs["FileVersion"] = np.bytes_("7.0")
        dc = f.create_group("DataContainers/SmallIN100")  # a name files really use
        g = dc.create_group("_SIMPL_GEOMETRY")
        g["DIMENSIONS"] = np.array([nx, ny, nz], np.int64)
        g["ORIGIN"] = np.array([1.0, 2.0, 3.0], np.float32)
        g[spacing_name] = np.array([0.5, 0.5, 0.25], np.float32)
        c = dc.create_group("EBSD Scan Data")  # not "CellData": found by its shape
        c["FeatureIds"] = ids[..., None]
        c["Phases"] = np.ones((nz, ny, nx, 1), np.int32)
        if cell_euler is not None:
            c["EulerAngles"] = cell_euler
        if feature:
            fd = dc.create_group("Grain Data")
            rows = [[0, 0, 0], e1] + ([] if bad_table else [e2])
            fd["AvgEulerAngles"] = np.array(rows, np.float64)
            fd["Phases"] = np.array([[0], [1], [1]][:len(rows)], np.int32)
        en = dc.create_group("Phase Data")
        en["CrystalStructures"] = np.array([[999], [1]], np.uint32)

# --- the same rotation in four layouts ----------------------------------------
p = os.path.join(T, "simpl.dream3d")
dream3d_simpl(p)
qs = convert_quats("simpl", p)
check("DREAM3D SIMPL Bunge radians", qs is not None and len(qs) == 2 and angle(qs[1], q2) < 1e-9 and angle(qs[0], q1) < 1e-9,
      str(qs))

p = os.path.join(T, "simpl_res.dream3d")
dream3d_simpl(p, spacing_name="RESOLUTION")
r = run("stat", p)
check("DREAM3D RESOLUTION spacing", r.returncode == 0 and "0.5 x 0.5 x 0.25" in r.stdout and "origin 1 2 3" in r.stdout,
      r.stdout[:200] + r.stderr)

# voxel Euler angles only: the mean under cubic symmetry, each voxel given as
# another symmetric equivalent of grain 2's orientation
cub = [np.array(v) for v in [(1,0,0,0),(0,1,0,0),(0,0,1,0),(0,0,0,1),(.5,.5,.5,.5),(.5,-.5,-.5,-.5),
                             (math.sqrt(.5),math.sqrt(.5),0,0),(math.sqrt(.5),0,0,math.sqrt(.5))]]
eul = np.zeros((nz, ny, nx, 3))
k = 0
for z in range(nz):
    for y in range(ny):
        for x in range(nx):
            base = q2 if ids[z, y, x] == 2 else q1
            eul[z, y, x] = qu2eu(qmul(base, cub[k % len(cub)]))
            k += 1
p = os.path.join(T, "voxels.dream3d")
dream3d_simpl(p, feature=False, cell_euler=eul)
qs = convert_quats("voxels", p)
check("DREAM3D voxel mean under cubic symmetry",
      qs is not None and sym_angle(qs[1], q2) < 1e-9, str(qs))

# DREAM3D quaternions are stored (x, y, z, w): feature AvgQuats, cell Quats
def xyzw(q):
    return np.array([q[1], q[2], q[3], q[0]])
p = os.path.join(T, "avgquats.dream3d")
dream3d_simpl(p, feature=False)
with h5py.File(p, "a") as f:
    f["DataContainers/SmallIN100/Grain Data/AvgQuats"] = np.array([[0, 0, 0, 1], xyzw(q1), xyzw(q2)])
qs = convert_quats("avgquats", p)
check("DREAM3D AvgQuats (x, y, z, w)", qs is not None and angle(qs[1], q2) < 1e-9, str(qs))
cq = np.zeros((nz, ny, nx, 4))
cq[ids == 1] = xyzw(q1)
cq[ids == 2] = xyzw(q2)
p = os.path.join(T, "cellquats.dream3d")
dream3d_simpl(p, feature=False)
with h5py.File(p, "a") as f:
    f["DataContainers/SmallIN100/EBSD Scan Data/Quats"] = cq
qs = convert_quats("cellquats", p)
check("DREAM3D cell Quats, voxel mean", qs is not None and sym_angle(qs[1], q2) < 1e-9, str(qs))

p = os.path.join(T, "nx.dream3d")
with h5py.File(p, "w") as f:
    f.attrs["FileVersion"] = np.bytes_("8.0")
    geo = f.create_group("DataStructure/Image Geometry")
    geo.attrs["_DIMENSIONS"] = np.array([nx, ny, nz], np.uint64)
    geo.attrs["_ORIGIN"] = np.array([0, 0, 0], np.float32)
    geo.attrs["_SPACING"] = np.array([1, 1, 1], np.float32)
    cd = geo.create_group("Cell Data")
    d = cd.create_dataset("FeatureIds", data=ids[..., None])
    d.attrs["ComponentDimensions"] = np.array([1], np.uint64)
    d.attrs["TupleDimensions"] = np.array([nz, ny, nx], np.uint64)
    fd = geo.create_group("Cell Feature Data")
    fd["AvgEulerAngles"] = np.array([[0, 0, 0], e1, e2], np.float64)
qs = convert_quats("nx", p)
check("DREAM3D-NX", qs is not None and angle(qs[1], q2) < 1e-9, str(qs))

# LabDCT: Rodrigues vectors per voxel (GrainMapper3D: the passive numbers)
p = os.path.join(T, "labdct.h5")
with h5py.File(p, "w") as f:
    f["LabDCT/Spacing"] = np.array([0.002, 0.002, 0.002])
    f["LabDCT/Center"] = np.array([0.0, 0.0, 0.0])
    f["LabDCT/Extent"] = np.array([nx * 0.002, ny * 0.002, nz * 0.002])
    f["LabDCT/Data/GrainId"] = ids.astype(np.uint16)
    rv = np.zeros((nz, ny, nx, 3))
    rv[ids == 1] = rod(q1)
    rv[ids == 2] = rod(q2)
    f["LabDCT/Data/Rodrigues"] = rv
    f["LabDCT/Data/PhaseId"] = np.ones((nz, ny, nx), np.uint8)
    f["PhaseInfo/Phase01/SpaceGroup"] = np.array([225], np.int32)
qs = convert_quats("labdct", p)
check("LabDCT Rodrigues (voxel mean, cubic)", qs is not None and sym_angle(qs[1], q2) < 1e-9, str(qs))
r = run("stat", p)
check("LabDCT geometry centred", r.returncode == 0 and "origin -0.004 -0.003 -0.002" in r.stdout, r.stdout[:200] + r.stderr)

# LabDCT Euler angles, radians, as Xnovo's gm3dh5 reads them:
# EulerZXZ -> qz(a) qx(b) qz(c), EulerZYZ -> qz(a) qy(b) qz(c) (Hamilton products)
def qax(axis, a):
    q = np.zeros(4)
    q[0], q[1 + axis] = math.cos(a / 2), math.sin(a / 2)
    return q
for name, ax2 in [("EulerZXZ", 0), ("EulerZYZ", 1)]:
    abc = [0.4, 1.2, 2.5]
    want = qmul(qax(2, abc[0]), qmul(qax(ax2, abc[1]), qax(2, abc[2])))
    p = os.path.join(T, "labdct-%s.h5" % name)
    with h5py.File(p, "w") as f:
        f["LabDCT/Spacing"] = np.array([1.0, 1.0, 1.0])
        f["LabDCT/Center"] = np.array([0.0, 0.0, 0.0])
        f["LabDCT/Data/GrainId"] = ids
        ea = np.zeros((nz, ny, nx, 3))
        ea[ids == 2] = abc
        f["LabDCT/Data/" + name] = ea
    qs = convert_quats("labdct-" + name, p)
    check("LabDCT " + name + " (gm3dh5 products)", qs is not None and angle(qs[1], want) < 1e-9, str(qs))

# pymicro: (X, Y, Z) arrays, placeholder mask, compound table with Rodrigues
p = os.path.join(T, "pymicro.h5")
tab = np.dtype([("idnumber", np.int32), ("orientation", np.float64, (3,)), ("phase", np.uint8)])
with h5py.File(p, "w") as f:
    c = f.create_group("CellData")
    c["grain_map"] = np.transpose(ids, (2, 1, 0)).astype(np.int16)
    c["mask"] = np.zeros((1,), np.uint8)  # placeholder
    c.attrs["spacing"] = np.array([0.1, 0.1, 0.1])
    f["GrainData/GrainDataTable"] = np.array([(2, rod(q2), 1), (1, rod(q1), 1)], tab)
qs = convert_quats("pymicro", p)
check("pymicro Rodrigues (passive)", qs is not None and angle(qs[1], q2) < 1e-9, str(qs))

# pymicro's full phase_map (no phase column in the table) reaches the DREAM3D writer
p = os.path.join(T, "pymicro-phase.h5")
tab2 = np.dtype([("idnumber", np.int32), ("orientation", np.float64, (3,))])
with h5py.File(p, "w") as f:
    f["CellData/grain_map"] = np.transpose(ids, (2, 1, 0)).astype(np.int16)
    f["CellData/phase_map"] = np.transpose(np.where(ids == 2, 2, 1), (2, 1, 0)).astype(np.uint8)
    f["GrainData/GrainDataTable"] = np.array([(1, rod(q1)), (2, rod(q2))], tab2)
out = os.path.join(T, "pymicro-phase.dream3d")
r = run("convert", p, out)
ok = r.returncode == 0
if ok:
    with h5py.File(out, "r") as f:
        ph = f["DataContainers/ImageDataContainer/CellData/Phases"][()][..., 0]
        fph = f["DataContainers/ImageDataContainer/CellFeatureData/Phases"][()][:, 0]
    ok = (ph == np.where(ids == 0, 0, np.where(ids == 2, 2, 1))).all() and list(fph) == [0, 1, 2]
check("pymicro phase_map -> DREAM3D Phases", ok, r.stderr)

# --- bad input: one message naming the file and dataset, no output -------------
def refused(name, path, needle):
    out = os.path.join(T, name + "-out.tesr")
    r = run("convert", path, out)
    ok = r.returncode == 1 and needle in r.stderr and path in r.stderr and not os.path.exists(out)
    check("refused: " + name, ok, r.stderr)

bad = eul.copy()
bad[1, 1, 1, 0] = np.nan
p = os.path.join(T, "nan.dream3d")
dream3d_simpl(p, feature=False, cell_euler=bad)
refused("NaN Euler angle", p, "EulerAngles")
p = os.path.join(T, "short.dream3d")
dream3d_simpl(p, bad_table=True)
refused("short feature table", p, "AvgEulerAngles")
p = os.path.join(T, "shape.dream3d")
dream3d_simpl(p, feature=False, cell_euler=eul[:, :, :3, :])
refused("inconsistent shape", p, "EulerAngles")
p = os.path.join(T, "unknown.h5")
with h5py.File(p, "w") as f:
    f["something/else"] = np.zeros(3)
refused("unknown layout", p, "unknown HDF5 layout")
p = os.path.join(T, "nonunit.h5")
with h5py.File(p, "w") as f:
    f["LabDCT/Data/GrainId"] = ids
    f["LabDCT/Data/Quaternion"] = np.full((nz, ny, nx, 4), 0.7)
refused("non-unit quaternion", p, "/LabDCT/Data/Quaternion")
p = os.path.join(T, "missing.h5")
with h5py.File(p, "w") as f:
    f["CellData/grain_map"] = np.transpose(ids, (2, 1, 0))
    f["GrainData/GrainDataTable"] = np.array([(1, rod(q1), 1)], tab)
refused("grain missing from the table", p, "GrainDataTable")
p = os.path.join(T, "huge.dream3d")
with h5py.File(p, "w") as f:
    dc = f.create_group("DataContainers/D")
    dc["_SIMPL_GEOMETRY/DIMENSIONS"] = np.array([100000, 100000, 100000], np.int64)
    dc.create_group("CellData").create_dataset("FeatureIds", shape=(100000, 100000, 100000, 1),
                                               dtype=np.int32, chunks=(1, 1, 64, 1))
refused("absurd dimensions", p, "too many")

# --- writer: DREAM3D SIMPL, read by h5py and by rve ------------------------------
src = os.path.join(T, "simpl.dream3d")
out = os.path.join(T, "written.dream3d")
r = run("convert", src, out)
check("DREAM3D writer runs", r.returncode == 0 and os.path.exists(out + ".xdmf"), r.stderr)
if r.returncode == 0:
    with h5py.File(out, "r") as f:
        dc = f["DataContainers/ImageDataContainer"]
        fid = dc["CellData/FeatureIds"][()]
        check("written FeatureIds (Z,Y,X,1)", fid.shape == (nz, ny, nx, 1) and (fid[..., 0] == ids).all())
        av = dc["CellFeatureData/AvgEulerAngles"][()]
        check("written AvgEulerAngles", av.shape == (3, 3) and angle(eu2qu(av[2]), q2) < 1e-6, str(av))
        aq = dc["CellFeatureData/AvgQuats"][()]  # (x, y, z, w)
        check("written AvgQuats", angle(np.array([aq[2][3], *aq[2][:3]]), q2) < 1e-6, str(aq))
        # what DAMASK's ConfigMaterial.load_DREAM3D does with default arguments
        names = np.array([s.decode() for s in dc["CellEnsembleData/PhaseName"]])
        cph = dc["CellData/Phases"][()].flatten()
        check("written PhaseName (DAMASK)", list(names) == ["Invalid Phase", "Phase 1"]
              and set(names[cph]) == {"Invalid Phase", "Phase 1"}, str(names))
        check("written geometry", list(dc["_SIMPL_GEOMETRY/DIMENSIONS"][()]) == [nx, ny, nz]
              and abs(dc["_SIMPL_GEOMETRY/SPACING"][()][2] - 0.25) < 1e-7)
    # the XDMF companion: well-formed, point dimensions, HDF paths that exist
    import xml.etree.ElementTree as ET
    x = ET.parse(out + ".xdmf").getroot()
    topo = x.find(".//Topology").get("Dimensions").split()
    paths = [d.text.strip() for d in x.iter("DataItem") if d.get("Format") == "HDF"]
    with h5py.File(out, "r") as f:
        ok = topo == [str(nz + 1), str(ny + 1), str(nx + 1)] and len(paths) == 2 and all(
            p.split(":", 1)[0] == os.path.basename(out) and p.split(":", 1)[1] in f for p in paths)
    check("XDMF companion", ok, str(topo) + str(paths))
    qs = convert_quats("reread", out)
    check("DREAM3D writer round trip", qs is not None and angle(qs[1], q2) < 1e-6, str(qs))

# --- the real pymicro files ----------------------------------------------------
real = os.path.join(SHARED, "pymicro") if SHARED else ""
if real and os.path.exists(os.path.join(real, "n27-id1_data.h5")):
    for fn, ngr in [("n27-id1_data.h5", 27), ("t5_dct_slice_data.h5", 21)]:
        p = os.path.join(real, fn)
        t0 = time.time()
        r = run("stat", p)
        dt = time.time() - t0
        check("real " + fn + " loads", r.returncode == 0 and ("# %d grains" % ngr) in r.stdout, r.stderr)
        print("  %s: rve stat %.2f s" % (fn, dt))
        qs = convert_quats("real-" + fn, p)
        with h5py.File(p, "r") as f:
            t = f["GrainData/GrainDataTable"][()]
        worst = 0
        for row in t:
            rq = np.array([1.0, *row["orientation"]], np.float64)
            rq /= np.linalg.norm(rq)
            worst = max(worst, angle(qs[row["idnumber"] - 1], rq))
        check("real " + fn + " orientations = table", qs is not None and worst < 1e-6, "worst %g" % worst)
else:
    print("  real pymicro files absent: skipped")
    skipped = True

print("test_hdf5: %d passed, %d failed" % (check.passed, check.failed))
# part of the test did not run: report a skip (77), not a pass
raise SystemExit(1 if check.failed else 77 if globals().get("skipped") else 0)
EOF

#!/bin/sh
# DAMASK grid solver input (rve convert MAP -o grid.vti, rve raster T.tess
# -o grid.vti): the .vti read with Python's XML parser and numpy (extent,
# spacing, origin, the base64 UInt64-headed Int32 `material` array = label
# rank voxel by voxel, the line layout DAMASK's own reader needs), and
# material.yaml read with PyYAML (one material per grain, unit quaternions
# with w >= 0 equal to the input's Bunge angles converted here with numpy,
# phases, homogenization).  Bad requests: one line, documented exit status,
# nothing written.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init vti
lib_python vti "numpy, yaml, h5py"

cat >"$T/check.py" <<'EOF'
"""Independent readers of the .vti and material.yaml (not rve's code)."""
import base64, math, re, struct, sys
import xml.etree.ElementTree as ET
import numpy as np, yaml

def read_vti(path):
    root = ET.parse(path).getroot()
    assert root.tag == "VTKFile" and root.get("type") == "ImageData", "not VTK image data"
    assert root.get("byte_order") == "LittleEndian" and root.get("header_type") == "UInt64"
    assert root.get("compressor") is None
    img = root.find("ImageData")
    ext = [int(v) for v in img.get("WholeExtent").split()]
    assert ext[0::2] == [0, 0, 0], "extent does not start at 0"
    dims = ext[1::2]
    spacing = [float(v) for v in img.get("Spacing").split()]
    origin = [float(v) for v in img.get("Origin").split()]
    arrays = img.findall("./Piece/CellData/DataArray")
    da = [a for a in arrays if a.get("Name") == "material"]
    assert len(da) == 1 and da[0].get("type") == "Int32" and da[0].get("format") == "binary"
    raw = base64.b64decode(da[0].text.strip())
    n = struct.unpack("<Q", raw[:8])[0]
    assert n == 4 * dims[0] * dims[1] * dims[2] == len(raw) - 8, "byte count header"
    mat = np.frombuffer(raw[8:], "<i4").reshape(dims[2], dims[1], dims[0])  # x fastest
    # DAMASK's reader is line-based: the base64 string alone on the line after <DataArray ...>
    lines = open(path).read().split("\n")
    k = [i for i, l in enumerate(lines) if "<DataArray" in l and 'Name="material"' in l][0]
    assert re.fullmatch(r"\s*[A-Za-z0-9+/=]+", lines[k + 1]) and "</DataArray>" in lines[k + 2]
    return dims, spacing, origin, mat

def bunge_quat(e):
    """Rowenhorst et al. 2015 (P = -1), Bunge (phi1, Phi, phi2) in radians -> (w, x, y, z), w >= 0."""
    s, d = (e[0] + e[2]) / 2, (e[0] - e[2]) / 2
    c, si = math.cos(e[1] / 2), math.sin(e[1] / 2)
    q = np.array([c * math.cos(s), si * math.cos(d), si * math.sin(d), c * math.sin(s)])
    return -q if q[0] < 0 else q

def read_yaml(path):
    y = yaml.safe_load(open(path))
    assert set(y) == {"homogenization", "phase", "material"}
    (hname, h), = y["homogenization"].items()
    assert h["N_constituents"] == 1 and h["mechanical"]["type"] == "pass"
    mats = y["material"]
    for m in mats:
        assert m["homogenization"] == hname and len(m["constituents"]) == 1
        c = m["constituents"][0]
        assert c["v"] == 1.0 and c["phase"] in y["phase"] and "lattice" in y["phase"][c["phase"]]
        q = np.array(c["O"], float)
        assert q.shape == (4,) and abs(np.linalg.norm(q) - 1) < 1e-12 and q[0] >= 0
    return y
EOF

# ---------------------------------------------------------------- a DREAM3D map
"$PY" - "$T" <<'EOF' >"$T/py.out" 2>&1
import sys, numpy as np, h5py
T = sys.argv[1]
rng = np.random.default_rng(7)
def write(path, ids, euler):
    with h5py.File(path, "w") as f:
        dc = f.create_group("DataContainers/ImageDataContainer")
        g = dc.create_group("_SIMPL_GEOMETRY")
        g["DIMENSIONS"] = np.array(ids.shape[::-1], np.int64)
        g["ORIGIN"] = np.array([1.0, -2.0, 3.0], np.float32)
        g["SPACING"] = np.array([0.5, 0.25, 2.0], np.float32)
        dc.create_group("CellData")["FeatureIds"] = ids[..., None].astype(np.int32)
        dc.create_group("CellFeatureData")["AvgEulerAngles"] = euler.astype(np.float32)
        dc.create_group("CellEnsembleData")["CrystalStructures"] = np.array([[999], [1]], np.uint32)
ids = rng.integers(1, 7, size=(4, 5, 7))          # z, y, x: labels 1..6
ids[0, 0, :6] = np.arange(1, 7)                    # every label present
eul = np.vstack([[0, 0, 0], rng.uniform(0, [2 * np.pi, np.pi, 2 * np.pi], size=(6, 3))])
write(T + "/a.dream3d", ids, eul)
np.save(T + "/a_ids.npy", ids); np.save(T + "/a_eul.npy", eul.astype(np.float32).astype(float))
v = ids.copy(); v[1:3, 1:3, 2:5] = 0                # void voxels
write(T + "/v.dream3d", v, eul)
np.save(T + "/v_ids.npy", v)
s = np.where(ids % 2 == 1, ids, ids + 7)            # sparse labels 1, 3, 5, 9, 11, 13
e2 = np.vstack([eul, rng.uniform(0, 1, size=(7, 3))])
write(T + "/s.dream3d", s, e2)
np.save(T + "/s_ids.npy", s); np.save(T + "/s_eul.npy", e2.astype(np.float32).astype(float))
print("written")
EOF
grep_f "test maps written with h5py" "written" "$T/py.out"

check "convert to .vti" 0 "$RVE" convert -q "$T/a.dream3d" -o "$T/a.vti"
ok "material.yaml beside the .vti" "[ -s '$T/material.yaml' ]"
"$PY" - "$T" <<'EOF' >"$T/py.out" 2>&1
import sys; sys.path.insert(0, sys.argv[1]); from check import *
T = sys.argv[1]
dims, sp, org, mat = read_vti(T + "/a.vti")
ids, eul = np.load(T + "/a_ids.npy"), np.load(T + "/a_eul.npy")
assert dims == [7, 5, 4], dims
assert np.allclose(sp, [0.5, 0.25, 2.0], rtol=0, atol=1e-7) and np.allclose(org, [1, -2, 3], atol=1e-7), (sp, org)
assert (mat == ids - 1).all(), "material != label - 1"
y = read_yaml(T + "/material.yaml")
assert len(y["material"]) == 6 and list(y["phase"]) == ["cubic"] and y["phase"]["cubic"]["lattice"] == "cF"
worst = 0
for k, m in enumerate(y["material"]):
    q, want = np.array(m["constituents"][0]["O"]), bunge_quat(eul[k + 1])
    worst = max(worst, min(np.abs(q - want).max(), np.abs(q + want).max()))
assert worst < 1e-6, worst   # float32 angles in the file: both sides read the same float32 values
print("map ok, largest quaternion difference %.2g" % worst)
EOF
grep_f "map: grid, material = label - 1, 6 unit quaternions equal to numpy's from the Bunge angles" "map ok" "$T/py.out"

# VTK itself (python3-vtk9, when installed) reads the same file
if "$PY" -c "import vtk" 2>/dev/null; then
    "$PY" - "$T" <<'EOF' >"$T/py.out" 2>&1
import sys, numpy as np, vtk
from vtk.util.numpy_support import vtk_to_numpy
T = sys.argv[1]
r = vtk.vtkXMLImageDataReader()
r.SetFileName(T + "/a.vti")
r.Update()
img = r.GetOutput()
ids = np.load(T + "/a_ids.npy")
assert img.GetDimensions() == (8, 6, 5), img.GetDimensions()   # points: cells + 1
assert np.allclose(img.GetSpacing(), [0.5, 0.25, 2.0]) and np.allclose(img.GetOrigin(), [1, -2, 3])
mat = vtk_to_numpy(img.GetCellData().GetArray("material")).reshape(4, 5, 7)
assert (mat == ids - 1).all()
print("vtk ok")
EOF
    grep_f "VTK's XML image reader: grid and material = label - 1" "vtk ok" "$T/py.out"
else
    echo "vti: no python3-vtk9, VTK's own reader not tried"
fi

# void voxels: one more material, phase void, the last index
check "convert a map with void" 0 "$RVE" convert -q "$T/v.dream3d" -o "$T/v.vti" --material "$T/v.yaml"
"$PY" - "$T" <<'EOF' >"$T/py.out" 2>&1
import sys; sys.path.insert(0, sys.argv[1]); from check import *
T = sys.argv[1]
dims, sp, org, mat = read_vti(T + "/v.vti")
ids = np.load(T + "/v_ids.npy")
assert (mat == np.where(ids == 0, 6, ids - 1)).all()
y = read_yaml(T + "/v.yaml")
assert len(y["material"]) == 7 and y["material"][6]["constituents"][0]["phase"] == "void" and "void" in y["phase"]
print("void ok")
EOF
grep_f "void voxels: material 6 of phase void" "void ok" "$T/py.out"

# sparse labels: material = rank of the label
check "convert sparse labels" 0 "$RVE" convert -q "$T/s.dream3d" -o "$T/s.vti" --material "$T/s.yaml"
"$PY" - "$T" <<'EOF' >"$T/py.out" 2>&1
import sys; sys.path.insert(0, sys.argv[1]); from check import *
T = sys.argv[1]
dims, sp, org, mat = read_vti(T + "/s.vti")
ids, eul = np.load(T + "/s_ids.npy"), np.load(T + "/s_eul.npy")
labels = np.unique(ids)
assert (mat == np.searchsorted(labels, ids)).all()
y = read_yaml(T + "/s.yaml")
assert len(y["material"]) == len(labels) == 6
for k, l in enumerate(labels):
    q, want = np.array(y["material"][k]["constituents"][0]["O"]), bunge_quat(eul[l])
    assert min(np.abs(q - want).max(), np.abs(q + want).max()) < 1e-6, (k, l)
print("sparse ok")
EOF
grep_f "sparse labels: material = rank, orientations follow the labels" "sparse ok" "$T/py.out"

# ------------------------------------------------------------ from a tessellation
check "tess with orientations" 0 "$RVE" tess -q -n 15 --ori random --crysym hexagonal -o "$T/t.tess"
check "raster to .vti" 0 "$RVE" raster -q "$T/t.tess" --grid 9,7,5 -o "$T/t.vti" --material "$T/t.yaml"
check "raster to .raw" 0 "$RVE" raster -q "$T/t.tess" --grid 9,7,5 -o "$T/t.raw"
"$PY" - "$T" <<'EOF' >"$T/py.out" 2>&1
import sys; sys.path.insert(0, sys.argv[1]); from check import *
T = sys.argv[1]
dims, sp, org, mat = read_vti(T + "/t.vti")
raw = open(T + "/t.raw", "rb").read()
lab = np.frombuffer(raw, {1: "u1", 2: "<u2", 4: "<u4"}[len(raw) // (9 * 7 * 5)]).reshape(5, 7, 9).astype(int)
labels = np.unique(lab)
assert dims == [9, 7, 5] and np.allclose(sp, [1 / 9, 1 / 7, 1 / 5]) and np.allclose(org, 0)
assert (mat == np.searchsorted(labels, lab)).all()
# the .tess's own *id and *ori sections, parsed here
words = open(T + "/t.tess").read().split()
def section(name, n):
    i = words.index(name)
    return words[i + 1:i + 1 + n]
ids = [int(v) for v in section("*id", 15)]
assert section("*ori", 1) == ["quaternion:passive"]
q = np.array(section("*ori", 61)[1:], float).reshape(15, 4)
y = read_yaml(T + "/t.yaml")
assert list(y["phase"]) == ["hexagonal"] and y["phase"]["hexagonal"]["lattice"] == "hP"
assert len(y["material"]) == len(labels)
for k, l in enumerate(labels):
    want = q[ids.index(l)]
    got = np.array(y["material"][k]["constituents"][0]["O"])
    assert min(np.abs(got - want).max(), np.abs(got + want).max()) < 1e-12, (k, l)
print("tess ok")
EOF
grep_f "tess: material = label rank voxel by voxel, O = the .tess *ori" "tess ok" "$T/py.out"

# ------------------------------------------------------------------ bad requests
check "--material without .vti" 2 "$RVE" convert "$T/a.dream3d" -o "$T/b.tif" --material "$T/b.yaml"
grep_f "--material without .vti named" "only for a .vti" "$T/err"
absent "nothing written" "$T/b.tif"
check "material.yaml onto the input" 2 "$RVE" raster "$T/t.tess" --grid 2,2,2 -o "$T/c.vti" --material "$T/t.tess"
absent "no .vti after the refusal" "$T/c.vti"
check "unwritable folder" 1 "$RVE" convert "$T/a.dream3d" -o "$T/none/a.vti"
one_line "unwritable folder: one line"
"$PY" -c "open('$T/void.raw', 'wb').write(bytes(8))"
check "a map without grains" 1 "$RVE" convert "$T/void.raw" --dims 2,2,2 --in-bytes 1 -o "$T/void.vti" --material "$T/void.yaml"
grep_f "no grain named" "no grain" "$T/err"
absent "no .vti for an empty map" "$T/void.vti"
absent "no material.yaml for an empty map" "$T/void.yaml"
lib_finish

#!/bin/sh
# test_ori_run.sh - per-grain orientations from a crystallographic grain map
# to the fitted and regularised .tess and to the mesh (issue 15).  Small maps
# are written here with h5py in three layouts (DREAM3D SIMPL feature table in
# Bunge radians, LabDCT voxel Rodrigues vectors each given as another cubic
# equivalent, pymicro table of Rodrigues vectors), with sparse grain ids and
# two phases; `rve run FILE -o DIR --format msh,inp,vtk,fepx` must give a fit.tess
# and reg.tess whose *ori, and a mesh.inp (*User Material constants),
# mesh.vtk (cell data), mesh.ori and mesh-fepx.msh (FEPX $ElsetOrientations,
# $Groups phases) whose
# per-grain orientations equal the input's within 1e-6 degrees (disorientation; cubic symmetry where the input gave voxel
# orientations), read by this script's own parsers and rotation formulas;
# `rve mesh DIR/reg.tess -o X.inp` carries them too; `rve stat` gives the
# grain-boundary disorientations numpy finds from the voxel faces, and its
# --pole-figure PNG has the poles where Bunge's matrix puts them.
# Skips (77) without a Python that has h5py and numpy.
RVE=${RVE:-./rve}
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_python test_ori_run "h5py, numpy"
T=$(mktemp -d "${TMPDIR:-/tmp}/rve-orirun.XXXXXX") || exit 1
[ -n "${RVE_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
RVE="$RVE" T="$T" SRC="$SRC" "$PY" - <<'EOF'
import os, subprocess, math, sys
import numpy as np, h5py
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests"))
from rot_oracle import Checker, eu2qu, qmul, angle, sym_angle, CUBIC

RVE, T = os.environ["RVE"], os.environ["T"]
worst = 0.0  # largest disorientation seen (degrees)

check = Checker()

def disori(q, p, sym):  # degrees; crystal-side symmetry is enough for the angle to one input
    return math.degrees(sym_angle(q, p) if sym else angle(q, p))

def rod(q):
    return q[1:] / q[0]

# --- a small map: 6 Voronoi grains with sparse ids, two phases ------------
rng = np.random.default_rng(15)
n = 14
seeds = np.array([[3, 3, 3], [10, 4, 4], [4, 10, 5], [10, 10, 9], [4, 4, 11], [10, 3, 11.]]) + 0.3
gid = np.array([2, 5, 9, 10, 17, 40])
phase = {2: 1, 5: 2, 9: 1, 10: 2, 17: 1, 40: 1}
z, y, x = np.meshgrid(np.arange(n) + .5, np.arange(n) + .5, np.arange(n) + .5, indexing="ij")
d = np.stack([(x - s[0])**2 + (y - s[1])**2 + (z - s[2])**2 for s in seeds])
ids = gid[np.argmin(d, 0)].astype(np.int32)  # (Z, Y, X)
eul = {g: rng.random(3) * np.array([2 * math.pi, math.pi, 2 * math.pi]) for g in gid}
truth = {g: eu2qu(eul[g]) for g in gid}

def write_dream3d(p):
    with h5py.File(p, "w") as f:
        f.attrs["FileVersion"] = np.bytes_("7.0")
        dc = f.create_group("DataContainers/ImageDataContainer")
        g = dc.create_group("_SIMPL_GEOMETRY")
        g["DIMENSIONS"] = np.array([n, n, n], np.int64)
        g["ORIGIN"] = np.zeros(3, np.float32)
        g["SPACING"] = np.ones(3, np.float32)
        dc.create_group("CellData")["FeatureIds"] = ids[..., None]
        fd = dc.create_group("CellFeatureData")
        tab = np.zeros((gid.max() + 1, 3))
        ph = np.zeros((gid.max() + 1, 1), np.int32)
        for k in gid:
            tab[k], ph[k] = eul[k], phase[k]
        fd["AvgEulerAngles"] = tab
        fd["Phases"] = ph
        dc.create_group("CellEnsembleData")["CrystalStructures"] = np.array([[999], [1], [1]], np.uint32)

def write_labdct(p):  # every voxel another cubic equivalent of its grain's orientation
    rv = np.zeros(ids.shape + (3,))
    it = np.nditer(ids, flags=["multi_index"])
    for v in it:
        q = qmul(truth[int(v)], CUBIC[rng.integers(24)])
        q = q if q[0] > 1e-3 else qmul(truth[int(v)], CUBIC[0])  # avoid infinite vectors
        rv[it.multi_index] = rod(q if q[0] > 0 else -q)
    with h5py.File(p, "w") as f:
        f["LabDCT/Spacing"] = np.array([0.002, 0.002, 0.002])
        f["LabDCT/Center"] = np.array([0.0, 0.0, 0.0])
        f["LabDCT/Data/GrainId"] = ids.astype(np.uint16)
        f["LabDCT/Data/Rodrigues"] = rv
        f["LabDCT/Data/PhaseId"] = np.vectorize(lambda g: phase[g])(ids).astype(np.uint8)
        f["PhaseInfo/Phase01/SpaceGroup"] = np.array([225], np.int32)
        f["PhaseInfo/Phase02/SpaceGroup"] = np.array([229], np.int32)

def write_pymicro(p):
    tab = np.dtype([("idnumber", np.int32), ("orientation", np.float64, (3,)), ("phase", np.uint8)])
    with h5py.File(p, "w") as f:
        c = f.create_group("CellData")
        c["grain_map"] = np.transpose(ids, (2, 1, 0)).astype(np.int16)
        c.attrs["spacing"] = np.array([0.5, 0.5, 0.5])
        f["GrainData/GrainDataTable"] = np.array([(g, rod(truth[g]), phase[g]) for g in gid[::-1]], tab)

# --- independent readers of our outputs --------------------------------------
def tess_ori(path):  # {id: quaternion} from **cell *id and *ori
    tok = open(path).read().split()
    i = tok.index("*id")
    j = i + 1
    cid = []
    while not tok[j].startswith("*"):
        cid.append(int(tok[j]))
        j += 1
    k = tok.index("*ori")
    des = tok[k + 1]
    vals = [float(v) for v in tok[k + 2:k + 2 + 4 * len(cid)]]
    return des, {c: np.array(vals[4 * m:4 * m + 4]) for m, c in enumerate(cid)}

def inp_ori(path):  # {grain: (quaternion from Bunge degrees, id, phase)}, elsets with elements
    lines = open(path).read().split("\n")
    out, elsets, nconst = {}, set(), {}
    for m, l in enumerate(lines):
        if l.startswith("*Element,"):
            elsets.add(l.split("elset=")[1].strip())
        if l.startswith("*Material, name="):
            name = l.split("=")[1].strip()
            k = m + 1
            while not lines[k].startswith("*User Material"):
                k += 1
            nconst[name] = int(lines[k].split("constants=")[1])
            c = [float(v) for v in lines[k + 1].replace(",", " ").split()]
            e = [math.radians(a) for a in c[:3]]
            out[int(name[5:])] = (eu2qu(e), int(c[3]), int(c[4]))
    return out, elsets, nconst

def vtk_fields(path):
    tok = open(path).read().split()
    nc = int(tok[tok.index("CELL_DATA") + 1])
    f, k = {}, tok.index("CELL_DATA") + 2
    while k < len(tok) and tok[k] == "SCALARS":
        name = tok[k + 1]
        f[name] = np.array([float(v) for v in tok[k + 6:k + 6 + nc]])
        k += 6 + nc
    return f

def tess_crysym(path):
    tok = open(path).read().split()
    return tok[tok.index("*crysym") + 1] if "*crysym" in tok else None

def check_run(name, path, sym, crysym):
    global worst
    out = os.path.join(T, name)
    r = subprocess.run([RVE, "run", path, "-o", out, "--format", "msh,inp,vtk,fepx", "-q"],
                       capture_output=True, text=True)
    check(name + ": rve run", r.returncode == 0, r.stderr)
    if r.returncode:
        return
    for t in ("fit.tess", "reg.tess"):
        des, q = tess_ori(os.path.join(out, t))
        dmax = max(disori(q[g], truth[g], sym) for g in gid) if sorted(q) == sorted(gid) else 1e9
        worst = max(worst, dmax)
        check("%s: %s *ori quaternion:passive, every grain, max %.2g deg" % (name, t, dmax),
              des == "quaternion:passive" and dmax < 1e-6, str(sorted(q)))
    cs = [tess_crysym(os.path.join(out, t)) for t in ("fit.tess", "reg.tess")]
    check("%s: *crysym %s" % (name, crysym), cs == [crysym, crysym], str(cs))
    mats, elsets, nconst = inp_ori(os.path.join(out, "mesh.inp"))
    dmax = max(disori(mats[g][0], truth[g], sym) for g in gid) if sorted(mats) == sorted(gid) else 1e9
    worst = max(worst, dmax)
    check("%s: mesh.inp materials (Bunge deg), max %.2g deg" % (name, dmax), dmax < 1e-6, str(sorted(mats)))
    check(name + ": mesh.inp grain id, phase, 5 constants, one elset per material",
          all(mats[g][1] == g and mats[g][2] == phase[g] for g in gid) and set(nconst.values()) == {5}
          and elsets == {"grain%d" % g for g in gid})
    # FEPX's mesh.ori: elsets = the .msh's physical volumes (grain ids)
    tok = open(os.path.join(out, "mesh.ori")).read().split()
    ne = int(tok[1])
    rows = {int(tok[3 + 5 * i]): np.array([float(v) for v in tok[4 + 5 * i:8 + 5 * i]]) for i in range(ne)}
    vols = set()
    lines = open(os.path.join(out, "mesh.msh")).read().split("$PhysicalNames")[1].split("$EndPhysicalNames")[0].split("\n")
    for l in lines[2:]:
        f = l.split()
        if len(f) == 3 and f[0] == "3":
            vols.add(int(f[1]))
    d3 = max(disori(rows[g], truth[g], sym) for g in gid) if sorted(rows) == sorted(gid) else 1e9
    worst = max(worst, d3)
    check("%s: mesh.ori $ElsetOrientations quaternion:passive, elsets = physical volumes, max %.2g deg" % (name, d3),
          tok[0] == "$ElsetOrientations" and tok[2] == "quaternion:passive" and d3 < 1e-6 and vols == set(gid)
          and tok[3 + 5 * ne] == "$EndElsetOrientations", str(tok[:3]) + str(sorted(vols)))
    # FEPX's own .msh from rve run: $ElsetOrientations and $Groups (phase, 1-based)
    sec, cur = {}, None
    for l in open(os.path.join(out, "mesh-fepx.msh")).read().split("\n"):
        if l.startswith("$End"):
            cur = None
        elif l.startswith("$"):
            cur = sec.setdefault(l[1:], [])
        elif cur is not None and l.strip():
            cur.append(l.split())
    eo, gr = sec.get("ElsetOrientations", [[]]), sec.get("Groups", [[], []])
    rows = {int(w[0]): np.array([float(v) for v in w[1:5]]) for w in eo[1:]}
    d4 = max(disori(rows[g], truth[g], sym) for g in gid) if sorted(rows) == sorted(gid) else 1e9
    worst = max(worst, d4)
    ph = {int(w[0]): int(w[1]) for w in gr[2:]}
    check("%s: mesh-fepx.msh orientations (max %.2g deg) and $Groups phases" % (name, d4),
          eo[0] == [str(len(gid)), "quaternion:passive"] and d4 < 1e-6 and gr[0] == ["elset"]
          and ph == {g: max(phase[g], 1) for g in gid}, str(eo[0]) + str(gr[:2]) + str(ph))
    # rve mesh of the regularised file: the same orientations (no map: phase 0)
    m2 = os.path.join(out, "again.inp")
    r = subprocess.run([RVE, "mesh", os.path.join(out, "reg.tess"), "-o", m2, "-q"], capture_output=True, text=True)
    mats2 = inp_ori(m2)[0] if r.returncode == 0 else {}
    d2 = max(disori(mats2[g][0], truth[g], sym) for g in gid) if sorted(mats2) == sorted(gid) else 1e9
    worst = max(worst, d2)
    check("%s: rve mesh reg.tess -o .inp, max %.2g deg, phase 0" % (name, d2),
          d2 < 1e-6 and all(mats2[g][2] == 0 for g in gid), r.stderr)
    f = vtk_fields(os.path.join(out, "mesh.vtk"))
    ok, dq, de = True, 0.0, 0.0
    for g in gid:
        sel = f["grain"] == g
        if not sel.any():
            ok = False
            continue
        rows = np.stack([f[c][sel] for c in ("q0", "q1", "q2", "q3", "phi1", "Phi", "phi2", "phase", "grain_id")], 1)
        ok = ok and (rows == rows[0]).all() and rows[0][7] == phase[g] and rows[0][8] == g
        dq = max(dq, disori(rows[0][:4], truth[g], sym))
        de = max(de, disori(eu2qu([math.radians(a) for a in rows[0][4:7]]), truth[g], sym))
    worst = max(worst, dq, de)
    check("%s: mesh.vtk cell data per grain (quaternion %.2g, Bunge %.2g deg), phase, id" % (name, dq, de),
          ok and dq < 1e-6 and de < 1e-6)

p = os.path.join(T, "map.dream3d")
write_dream3d(p)
check_run("dream3d", p, False, "cubic")
# rve stat: grain-boundary disorientations against numpy's voxel-face pairs
import json
r = subprocess.run([RVE, "stat", "--json", "--no-area", p], capture_output=True, text=True)
o = json.loads(r.stdout)["orientations"] if r.returncode == 0 else {}
pairs = {}
for ax in range(3):
    a = np.moveaxis(ids, ax, 0)
    u, v = a[:-1].ravel(), a[1:].ravel()
    for x, y in zip(u[u != v], v[u != v]):
        k = (min(x, y), max(x, y))
        pairs[k] = pairs.get(k, 0) + 1
ang = {k: disori(truth[k[0]], truth[k[1]], True) for k in pairs}
area = sum(pairs.values())
want = (len(pairs), sum(ang.values()) / len(ang), sum(ang[k] * pairs[k] for k in pairs) / area,
        sum(pairs[k] for k in pairs if ang[k] < 15) / area)
got = (o.get("boundaries"), o.get("disori_mean_deg"), o.get("disori_area_mean_deg"), o.get("low_angle_area_fraction"))
check("rve stat: %d boundaries, mean disorientation %.6f deg, area-weighted %.6f, low-angle %.4f" % want,
      got[0] == want[0] and o.get("crysym") == "cubic" and all(abs(g - w) < 1e-9 for g, w in zip(got[1:], want[1:])),
      str(got) + r.stderr)
# through a .tesr (rve's writer: *ori, *crysym) the fit gets the same orientations
tesr, tt = os.path.join(T, "map.tesr"), os.path.join(T, "tesr.tess")
r = subprocess.run([RVE, "convert", p, tesr], capture_output=True, text=True)
if r.returncode == 0:
    r = subprocess.run([RVE, "fit", tesr, "-o", tt, "--no-report", "-q"], capture_output=True, text=True)
ok = r.returncode == 0
if ok:
    des, q = tess_ori(tt)
    d = max(disori(q[g], truth[g], False) for g in gid) if sorted(q) == sorted(gid) else 1e9
    worst = max(worst, d)
    ok = des == "quaternion:passive" and tess_crysym(tt) == "cubic" and d < 1e-6
check("DREAM3D -> .tesr -> rve fit: same *ori and *crysym", ok, r.stderr)
# the DREAM3D writer gives the symmetry back as CrystalStructures (1: cubic)
q = os.path.join(T, "back.dream3d")
r = subprocess.run([RVE, "convert", p, q], capture_output=True, text=True)
cs = None
if r.returncode == 0:
    with h5py.File(q, "r") as f:
        cs = list(f["DataContainers/ImageDataContainer/CellEnsembleData/CrystalStructures"][()].ravel())
check("DREAM3D written back: CrystalStructures 999, 1, 1", cs == [999, 1, 1], str(cs) + r.stderr)
# phases of different symmetry: no single *crysym
with h5py.File(p, "a") as f:
    f["DataContainers/ImageDataContainer/CellEnsembleData/CrystalStructures"][2, 0] = 0
r = subprocess.run([RVE, "fit", p, "-o", os.path.join(T, "mixed.tess"), "--no-report", "-q"],
                   capture_output=True, text=True)
check("cubic and hexagonal phases: no *crysym", r.returncode == 0 and tess_crysym(os.path.join(T, "mixed.tess")) is None,
      r.stderr)
p = os.path.join(T, "labdct.h5")
write_labdct(p)
check_run("labdct", p, True, "cubic")
p = os.path.join(T, "pymicro.h5")
write_pymicro(p)
check_run("pymicro", p, False, None)

# rve stat --pole-figure: one grain, Bunge (30, 20, 10) deg, cubic; the PNG
# decoded here (zlib and the five PNG filters) and the {100}, {110}, {111}
# poles placed with Bunge's matrix and the stereographic projection
import zlib, struct
def png_rgb(path):
    data = open(path, "rb").read()
    k, idat, w = 8, b"", 0
    while k < len(data):
        n, typ = struct.unpack(">I4s", data[k:k + 8])
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", data[k + 8:k + 18])
            assert depth == 8 and ctype == 2
        if typ == b"IDAT":
            idat += data[k + 8:k + 8 + n]
        k += 12 + n
    raw, rows, prev, bpp = zlib.decompress(idat), [], bytearray(3 * w), 3
    for y in range(h):
        f, line = raw[y * (3 * w + 1)], bytearray(raw[y * (3 * w + 1) + 1:(y + 1) * (3 * w + 1)])
        for i in range(3 * w):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            pa, pb, pc = abs(b - c), abs(a - c), abs(a + b - 2 * c)
            pred = [0, a, b, (a + b) // 2, a if pa <= pb and pa <= pc else (b if pb <= pc else c)][f]
            line[i] = (line[i] + pred) & 255
        rows.append(line)
        prev = line
    return np.array(rows).reshape(h, w, 3)
e = [math.radians(a) for a in (30, 20, 10)]
c1, s1, C, S, c2, s2 = math.cos(e[0]), math.sin(e[0]), math.cos(e[1]), math.sin(e[1]), math.cos(e[2]), math.sin(e[2])
G = np.array([[c1*c2 - s1*s2*C, s1*c2 + c1*s2*C, s2*S], [-c1*s2 - s1*c2*C, -s1*s2 + c1*c2*C, c2*S], [s1*S, -c1*S, C]])
one = os.path.join(T, "one.dream3d")
with h5py.File(one, "w") as f:
    dc = f.create_group("DataContainers/ImageDataContainer")
    g = dc.create_group("_SIMPL_GEOMETRY")
    g["DIMENSIONS"] = np.array([4, 4, 4], np.int64)
    g["ORIGIN"] = np.zeros(3, np.float32)
    g["SPACING"] = np.ones(3, np.float32)
    dc.create_group("CellData")["FeatureIds"] = np.ones((4, 4, 4, 1), np.int32)
    dc.create_group("CellFeatureData")["AvgEulerAngles"] = np.array([[0, 0, 0], e])
    dc.create_group("CellEnsembleData")["CrystalStructures"] = np.array([[999], [1]], np.uint32)
png = os.path.join(T, "pf.png")
r = subprocess.run([RVE, "stat", "--no-area", one, "--pole-figure", png], capture_output=True, text=True)
ok, nfound, nwant = r.returncode == 0, 0, 0
if ok:
    im = png_rgb(png)
    fams = [[v for v in __import__("itertools").product(*[(-1, 0, 1)] * 3) if sorted(map(abs, v)) == sorted(fam)]
            for fam in ([0, 0, 1], [0, 1, 1], [1, 1, 1])]
    for fi, fam in enumerate(fams):
        hits = set()
        for v in fam:
            vs = G.T @ (np.array(v, float) / np.linalg.norm(v))
            if vs[2] < 0:
                vs = -vs
            px = 160 + 320 * fi + int(round(140 * vs[0] / (1 + vs[2])))
            py = 168 - int(round(140 * vs[1] / (1 + vs[2])))
            hits.add((px, py))
        for px, py in hits:
            nwant += 1
            nfound += (im[py - 1:py + 2, px - 1:px + 2] != 255).any(2).all()  # a 3 x 3 dot there
    # nothing where no pole is: the centre of each panel (no pole there for this orientation)
    ok = ok and all((im[168, 160 + 320 * f] == [160, 160, 160]).all() or (im[168, 160 + 320 * f] == 255).all() for f in range(3))
check("pole figure: %d of %d predicted {100}, {110}, {111} poles drawn" % (nfound, nwant),
      ok and nwant == 3 + 6 + 4 and nfound == nwant, r.stderr)
r = subprocess.run([RVE, "stat", "--no-area", one, "--pole-figure", png, "--json"], capture_output=True, text=True)
check("pole figure with --json", r.returncode == 0)

print("largest disorientation input -> outputs: %.3g deg" % worst)
print("test_ori_run: %d passed, %d failed" % (check.passed, check.failed))
raise SystemExit(1 if check.failed else 0)
EOF

#!/bin/sh
# Orientations and phases in the solver outputs of periodic and non-periodic
# meshes (issue 16), read back by real clients: meshio (.inp, .vtk), gmsh
# (.msh physical groups), and independent parsers of the Abaqus materials and
# of the FEPX sections.  The orientations are compared, as matrices, with a
# numpy conversion of the quaternions the .tess holds (Rowenhorst's passive
# convention, docs/orientations.md), not with rve's own conversions.
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_init periodic_ori
lib_python test_periodic_ori "gmsh, meshio, numpy"
d=$T

check "gen periodic with orientations" 0 "$RVE" gen -n 24 --domain 1,1,1 --periodic --morpho gg \
    --ori random --seed 5 -o "$d/g.tess" -q
check "reg periodic with orientations" 0 "$RVE" reg "$d/g.tess" -o "$d/r.tess" -q
check "mesh periodic with orientations" 0 "$RVE" mesh "$d/r.tess" --format msh,inp,vtk,fepx -o "$d/p" -q
check "gen non-periodic with orientations" 0 "$RVE" gen -n 24 --domain 1,1,1 --morpho gg \
    --ori random --seed 6 -o "$d/n.tess" -q
check "mesh non-periodic with orientations" 0 "$RVE" mesh "$d/n.tess" --reg --format msh,inp,vtk,fepx \
    -o "$d/n" -q

cat >"$d/ori.py" <<'PY'
import sys, re, numpy as np, meshio, gmsh
tess, stem, periodic = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
res = []
def ok(name, cond):
    res.append(bool(cond))
    if not cond:
        print("FAIL:", name)

# the .tess written by rve gen: ids and passive quaternions, one per cell
txt = open(tess).read().split("\n")
def block(tag):
    i = [k for k, l in enumerate(txt) if l.strip() == tag][0]
    out = []
    for l in txt[i + 1:]:
        if l.strip().startswith("*"):
            break
        out.append(l)
    return out
ncell = int(block("**cell")[0])
qs = block("*ori")
ok("quaternion:passive in the .tess", qs[0].strip() == "quaternion:passive")
Q = {k + 1: np.array([float(x) for x in qs[1 + k].split()]) for k in range(ncell)}

def om_q(q):
    """passive matrix of q (Rowenhorst P = -1): the transpose of the active one"""
    w, x, y, z = q / np.linalg.norm(q)
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return R.T

def om_bunge(p1, P, p2):
    """g = Rz(phi2) Rx(Phi) Rz(phi1), passive elementary rotations, degrees"""
    def rz(a):
        c, s = np.cos(np.radians(a)), np.sin(np.radians(a))
        return np.array([[c, s, 0], [-s, c, 0], [0, 0, 1]])
    def rx(a):
        c, s = np.cos(np.radians(a)), np.sin(np.radians(a))
        return np.array([[1, 0, 0], [0, c, s], [0, -s, c]])
    return rz(p2) @ rx(P) @ rz(p1)

# Abaqus: one section and one material per grain, constants phi1 Phi phi2 id phase
inp = open(stem + ".inp").read()
mats = re.findall(r"\*Material, name=grain(\d+)\s*\n(?:\*\*[^\n]*\n)*\*User Material, constants=5\s*\n([^\n]*)", inp)
secs = re.findall(r"\*Solid Section, elset=grain(\d+), material=grain(\d+)", inp)
m = meshio.read(stem + ".inp")
grains_inp = sorted(int(k[5:]) for k in m.cell_sets if re.fullmatch(r"grain\d+", k))
ok("inp: one material per grain (%d materials, %d elsets)" % (len(mats), len(grains_inp)),
   sorted(int(g) for g, _ in mats) == grains_inp and len(set(g for g, _ in mats)) == len(mats))
ok("inp: one section per grain, material of its own", sorted(int(a) for a, b in secs) == grains_inp
   and all(a == b for a, b in secs))
worst = 0
for g, row in mats:
    v = [float(x) for x in row.split(",")]
    worst = max(worst, np.abs(om_bunge(*v[:3]) - om_q(Q[int(g)])).max())
    ok("inp: grain id constant of grain %s" % g, int(v[3]) == int(g))
    ok("inp: phase constant of grain %s" % g, v[4] == 0)
ok("inp: Euler angles = the .tess orientation (max |dg| %.1e)" % worst, worst < 1e-9)

# VTK: per tetrahedron, the fields of its grain
v = meshio.read(stem + ".vtk")
cd = {k: np.asarray(a[0]).ravel() for k, a in v.cell_data.items()}
for k in ("grain", "phi1", "Phi", "phi2", "grain_id", "phase", "q0", "q1", "q2", "q3"):
    ok("vtk: cell data %s" % k, k in cd)
g = cd["grain"].astype(int)
worst_e = worst_q = 0
for gi in np.unique(g):
    i = np.where(g == gi)[0]
    for k in ("phi1", "Phi", "phi2", "q0", "q1", "q2", "q3", "grain_id"):
        ok("vtk: %s constant over grain %d" % (k, gi), np.all(cd[k][i] == cd[k][i[0]]))
    j = i[0]
    worst_e = max(worst_e, np.abs(om_bunge(cd["phi1"][j], cd["Phi"][j], cd["phi2"][j]) - om_q(Q[gi])).max())
    q = np.array([cd["q0"][j], cd["q1"][j], cd["q2"][j], cd["q3"][j]])
    worst_q = max(worst_q, min(np.abs(q - Q[gi]).max(), np.abs(q + Q[gi]).max()))
    ok("vtk: grain_id of grain %d" % gi, cd["grain_id"][j] == gi)
ok("vtk: Euler angles = .tess (max %.1e)" % worst_e, worst_e < 1e-9)
ok("vtk: quaternions = .tess (max %.1e)" % worst_q, worst_q < 1e-12)
ok("vtk: every grain meshed", sorted(np.unique(g).tolist()) == grains_inp)

# gmsh reads the .msh 4.1: one physical volume per grain, named grainN
gmsh.initialize()
gmsh.option.setNumber("General.Terminal", 0)
gmsh.open(stem + ".msh")
names = sorted(int(gmsh.model.getPhysicalName(3, t)[5:]) for _, t in gmsh.model.getPhysicalGroups(3))
gmsh.finalize()
ok("msh: physical volumes grainN, one per grain", names == grains_inp)

# FEPX .msh (our parser, Neper's sections) and MESH.ori beside the .msh
def sections(path):
    sec, cur = {}, None
    for l in open(path).read().split("\n"):
        if l.startswith("$End"):
            cur = None
        elif l.startswith("$"):
            cur = l[1:]
            sec[cur] = []
        elif cur is not None and l.strip():
            sec[cur].append(l.split())
    return sec
for path in (stem + "-fepx.msh", stem + ".ori"):
    s = sections(path)
    eo = s.get("ElsetOrientations", [])
    ok("%s: quaternion:passive, one row per grain" % path,
       eo and eo[0] == [str(len(grains_inp)), "quaternion:passive"] and len(eo) == 1 + len(grains_inp))
    ids = [int(r[0]) for r in eo[1:]]
    ok("%s: elsets = the grains, once each" % path, sorted(ids) == grains_inp)
    wq = max(min(np.abs(np.array(list(map(float, r[1:]))) - Q[int(r[0])]).max(),
                 np.abs(np.array(list(map(float, r[1:]))) + Q[int(r[0])]).max()) for r in eo[1:])
    ok("%s: quaternions = .tess (max %.1e)" % (path, wq), wq < 1e-12)
s = sections(stem + "-fepx.msh")
gr = s.get("Groups", [])
ok("fepx: $Groups elset, one phase per grain (1-based)",
   gr and gr[0] == ["elset"] and gr[1] == [str(len(grains_inp))] and
   sorted(int(r[0]) for r in gr[2:]) == grains_inp and all(r[1] == "1" for r in gr[2:]))
tet_elsets = sorted(set(int(r[3]) for r in s["Elements"][1:] if r[1] == "4"))
ok("fepx: tetrahedron elsets = the grains", tet_elsets == grains_inp)
ok("fepx: $Periodicity iff periodic", ("Periodicity" in s) == periodic)
print("ori %s: %d passed, %d failed" % (stem, sum(res), len(res) - sum(res)))
sys.exit(0 if all(res) else 1)
PY
check "periodic: orientations in inp, vtk, msh, fepx, ori (meshio, gmsh, numpy)" 0 \
    "$PY" "$d/ori.py" "$d/g.tess" "$d/p" 1
cat "$T/out"
check "non-periodic: orientations in inp, vtk, msh, fepx, ori (meshio, gmsh, numpy)" 0 \
    "$PY" "$d/ori.py" "$d/n.tess" "$d/n" 0
cat "$T/out"

lib_finish

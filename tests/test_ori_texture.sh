#!/bin/sh
# test_ori_texture.sh - `rve tess -n N --ori SPEC [--crysym NAME]`: the .tess
# *ori read by this script and checked with its own rotation formulas:
# ideal components with no spread are the textbook Bunge angles (to 1e-9
# deg, cubic symmetry), a spread of s degrees gives the Maxwell mean
# 2 s sqrt(2/pi) of the scatter angle, and `random` gives Mackenzie's
# mean cubic disorientation to a fixed orientation (40.74 deg); bad specs
# are usage errors.  Skips (77) without a Python that has numpy.
RVE=${RVE:-./rve}
. "${RVE_SRCDIR:-..}/tests/lib.sh"
lib_python test_ori_texture "numpy"
T=$(mktemp -d "${TMPDIR:-/tmp}/rve-oritex.XXXXXX") || exit 1
[ -n "${RVE_KEEP:-}" ] || trap 'rm -rf "$T"' EXIT
RVE="$RVE" T="$T" SRC="$SRC" "$PY" - <<'PYEOF'
import os, subprocess, math, sys
import numpy as np
sys.path.insert(0, os.path.join(os.environ["SRC"], "tests"))
from rot_oracle import Checker, eu2qu, CUBIC

RVE, T = os.environ["RVE"], os.environ["T"]

check = Checker()
CUBIC = np.array(CUBIC)

def disori(qs, p):  # cubic disorientation angles (deg) of rows qs to p, vectorised
    best = np.full(len(qs), 1e9)
    for s in CUBIC:
        # angle between q * s and p: 2 acos |q s . p|
        w, x, y, z = qs.T
        a, b, c, d = s
        qs_s = np.stack([w*a-x*b-y*c-z*d, w*b+x*a+y*d-z*c, w*c-x*d+y*a+z*b, w*d+x*c-y*b+z*a], 1)
        dots = np.abs(qs_s @ p)
        best = np.minimum(best, np.degrees(2 * np.arccos(np.clip(dots, 0, 1))))
    return best

def tess_ori(path):
    tok = open(path).read().split()
    n = int(tok[tok.index("**cell") + 1])
    k = tok.index("*ori")
    cs = tok[tok.index("*crysym") + 1] if "*crysym" in tok else None
    return tok[k + 1], cs, np.array([float(v) for v in tok[k + 2:k + 2 + 4 * n]]).reshape(n, 4)

def tess(n, *args):
    out = os.path.join(T, "t.tess")
    r = subprocess.run([RVE, "tess", "-n", str(n), "-o", out, "-q"] + list(args), capture_output=True, text=True)
    return (r.returncode, tess_ori(out) if r.returncode == 0 else None, r.stderr)

IDEAL = {"cube": (0, 0, 0), "goss": (0, 45, 0), "brass": (35.26, 45, 0), "copper": (90, 35.26, 45),
         "s": (58.98, 36.7, 63.43)}
for name, e in IDEAL.items():
    rc, o, err = tess(4, "--ori", name + ":0")
    ok = rc == 0 and o[0] == "quaternion:passive" and o[1] == "cubic"
    d = disori(o[2], eu2qu([math.radians(a) for a in e])).max() if ok else 1e9
    check("%s: ideal Bunge %s, %.1e deg" % (name, e, d), ok and d < 1e-9, err)

rc, o, err = tess(3000, "--ori", "copper:5", "--rng-seed", "3")
ang_c = disori(o[2], eu2qu([math.radians(a) for a in IDEAL["copper"]])) if rc == 0 else np.array([1e9])
want = 2 * 5 * math.sqrt(2 / math.pi)  # Maxwell mean of |N(0, s^2 I3)|
check("copper:5 mean scatter %.3f deg, Maxwell %.3f" % (ang_c.mean(), want), abs(ang_c.mean() - want) < 0.25, err)

rc, o, err = tess(3000, "--ori", "random", "--rng-seed", "4")
ang = disori(o[2], np.array([1.0, 0, 0, 0])) if rc == 0 else np.array([1e9])
r = o[2][:, 1:] / o[2][:, :1] if rc == 0 else np.ones((1, 3))
check("random: mean cubic disorientation %.2f deg, Mackenzie 40.74" % ang.mean(),
      abs(ang.mean() - 40.74) < 1.0 and ang.max() < 62.81, err)
check("random: in the cubic fundamental zone",
      (np.abs(r) <= math.sqrt(2) - 1 + 1e-9).all() and (np.abs(r).sum(1) <= 1 + 1e-9).all())

# rve gen takes the same options
vf = os.path.join(T, "vol.txt")
open(vf, "w").write("1\n1\n2\n")
r = subprocess.run([RVE, "gen", "--volumes", vf, "--domain", "1,1,1", "-o", os.path.join(T, "g.tess"), "-q",
                    "--ori", "goss:0"], capture_output=True, text=True)
d = disori(tess_ori(os.path.join(T, "g.tess"))[2], eu2qu([0, math.radians(45), 0])).max() if r.returncode == 0 else 1e9
check("rve gen --ori goss:0, %.1e deg" % d, d < 1e-9, r.stderr)

rc, o, err = tess(3, "--ori", "random", "--crysym", "hexagonal")
check("--crysym hexagonal", rc == 0 and o[1] == "hexagonal", err)
for bad in (["--ori", "foo"], ["--ori", "random:5"], ["--ori", "cube:-1"], ["--crysym", "cubic"],
            ["--ori", "cube", "--crysym", "hexa"]):
    r = subprocess.run([RVE, "tess", "-n", "3", "-o", os.path.join(T, "b.tess"), "-q"] + bad,
                       capture_output=True, text=True)
    check("usage error: " + " ".join(bad), r.returncode == 2 and len(r.stderr.strip().split("\n")) <= 2, r.stderr)

print("copper:5 mean scatter %.3f deg (Maxwell %.3f); random: mean %.2f deg" % (ang_c.mean(), want, ang.mean()))
print("test_ori_texture: %d passed, %d failed" % (check.passed, check.failed))
raise SystemExit(1 if check.failed else 0)
PYEOF

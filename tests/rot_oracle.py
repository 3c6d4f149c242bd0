"""Rotation formulas of the orientation tests, written from the paper and
independent of rve: Rowenhorst et al. 2015, "Consistent representations of
and conversions between 3D rotations" (P = -1, passive), and the cubic group
built by closure of two generators.  Shared by test_hdf5.sh, test_ori_run.sh
and test_ori_texture.sh, whose Checker also the pack and sample tests use
(tests/ on sys.path)."""
import math
import numpy as np


class Checker:
    """Counts passed and failed checks; prints the failed ones."""

    def __init__(self):
        self.passed = self.failed = 0

    def __call__(self, name, ok, detail=""):
        if ok:
            self.passed += 1
        else:
            self.failed += 1
            print("FAIL", name, detail)


def eu2qu(e):
    """Bunge Euler angles (radians) to the unit quaternion, eq. (A.5), w >= 0."""
    s, d = 0.5 * (e[0] + e[2]), 0.5 * (e[0] - e[2])
    c, sn = math.cos(0.5 * e[1]), math.sin(0.5 * e[1])
    q = np.array([c * math.cos(s), sn * math.cos(d), sn * math.sin(d), c * math.sin(s)])
    return q if q[0] >= 0 else -q


def qu2eu(q):
    """Unit quaternion to Bunge Euler angles in [0, 2 pi), eq. (A.6)."""
    q03, q12 = q[0]**2 + q[3]**2, q[1]**2 + q[2]**2
    chi = math.sqrt(q03 * q12)
    e = [math.atan2(q[0]*q[2] + q[1]*q[3], q[0]*q[1] - q[2]*q[3]), math.atan2(2*chi, q03 - q12),
         math.atan2(q[1]*q[3] - q[0]*q[2], q[0]*q[1] + q[2]*q[3])]
    return [a % (2 * math.pi) for a in e]


def qmul(a, b):
    return np.array([a[0]*b[0]-a[1]*b[1]-a[2]*b[2]-a[3]*b[3], a[0]*b[1]+a[1]*b[0]+a[2]*b[3]-a[3]*b[2],
                     a[0]*b[2]-a[1]*b[3]+a[2]*b[0]+a[3]*b[1], a[0]*b[3]+a[1]*b[2]-a[2]*b[1]+a[3]*b[0]])


def angle(q, p):
    """Rotation angle (radians) between two quaternions, no symmetry; atan2
    keeps it accurate near 0."""
    r = qmul(np.array([q[0], -q[1], -q[2], -q[3]]), p)
    return 2 * math.atan2(float(np.linalg.norm(r[1:])), abs(float(r[0])))


def group(gens):
    """Closure of the generators under the quaternion product (up to sign)."""
    out = [np.array([1.0, 0, 0, 0])]
    grew = True
    while grew:
        grew = False
        for a in list(out):
            for g in gens:
                p = qmul(a, g)
                if all(min(np.abs(p - b).max(), np.abs(p + b).max()) > 1e-9 for b in out):
                    out.append(p)
                    grew = True
    return out


CUBIC = group([np.array([math.sqrt(.5), math.sqrt(.5), 0, 0]), np.array([.5, .5, .5, .5])])
assert len(CUBIC) == 24


def sym_angle(q, p):
    """Angle (radians) modulo cubic symmetry on the crystal side."""
    return min(angle(qmul(q, s), p) for s in CUBIC)

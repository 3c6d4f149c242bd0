#!/usr/bin/env python3
"""Strict, independent check of a Neper .tess file (format 3.5).

Written from Neper's documentation (doc/fileformat.rst) and the layout of
files Neper 4.10 writes (docs/formats.md), not from rve's reader: every
token is expected in Neper's order, so a layout slip (e.g. domain edges
without their "line 0" lines) fails.  Besides the layout it checks the
geometry: edges join their face's consecutive vertices, planes are unit and
contain planar faces' vertices, face normals follow the vertex loop by the
right-hand rule, polyhedra are closed with outward faces, volumes add up to
the domain's, domain vertices coincide with their tessellation vertex, and
periodic copies are their primaries shifted by the period.

Usage: neper_tess_check.py [--ours] FILE...
  --ours  also refuse what Neper accepts but never writes in a clean file
          (face edge lists rotated against the vertex list), and require
          the *id section.
Exit 0 when every file passes, 1 otherwise (the reason on stderr).
"""
import re
import sys

ORI_LEN = {"rodrigues": 3, "euler-bunge": 3, "euler-kocks": 3, "euler-roe": 3,
           "quaternion": 4, "axis-angle": 4, "rotmat": 9}


class Bad(Exception):
    pass


class Toks:
    def __init__(self, text):
        self.t = text.split()
        self.i = 0

    def peek(self):
        return self.t[self.i] if self.i < len(self.t) else None

    def word(self, what):
        if self.i >= len(self.t):
            raise Bad("truncated file, expected %s" % what)
        w = self.t[self.i]
        self.i += 1
        return w

    def expect(self, w):
        got = self.word(repr(w))
        if got != w:
            raise Bad("expected %r, got %r (token %d)" % (w, got, self.i))

    def int(self, what, lo=None, hi=None):
        w = self.word(what)
        if not re.fullmatch(r"[-+]?\d+", w):
            raise Bad("%s: expected an integer, got %r (token %d)" % (what, w, self.i))
        v = int(w)
        if (lo is not None and v < lo) or (hi is not None and v > hi):
            raise Bad("%s: %d outside [%s, %s] (token %d)" % (what, v, lo, hi, self.i))
        return v

    def num(self, what):
        w = self.word(what)
        try:
            v = float(w)
        except ValueError:
            raise Bad("%s: expected a number, got %r (token %d)" % (what, w, self.i))
        if v != v or v in (float("inf"), float("-inf")):
            raise Bad("%s: not finite" % what)
        return v

    def is_marker(self):
        p = self.peek()
        return p is not None and p.startswith("*")


def read_cell(T, F, ours):
    n = T.int("**cell count", 1)
    F["ncell"] = n
    seen = set()
    while T.is_marker() and not T.peek().startswith("**"):
        m = T.word("subsection")
        if m in seen:
            raise Bad("**cell: %s twice" % m)
        seen.add(m)
        if m == "*id":
            F["ids"] = [T.int("*id", 1) for _ in range(n)]
            if len(set(F["ids"])) != n:
                raise Bad("*id: repeated ids")
        elif m == "*crysym":
            cs = T.word("*crysym")
            if cs.startswith("*"):
                raise Bad("*crysym: missing value")
        elif m == "*seed":
            F["seeds"] = []
            for i in range(n):
                T.int("*seed id", i + 1, i + 1)   # Neper aborts unless in order
                F["seeds"].append([T.num("*seed") for _ in range(4)])
        elif m == "*ori":
            des = T.word("*ori descriptor")
            base = des.split(":")[0]
            if base not in ORI_LEN:
                raise Bad("*ori: unknown descriptor %r" % des)
            if ":" in des and des.split(":")[1] not in ("active", "passive"):
                raise Bad("*ori: bad convention in %r" % des)
            for _ in range(n * ORI_LEN[base]):
                T.num("*ori value")
            if not T.is_marker():
                raise Bad("*ori: more than %d values per cell" % ORI_LEN[base])
        else:
            raise Bad("**cell: unexpected %r" % m)
    if "*seed" not in seen:
        raise Bad("**cell: no *seed")
    if ours and "*id" not in seen:
        raise Bad("**cell: no *id")


def read_entities(T, F, ours):
    T.expect("**vertex")
    nv = T.int("**vertex count", 0)
    F["ver"] = [None]
    for i in range(nv):
        T.int("vertex id", i + 1, i + 1)
        F["ver"].append([T.num("vertex coordinate") for _ in range(3)])
        T.int("vertex state", 0)
    T.expect("**edge")
    ne = T.int("**edge count", 0)
    F["edge"] = [None]
    for i in range(ne):
        T.int("edge id", i + 1, i + 1)
        a, b = T.int("edge vertex", 1, nv), T.int("edge vertex", 1, nv)
        if a == b:
            raise Bad("edge %d: null" % (i + 1))
        F["edge"].append((a, b))
        T.int("edge state", 0)
    T.expect("**face")
    nf = T.int("**face count", 0)
    F["face"] = [None]
    for i in range(nf):
        T.int("face id", i + 1, i + 1)
        m = T.int("face vertex count", 3)
        vs = [T.int("face vertex", 1, nv) for _ in range(m)]
        T.int("face edge count", m, m)
        es = [T.int("face edge", -ne, ne) for _ in range(m)]
        d, a, b, c = (T.num("face equation") for _ in range(4))
        state = T.int("face state", 0)
        pt = T.int("face point", -1, m)
        ptx = [T.num("face point coordinate") for _ in range(3)]
        if 0 in es:
            raise Bad("face %d: edge 0" % (i + 1))
        if abs(a * a + b * b + c * c - 1) > 1e-9:
            raise Bad("face %d: equation not normalised" % (i + 1))
        check_face_edges(F, i + 1, vs, es, ours)
        F["face"].append(dict(v=vs, e=es, pl=(a, b, c, d), state=state, pt=pt, ptx=ptx))
    T.expect("**polyhedron")
    n = T.int("**polyhedron count", F["ncell"], F["ncell"])
    F["poly"] = [None]
    for i in range(n):
        T.int("polyhedron id", i + 1, i + 1)
        k = T.int("polyhedron face count", 4)
        F["poly"].append([T.int("polyhedron face", -nf, nf) for _ in range(k)])
        if 0 in F["poly"][-1]:
            raise Bad("polyhedron %d: face 0" % (i + 1))


def check_face_edges(F, fid, vs, es, ours):
    m = len(vs)
    shifts = range(m) if not ours else [0]
    for s in shifts:
        ok = True
        for k in range(m):
            e = es[(k - s) % m]
            a, b = F["edge"][abs(e)]
            if e < 0:
                a, b = b, a
            if (a, b) != (vs[k], vs[(k + 1) % m]):
                ok = False
                break
        if ok:
            return
    raise Bad("face %d: edges do not join its vertices in order" % fid)


def read_domain(T, F):
    T.expect("**domain")
    T.expect("*general")
    T.expect("cube")
    T.expect("*vertex")
    T.int("domain vertex count", 8, 8)
    nv = len(F["ver"]) - 1
    F["dver"] = [None]
    for i in range(8):
        T.int("domain vertex id", i + 1, i + 1)
        x = [T.num("domain vertex coordinate") for _ in range(3)]
        lab = T.word("domain vertex label")
        if not re.fullmatch(r"x[01]y[01]z[01]", lab):
            raise Bad("domain vertex %d: label %r" % (i + 1, lab))
        T.int("domain vertex tess count", 1, 1)   # Neper: must be 1
        v = T.int("domain vertex tess vertex", 0, nv)
        F["dver"].append((x, lab, v))
    T.expect("*edge")
    T.int("domain edge count", 12, 12)
    for i in range(12):
        T.int("domain edge id", i + 1, i + 1)
        T.int("domain edge vertex count", 2, 2)
        T.int("domain edge vertex", 1, 8), T.int("domain edge vertex", 1, 8)
        T.expect("line")                          # 3.5: type and parameter count
        T.int("domain edge parameter count", 0, 0)
        lab = T.word("domain edge label")
        if not re.fullmatch(r"[xyz][01][xyz][01]", lab):
            raise Bad("domain edge %d: label %r" % (i + 1, lab))
        k = T.int("domain edge tess count", 0)
        for _ in range(k):
            T.int("domain edge tess edge", 1, len(F["edge"]) - 1)
    T.expect("*face")
    T.int("domain face count", 6, 6)
    F["dface"] = []
    for i in range(6):
        T.int("domain face id", i + 1, i + 1)
        T.int("domain face vertex count", 4, 4)
        [T.int("domain face vertex", 1, 8) for _ in range(4)]
        T.int("domain face edge count", 4, 4)
        [T.int("domain face edge", 1, 12) for _ in range(4)]
        T.expect("plane")
        T.int("domain face parameter count", 4, 4)
        d, a, b, c = (T.num("domain face parameter") for _ in range(4))
        lab = T.word("domain face label")
        if not re.fullmatch(r"[xyz][01]", lab):
            raise Bad("domain face %d: label %r" % (i + 1, lab))
        k = T.int("domain face tess count", 0)
        fs = [T.int("domain face tess face", 1, len(F["face"]) - 1) for _ in range(k)]
        F["dface"].append(((a, b, c, d), fs))


def read_periodicity(T, F):
    T.expect("*general")
    per = [T.int("periodicity flag", 0, 1) for _ in range(3)]
    dist = [T.num("periodicity distance") for _ in range(3)]
    F["per"], F["perdist"] = per, dist

    def shift():
        s = [T.int("periodicity shift", -1, 1) for _ in range(3)]
        for a in range(3):
            if s[a] and not per[a]:
                raise Bad("periodicity shift along a non-periodic axis")
        return s

    T.expect("*seed")
    for _ in range(T.int("secondary seed count", 0)):
        T.int("secondary seed id", F["ncell"] + 1)
        T.int("primary seed id", 1, F["ncell"])
        shift()
    for kind in ("vertex", "edge", "face"):
        T.expect("*" + kind)
        table = {"vertex": F["ver"], "edge": F["edge"], "face": F["face"]}[kind]
        F["sec" + kind] = {}
        for _ in range(T.int("secondary %s count" % kind, 0)):
            sid = T.int("secondary " + kind, 1, len(table) - 1)
            pid = T.int("primary " + kind, 1, len(table) - 1)
            s = shift()
            ori = T.int(kind + " orientation", -1, 1) if kind != "vertex" else 1
            if ori == 0 or sid == pid:
                raise Bad("bad secondary %s %d" % (kind, sid))
            F["sec" + kind][sid] = (pid, s, ori)


def sub(x, y):
    return [x[0] - y[0], x[1] - y[1], x[2] - y[2]]


def cross(x, y):
    return [x[1] * y[2] - x[2] * y[1], x[2] * y[0] - x[0] * y[2], x[0] * y[1] - x[1] * y[0]]


def dot(x, y):
    return x[0] * y[0] + x[1] * y[1] + x[2] * y[2]


def check_geometry(F, lo, hi):
    ext = max(h - l for l, h in zip(lo, hi))
    V = F["ver"]
    for fid in range(1, len(F["face"])):
        f = F["face"][fid]
        pts = [V[v] for v in f["v"]]
        nrm = [0.0, 0.0, 0.0]       # Newell normal of the loop
        for k in range(len(pts)):
            c = cross(pts[k], pts[(k + 1) % len(pts)])
            nrm = [nrm[a] + c[a] for a in range(3)]
        if dot(nrm, f["pl"][:3]) <= 0:
            raise Bad("face %d: the normal does not follow the vertex loop" % fid)
        if f["state"] == 0:
            for p in pts:
                if abs(dot(p, f["pl"][:3]) - f["pl"][3]) > 1e-9 * ext:
                    raise Bad("face %d: a vertex is off its plane" % fid)
    total = 0.0
    for pid in range(1, len(F["poly"])):
        use = {}
        vol = 0.0
        for sf in F["poly"][pid]:
            f = F["face"][abs(sf)]
            loop = f["v"] if sf > 0 else f["v"][::-1]
            m = len(loop)
            for k in range(m):   # each edge twice, once each way, in a closed surface
                key = (loop[k], loop[(k + 1) % m])
                use[key] = use.get(key, 0) + 1
            c = [sum(V[v][a] for v in loop) / m for a in range(3)]
            for k in range(m):
                vol += dot(c, cross(V[loop[k]], V[loop[(k + 1) % m]])) / 6
        for (a, b), cnt in use.items():
            if cnt != 1 or use.get((b, a), 0) != 1:
                raise Bad("polyhedron %d is not closed (edge %d-%d)" % (pid, a, b))
        if vol <= 0:
            raise Bad("polyhedron %d: faces not outward (volume %g)" % (pid, vol))
        total += vol
    dom = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2])
    regular = all(f["state"] == 0 for f in F["face"][1:])
    if regular and abs(total - dom) > 1e-9 * dom:
        raise Bad("cell volumes add up to %.15g, the domain's is %.15g" % (total, dom))


def check_domain(F, lo, hi, periodic):
    for x, lab, v in F["dver"][1:]:
        want = [(lo, hi)[int(lab[2 * a + 1])][a] for a in range(3)]
        if any(abs(x[a] - want[a]) > 1e-12 * max(1, abs(want[a])) for a in range(3)):
            raise Bad("domain vertex %s at %s" % (lab, x))
        if v == 0 and not periodic:
            raise Bad("domain vertex %s has no tessellation vertex" % lab)
        if v and any(abs(F["ver"][v][a] - x[a]) > 1e-9 for a in range(3)):
            raise Bad("domain vertex %s: tessellation vertex %d is elsewhere" % (lab, v))
    for (a, b, c, d), fs in F["dface"]:
        for fid in fs:   # Neper's boundary faces point in or out
            pl = F["face"][fid]["pl"]
            sg = 1 if dot(pl[:3], (a, b, c)) > 0 else -1
            if abs(sg * pl[0] - a) + abs(sg * pl[1] - b) + abs(sg * pl[2] - c) > 1e-9 or abs(sg * pl[3] - d) > 1e-9:
                raise Bad("face %d is listed on a domain face it is not on" % fid)


def check_periodic(F):
    dist = F["perdist"]
    V = F["ver"]
    for sid, (pid, s, _) in F["secvertex"].items():
        if pid in F["secvertex"]:
            raise Bad("vertex %d: its primary %d is secondary" % (sid, pid))
        want = [V[pid][a] + s[a] * dist[a] for a in range(3)]
        if any(abs(V[sid][a] - want[a]) > 1e-9 for a in range(3)):
            raise Bad("vertex %d is not vertex %d shifted by %s" % (sid, pid, s))
    # Orientation, as Neper 4.10 writes it (n30-periodic.tess): an edge's is
    # 1 when the secondary runs as its primary, -1 when reversed; a face's
    # is 1 when the secondary's loop is its primary's REVERSED (each copy
    # then points out of its own cell), -1 when in the same order.
    for kind, get in (("edge", lambda i: list(F["edge"][i])), ("face", lambda i: F["face"][i]["v"])):
        for sid, (pid, s, ori) in F["sec" + kind].items():
            ps = [V[v] for v in get(pid)]
            ss = [V[v] for v in get(sid)]
            if (ori < 0) == (kind == "edge"):
                ss = ss[::-1]
            shifted = [[p[a] + s[a] * dist[a] for a in range(3)] for p in ps]
            rots = range(len(ss)) if kind == "face" else [0]
            ok = any(all(max(abs(x - y) for x, y in zip(shifted[k], ss[(k + r) % len(ss)])) <= 1e-9
                         for k in range(len(ss))) for r in rots)
            if not ok:
                raise Bad("%s %d is not %s %d shifted by %s" % (kind, sid, kind, pid, s))


def check(path, ours):
    F = {}
    T = Toks(open(path).read())
    T.expect("***tess")
    T.expect("**format")
    T.expect("3.5")
    T.expect("**general")
    T.int("dimension", 3, 3)
    typ = T.word("type")
    if typ not in ("standard", "periodic"):
        raise Bad("**general: type %r" % typ)
    T.expect("**cell")
    read_cell(T, F, ours)
    read_entities(T, F, ours)
    read_domain(T, F)
    periodic = typ == "periodic"
    if periodic:
        T.expect("**periodicity")
        read_periodicity(T, F)
    T.expect("***end")
    if T.peek() is not None:
        raise Bad("tokens after ***end")
    xs = [x for x, _, _ in F["dver"][1:]]
    lo = [min(x[a] for x in xs) for a in range(3)]
    hi = [max(x[a] for x in xs) for a in range(3)]
    check_domain(F, lo, hi, periodic)
    check_geometry(F, lo, hi)
    if periodic:
        if any(abs(F["perdist"][a] - (hi[a] - lo[a])) > 1e-9 for a in range(3) if F["per"][a]):
            raise Bad("periodicity distances differ from the domain")
        check_periodic(F)


def main(argv):
    ours = "--ours" in argv
    files = [a for a in argv if a != "--ours"]
    bad = 0
    for p in files:
        try:
            check(p, ours)
        except (Bad, OSError) as e:
            print("%s: %s" % (p, e), file=sys.stderr)
            bad += 1
    return 1 if bad or not files else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""Solve rve's Abaqus .inp with CalculiX (ccx, a real reader of Abaqus input
decks) and check the answer against closed forms.

usage: ccx_periodic.py MESH.inp WORKDIR CASE
  CASE affine   - one isotropic material; the periodic RVE (its *Equation
                  sets and RP_X/RP_Y/RP_Z) gets a macroscopic displacement
                  gradient H through the reference nodes, CORNER_000 fixed.
                  The exact solution is u = H (x - x0): every node is checked.
  CASE average  - a different Young's modulus per grain: the field is no
                  longer affine, but with periodic fluctuations the volume
                  average of the strain equals sym(H) exactly (element
                  strains and volumes printed by ccx).
  CASE faces    - a non-periodic mesh: u = H x prescribed on the six face
                  node sets X0..Z1; the exact solution is affine again, so
                  a boundary node missing from the sets shows.
Prints one line per failed check; exit status 1 if any failed, 0 otherwise.

Only the material cards are replaced (ccx cannot run a *User Material without
a compiled UMAT): nodes, elements, node sets and equations are read by ccx as
rve wrote them.  ccx prints 7 significant digits, hence the tolerances.
"""
import os
import re
import subprocess
import sys

import numpy as np

H = np.array([[0.010, 0.004, -0.003], [0.002, -0.004, 0.001], [0.003, -0.002, 0.005]])
E0, NU = 200000.0, 0.3


def read_mesh(path):
    nodes, grains, sets = {}, [], {}
    section, name = None, None
    with open(path) as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("**"):
                continue
            if line.startswith("*"):
                kw = line.split(",")[0].strip().upper()
                section = kw
                m = re.search(r"(?:elset|nset)=([A-Za-z0-9_]+)", line, re.I)
                name = m.group(1) if m else None
                if kw == "*ELEMENT" and name:
                    grains.append(name)
                if kw == "*NSET" and name:
                    sets[name] = []
                continue
            if section == "*NODE":
                v = line.split(",")
                nodes[int(v[0])] = np.array([float(x) for x in v[1:4]])
            elif section == "*NSET":
                sets[name] += [int(x) for x in line.split(",") if x.strip()]
    return nodes, grains, sets


def strip_materials(src, dst):
    """The deck without its *Solid Section / *Material / *User Material cards."""
    out, skip = [], False
    with open(src) as f:
        for line in f:
            u = line.upper()
            if u.startswith(("*SOLID SECTION", "*MATERIAL", "*USER MATERIAL")):
                skip = True
                continue
            if skip and line.startswith("*") and not line.startswith("**"):
                skip = False
            if not skip:
                out.append(line)
    with open(dst, "w") as f:
        f.writelines(out)


def chunks(items, k=8):
    return [items[i:i + k] for i in range(0, len(items), k)]


def write_job(work, mesh, case, nodes, grains, sets):
    strip_materials(mesh, os.path.join(work, "mesh.inp"))
    w = ["*INCLUDE, INPUT=mesh.inp"]
    w += ["*NSET, NSET=ALLN, GENERATE", "1, %d, 1" % max(nodes)]
    w += ["*ELSET, ELSET=EALL"] + [", ".join(c) for c in chunks(grains)]
    for k, g in enumerate(grains):
        e = E0 * (1 + 2 * (k % 3)) if case == "average" else E0
        w += ["*MATERIAL, NAME=M%d" % k, "*ELASTIC", "%.17g, %.17g" % (e, NU)]
        w += ["*SOLID SECTION, ELSET=%s, MATERIAL=M%d" % (g, k)]
    # ccx reads at most 20 characters per field: values as %.12e
    w += ["*STEP", "*STATIC", "*BOUNDARY"]
    if case == "faces":
        for s in ("X0", "X1", "Y0", "Y1", "Z0", "Z1"):
            for n in sets[s]:
                u = H @ nodes[n]
                w += ["%d, %d, %d, %.12e" % (n, d + 1, d + 1, u[d]) for d in range(3)]
    else:
        w += ["CORNER_000, 1, 3, 0."]
        rp = set(sets["RP_X"] + sets["RP_Y"] + sets["RP_Z"])  # placed off the box
        xyz = np.array([x for n, x in nodes.items() if n not in rp])
        lo, hi = xyz.min(axis=0), xyz.max(axis=0)
        for k, rp in enumerate(("RP_X", "RP_Y", "RP_Z")):
            jump = H[:, k] * (hi[k] - lo[k])  # u(x + L e_k) - u(x)
            w += ["%s, %d, %d, %.12e" % (rp, d + 1, d + 1, jump[d]) for d in range(3)]
    w += ["*NODE PRINT, NSET=ALLN", "U"]
    if case == "average":
        w += ["*EL PRINT, ELSET=EALL", "E", "*EL PRINT, ELSET=EALL", "EVOL"]
    w += ["*END STEP"]
    with open(os.path.join(work, "job.inp"), "w") as f:
        f.write("\n".join(w) + "\n")


def read_dat(path):
    """The blocks of ccx's .dat: {'displacements': {...}, 'strains': ..., 'volume': ...}."""
    blocks, cur = {}, None
    with open(path) as f:
        for line in f:
            s = line.split()
            if not s:
                continue
            if not re.match(r"^-?\d", s[0]):
                cur = s[0]
                blocks.setdefault(cur, [])
                continue
            if cur:
                blocks[cur].append([float(x) for x in s])
    return blocks


def main():
    mesh, work, case = sys.argv[1], sys.argv[2], sys.argv[3]
    nodes, grains, sets = read_mesh(mesh)
    write_job(work, mesh, case, nodes, grains, sets)
    r = subprocess.run(["ccx", "job"], cwd=work, capture_output=True, text=True)
    log = r.stdout + r.stderr
    if r.returncode != 0 or "*ERROR" in log:
        print("ccx failed on %s: %s" % (mesh, [l for l in log.splitlines() if "ERROR" in l][:3]))
        return 1
    bad = [l.strip() for l in log.splitlines() if "*WARNING" in l]
    if bad:
        print("ccx warned on %s: %s" % (mesh, bad[:3]))
        return 1
    dat = read_dat(os.path.join(work, "job.dat"))
    fails = 0
    if case in ("affine", "faces"):
        x0 = nodes[sets["CORNER_000"][0]] if case == "affine" else np.zeros(3)
        got = {int(v[0]): np.array(v[1:4]) for v in dat.get("displacements", [])}
        if len(got) != len(nodes):
            print("ccx printed %d displacements for %d nodes" % (len(got), len(nodes)))
            return 1
        rp = set(sets.get("RP_X", []) + sets.get("RP_Y", []) + sets.get("RP_Z", []))
        err = max(np.max(np.abs(got[n] - H @ (nodes[n] - x0))) for n in nodes if n not in rp)
        tol = 2e-6 * max(np.max(np.abs(H @ (nodes[n] - x0))) for n in nodes)  # 7 printed digits
        print("%s: %d nodes, largest |u - H (x - x0)| %.3g (tolerance %.3g)" % (case, len(nodes), err, tol))
        fails += err > tol
    else:
        eps = np.array(dat.get("strains", []))
        vol = np.array(dat.get("volume", []))
        if len(eps) == 0 or len(eps) != len(vol):
            print("ccx printed %d strains and %d volumes" % (len(eps), len(vol)))
            return 1
        v = vol[:, -1]
        mean = (eps[:, 2:8] * v[:, None]).sum(axis=0) / v.sum()
        S = 0.5 * (H + H.T)
        # ccx's order: xx yy zz xy xz yz, engineering shears halved (tensor)
        want = np.array([S[0, 0], S[1, 1], S[2, 2], S[0, 1], S[0, 2], S[1, 2]])
        err = np.max(np.abs(mean - want))
        spread = np.max(np.abs(eps[:, 2:8] - want))
        tol = 1e-6 * np.max(np.abs(H))
        print("average: %d elements, volume %.9g, |<eps> - sym(H)| %.3g (tolerance %.3g), "
              "largest local deviation %.3g" % (len(v), v.sum(), err, tol, spread))
        fails += err > tol
        if spread < 10 * tol:
            print("average: the strain field is affine: the grains' moduli did not reach ccx")
            fails += 1
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())

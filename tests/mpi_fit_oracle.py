# mpi_fit_oracle.py MAP.dream3d TESS [RASTER.dream3d]: the voxel accuracy of
# a fitted .tess against the grain map, computed independently of rve:
#  - "brute": the seeds and weights of the .tess (*seed: i x y z w, *id: the
#    grain of cell i) label every voxel centre by the smallest power distance
#    |x - s|^2 - w^2 (numpy, all seeds, layer by layer; ties: lowest cell);
#  - "raster" (with RASTER): the labels of that file (e.g. the serial
#    `rve raster TESS --like MAP`) against the map.
# Accuracy = fraction of non-void voxels whose label is their grain's.
# Prints "brute A" and "raster B" (B only with RASTER).
import sys
import h5py
import numpy as np

FID = "DataContainers/ImageDataContainer/CellData/FeatureIds"
GEO = "DataContainers/ImageDataContainer/_SIMPL_GEOMETRY"


def read_map(path):
    with h5py.File(path, "r") as f:
        lab = f[FID][()][..., 0]  # (nz, ny, nx)
        g = f[GEO]
        return lab, g["ORIGIN"][()].astype(float), g["SPACING"][()].astype(float)


def read_section(lines, name):
    """The numbers after the line '  *name' up to the next '*' line."""
    i = next(k for k, l in enumerate(lines) if l.strip() == "*" + name)
    out = []
    for l in lines[i + 1:]:
        if l.strip().startswith("*"):
            break
        out.extend(l.split())
    return out


def read_tess(path):
    lines = open(path).read().splitlines()
    seed = np.array(read_section(lines, "seed"), float).reshape(-1, 5)
    ids = np.array(read_section(lines, "id"), np.int64)
    assert len(ids) == len(seed) and np.array_equal(seed[:, 0], np.arange(1, len(seed) + 1))
    return seed[:, 1:4], seed[:, 4], ids


def main():
    lab, org, h = read_map(sys.argv[1])
    s, w, ids = read_tess(sys.argv[2])
    nz, ny, nx = lab.shape
    x = org[0] + (np.arange(nx) + 0.5) * h[0]
    y = org[1] + (np.arange(ny) + 0.5) * h[1]
    X, Y = np.meshgrid(x, y)  # (ny, nx)
    P = np.stack([X.ravel(), Y.ravel()], 1)
    good = 0
    total = 0
    # |p - s|^2 - w^2 = |p|^2 - 2 p.s + |s|^2 - w^2: the |p|^2 term is common
    for k in range(nz):
        z = org[2] + (k + 0.5) * h[2]
        c = (s * s).sum(1) - w * w - 2 * z * s[:, 2]
        d = c[None, :] - 2 * P @ s[:, :2].T
        win = ids[np.argmin(d, axis=1)].reshape(ny, nx)
        m = lab[k] != 0
        total += m.sum()
        good += (win[m] == lab[k][m]).sum()
    print("brute %.12f" % (good / total))
    if len(sys.argv) > 3:
        r, _, _ = read_map(sys.argv[3])
        m = lab != 0
        print("raster %.12f" % ((r[m] == lab[m]).sum() / m.sum()))


main()

/* rve/raster.h - voxelized grain maps: readers, writers, boundary voxels, statistics. */
#ifndef RVE_RASTER_H
#define RVE_RASTER_H

#include <rve/util.h>
#include <math.h>
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A voxelized grain map. Voxel (i, j, k), counted from 0 with x fastest,
 * occupies [origin + i h, origin + (i + 1) h] along each axis (Neper's
 * convention), so its centre is origin + (i + 1/2) h. Label 0 is void. */
typedef struct {
    int nx, ny, nz;
    double h[3];        /* voxel size (physical units) */
    double origin[3];   /* corner of voxel (0, 0, 0) */
    uint32_t *lab;      /* nx * ny * nz labels, x fastest, then y, then z */
    uint32_t nlabels;   /* largest label present */
    /* --- additions; rve_map_alloc sets them to NULL / 0 --- */
    uint32_t *ids;      /* NULL, or nlabels + 1 entries: ids[l] is the original id of label l
                           (kept by rve_map_renumber and by .tesr **cell *id); ids[0] = 0.
                           NULL means label l has id l. Use rve_map_id(). */
    int has_res;        /* the file recorded a voxel size (TIFF resolution tags, .tesr) */
    char *ori_des;      /* .tesr **cell *ori descriptor (e.g. "rodrigues"), or NULL */
    double *ori;        /* ori_n * nlabels orientation values (cell order), or NULL */
    int ori_n;          /* values per cell in ori (0 when absent) */
    /* --- additions; NULL unless a reader fills them --- */
    int *phase;         /* nlabels entries (label l at l - 1): the grain's phase number as the
                           file counts them (DREAM3D, LabDCT, pymicro: from 1; 0 unknown) */
    double *gos;        /* nlabels entries: grain orientation spread (mean disorientation of the
                           voxels to the grain's mean, radians) when the mean came from voxels */
    char *crysym;       /* crystal symmetry of every grain, Neper's name (rve_laue_name:
                           "cubic", ...), or NULL: unknown, or phases of different symmetry */
} rve_map;

/* Allocate a map of the given size, all void, h = 1, origin 0. NULL on failure
 * (also for non-positive dimensions or more than 2^40 voxels). */
rve_map *rve_map_alloc(int nx, int ny, int nz);
void rve_map_free(rve_map *m);
/* Deep copy (labels, ids, orientations). NULL when out of memory. */
rve_map *rve_map_copy(const rve_map *m);

static inline size_t rve_map_index(const rve_map *m, int i, int j, int k)
{
    return (size_t)i + (size_t)m->nx * ((size_t)j + (size_t)m->ny * (size_t)k);
}

static inline void rve_map_voxel_centre(const rve_map *m, int i, int j, int k, double c[3])
{
    c[0] = m->origin[0] + (i + 0.5) * m->h[0];
    c[1] = m->origin[1] + (j + 0.5) * m->h[1];
    c[2] = m->origin[2] + (k + 0.5) * m->h[2];
}

/* Index ranges i0[a] .. i1[a] of the voxels whose centres lie in the box
 * [lo, hi], clipped to the map (empty along an axis when i0 > i1). */
static inline void rve_map_box_voxels(const rve_map *m, const double lo[3], const double hi[3],
                                      int i0[3], int i1[3])
{
    int dims[3] = {m->nx, m->ny, m->nz};
    for (int a = 0; a < 3; a++) {
        double l = (lo[a] - m->origin[a]) / m->h[a] - 0.5, u = (hi[a] - m->origin[a]) / m->h[a] - 0.5;
        l = l < -1 ? -1 : l > dims[a] ? dims[a] : l; /* keep the int conversions in range */
        u = u < -1 ? -1 : u > dims[a] ? dims[a] : u;
        i0[a] = (int)ceil(l);
        i1[a] = (int)floor(u);
        if (i0[a] < 0)
            i0[a] = 0;
        if (i1[a] > dims[a] - 1)
            i1[a] = dims[a] - 1;
    }
}

static inline size_t rve_map_nvox(const rve_map *m)
{
    return (size_t)m->nx * (size_t)m->ny * (size_t)m->nz;
}

/* Original id of label l (l itself when the map has no id table). */
static inline uint32_t rve_map_id(const rve_map *m, uint32_t l)
{
    return (m->ids && l <= m->nlabels) ? m->ids[l] : l;
}

/* ------------------------------------------------------------ file formats */
typedef enum {
    RVE_MAP_AUTO = 0, /* from the file name's extension */
    RVE_MAP_TIFF,     /* .tif / .tiff: multi-page, one page per z slice */
    RVE_MAP_TESR,     /* .tesr: Neper raster, format 2.x */
    RVE_MAP_RAW,      /* .raw: bare array, x fastest; needs rve_raw_opts */
    RVE_MAP_HDF5      /* .dream3d / .h5 / .hdf5 (docs/hdf5.md); also found by content */
} rve_map_format;

/* Options of a raw array (and of the sample width written to TIFF/.tesr). */
typedef struct {
    int nx, ny, nz;   /* dimensions (raw input only) */
    int bytes;        /* 1, 2 or 4 bytes per label; 0 = smallest that holds nlabels (writers) */
    int big_endian;   /* byte order of raw data and .tesr binary data */
    size_t offset;    /* bytes to skip at the start of a raw file */
} rve_raw_opts;

/* Format from a file name (".tif", ".tiff", ".tesr", ".raw"), else RVE_MAP_AUTO. */
rve_map_format rve_map_format_from_path(const char *path);

/* Read a grain map. Labels above 2^31 - 1, dimensions of zero, corrupt or
 * truncated data, float or signed TIFF samples, pages of different sizes, a
 * .tesr whose header disagrees with its data, a missing external file: each
 * gives RVE_EDATA (RVE_EIO when the file cannot be opened) and a message.
 * nlabels is the largest label present. `raw` is needed for RVE_MAP_RAW only. */
rve_status rve_map_read(const char *path, rve_map_format fmt, const rve_raw_opts *raw,
                        rve_map **out, rve_err *err);
rve_status rve_map_read_tiff(const char *path, rve_map **out, rve_err *err);
rve_status rve_map_read_tesr(const char *path, rve_map **out, rve_err *err);
rve_status rve_map_read_raw(const char *path, const rve_raw_opts *raw, rve_map **out, rve_err *err);
/* In-memory variants (fuzzing, embedded data). `name` is used in messages;
 * `dir` is where a .tesr *file is looked for (NULL: external files refused). */
rve_status rve_map_read_tiff_mem(const void *buf, size_t n, const char *name, rve_map **out,
                                 rve_err *err);
rve_status rve_map_read_tesr_mem(const char *buf, size_t n, const char *name, const char *dir,
                                 rve_map **out, rve_err *err);

/* ------------------------------------------------------------------- HDF5 */
/* Grain maps in HDF5 files: DREAM3D SIMPL (file versions 6, 7), DREAM3D-NX
 * (8.0), GrainMapper3D/LabDCT and pymicro layouts, told apart by their
 * groups.  Per-grain orientations become unit quaternions (w, x, y, z) in
 * rve's passive convention (rve/ori.h), ori_des "quaternion": from the
 * file's feature table when it has one, else the mean of the grain's voxel
 * orientations under its phase's symmetry (spread in gos).  Phases go to
 * `phase`.  A missing dataset, shapes that disagree, NaN or non-unit
 * orientations, a feature table shorter than the largest id, an unknown
 * layout: RVE_EDATA naming the file and the dataset path.  Not for
 * concurrent use from several threads (the HDF5 library is not thread-safe
 * as Debian builds it). */
typedef struct {
    const char *ids;          /* grain-id array: name (DREAM3D, searched below the geometry)
                                 or path (LabDCT, pymicro); NULL: the layout's usual one */
    const char *ori;          /* voxel orientation array (DREAM3D: Bunge radians) */
    const char *phase;        /* voxel phase array */
    const char *mask;         /* voxel mask array (0 = void) */
    const char *feature_ori;  /* feature orientation table (DREAM3D: AvgEulerAngles) */
} rve_hdf5_opts;

/* Does the file start with the HDF5 signature? */
int rve_map_is_hdf5(const char *path);
rve_status rve_map_read_hdf5(const char *path, const rve_hdf5_opts *o, rve_map **out, rve_err *err);
/* DREAM3D SIMPL layout (file version 7.0): FeatureIds, Phases and
 * EulerAngles cell arrays, AvgEulerAngles / AvgQuats / Phases feature arrays
 * (row 0 the background), plus PATH.xdmf for ParaView.  Atomic. */
rve_status rve_map_write_hdf5(const rve_map *m, const char *path, rve_err *err);
/* The same layout written in pieces, for programs that write one file from
 * several processes (parallel HDF5, src/mpi): file is an open HDF5 file
 * (hid_t) that the caller created with the access properties it wants.
 * rve_map_write_hdf5_cells writes everything but the ensemble table; m
 * holds layers slab->k0 .. slab->k0 + m->nz - 1 of a map of slab->nz layers
 * (slab NULL: m is the whole map), with the whole map's nlabels and per-grain
 * tables; every process calls it with the same map size and tables, the
 * cell arrays go through the transfer list slab->dxpl (0: default) and the
 * small arrays are written by the process with slab->root set.
 * rve_map_write_hdf5_tables then adds the ensemble table (variable-length
 * strings, which parallel HDF5 cannot write: one process, on a file opened
 * without MPI-IO), and rve_map_write_hdf5_xdmf the ParaView companion
 * PATH.xdmf of a map of nz layers (atomic). */
typedef struct {
    int nz;       /* layers of the whole map */
    int k0;       /* first layer of this slab */
    int root;     /* this process writes the small arrays */
    int64_t dxpl; /* HDF5 dataset transfer property list of the cell arrays, 0: default */
    int layers_max; /* the most layers of any process's slab: the cell arrays are then written in
                       ceil(layers_max / b) calls of b layers (about 8 MB) on every process, so that
                       parallel HDF5's chunk buffers stay small; 0: one call */
} rve_hdf5_slab;
rve_status rve_map_write_hdf5_cells(int64_t file, const rve_map *m, const rve_hdf5_slab *slab, rve_err *err);
rve_status rve_map_write_hdf5_tables(int64_t file, const rve_map *m, rve_err *err);
rve_status rve_map_write_hdf5_xdmf(const rve_map *m, int nz, const char *path, rve_err *err);

/* Note: per-label tables (counts, statistics, boundary offsets, compare)
 * have nlabels + 1 entries: renumber maps with sparse huge labels first. */

/* Read with overrides: what a command line gives (--voxel-size, --origin,
 * raw dimensions). h/origin replace the file's values when set_h/set_origin. */
typedef struct {
    rve_map_format fmt;   /* RVE_MAP_AUTO: from the extension */
    rve_raw_opts raw;     /* for .raw input */
    int set_h;
    double h[3];
    int set_origin;
    double origin[3];
} rve_map_load_opts;

void rve_map_load_opts_default(rve_map_load_opts *o);
rve_status rve_map_load(const char *path, const rve_map_load_opts *o, rve_map **out, rve_err *err);

/* ---------------------------------------------------- reading by layers */
/* A grain map read by ranges of z layers, for processes that each hold
 * only a part of it (the distributed fit, docs/mpi.md).  Multi-page TIFF
 * files are read by page ranges; the HDF5 layouts (DREAM3D, LabDCT,
 * pymicro) by hyperslabs of the grain ids and mask, when the per-grain
 * tables do not come from the voxels (orientations and phases from a
 * feature table, or none).  Other maps (.tesr, .raw, HDF5 maps whose
 * orientations or phases exist per voxel only, or whose feature table
 * allows ids so sparse that the reader renumbers them) cannot be:
 * rve_map_part_open then returns RVE_OK with *p NULL and the reason, one
 * line, in why.  o as rve_map_load (NULL: defaults).  hdf5_fapl: an HDF5
 * file-access property list to open HDF5 files with (e.g. the MPI-IO
 * driver; 0: the default; when it cannot open the file, the default is
 * used).  Not thread-safe on one p. */
typedef struct rve_map_part rve_map_part;
rve_status rve_map_part_open(const char *path, const rve_map_load_opts *o, int64_t hdf5_fapl, rve_map_part **p,
                             char *why, size_t whyn, rve_err *err);
/* The whole map's nx, ny, nz, h, origin, has_res (no voxels: lab NULL). */
const rve_map *rve_map_part_geometry(const rve_map_part *p);
/* Layers [k0, k1) as a map of their own (nx ny (k1 - k0) voxels, origin at
 * layer k0, nlabels the largest label of these layers), with the labels
 * rve_map_load gives those voxels; only these layers are read. */
rve_status rve_map_part_read(rve_map_part *p, int k0, int k1, rve_map **out, rve_err *err);
/* Voxels rve_map_part_read has read so far. */
uint64_t rve_map_part_voxels_read(const rve_map_part *p);
/* The whole map without its voxels (lab NULL): geometry, nlabels, ids,
 * orientations, phases and crystal symmetry as rve_map_load gives them,
 * from the n labels present in the map (any order). */
rve_status rve_map_part_header(rve_map_part *p, const uint32_t *present, size_t n, rve_map **out, rve_err *err);
void rve_map_part_close(rve_map_part *p);

/* Writer options. */
typedef struct {
    int bytes;        /* 1, 2 or 4; 0 = smallest width that holds every label */
    int ascii;        /* .tesr: ascii data instead of binary */
    int big_endian;   /* .tesr / raw: big-endian binary data */
    int compress;     /* TIFF: 0 none, 1 deflate (default via rve_map_write_opts_default) */
    int external;     /* .tesr: data in a separate raw file PATH.raw (*file) */
} rve_map_write_opts;

void rve_map_write_opts_default(rve_map_write_opts *o);

/* Write atomically (temporary file + rename). NULL opts = defaults. The
 * TIFF writer records the voxel size as resolution tags (1/h per unit) and
 * the origin as X/YPosition when they are not the defaults. */
rve_status rve_map_write(const rve_map *m, const char *path, rve_map_format fmt,
                         const rve_map_write_opts *o, rve_err *err);
rve_status rve_map_write_tiff(const rve_map *m, const char *path, const rve_map_write_opts *o,
                              rve_err *err);
rve_status rve_map_write_tesr(const rve_map *m, const char *path, const rve_map_write_opts *o,
                              rve_err *err);
rve_status rve_map_write_raw(const rve_map *m, const char *path, const rve_map_write_opts *o,
                             rve_err *err);

/* ----------------------------------------------------- DAMASK grid solver */
/* DAMASK grid solver input (docs/formats.md, section DAMASK). */
typedef struct {
    const char *material;        /* path of material.yaml; NULL: material.yaml in the .vti's folder */
    const char *homogenization;  /* name of the homogenization block ("SX", N_constituents 1) */
} rve_map_damask_opts;

void rve_map_damask_opts_init(rve_map_damask_opts *o);
/* Write m as VTK XML image data (path, normally .vti: one cell per voxel,
 * Origin and Spacing of the map, the Int32 cell array `material`) and a
 * material.yaml beside it, atomically.  Material k (from 0) is the grain with
 * the k-th smallest label present (label - 1 when the labels are 1..N); void
 * voxels, if any, get one more material of phase "void".  Each material has
 * the grain's orientation as O: [w, x, y, z] (rve's quaternion, which is
 * DAMASK's convention, with w >= 0; the identity without orientations) and a
 * phase named after m->crysym (and the phase number when the grains have
 * several); the phase blocks give DAMASK's lattice only.  NULL opts =
 * defaults.  RVE_EDATA for a map without grains or with orientations that
 * cannot be read. */
rve_status rve_map_write_damask(const rve_map *m, const char *path, const rve_map_damask_opts *opts, rve_err *err);
/* The default material.yaml path for the .vti path: material.yaml in the
 * same folder (*out malloc'd, caller frees). */
rve_status rve_map_damask_yaml_path(const char *path, char **out, rve_err *err);

/* ------------------------------------------------------------------ labels */
/* Recompute nlabels (largest label present). */
void rve_map_update_nlabels(rve_map *m);
/* Voxel count of every label: counts[0..nlabels] (malloc'd, caller frees). */
rve_status rve_map_counts(const rve_map *m, size_t **counts, rve_err *err);
/* Number of distinct non-void labels present. */
uint32_t rve_map_ngrains(const rve_map *m);
/* Renumber the labels present to 1..N in increasing order; ids[] keeps each
 * new label's original id (composed with an existing table). */
rve_status rve_map_renumber(rve_map *m, rve_err *err);
/* Number of 6-connected components of every label: ncomp[0..nlabels]
 * (malloc'd; 0 for absent labels; ncomp[0] is left 0). */
rve_status rve_map_components(const rve_map *m, uint32_t **ncomp, rve_err *err);
/* Keep only the largest 6-connected component of every grain; the others
 * become void. *nremoved gets the voxel count cleared (may be NULL). */
rve_status rve_map_keep_largest_component(rve_map *m, size_t *nremoved, rve_err *err);
/* Grains with fewer than minvox voxels become void (absorb = 0) or are
 * absorbed by their neighbours (absorb = 1: repeated majority vote of the
 * face neighbours, void kept where a small grain touches nothing else).
 * *nremoved (may be NULL) gets the number of grains removed. Labels are not
 * renumbered (call rve_map_renumber). */
rve_status rve_map_remove_small(rve_map *m, size_t minvox, int absorb, size_t *nremoved,
                                rve_err *err);
/* Sub-box [i0, i0 + nx) x [j0, j0 + ny) x [k0, k0 + nz), origin shifted so
 * that physical positions are unchanged; ids and orientations are kept. */
rve_status rve_map_crop(const rve_map *m, int i0, int j0, int k0, int nx, int ny, int nz,
                        rve_map **out, rve_err *err);

/* --------------------------------------------------------- boundary voxels */
/* Control points of a fit: voxels of grain l that have a face neighbour of
 * another non-void grain. Points are grouped by label: those of label l are
 * [start[l], start[l + 1]). */
typedef struct {
    size_t n;          /* number of points */
    double *x;         /* 3 n coordinates (physical voxel centres, or means of merged centres) */
    double *w;         /* n weights: number of boundary voxels merged into the point */
    uint32_t *lab;     /* n labels */
    size_t *start;     /* nlabels + 2 offsets */
    uint32_t nlabels;
    size_t nvox;       /* boundary voxels before merging */
} rve_bpoints;

/* res <= 1: every boundary voxel, weight 1. res > 1: the boundary voxels of
 * each grain falling in the same res^3 block of the grid are merged into one
 * point at their mean centre with weight = their number (Neper's res). */
rve_status rve_map_boundary(const rve_map *m, int res, rve_bpoints **out, rve_err *err);
void rve_bpoints_free(rve_bpoints *b);

/* -------------------------------------------------------------- statistics */
typedef struct {
    uint32_t label;      /* label in the map (0 for an absent label) */
    uint32_t id;         /* original id */
    size_t nvox;         /* voxel count (0: the label is absent) */
    double volume;       /* nvox * hx * hy * hz */
    double diameq;       /* equivalent-sphere diameter (6 V / pi)^(1/3) */
    double centroid[3];
    double axes[3];      /* semi-axes of the ellipsoid with the same second moments, descending */
    double dirs[3][3];   /* dirs[a] is the unit direction of axes[a] */
    double aspect[2];    /* axes[1] / axes[0], axes[2] / axes[0] */
    double area;         /* surface area of the smoothed triangulated surface */
    double sphericity;   /* pi^(1/3) (6 V)^(2/3) / area */
    int nneigh;          /* grains sharing at least one voxel face */
    int ncomp;           /* 6-connected components */
    int border;          /* touches the map's outer boundary */
} rve_grain_stat;

/* Statistics of every label: stats[0..nlabels] (stats[0] is void, zeroed).
 * Surface area: the grain's indicator (1 inside, 0 outside and beyond the
 * map) is smoothed by a Gaussian of sigma = 1 voxel, its 1/2-isosurface is
 * triangulated by marching tetrahedra (6 tetrahedra per cell, sharing the
 * cell's main diagonal, so the surface is closed) and the triangle areas are
 * summed in physical units. A voxelised ball of 40 voxels diameter gets a
 * sphericity within 1 % of 1 (a raw voxel-face count would give 2/3). */
rve_status rve_map_stats(const rve_map *m, rve_grain_stat **stats, rve_err *err);
/* with_area = 0 skips the surfaces (area and sphericity left 0). */
rve_status rve_map_stats_opt(const rve_map *m, int with_area, rve_grain_stat **stats, rve_err *err);
/* Surface area (physical units) of the grain with label l alone (see above). */
rve_status rve_map_grain_area(const rve_map *m, uint32_t l, double *area, rve_err *err);

/* ------------------------------------------------------------------ compare */
typedef enum {
    RVE_CMP_MATCH = 0,  /* match grains one to one, greedily by decreasing overlap */
    RVE_CMP_IDENTITY,   /* label l of A is label l of B */
    RVE_CMP_IDS         /* grains with the same original id (rve_map_id) */
} rve_cmp_mode;

typedef struct {
    size_t nvox;          /* non-void voxels of A */
    size_t nagree;        /* of those, voxels whose B label is the match of their A label */
    double agreement;     /* nagree / nvox (the "voxel accuracy" when B is a fit of A) */
    uint32_t nlabels_a;
    uint32_t *match;      /* match[a] = label of B matched to label a of A (0: none), a = 0..nlabels_a */
    double *iou;          /* iou[a] = |A_a n B_match| / |A_a u B_match| (0 when unmatched) */
    double mean_iou;      /* over the grains present in A */
    uint32_t ngrains_a;   /* grains present in A */
    uint32_t nmatched;    /* of those, grains with a match */
} rve_map_cmp;

/* Voxel agreement of two maps of the same grid (different grids: RVE_EDATA). */
rve_status rve_map_compare(const rve_map *a, const rve_map *b, rve_cmp_mode mode,
                           rve_map_cmp **out, rve_err *err);
void rve_map_cmp_free(rve_map_cmp *c);
/* Renumber the labels present in a or b to 1..N through their sorted union:
 * the same old label gets the same new label in both maps, so an identity
 * comparison is unchanged, and per-label tables are sized by the labels
 * present, not by the largest (ids, orientations, phases kept). */
rve_status rve_map_renumber_pair(rve_map *a, rve_map *b, rve_err *err);

/* Orientation of grain label l as a unit quaternion in rve's convention
 * (rve/ori.h), whatever the map's descriptor.  RVE_EUSAGE without
 * orientations or for a label outside 1..nlabels, RVE_EDATA for values
 * that cannot be read. */
rve_status rve_map_grain_quat(const rve_map *m, uint32_t l, double q[4], rve_err *err);

/* ------------------------------------------------- grain-boundary disorientation */
typedef struct {
    uint32_t a, b;  /* labels of the two grains, a < b */
    size_t faces;   /* voxel faces they share (area in voxel faces) */
    double angle;   /* disorientation of their orientations, radians, under m->crysym
                       (no symmetry when NULL) */
} rve_gb_misori;
/* The grain boundaries of m (pairs of grains sharing voxel faces, sorted by
 * a then b) with their disorientation angles; *out malloc'd, *n pairs.
 * RVE_EUSAGE without orientations, RVE_EDATA for orientations or a symmetry
 * that cannot be read.  Memory: 8 bytes per voxel face between grains. */
rve_status rve_map_gb_misori(const rve_map *m, rve_gb_misori **out, size_t *n, rve_err *err);

/* ---------------------------------------------------------- synthetic maps */
/* A map that looks like a DCT scan: a Laguerre tessellation (random seeds,
 * log-normal radii) rasterised on the grid, evolved by a Monte Carlo Potts
 * grain-growth model (26-neighbour energy, kT = temperature) so that
 * boundaries curve, then a thin layer of unindexed voxels along some grain
 * boundaries and part of the outer surface, and isolated noise voxels.
 * Deterministic for a given parameter set (own RNG), labels renumbered 1..N. */
typedef struct {
    int nx, ny, nz;
    int nseeds;           /* Laguerre seeds before growth */
    double radius_sigma;  /* log-normal sigma of the seed radii (0.35) */
    int mcs;              /* Potts Monte Carlo steps (60): nvox * mcs flip attempts */
    double temperature;   /* kT in units of the bond energy (0.6) */
    double gb_void;       /* fraction of grain boundaries given an unindexed layer (0.08) */
    double surf_void;     /* fraction of the outer surface given an unindexed layer (0.3) */
    double noise;         /* fraction of voxels set to void or a wrong label (5e-5) */
    uint64_t seed;
} rve_synth_opts;

void rve_synth_opts_default(rve_synth_opts *o);
rve_status rve_map_synth_dct(const rve_synth_opts *o, rve_map **out, rve_err *err);
/* Give every grain of m a random orientation: uniform (rve_ori_random, its
 * generator seeded with seed, labels in increasing order), taken to the
 * fundamental zone of the Laue group crysym ("cubic", ...: rve_laue_parse),
 * as quaternions (ori_des "quaternion", rve's convention), phase 1 for every
 * grain and m->crysym the group's name; what m had is replaced.  RVE_EUSAGE
 * for an unknown symmetry, m untouched on failure. */
rve_status rve_map_set_random_ori(rve_map *m, const char *crysym, uint64_t seed, rve_err *err);

#ifdef __cplusplus
}
#endif
#endif

/* rve/tess.h - Laguerre/Voronoi tessellations with topology, .tess/VTK files, rasterisation.
 *
 * A Laguerre (power) tessellation of a box from n seeds s_i with weights w_i:
 * cell i = { x in box : |x - s_i|^2 - w_i^2 <= |x - s_j|^2 - w_j^2 for all j }.
 * The weight is a radius, as in Neper (Voronoi is w = 0).  Cells are computed
 * by voro++ (container_poly / container_periodic_poly) behind a C wrapper.
 *
 * The rve_tess structure holds two levels, both plain flat arrays:
 *
 *  1. PER-CELL POLYHEDRA (always valid): cell i is an rve_tess_poly with its
 *     own vertices, faces (vertex loops, neighbour cell or wall, area; planes
 *     from rve_tess_cell_plane),
 *     volume, centroid and area.  This is what fitting and synthesis use; it
 *     is kept current by rve_tess_update (incremental, after seeds move).
 *
 *  2. GLOBAL TOPOLOGY (valid when t->has_topo): unique vertices, edges and
 *     faces shared by the cells, as in Neper's .tess files.  Built by
 *     rve_tess_build (when asked) or rve_tess_topology; rve_tess_update
 *     invalidates it (has_topo = 0) and rve_tess_topology rebuilds it.
 *
 * Conventions
 *  - Indices are 0-based.  Cells are the seeds: cell i comes from seed i.
 *  - Walls (faces of the box domain) have NEGATIVE ids, as in voro++:
 *      RVE_WALL_XLO = -1 (x = lo[0]), RVE_WALL_XHI = -2, RVE_WALL_YLO = -3,
 *      RVE_WALL_YHI = -4, RVE_WALL_ZLO = -5, RVE_WALL_ZHI = -6.
 *    Neper's domain faces x0 x1 y0 y1 z0 z1 are walls 1..6 in that order.
 *  - Planes are {a, b, c, d}: a x + b y + c z = d, unit normal (a, b, c).
 *    A per-cell face plane (rve_tess_cell_plane) points OUT of the cell; a
 *    global face plane (rve_tess_face_plane) points from face_cell[2f] to
 *    face_cell[2f+1].  Neither is stored after a build (they are derived
 *    from the seeds, bit-identically); files and regularisation keep theirs
 *    in t->face_plane.
 *    (Neper writes "d a b c"; the .tess writer reorders.)
 *  - Vertex loops are counter-clockwise seen from the side the normal points
 *    to (right-hand rule around the normal).
 *  - Periodic domains: cells are whole convex polyhedra around their seed
 *    (not clipped to the box); per-cell coordinates are in the frame of the
 *    seed (seeds are wrapped into [lo, hi)).  A face between cell c and a
 *    periodic image of cell n carries the image shift of n relative to c,
 *    packed by rve_tess_img_pack (0 = no shift).  Global vertices are unique
 *    modulo the period (coordinates wrapped into the box) and each face-vertex
 *    incidence carries the image of the vertex as seen from face_cell[2f].
 *  - An empty cell (its seed is dominated by the others' weights) has
 *    nv = nf = 0 and volume 0; it is reported in t->nempty, not an error.
 *
 * Thread safety: functions are re-entrant; one rve_tess must not be modified
 * by two threads at once.  Reading it concurrently is fine.
 */
#ifndef RVE_TESS_H
#define RVE_TESS_H

#include <rve/util.h>
#include <rve/raster.h>
#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
    RVE_WALL_XLO = -1, RVE_WALL_XHI = -2,
    RVE_WALL_YLO = -3, RVE_WALL_YHI = -4,
    RVE_WALL_ZLO = -5, RVE_WALL_ZHI = -6
};

/* Pack / unpack a periodic image shift (sx, sy, sz), each in [-127, 127]. */
static inline int32_t rve_tess_img_pack(int sx, int sy, int sz)
{
    return (int32_t)(((uint32_t)(sx + 128) << 16) | ((uint32_t)(sy + 128) << 8) | (uint32_t)(sz + 128)) -
           (int32_t)0x808080;
}
static inline void rve_tess_img_unpack(int32_t img, int s[3])
{
    uint32_t u = (uint32_t)(img + (int32_t)0x808080);
    s[0] = (int)((u >> 16) & 255u) - 128;
    s[1] = (int)((u >> 8) & 255u) - 128;
    s[2] = (int)(u & 255u) - 128;
}

/* One cell as a convex polyhedron (level 1).  All arrays live in one block
 * owned by the tessellation. */
typedef struct {
    int nv;           /* vertices (0: empty cell) */
    int nf;           /* faces */
    int nfv;          /* total face-vertex incidences = sum of face sizes = 2 * edges */
    double *v;        /* 3 nv coordinates (absolute; periodic: in the seed's frame) */
    int *fnbr;        /* nf: neighbour cell (>= 0) or wall (< 0) across each face */
    int32_t *fimg;    /* nf: periodic image of the neighbour (0 when not periodic) */
    int *foff;        /* nf + 1: face k's loop is floop[foff[k] .. foff[k+1]) */
    int *floop;       /* nfv local vertex indices, counter-clockwise seen from outside */
    double *farea;    /* nf face areas (planes: rve_tess_cell_plane) */
    double vol;       /* volume */
    double area;      /* surface area */
    double centroid[3];
} rve_tess_poly;

typedef struct {
    /* ---- input ---- */
    int n;               /* number of seeds = cells */
    double *seeds;       /* 4 n: x y z w (w: weight as a radius) */
    double lo[3], hi[3]; /* domain box */
    int periodic[3];     /* periodicity flags per axis */

    /* ---- level 1: per-cell polyhedra (always valid) ---- */
    rve_tess_poly *cells; /* n */
    int nempty;           /* cells with no volume */

    /* ---- level 2: global topology (valid when has_topo) ---- */
    int has_topo;

    int nver;
    double *ver;          /* 3 nver coordinates */
    int *ver_state;       /* nver, 0 unless moved by regularisation */
    int *ver_coff;        /* nver + 1: cells/walls meeting at vertex v are */
    int *ver_cells;       /*   ver_cells[ver_coff[v] .. ver_coff[v+1]), cells ascending then walls */

    int nedge;
    int *edge_ver;        /* 2 nedge: the two vertices */
    int *edge_state;      /* nedge */
    int *edge_foff;       /* nedge + 1: faces containing edge e are */
    int *edge_faces;      /*   edge_faces[edge_foff[e] .. edge_foff[e+1]) */

    int nface;
    int *face_voff;       /* nface + 1: face f's vertex loop is */
    int *face_ver;        /*   face_ver[face_voff[f] .. face_voff[f+1]) (counter-clockwise about the normal) */
    int32_t *face_vimg;   /* same length as face_ver: image of each vertex seen from face_cell[2f]
                           * (periodic only; NULL otherwise) */
    int *face_edge;       /* same length: edge from vertex k to vertex k+1 of the loop */
    signed char *face_esign; /* same length: +1 if that edge runs edge_ver[0] -> edge_ver[1] along the loop */
    int *face_cell;       /* 2 nface: the two cells; the second is a wall (< 0) on the boundary.
                           * The plane normal points from the first to the second. */
    int32_t *face_img;    /* nface: image of the second cell relative to the first (periodic; else 0) */
    /* Face planes, areas and points: NULL when they are those of the
     * creating cell's face (rve_tess_cell_plane of face_cell[2f], its farea,
     * its vertex mean), as rve_tess_build and rve_tess_topology leave them
     * (not stored twice); set when they differ or come from a file
     * (rve_tess_read_tess, regularisation).  Read them with
     * rve_tess_face_plane, rve_tess_face_area and rve_tess_face_point. */
    double *face_plane;   /* 4 nface: {a, b, c, d}, or NULL */
    double *face_area;    /* nface, or NULL */
    int *face_state;      /* nface, 0 unless modified by regularisation */
    int *face_pt;         /* nface, Neper's face point: 0 barycentre, k k-th vertex (1-based), -1 undefined */
    double *face_ptxyz;   /* 3 nface, or NULL */

    int *cell_foff;       /* n + 1: cell c's faces are */
    int *cell_faces;      /*   cell_faces[cell_foff[c] .. cell_foff[c+1]) */
    signed char *cell_fsign; /* +1 if the face normal points out of the cell, -1 otherwise */

    void *priv;           /* internal (voro++ container for incremental updates) */

    /* ---- cell data carried through files (Neper **cell *ori / *crysym) ----
     * Kept verbatim, never converted: Neper 4.10 swapped the meaning of
     * "active" and "passive" in descriptors, so a converter needs the
     * descriptor text and the format version of the file it came from.
     * rve_tess_free frees them; rve_tess_copy_cell_data copies them. */
    char *ori_des;        /* descriptor as in the file (e.g. "rodrigues:passive"), or NULL */
    double *ori;          /* ori_n values per cell, cell order, or NULL */
    int ori_n;            /* values per cell (0: no orientations) */
    char *crysym;         /* crystal symmetry (e.g. "cubic"), or NULL */
    char format[16];      /* **format of the file read (e.g. "3.5"); "" when not read from a file */
} rve_tess;

/* Options of rve_tess_build. */
typedef struct {
    int topology;       /* build level 2 as well (default 1) */
    int keep_container; /* keep the voro++ container for rve_tess_update (default 1) */
    int threads;        /* 0: rve_threads_get() */
} rve_tess_opts;

void rve_tess_opts_default(rve_tess_opts *o);

/* Build the tessellation of n seeds (4 n doubles x y z w; x y z inside the
 * box, or anywhere when periodic: they are wrapped) in the box [lo, hi].
 * periodic may be NULL (not periodic).  *out receives a new tessellation that
 * the caller frees with rve_tess_free.  Errors: RVE_EDATA for NaN, seeds
 * outside a non-periodic box, an empty/degenerate box, n < 1, or two seeds
 * at the same position with equal weights (their cell is undefined);
 * RVE_ENOMEM.  A seed exactly on an upper face of the box is moved inside by
 * one ulp (voro++ needs it strictly inside); t->seeds holds the positions
 * used (periodic axes wrapped into [lo, hi)).  opts.threads > 1 computes the
 * cells with one voro++ container per thread (same result). */
rve_status rve_tess_build(const double *seeds, int n, const double lo[3], const double hi[3],
                          const int periodic[3], const rve_tess_opts *opts, rve_tess **out,
                          rve_err *err);
void rve_tess_free(rve_tess *t);

/* Incremental update: seeds ids[0..nmoved) get the new values newseeds[4k..4k+3]
 * (x y z w).  Recomputes only their cells and the cells around them (old and
 * new neighbours).  On return, changed[0..*nchanged) lists the cells whose
 * polyhedra changed (ascending; the caller provides room for t->n entries,
 * or passes NULL).  Invalidates the global topology (has_topo = 0).
 * Requires the container (opts.keep_container); RVE_EUSAGE otherwise. */
rve_status rve_tess_update(rve_tess *t, int nmoved, const int *ids, const double *newseeds,
                           int *changed, int *nchanged, rve_err *err);

/* Undo of the last update, for trial moves that are kept or rejected: once
 * enabled (on = 1), each rve_tess_update keeps the old polyhedra of the
 * cells it recomputes and the old values of the moved seeds, and
 * rve_tess_undo puts them back without recomputing anything (a rejected
 * trial then costs one update instead of two).  The next update, or
 * rve_tess_undo_enable, drops what was kept; rve_tess_undo with nothing kept
 * does nothing.  The global topology stays invalid.  Both need the container
 * (RVE_EUSAGE otherwise). */
rve_status rve_tess_undo_enable(rve_tess *t, int on, rve_err *err);
rve_status rve_tess_undo(rve_tess *t, rve_err *err);

/* (Re)build the global topology (level 2) from the per-cell polyhedra. */
rve_status rve_tess_topology(rve_tess *t, rve_err *err);

/* ------------------------------------------------------------- geometry */
/* Power distance |x - s_i|^2 - w_i^2 (periodic: minimum over images). */
double rve_tess_power(const rve_tess *t, int i, const double x[3]);
/* Cell whose seed has the smallest power distance to x (ties: lowest index). O(n). */
int rve_tess_locate(const rve_tess *t, const double x[3]);
/* Signed distance from x to cell i's polyhedron: max over its face planes of
 * (a.x - d) when x is inside (<= 0), else the Euclidean distance to the
 * polyhedron.  Periodic: x in the seed's frame.  +INFINITY for an empty cell. */
double rve_tess_cell_dist(const rve_tess *t, int i, const double x[3]);
/* Per-cell statistics. */
double rve_tess_cell_eqd(const rve_tess *t, int i);        /* equivalent-sphere diameter */
double rve_tess_cell_sphericity(const rve_tess *t, int i); /* pi^(1/3) (6V)^(2/3) / A, 0 if empty */
/* Area of the face(s) between cells i and j (0 if not neighbours). */
double rve_tess_face_area_between(const rve_tess *t, int i, int j);
/* Neighbour cells of i (walls excluded, each once, ascending); returns the
 * count; writes at most max into nb (nb may be NULL to count). */
int rve_tess_cell_neighbours(const rve_tess *t, int i, int *nb, int max);
/* Length of global edge e (needs topology). */
double rve_tess_edge_length(const rve_tess *t, int e);
/* Plane {a, b, c, d} of face f of cell i, outward unit normal.  Not stored
 * in the polyhedron: from the arrays t->face_plane when they are set (files,
 * regularisation: cell_fsign times the global plane), else from the seeds
 * (the power bisector of seed i and neighbour fnbr[f] at image fimg[f], or
 * the wall; the face polygon's Newell normal and vertex mean if the two
 * seeds coincide), exactly as rve_tess_build oriented the loop with it. */
void rve_tess_cell_plane(const rve_tess *t, int i, int f, double pl[4]);
/* Plane {a, b, c, d} of global face f (normal from face_cell[2f] to
 * face_cell[2f+1]), its area, and its point (the stored face_ptxyz, else the
 * mean of its vertices as seen from face_cell[2f]): from the arrays when
 * they are set, else from the polyhedron of cell face_cell[2f] (needs
 * topology; NaN for a face no cell lists). */
void rve_tess_face_plane(const rve_tess *t, int f, double pl[4]);
double rve_tess_face_area(const rve_tess *t, int f);
void rve_tess_face_point(const rve_tess *t, int f, double x[3]);
/* Coordinates of vertex k of global face f as seen from cell c (one of its two
 * cells; periodic unwrapping), into x. */
void rve_tess_face_vertex(const rve_tess *t, int f, int k, int c, double x[3]);
/* Check the internal consistency of the topology (for tests and after
 * editing): faces have >= 3 vertices, edges match loops, each interior face
 * has two distinct cells.  RVE_EINTERNAL with a message on failure. */
rve_status rve_tess_check(const rve_tess *t, rve_err *err);

/* ------------------------------------------------------------ rasterising */
/* Label every voxel centre of map (its grid: nx ny nz h origin; lab is
 * overwritten) with the seed of smallest power distance |x - s|^2 - w^2:
 * lab = labels[i] if labels != NULL, else i + 1.  Exact (ties go to the
 * lowest index) and independent of the polyhedra; uses a tile/bin
 * acceleration and OpenMP.  Non-periodic.  seeds: 4 n doubles x y z w. */
rve_status rve_tess_rasterize_seeds(const double *seeds, int n, const uint32_t *labels,
                                    rve_map *map, rve_err *err);
/* The layers kz0 .. kz1 - 1 of that raster (what one process of a
 * distributed raster computes, src/mpi): map gives only the grid (nx ny nz
 * h origin; map->lab is not used), lab receives nx ny (kz1 - kz0) labels
 * (x fastest, first layer kz0), and power, when not NULL, as many power
 * distances of the winning seed (for halo checks).  Every voxel gets the
 * same label as in rve_tess_rasterize_seeds. */
rve_status rve_tess_rasterize_seeds_layers(const double *seeds, int n, const uint32_t *labels,
                                           const rve_map *map, int kz0, int kz1, uint32_t *lab,
                                           double *power, rve_err *err);
/* Same for a tessellation (periodic domains use the nearest image). */
rve_status rve_tess_rasterize(const rve_tess *t, const uint32_t *labels, rve_map *map,
                              rve_err *err);

/* ------------------------------------------------------------------ files */
/* Write Neper .tess format 3.5 as Neper 4.10 writes it (docs/formats.md):
 * **cell with *id, *crysym, *seed, *ori (from t->ori_des / t->ori /
 * t->crysym when set), vertices, edges, faces (with face points and
 * states), polyhedra, the cube **domain with typed edges and faces.
 * Periodic tessellations are written as Neper does: whole cells around
 * their seeds (coordinates may leave the box), one file vertex / edge /
 * face per periodic copy a cell uses, "3 periodic" in **general and a
 * **periodicity section relating secondary copies to primaries (shifts in
 * -1..1; RVE_EDATA for a cell spanning more than one period).  Needs the
 * topology (built on demand).  ids: the cell ids written in *id (NULL: 1..n). */
rve_status rve_tess_write_tess(rve_tess *t, const char *path, const int *ids, rve_err *err);
/* Read a Neper .tess (2.0, 3.x; cube domains): seeds, weights (a **cell
 * *seed section is required), *ori / *crysym (kept verbatim, with the
 * format version in t->format), and topology, keeping the file's
 * numbering.  Accepts what Neper's reader accepts: face edge lists shifted
 * cyclically against the vertex list, domain edges with or without their
 * type lines (3.4 / 3.5), sections in any order.
 * Non-periodic: the per-cell polyhedra are rebuilt from the file's faces;
 * the tessellation has no container (rve_tess_update is refused).
 * Periodic ("3 periodic" or a **periodicity section): the cells are
 * rebuilt from the seeds with rve_tess_build, and every file vertex must
 * lie, modulo the period, within 1e-9 (relative to the box) of a rebuilt
 * vertex and the numbers of primary vertices, edges and faces must be
 * the rebuilt ones (RVE_EDATA
 * otherwise: e.g. a regularised periodic file is refused).
 * *ids (if not NULL) receives a malloc'd array of the cell ids. */
rve_status rve_tess_read_tess(const char *path, rve_tess **out, int **ids, rve_err *err);
/* The same from memory (name is used in messages). */
rve_status rve_tess_read_tess_mem(const char *buf, size_t n, const char *name, rve_tess **out,
                                  int **ids, rve_err *err);
/* Copy the file cell data (ori_des, ori, ori_n, crysym, format) of src into
 * dst (same number of cells; dst's are replaced).  RVE_ENOMEM, RVE_EUSAGE
 * for different cell counts. */
rve_status rve_tess_copy_cell_data(rve_tess *dst, const rve_tess *src, rve_err *err);
/* Orientations of grain map m onto the cells of t: cell k gets the
 * orientation of map label labels[k] (NULL: label k + 1), i.e. of the grain
 * whose original id is rve_map_id(m, labels[k]).  Stored as Neper's
 * "quaternion:passive" (w, x, y, z in rve's convention, rve/ori.h), t->format
 * "3.5" (the labels mean what they say from 3.5 on).  A map without
 * orientations or symmetry leaves t unchanged (RVE_OK).  RVE_EUSAGE for a label outside
 * the map, RVE_EDATA for orientations the map's descriptor cannot convert;
 * t is untouched on failure.  t->crysym is set from m->crysym when the map
 * knows its symmetry (kept otherwise). */
rve_status rve_tess_set_ori_from_map(rve_tess *t, const rve_map *m, const uint32_t *labels,
                                     rve_err *err);
/* The orientations of t's cells (t->ori as t->ori_des says, read under the
 * format version t->format; "" counts as 3.5, the version rve writes) as
 * unit quaternions in rve's convention (rve/ori.h): q[4 k .. 4 k + 3] for
 * cell k, q has 4 t->n entries.  RVE_EUSAGE when t has no orientations,
 * RVE_EDATA for an unknown descriptor or invalid values. */
rve_status rve_tess_ori_quat(const rve_tess *t, double *q, rve_err *err);
/* Orientations drawn for every cell of t (random generator seeded with
 * seed): spec "random" (uniform) or an ideal cubic rolling component
 * "cube", "goss", "brass", "copper", "s", optionally ":SPREAD" (degrees: the
 * standard deviation of each component of a normal rotation vector applied
 * on the crystal side), each taken to the fundamental zone of crysym
 * ("cubic", ...).  Stored as for rve_tess_set_ori_from_map, with t->crysym.
 * RVE_EUSAGE for an unknown texture or symmetry; t untouched on failure. */
rve_status rve_tess_set_ori_texture(rve_tess *t, const char *spec, const char *crysym, uint64_t seed,
                                    rve_err *err);
/* Write legacy VTK unstructured grid with polyhedral cells (type 42) and cell
 * data "id" (ids or 1..n) and "volume".  Empty cells are skipped. */
rve_status rve_tess_write_vtk(rve_tess *t, const char *path, const int *ids, rve_err *err);

/* Read seeds from a text file with one "x y z [w]" line per seed ('#'
 * comments allowed).  *seeds is malloc'd (4 n doubles). */
rve_status rve_tess_read_seeds(const char *path, double **seeds, int *n, rve_err *err);

#ifdef __cplusplus
}
#endif
#endif

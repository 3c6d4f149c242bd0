/* mesh_internal.h - functions shared inside the mesh module (not installed). */
#ifndef RVE_MESH_INTERNAL_H
#define RVE_MESH_INTERNAL_H

#include "mesh/cx.h"
#include <stdint.h>
#include <stdio.h>
#include <rve/mesh.h>

/* Mesh a complex with element size cl (see rve_mesh_tess). */
rve_status rve_cx_mesh(const rve_cx *c, const rve_mesh_opts *o, double cl,
                       const char *const outputs[RVE_MESH_NFORMATS], rve_mesh **out, rve_err *err);

/* Complex of a periodic tessellation cut at the box faces: every cell
 * crossing a box face becomes several pieces (cells of the complex with the
 * grain label ids[k], or k + 1), translated into the box; faces on opposite
 * box faces are exact translates of each other and linked by fper.  Vertices
 * within snap (> 0) of a box plane are put onto it first, which removes the
 * caps thinner than snap (periodic_snap.c); *nsnap (may be NULL) receives
 * how many vertices moved. */
rve_status rve_cx_from_periodic(const rve_tess *t, const int *ids, double snap, rve_cx **out,
                                int *nsnap, rve_err *err);
/* Periodic node pairs of m (m->lo, hi, periodic set) by exact coordinates;
 * RVE_EINTERNAL if a node on an upper box face has no exact translate. */
rve_status rve_mesh_pair_nodes(rve_mesh *m, rve_err *err);

/* A 64-bit key (a hash of a vertex set) with the index it belongs to;
 * mesh_key_cmp orders by key, then index (qsort), so equal keys are
 * adjacent in a fixed order. */
typedef struct {
    uint64_t k;
    int i;
} mesh_key;
int mesh_key_cmp(const void *x, const void *y);

/* Legacy VTK of a mesh: cell data grain, the columns of gt (may be NULL) and,
 * for periodic meshes, each node's periodic master (rve_mesh_write and the
 * solver outputs share it). */
rve_status mesh_write_vtk(const rve_mesh *m, FILE *fp, const rve_grain_table *gt, rve_err *err);

/* A tessellation (both levels) from a regularised complex c, one cell per
 * complex cell; seeds, box, periodicity and cell data from t0 (cx_tess.c). */
rve_status mesh_cx_to_tess(const rve_cx *c, const rve_tess *t0, const double *plane0, rve_tess **out,
                           rve_err *err);

/* The polish's reference without a grain map: a raster of t at half the
 * threshold (api.c). */
rve_status mesh_input_raster(const rve_tess *t, double thr, rve_map **out, rve_err *err);
/* The short-edge threshold of o for t (--length, or rsel times a quarter of
 * the mean cell size); RVE_EDATA without cells (api.c). */
rve_status mesh_reg_threshold(const rve_tess *t, const rve_reg_opts *o, double *thr, rve_err *err);
/* The regularised box complex of periodic t (pieces labelled by cell + 1)
 * and its initial face planes (reg_box.c). */
rve_status mesh_reg_box_complex(const rve_tess *t, const rve_reg_opts *ro, rve_reg_report *rep,
                                rve_cx **out, double **plane0_out, rve_err *err);

/* A periodic box complex written as a tessellation of its pieces (cells
 * sharing grain labels; opposite box faces exact translates along some axis):
 * set c->fper and c->periodic (periodic_detect.c).  1 when periodic, 0 not,
 * -1 out of memory. */
int mesh_cx_detect_periodic(rve_cx *c);
int mesh_int_cmp(const void *x, const void *y);

/* The Neper/FEPX flavour of .msh (write_fepx.c; see RVE_SOLVER_FEPX). */
rve_status mesh_write_fepx(const rve_mesh *m, FILE *fp, const rve_grain_table *gt, rve_err *err);

/* NULL when the gmsh library is loaded (gmsh_dl.c loads it on first use),
 * else why it cannot be */
const char *mesh_gmsh_unavailable(void);

/* fold.c, fold_meet.c: the loop position of the vertex that is face f's
 * face point (a fan from that vertex), or -1; (q - p) x (r - p) . (s - p);
 * the angle in [0, pi] at the edge p-m between the half-planes through x
 * and y (atan2, accurate at small angles); whether two triangles (vertex ids
 * and points) meet anywhere but at their shared vertices (1, or when in
 * doubt). */
int mesh_fpt_vertex(const rve_cx *c, int f);
double mesh_orient3(const double *p, const double *q, const double *r, const double *s);
double mesh_edge_angle(const double *p, const double *m, const double *x, const double *y);
int mesh_tri_meet(const int ia[3], const double *const xa[3], const int ib[3], const double *const xb[3]);

#endif

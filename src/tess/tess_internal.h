/* tess_internal.h - internals of the tessellation module (not installed). */
#ifndef RVE_TESS_INTERNAL_H
#define RVE_TESS_INTERNAL_H
#include <rve/tess.h>
#include "tess/voro_wrap.h"

typedef struct {
    tv_con *con;     /* voro++ container (NULL when not kept) */
    tv_cell *buf;    /* reusable cell buffer */
    int *mark;       /* n stamps for incremental updates */
    int stamp;
    /* undo journal of the last rve_tess_update (rve_tess_undo_enable) */
    int undo_on;
    int nj, jcap;          /* recomputed cells and their old polyhedra (blocks owned here) */
    int *jcell;
    rve_tess_poly *jpoly;
    int nmv, mvcap;        /* moved seeds and their old x y z w */
    int *mvid;
    double *mvold;
    int jnempty;           /* nempty before the update */
} tess_priv;

/* Fill poly from raw voro++ output (vertices absolute, faces as voro++ lists). */
rve_status tess_poly_from_raw(const rve_tess *t, int i, int nv, const double *v, int nf,
                              const int *nbr, const int *fv, int fvlen, rve_tess_poly *p);
/* Allocate the block of a poly with the given sizes (fields pointed into it). */
rve_status tess_poly_alloc(rve_tess_poly *p, int nv, int nf, int nfv);
void tess_poly_free(rve_tess_poly *p);
/* Recompute areas, volume, centroid of a poly from its vertices and loops
 * (planes are kept). */
void tess_poly_measure(rve_tess_poly *p);
/* Free the global topology arrays (has_topo = 0). */
void tess_topo_free(rve_tess *t);
/* Allocate an empty tessellation shell for n seeds (seeds copied). */
rve_tess *tess_alloc(int n, const double *seeds, const double lo[3], const double hi[3],
                     const int periodic[3]);
/* The cells in a spatially coherent (Morton) order of their seeds; malloc'd,
 * NULL when out of memory. */
int *tess_spatial_order(const rve_tess *t);
/* Centre (vertex mean) of face f of cell polyhedron p. */
void tess_face_centre(const rve_tess_poly *p, int f, double c[3]);
/* rve_tess_topology with the order of tess_spatial_order(t) already
 * computed (given, malloc'd; taken over and freed), or NULL. */
rve_status tess_topology_ordered(rve_tess *t, int *given, rve_err *err);
/* Period lengths (0 on non-periodic axes). */
void tess_period(const rve_tess *t, double P[3]);

#endif

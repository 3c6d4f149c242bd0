/* voro_wrap.h - plain C interface to voro++ (the only C++ in librve; internal). */
#ifndef RVE_VORO_WRAP_H
#define RVE_VORO_WRAP_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct tv_con tv_con;   /* a voro++ container_poly holding the seeds */
typedef struct tv_cell tv_cell; /* a reusable cell buffer (voronoicell_neighbor + vectors) */

/* Container of n seeds (4 n doubles x y z w) in [lo, hi] with per-axis
 * periodicity.  Seeds must be inside the box on non-periodic axes.  NULL when
 * out of memory. */
tv_con *tv_con_new(const double lo[3], const double hi[3], const int periodic[3], int n,
                   const double *seeds);
void tv_con_free(tv_con *c);
/* The seed ids in the container's block order (cache-friendly computing order). */
void tv_con_order(const tv_con *c, int *order);
/* Stored position of seed i (periodic axes wrapped into the box). */
void tv_con_pos(const tv_con *c, int i, double p[4]);
/* A hint: seed i is computed next (its location is read ahead). */
void tv_con_prefetch(const tv_con *c, int i);
/* Move seed i to s (x y z w).  0 on success, -1 out of memory. */
int tv_con_move(tv_con *c, int i, const double s[4]);

tv_cell *tv_cell_new(void);
void tv_cell_free(tv_cell *b);
/* Compute cell i into b: 1 computed, 0 empty cell, -1 error (out of memory). */
int tv_compute(tv_con *c, int i, tv_cell *b);
/* Results of the last tv_compute: vertices (absolute coordinates, periodic:
 * around the stored seed), faces' neighbours (walls -1..-6), face vertex
 * lists in voro++ order (count, then that many vertex indices, per face). */
int tv_cell_nv(const tv_cell *b);
const double *tv_cell_v(const tv_cell *b);
int tv_cell_nf(const tv_cell *b);
const int *tv_cell_nbr(const tv_cell *b);
const int *tv_cell_fv(const tv_cell *b);
int tv_cell_fvlen(const tv_cell *b);

/* voro++ alone (for benchmarks): build a container and compute every cell
 * in voro++'s loop order; returns the sum of the volumes (negative on
 * failure).  full = 0: a plain voronoicell and its volume only, as voro++'s
 * own examples do (a lower bound).  full = 1: what a voro++ user needs for
 * the same polyhedra we build: voronoicell_neighbor, and per cell its
 * vertices, neighbours, face vertex lists and volume. */
double tv_plain_all(const double lo[3], const double hi[3], const int periodic[3], int n,
                    const double *seeds, int full);

#ifdef __cplusplus
}
#endif
#endif

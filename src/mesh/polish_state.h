/* polish_state.h - the state of the polish (vertex moves after the
 * collapses), shared by its files: polish.c (the sweeps), polish_geom.c
 * (angles, checks, trial placement), polish_voxels.c (exact incremental voxel
 * accounting).  Not installed. */
#ifndef RVE_POLISH_STATE_H
#define RVE_POLISH_STATE_H
#include "mesh/reg_internal.h"
#include <stddef.h>
#include <stdint.h>

#define PI 3.14159265358979323846
#define MAXS 48     /* cells around one vertex a move may touch */
#define MAXT 512    /* fan triangles of the faces around one vertex */
#define MAXF 64     /* faces around one vertex */

typedef struct {
    int f;          /* face */
    int a, b;       /* loop edge (a, b) in loop order; one of them is the moving vertex */
} ptri;

typedef struct {
    rve_cx *c;
    const rve_map *map;
    int32_t *truth;       /* per voxel: cell of its grain, -1 void or grain without a cell */
    int32_t *cur;         /* per voxel: cell holding its centre, -1 none */
    struct seen_ent {
        size_t idx;
        uint32_t gen;
    } *seen;              /* voxels met by this trial: open addressing, entries of older
                             trials (gen) count as empty; small, so it stays in cache */
    size_t seen_cap, seen_n;
    uint32_t gen;
    int *vfo, *vfl;       /* vertex -> faces */
    int *cfo, *cfl;       /* cell -> faces */
    unsigned *mask;       /* domain planes through each vertex */
    char *dirty;          /* vertices whose neighbourhood changed since they were last tried */
    uint32_t *vmark;      /* per vertex: vgen when met (distinct vertices of a cell) */
    uint32_t vgen;
    double thr;           /* short-edge threshold: no edge is made shorter than min(thr, its length) */
    double max_bend;      /* radians */
    double qang;          /* radians: angles below are opened */
    size_t *cand;
    int32_t *cnew;
    size_t ncand, capcand;
    long long good;       /* voxels inside the cell of their grain */
    size_t nvox;          /* non-void voxels */
    /* the move under study */
    int v;
    double p[3];
    ptri tri[MAXT];       /* every fan triangle of the faces around v */
    int ntri;
    int vf[MAXF];         /* faces around v and their face points (loop means) with v at p */
    double vfpt[MAXF][3];
    int nvf;
    int star[MAXS];
    int nstar;
    /* periodic box complexes: the box planes whose vertices have copies on
     * the opposite planes (frz) and the links to them (see cx.h) */
    unsigned frz;
    int *plink;
    rve_reg_report *rep;  /* grouped-move counters (angle stage) */
} pol;


rve_status pol_build_truth(pol *P, const int *ids, rve_err *err);
int pol_cells_ok(const pol *P);
void pol_commit(pol *P);
int pol_convex_ok(pol *P);
double pol_corner(const double q[3], const double a[3], const double b[3]);
int pol_count_gain(pol *P, long long *gain);
double pol_dihedral(const pol *P, int k, int a, int b);
int pol_edges_ok(const pol *P);
int pol_faces_ok(const pol *P);
const double *pol_fpos(const pol *P, int f);
double pol_local_quality(const pol *P, int v, int moved);
int pol_loop_at(const rve_cx *c, int f, int i);
int pol_loop_len(const rve_cx *c, int f);
void pol_place(pol *P, const double p[3]);
const double *pol_pos(const pol *P, int w);
rve_status pol_rasterise(pol *P, rve_err *err);
int pol_setup_vertex(pol *P, int v);
double pol_tri_omega(const double x[3], const double o[3], const double a[3], const double b[3]);

#endif

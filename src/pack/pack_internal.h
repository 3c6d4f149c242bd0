/* pack_internal.h - shared internals of the pack module (not installed). */
#ifndef RVE_PACK_INTERNAL_H
#define RVE_PACK_INTERNAL_H

#include <rve/pack.h>
#include <rve/dist.h>

/* Pieces of compound bodies (shared by copies of a body). */
struct rve_pack_pieces {
    int refs;
    rve_compound *cmp; /* body frame: the body's x is its origin */
};

/* A compound body from np pieces given as vertex lists (any frame; pv is
 * shifted to the body frame, the centroid of the hull of all pieces); one
 * piece gives a polyhedron.  The volume of the union is sampled on a grid
 * of step hs. */
rve_status pack_body_compound(rve_pack_body *b, int np, double **pv, const int *pn, const double hs[3],
                              rve_err *err);

/* Distance of two bodies of which one at least is a compound (B shifted by
 * t; a convex body taken as a one-piece compound): rve_compound_dist. */
rve_status pack_compound_dist(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                              rve_compound_result *r);

/* Separation of two bodies of which one at least is a compound: the
 * hierarchy's distance (rve_compound_dist); overlap: sep 0, *overlap 1. */
rve_status pack_compound_separation(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                    double *sep, int *overlap);

/* Boolean overlap test (touching counts): 1, 0, or -1 for invalid bodies.
 * Cheaper than a distance: the kernels stop at the first separating plane
 * (GJK) or the first overlapping piece pair (compounds). */
int pack_bodies_overlap(const rve_pack_body *A, const rve_pack_body *B, const double t[3]);

/* Penetration depth (> 0 when overlapping) and unit normal from A to B by
 * the exact kernel of the pair (see gjk.c). */
rve_status pack_penetration(const rve_pack_body *A, const rve_pack_body *B, const double t[3], double *depth,
                            double n[3]);

/* The exact kernels' contact of two bodies believed to overlap (see
 * gjk.c): s (-depth, or the distance when they turn out apart), unit n from
 * A to B, p on A, q on B; piece (may be NULL) the piece pair of compounds. */
rve_status pack_overlap_contact(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                rve_contact *ct, size_t piece[2]);

/* Contact of any pair of bodies (B shifted by t) from the kernels: the
 * distance and witnesses (GJK, the compound hierarchy, closed form for
 * spheres) when apart, pack_overlap_contact when they overlap or touch.
 * Fills c->s, n, p, q, ia, ib (not i, j, shift). */
rve_status pack_pair_contact(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                             rve_pack_contact *c);

/* The body as a shape of rve/dist.h: in its own frame (t NULL), or posed
 * and translated by t.  Polytopes point to b->v (not copied). */
void pack_body_shape(const rve_pack_body *b, const double t[3], rve_shape *s);

/* Support point of the body in its own frame, direction d in its own frame. */
void pack_local_support(const rve_pack_body *b, const double d[3], double s[3]);

/* Separation of bodies A and B, B translated by t (world): >= 0 distance when
 * disjoint; <= 0 when overlapping (minus the depth when known, else 0 with
 * *overlap = 1).  Uses the exact sphere formula or the dist kernels. */
rve_status pack_separation_bodies(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                                  double *sep, int *overlap);

/* GJK separation of two non-sphere bodies (rve/dist.h); RVE_EUSAGE when
 * the distance kernel is not available. */
rve_status pack_gjk_separation(const rve_pack_body *A, const rve_pack_body *B, const double t[3],
                               double *sep, int *overlap);

/* Image shift vector shift*L. */
static inline void pack_shift_vec(const rve_pack_set *s, const int shift[3], double t[3])
{
    for (int k = 0; k < 3; k++)
        t[k] = shift[k] * s->L[k];
}

/* Largest penetration of body b into the walls of [0,L]^3 (<= 0 when inside:
 * minus the smallest clearance). */
double pack_wall_clearance(const rve_pack_body *b, const double L[3]);

/* ori.c: the VTK cell data of grains and orientations ("grain", and
 * "orientation", "euler_bunge" when every body has one) for nt triangles of
 * owners owner[]. */
void pack_vtk_write_ori(const rve_pack_set *s, const int *owner, size_t nt, FILE *fp);

/* Wrap positions into [0,L) (periodic sets). */
void pack_wrap(rve_pack_set *s);

/* ------------------------------------------------ the grid (grid.c) */
/* One uniform grid over bounding spheres, with periodic images; bodies are
 * inserted and removed one at a time.  Small periodic boxes (fewer than 3
 * cells on an axis) fall back to a list of all bodies and all images. */
typedef struct {
    const rve_pack_set *s;
    int nc[3];
    int brute;
    int m[3];          /* image range for brute mode */
    int *cell_of;      /* cell of each body, -1 when not inserted */
    int *fl;           /* image offset floor(x / L) of each body at insertion */
    int **items;
    int *cnt, *cap;
    int *inserted;     /* brute mode: list of inserted bodies */
    int ninserted;
    size_t ncell;
} pack_grid;

/* A candidate: body j seen through the image shift*L. */
typedef struct {
    int j;
    int shift[3];
} pack_cand;

/* reach: largest centre distance a query must see (2 rmax + margin).  -1 on ENOMEM. */
int pack_grid_init(pack_grid *g, const rve_pack_set *s, double reach);
void pack_grid_free(pack_grid *g);
void pack_grid_cell(const pack_grid *g, const double x[3], int c[3], int f[3]);
int pack_grid_insert(pack_grid *g, int i);
/* pack_grid_init and every body of s inserted.  -1 on ENOMEM (the grid can
 * still be freed). */
int pack_grid_init_all(pack_grid *g, const rve_pack_set *s, double reach);
void pack_grid_remove(pack_grid *g, int i);
/* Body i moved from old: re-file it if its cell changed.  -1 on ENOMEM. */
int pack_grid_moved(pack_grid *g, int i, const double old[3]);
/* Candidates near a body of bounding radius R at x (excluding `self` at zero
 * shift): |x_j + shift L - x| <= R + R_j + margin.  -1 on ENOMEM. */
int pack_grid_query(const pack_grid *g, const double x[3], double R, double margin, int self,
                    pack_cand **out, int *n, int *cap);

/* ------------------------------------- state shared by the algorithms */
typedef struct {
    rve_pack_set *s;
    const rve_pack_params *p;
    rve_pack_result *res;
    rve_err *err;
    rve_rng rng;
    double t0;
    rve_pack_body *orig;  /* bodies at unit scale (sizes as given) */
    double *lam;          /* current scale of each body */
    double vsolid;        /* at unit scale */
    double rmax;          /* largest unit-scale bounding radius */
    double rmean;
} pack_ctx;

/* pack.c */
void pack_set_scale(pack_ctx *c, int i, double lam);
int pack_out_of_time(const pack_ctx *c);
void pack_report(pack_ctx *c, double frac, double target, const char *extra);
double pack_current_fraction(const pack_ctx *c);
void pack_random_rotation(rve_rng *r, double maxang, double dq[4]);
void pack_quat_mul(double r[4], const double a[4], const double b[4]);
void pack_wrap_body(const rve_pack_set *s, rve_pack_body *b);
/* Minimum separation of body i (current pose) to the candidates; stops at
 * the first separation <= stop. */
rve_status pack_min_sep(pack_ctx *c, int i, const pack_cand *cd, int n, double stop, double *out,
                        long *calls);
/* rsa.c: place all bodies (current scale) without overlap, largest first. */
rve_status pack_rsa(pack_ctx *c, double gap);
/* soft.c: compression with soft-contact relaxation, then exact opening. */
rve_status pack_soft(pack_ctx *c, double target);
/* mc.c: hard-particle Monte Carlo growth. */
rve_status pack_mc(pack_ctx *c, double lam_target, int open_ended);
/* compress.c: Monte Carlo at fixed sizes, certified box shrinking. */
rve_status pack_compress(pack_ctx *c, double target);
/* compress.c: one hard-particle Monte Carlo sweep at fixed sizes (n trial
 * translations or rotations, each checked by the boolean overlap kernels
 * and the walls, kept at gap); step sizes adapted to about 30 % acceptance.
 * kT > 0: gravity along -z, a rise dz accepted with probability exp(-dz/kT). */
rve_status pack_mc_sweep(pack_ctx *c, double gap, double *dt, double *dr, double kT);
/* lid.c: deposition under gravity in a walled box closed by a lid. */
rve_status pack_lid(pack_ctx *c, double target, const double asp[3]);

#endif

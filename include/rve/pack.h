/* rve/pack.h - packing of grain sets into a domain.
 *
 * A grain set (rve_pack_set) is a box domain [0,LX]x[0,LY]x[0,LZ], periodic or
 * with walls, and N convex bodies: spheres, ellipsoids, superquadrics or
 * convex polyhedra, each with a pose (position + unit quaternion (w,x,y,z)).
 * Packing places them without overlap and compacts them:
 *   - spheres: random sequential insertion at low density, then compression
 *     with soft-contact relaxation (harmonic overlap energy minimised by FIRE,
 *     overlaps resolved along the contact normals by their depth), bisecting
 *     the packing fraction at which overlaps can no longer be relaxed
 *     (jamming); a final exact rescaling removes any residual overlap;
 *   - any shape: hard-particle Monte Carlo compression (translations,
 *     rotations, box shrinking), every trial checked exactly with the GJK
 *     distance kernel of rve/dist.h, so no state ever overlaps.
 * A uniform-grid broad phase over bounding spheres (with periodic images)
 * keeps the narrow phase to near pairs.  The size distribution parser
 * (rve_distrib, rve/util.h) is shared with `rve gen`. */
#ifndef RVE_PACK_H
#define RVE_PACK_H

#include <rve/util.h>
#include <rve/raster.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ bodies */
typedef enum {
    RVE_PACK_SPHERE = 0,
    RVE_PACK_ELLIPSOID,
    RVE_PACK_SUPERQUADRIC, /* F = (|x/a|^n2 + |y/b|^n2)^(n1/n2) + |z/c|^n1 - 1, n1,n2 >= 2 */
    RVE_PACK_POLY,         /* convex hull of vertices */
    RVE_PACK_COMPOUND      /* union of convex pieces (a non-convex grain, rve/dist.h compound);
                              v, nv, fn, nf describe its convex hull */
} rve_pack_shape;

/* The pieces of a compound body: shared by its copies (reference counted,
 * not thread-safe: copy bodies in one thread). */
typedef struct rve_pack_pieces rve_pack_pieces;

typedef struct {
    rve_pack_shape shape;
    double x[3];     /* position: centre (sphere, ellipsoid, superquadric), centroid (poly) */
    double q[4];     /* orientation, unit quaternion (w,x,y,z); body frame -> world */
    double a[3];     /* sphere: radius a[0]; ellipsoid, superquadric: semi-axes */
    double n1, n2;   /* superquadric exponents */
    int nv;          /* poly: number of vertices */
    double *v;       /* poly: 3*nv body-frame vertices (centroid at origin); owned */
    int nf;          /* poly: number of distinct face normals */
    double *fn;      /* poly: 3*nf unit outward face normals (body frame); owned */
    double rbound;   /* radius of a sphere about x that contains the body */
    double volume;
    rve_pack_pieces *pieces; /* compound: its convex pieces (body frame); else NULL */
    uint32_t grain;  /* id (rve_map_id) of the map grain it was made from; 0 otherwise */
    int has_ori;     /* 1: ori is the crystal orientation of its grain */
    double ori[4];   /* crystal orientation in the body frame (the map's sample frame): unit
                        quaternion (w,x,y,z), passive (sample -> crystal), rve/ori.h */
} rve_pack_body;

/* Initialise bodies at the origin with identity orientation.  Shapes with
 * non-positive or non-finite sizes are refused (RVE_EDATA). */
rve_status rve_pack_body_sphere(rve_pack_body *b, double r, rve_err *err);
rve_status rve_pack_body_ellipsoid(rve_pack_body *b, double a, double bb, double c, rve_err *err);
rve_status rve_pack_body_superquadric(rve_pack_body *b, double a, double bb, double c, double n1,
                                      double n2, rve_err *err);
/* Convex hull of nv points (world or any frame): the body is positioned at the
 * hull centroid with identity orientation, vertices stored relative to it
 * (only hull vertices kept).  Flat or degenerate hulls are refused. */
rve_status rve_pack_body_poly(rve_pack_body *b, int nv, const double *pts, rve_err *err);
void rve_pack_body_free(rve_pack_body *b);
/* Deep copy (dst must not own memory). */
rve_status rve_pack_body_copy(rve_pack_body *dst, const rve_pack_body *src, rve_err *err);
/* Uniform scaling of the body's size (not its position). */
void rve_pack_body_scale(rve_pack_body *b, double s);
/* Support point of the posed body in world direction d (not normalised). */
void rve_pack_body_support(const rve_pack_body *b, const double d[3], double out[3]);
/* Vertex k of a poly in world coordinates. */
void rve_pack_body_vertex(const rve_pack_body *b, int k, double out[3]);
/* Superquadric volume 2abc e1 e2 B(e1/2+1, e1) B(e2/2, e2/2), e1 = 2/n1, e2 = 2/n2. */
double rve_pack_superquadric_volume(double a, double b, double c, double n1, double n2);
/* One line in the shape syntax of `rve dist` (world coordinates, %.17g),
 * without the newline. Returns the snprintf-like length. */
int rve_pack_body_format(const rve_pack_body *b, char *buf, size_t n);

/* Crystal orientation of the posed body (b->has_ori): its grain's
 * orientation composed with the body's rotation.  With R the body's active
 * rotation (body frame -> world, b->q) and g the grain's passive matrix
 * (v_crystal = g v_body), the packed orientation is g R^T: in quaternions
 * q * ori (Hamilton product, rve/ori.h: the matrix of a*b is om(b) om(a)),
 * passive, w >= 0.  Returns 0 and the identity when the body has none. */
int rve_pack_body_crystal_ori(const rve_pack_body *b, double g[4]);

/* ------------------------------------------------------ grains from maps */
/* Each grain (label) of a voxel map as a body: the convex hull of its voxels
 * (the corners of the voxel cubes), or a convex decomposition: the voxel set
 * is split recursively along its principal axis (through the voxel centroid)
 * until each part's hull volume is within tol of the part's voxel volume,
 * each part's hull a piece of an RVE_PACK_COMPOUND body (a grain whose hull
 * already meets the tolerance stays one convex RVE_PACK_POLY). */
typedef struct {
    int hull;           /* 1: convex hulls; 0: decomposition (default) */
    double tol;         /* relative excess hull volume accepted per part, > 0 (default 0.25) */
    int max_depth;      /* split levels 0 to 12 (default 5: at most 32 pieces per grain; 0: no split) */
    long min_voxels;    /* grains with fewer voxels are left out, >= 1 (default 27) */
    int min_part;       /* parts of fewer voxels are not split further, >= 1 (default 8) */
} rve_pack_grain_opts;
/* The defaults (docs/pack.md gives the volume errors they reach on in100-a.tif). */
void rve_pack_grain_opts_init(rve_pack_grain_opts *o);

typedef struct {
    uint32_t label;     /* map label */
    long voxels;
    double vvox;        /* voxel volume */
    double volume;      /* body volume: hull volume, or union of the pieces (sampled 2x2x2 per voxel) */
    double verr;        /* volume / vvox - 1 */
    int pieces;         /* 1 for a convex body */
} rve_pack_grain_info;

/* Bodies (identity orientation, at their centroid in map coordinates; grain
 * set to the map id, and the grain's orientation in ori when the map has
 * orientations) and their infos, both malloc'd, *n of them (outputs untouched on failure).
 * o NULL: the defaults; RVE_EUSAGE for options out of range. */
rve_status rve_pack_grains_from_map(const rve_map *m, const rve_pack_grain_opts *o, rve_pack_body **bodies,
                                    rve_pack_grain_info **info, size_t *n, rve_err *err);

/* -------------------------------------------------------------- grain sets */
typedef struct {
    size_t n;
    rve_pack_body *b;
    double L[3];   /* domain [0,L[0]] x [0,L[1]] x [0,L[2]] */
    int periodic;  /* 1 periodic, 0 walls */
} rve_pack_set;

/* n bodies zero-initialised (spheres of radius 0 until set). */
rve_pack_set *rve_pack_set_alloc(size_t n);
void rve_pack_set_free(rve_pack_set *s);
double rve_pack_set_volume_solid(const rve_pack_set *s);
/* Write "# domain LX LY LZ periodic|walls" and one body per line. */
rve_status rve_pack_set_write(const rve_pack_set *s, FILE *fp, rve_err *err);
/* Legacy VTK unstructured grid of the body surfaces (triangles), cell data:
 * "body" (index in s, from 0) and "piece" (piece of a compound body, from
 * 0; 0 for convex bodies); "grain" (map id) when some body comes from a
 * map; "orientation" (4 components: the packed crystal orientation of
 * rve_pack_body_crystal_ori) and "euler_bunge" (3, degrees) when every
 * body has one. */
rve_status rve_pack_set_write_vtk(const rve_pack_set *s, FILE *fp, rve_err *err);
/* Orientations, one line per body: "i grain qw qx qy qz" (the body's
 * active rotation, body frame -> world) followed, when the set's bodies
 * have crystal orientations, by "ow ox oy oz phi1 Phi phi2": the packed
 * crystal orientation (rve_pack_body_crystal_ori: passive quaternion, and
 * Bunge ZXZ Euler angles in degrees); "# orientations N crystal 0|1" and a
 * column line first.  RVE_EDATA when only some bodies have orientations. */
rve_status rve_pack_set_write_ori(const rve_pack_set *s, FILE *fp, rve_err *err);
/* Read a file written by rve_pack_set_write ("# domain" line, then bodies in
 * the `rve dist` shape syntax: sphere, ellipsoid, superquadric, box, poly). */
rve_status rve_pack_set_read(const char *path, rve_pack_set **out, rve_err *err);
/* Parse bodies (no domain line needed) from text; used for --bodies files. */
rve_status rve_pack_bodies_parse(const char *text, const char *name, rve_pack_body **bodies,
                                 size_t *n, double L[3], int *has_domain, int *periodic,
                                 rve_err *err);

/* ------------------------------------------------------------ broad phase */
/* A candidate pair: body j seen from body i through the periodic image
 * shift (integers, multiplying L): the vector from i to j is
 * x_j + shift*L - x_i.  i <= j (i == j only for a body near its own image). */
typedef struct {
    int i, j;
    int shift[3];
} rve_pack_pair;

/* All pairs whose bounding spheres are within `margin` of touching
 * (|x_j + shift L - x_i| <= rbound_i + rbound_j + margin), by a uniform grid
 * (sweep over 27 neighbour cells, periodic images); falls back to all pairs
 * with all 27 image shifts when the box holds fewer than 3 cells per axis.
 * *pairs is (re)allocated; *cap is its capacity.  Returns RVE_ENOMEM. */
rve_status rve_pack_broad_phase(const rve_pack_set *s, double margin, rve_pack_pair **pairs,
                                size_t *npairs, size_t *cap, rve_err *err);

/* ---------------------------------------------------------- narrow phase */
/* Separation of two bodies (j shifted by shift*L): distance >= 0 when
 * disjoint (exact for spheres, GJK for other shapes); for overlapping bodies
 * a non-positive value: minus the penetration depth for spheres, otherwise
 * minus the depth if the contact kernel provides it, else 0 with *overlap = 1.
 * Returns RVE_OK or the kernel's error status. */
rve_status rve_pack_separation(const rve_pack_set *s, int i, int j, const int shift[3],
                               double *sep, int *overlap);

/* -------------------------------------------------------------- metrics */
typedef struct {
    double fraction;      /* V_solid / V_box */
    double void_ratio;    /* (V_box - V_solid) / V_solid */
    double z;             /* coordination number: 2 * contacts / N */
    long contacts;        /* pairs with separation <= contact_tol */
    long rattlers;        /* bodies with no contact */
    double max_overlap;   /* largest penetration (0 when none) */
    long overlaps;        /* pairs with separation < 0 */
    double wall_overlap;  /* largest penetration into a wall (walls only) */
    long narrow_calls;    /* narrow-phase calls made with the broad phase */
    long all_pairs;       /* N(N-1)/2 */
} rve_pack_metrics;

rve_status rve_pack_measure(const rve_pack_set *s, double contact_tol, rve_pack_metrics *m,
                            rve_err *err);

/* ------------------------------------------------------------- contacts */
/* A contact between bodies i and j (j seen through the image shift*L),
 * from the exact kernels of rve/dist.h: for bodies apart, the distance and
 * its witness points (GJK; the compound hierarchy, Algorithm 6; the closed
 * form for spheres); for overlapping ones the penetration (EPA for
 * polytopes and compounds, Peng-Hanley for a polyhedron against a
 * superquadric, Wellmann for superellipsoid pairs). */
typedef struct {
    int i, j;          /* bodies (0-based), i <= j */
    int shift[3];      /* image of j */
    int ia, ib;        /* piece of i and of j (compounds; 0 for convex bodies) */
    double s;          /* separation: distance (> 0) or minus the penetration depth */
    double n[3];       /* unit contact normal from i to j */
    double p[3], q[3]; /* witness points on i and on j (q - p = s n up to rounding) */
} rve_pack_contact;

/* All pairs with separation <= contact_tol (>= 0), sorted by (i, j, shift).
 * *out is malloc'd (caller frees; NULL when there is none), *n their count.
 * The contacts counted by rve_pack_measure are exactly these. */
rve_status rve_pack_contacts(const rve_pack_set *s, double contact_tol, rve_pack_contact **out, size_t *n,
                             rve_err *err);
/* Write "# contacts N tol T" then one line per contact:
 * "i j sx sy sz ia ib s nx ny nz px py pz qx qy qz" (bodies and pieces
 * from 0, as the body and piece ids of rve_pack_set_write_vtk). */
rve_status rve_pack_contacts_write(const rve_pack_contact *c, size_t n, double contact_tol, FILE *fp,
                                   rve_err *err);

/* ---------------------------------------------------------------- packing */
/* COMPRESS: Monte Carlo moves at fixed sizes and a box shrunk by certified
 * factors (exact kernels).  LID: deposition under gravity (-z) in a walled
 * box whose lid comes down onto the highest body (Monte Carlo at fixed
 * sizes, exact kernels); walls only, the footprint follows aspect (or the
 * fixed domain).  COMPRESS and LID keep the sizes, so they pack compound
 * bodies. */
typedef enum { RVE_PACK_AUTO = 0, RVE_PACK_SOFT, RVE_PACK_MC, RVE_PACK_COMPRESS, RVE_PACK_LID } rve_pack_method;

typedef struct {
    rve_pack_method method;  /* AUTO: COMPRESS when a body is a compound, else SOFT */
    double target_fraction;  /* stop when reached; 0 = as dense as possible */
    int fixed_domain;        /* 1: keep s->L (fill it; target = V_solid/V_box) */
    double aspect[3];        /* box proportions when the domain is free (default 1,1,1) */
    uint64_t seed;
    int random_orientation;  /* draw uniform orientations before packing */
    double max_seconds;      /* wall-clock budget for compaction (0 = none) */
    long max_sweeps;         /* MC sweep cap (0 = default 200000) */
    /* Jamming (COMPRESS): stop when the packing fraction gains less than
     * jam_tol (relative) over jam_window sweeps (0: defaults 2e-3 and 400;
     * jam_tol < 0 turns the window test off).  docs/pack.md lists every
     * method's criterion. */
    double jam_tol;
    long jam_window;
    /* Progress callback (may be NULL): fraction reached so far and target. */
    void (*progress)(void *ctx, double fraction, double target, const char *extra);
    void *progress_ctx;
} rve_pack_params;

void rve_pack_params_init(rve_pack_params *p);

/* Why a packing stopped. */
typedef enum {
    RVE_PACK_STOP_TARGET = 0,  /* the target fraction (or the fixed domain) was reached */
    RVE_PACK_STOP_JAMMED,      /* the method's convergence criterion: jammed (or settled, LID) */
    RVE_PACK_STOP_TIME,        /* the max_seconds budget */
    RVE_PACK_STOP_ITERATIONS   /* the max_sweeps cap */
} rve_pack_stop;
/* "target", "jammed", "time", "iterations". */
const char *rve_pack_stop_name(rve_pack_stop s);

typedef struct {
    double fraction;     /* final packing fraction */
    long steps;          /* relaxation steps (SOFT) or MC sweeps (MC) */
    long narrow_calls;   /* total narrow-phase calls */
    double calls_per_step;   /* mean narrow-phase calls per step/sweep */
    double seconds;
    int reached_target;  /* 1 if target_fraction (or the fixed domain) was reached */
    rve_pack_method method;
    rve_pack_stop stop;  /* why the compaction stopped */
} rve_pack_result;

/* Pack the bodies of s (sizes as given; positions and, if asked,
 * orientations are overwritten).  With fixed_domain, s->L is kept and the
 * bodies are compacted until they fit (RVE_ECAP if they cannot, s is then
 * left overlap-free in a larger box); otherwise s->L is set to the final box.
 * The result never has overlapping bodies. */
rve_status rve_pack_run(rve_pack_set *s, const rve_pack_params *p, rve_pack_result *res,
                        rve_err *err);

#ifdef __cplusplus
}
#endif
#endif

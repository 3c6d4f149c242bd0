/* The pair distance query (Montanari 2017, Algorithm 5) for pairs of
 * shapes: the support mappings of the pair (local frame, rows of small
 * polytopes, power-of-two scaling), its set-up and the run of the loop
 * (gjk_loop.h).  Included twice: by gjk.c for the baseline instruction set
 * and by gjk_avx.c under AVX (its support scans four products per
 * register), so that one source makes both (not installed). */
#ifndef RVE_GJK_QUERY_H
#define RVE_GJK_QUERY_H

#include <rve/dist.h>
#include "dist/gjk_loop.h"
#include <float.h>
#include <math.h>
#include <string.h>

/* body point b of a shape with frame f at local position pos */
DIST_INLINE void pair_place(const dist_frame *f, const double pos[3], const double b[3], double out[3])
{
    if (f->rotated) {
        double t[3];
        dist_rotate(f->R, b, t);
        v3_add(out, pos, t);
    } else {
        v3_add(out, pos, b);
    }
}

/* a = s_A(-v), b = s_B(v) */
DIST_INLINE void support_generic(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    double mv[3] = {-v[0], -v[1], -v[2]}, t[3];
    dist_support_frame(P->A, &P->fa, mv, t, &P->hintA);
    pair_place(&P->fa, P->pa, t, a);
    *ia = P->hintA;
    dist_support_frame(P->B, &P->fb, v, t, &P->hintB);
    pair_place(&P->fb, P->pb, t, b);
    *ib = P->hintB;
}

/* a = s_A(-v), b = s_B(v) for two polytopes scanned brute force (pair_fused):
 * both scans in one pass (dist_argmax2), the same indices as support_generic */
DIST_INLINE void support_polypoly(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    double da[3] = {-v[0], -v[1], -v[2]}, db[3] = {v[0], v[1], v[2]};
    if (P->fa.rotated) {
        const double *R = P->fa.R;
        da[0] = R[0] * -v[0] + R[3] * -v[1] + R[6] * -v[2];
        da[1] = R[1] * -v[0] + R[4] * -v[1] + R[7] * -v[2];
        da[2] = R[2] * -v[0] + R[5] * -v[1] + R[8] * -v[2];
    }
    if (P->fb.rotated) {
        const double *R = P->fb.R;
        db[0] = R[0] * v[0] + R[3] * v[1] + R[6] * v[2];
        db[1] = R[1] * v[0] + R[4] * v[1] + R[7] * v[2];
        db[2] = R[2] * v[0] + R[5] * v[1] + R[8] * v[2];
    }
    dist_argmax2(P->A->verts, P->A->nv, da, P->B->verts, P->B->nv, db, ia, ib);
    pair_place(&P->fa, P->pa, P->A->verts + 3 * *ia, a);
    pair_place(&P->fb, P->pb, P->B->verts + 3 * *ib, b);
    P->hintA = *ia;
    P->hintB = *ib;
}

/* Two small polytopes: their vertices are rotated (or, unposed, copied)
 * once per query (P->ra, P->rb) instead of every direction and support
 * point in every iteration (off the loop's chain of dependent steps),
 * stored as rows of x, y and z for the branch-free scan dist_argmax_soa
 * (the copy pays for unposed bodies too: bare 8-vertex arrays, full call
 * 6-8 % faster).  Each support point is the one pair_place makes (the
 * products and sums of dist_rotate). */
#define GJK_ROWS_MAX_NV 15
_Static_assert(GJK_ROWS_MAX_NV <= DIST_SOA_STRIDE, "the rows hold the padded count");
/* below 4 vertices the copy (padded to 8) costs more than it saves: posed
 * point pairs 74 -> 51 ns, 2 vertices 105 -> 98, 3 (touching) 174 -> 151;
 * 4 the same either way (docs/dist.md, stop 34) */
#define GJK_ROWS_MIN_NV 4
/* 16 to 32 vertices (a body above GJK_ROWS_MAX_NV): rows too, in a loop
 * of their own (the 12- and 16-register scans inlined in the small bodies'
 * loop cost 117 instructions per 8-vertex query).  Against the one-pass
 * scan of the body's own vertices (pair_fused): touching pairs 9-12 %,
 * distant 2-5 % faster at 16-32 vertices (docs/dist.md, stop 35).  Hill
 * climbing starts above them. */
#define GJK_ROWS32_MAX_NV 32
_Static_assert(GJK_ROWS32_MAX_NV <= DIST_SOA_STRIDE, "the rows hold the padded count");
_Static_assert(GJK_ROWS32_MAX_NV <= DIST_GRAPH_MIN_NV, "rows never take the place of a graph");
/* both bodies polytopes of GJK_ROWS_MIN_NV to max vertices */
static inline int pair_rows(const rve_shape *A, const rve_shape *B, int max)
{
    return A->kind == RVE_SHAPE_POLYTOPE && B->kind == RVE_SHAPE_POLYTOPE && A->nv <= max && B->nv <= max &&
           A->nv >= GJK_ROWS_MIN_NV && B->nv >= GJK_ROWS_MIN_NV;
}

static inline const double *pair_rows_fill(const rve_shape *s, const dist_frame *f, double *buf)
{
    if (f->rotated)
        dist_rows(f->R, s->verts, s->nv, buf, DIST_SOA_STRIDE);
    else
        dist_rows(NULL, s->verts, s->nv, buf, DIST_SOA_STRIDE);
    return buf;
}

/* wide (a constant where inlined): the scans of up to 32 vertices, else 16 */
DIST_INLINE void support_rows_n(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib,
                                const int wide)
{
    double t[3];
    /* the maximum in -v */
    *ia = wide ? dist_argmin_soa(P->ra, P->A->nv, DIST_SOA_STRIDE, v)
               : dist_argmin_soa16(P->ra, P->A->nv, DIST_SOA_STRIDE, v);
    *ib = wide ? dist_argmax_soa(P->rb, P->B->nv, DIST_SOA_STRIDE, v)
               : dist_argmax_soa16(P->rb, P->B->nv, DIST_SOA_STRIDE, v);
    dist_soa_point(P->ra, *ia, t);
    v3_add(a, P->pa, t);
    dist_soa_point(P->rb, *ib, t);
    v3_add(b, P->pb, t);
    P->hintA = *ia;
    P->hintB = *ib;
}

DIST_INLINE void support_rows(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    support_rows_n(P, v, a, b, ia, ib, 0);
}

DIST_INLINE void support_rows32(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    support_rows_n(P, v, a, b, ia, ib, 1);
}

static void vertex_rows(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    double t[3];
    dist_soa_point(P->ra, ia, t);
    v3_add(a, P->pa, t);
    dist_soa_point(P->rb, ib, t);
    v3_add(b, P->pb, t);
}

/* both bodies polytopes whose support is the plain scan (below the
 * two-chain scan's size, no hill climbing), from DIST_ARGMAX2_MIN_NV
 * vertices: at 8 the one pass was no faster (bare arrays 162 -> 171 ns),
 * at 32 it is 4-10 % faster (docs/dist.md, branch gjk8) */
static inline int pair_fused(const rve_shape *A, const rve_shape *B)
{
    return A->kind == RVE_SHAPE_POLYTOPE && B->kind == RVE_SHAPE_POLYTOPE && A->nv >= DIST_ARGMAX2_MIN_NV &&
           B->nv >= DIST_ARGMAX2_MIN_NV && A->nv < DIST_ARGMAX_PAIRS_NV && B->nv < DIST_ARGMAX_PAIRS_NV &&
           !(A->graph && A->nv > DIST_GRAPH_MIN_NV) && !(B->graph && B->nv > DIST_GRAPH_MIN_NV);
}

static void support_scaled(gjk_pair *P, const double v0[3], double a[3], double b[3], int *ia, int *ib)
{
    double v[3];
    scaled_dir(P, v0, v);
    double mv[3] = {-v[0], -v[1], -v[2]}, t[3];
    dist_support_frame(P->A, &P->fa, mv, t, &P->hintA);
    scale2(P, t);
    pair_place(&P->fa, P->pa, t, a);
    *ia = P->hintA;
    dist_support_frame(P->B, &P->fb, v, t, &P->hintB);
    scale2(P, t);
    pair_place(&P->fb, P->pb, t, b);
    *ib = P->hintB;
}

static void vertex_generic(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    double t[3];
    dist_vertex_body(P->A, ia, t);
    scale2(P, t);
    pair_place(&P->fa, P->pa, t, a);
    dist_vertex_body(P->B, ib, t);
    scale2(P, t);
    pair_place(&P->fb, P->pb, t, b);
}

static int shape_valid_fast(const rve_shape *s)
{
    if (s->kind == RVE_SHAPE_POLYTOPE && (s->nv < 1 || !s->verts))
        return 0;
    return (unsigned)s->kind <= (unsigned)RVE_SHAPE_SUPERQUADRIC;
}

/* Hill climbing loads one vertex after another, each load waiting on the
 * comparisons before it: a vertex array out of the cache (bare world
 * arrays made per query) cost a miss per step, and at 128 to 512 vertices
 * the graph was slower than the brute-force scan.  So the whole array is
 * asked for at once, its misses in parallel: for unposed shapes (world
 * arrays, often written per query) up to GJK_PREFETCH_BARE_NV vertices,
 * for posed ones (a body's own vertices, shared by its queries and often
 * cached) up to GJK_PREFETCH_NV.  bench_dist RVE_BENCH_DIST_WORLD=1,
 * against openGJK: 128 vertices distant 0.82-0.94x -> 0.32x, touching
 * 0.97-1.00x -> 0.74-0.77x; 512 touching 0.60x -> 0.34x; 2048 touching
 * 0.40x -> 0.32x; posed 128 unchanged, posed 512 50 % slower with it
 * (docs/dist.md, stop 35). */
#define GJK_PREFETCH_NV 256
#define GJK_PREFETCH_BARE_NV 4096
static inline void graph_prefetch(const rve_shape *s)
{
#if defined(__GNUC__)
    if (s->nv > (s->rotated ? GJK_PREFETCH_NV : GJK_PREFETCH_BARE_NV) || !s->verts)
        return;
    for (int i = 0; i < 3 * s->nv; i += 8) /* a 64-byte line per 8 doubles */
        __builtin_prefetch(s->verts + i);
#else
    (void)s;
#endif
}

/* The pair in the local frame (origin c = B's position); with scaled, also
 * multiplied by 2^-sc for the pair's extent L. */
DIST_INLINE void pair_init(gjk_pair *P, const rve_shape *A, const rve_shape *B, int scaled, double v0[3])
{
    P->A = A;
    P->B = B;
    P->V = NULL; /* not a point query (gjk_dup_certified) */
    P->ra = P->rb = NULL; /* no rows unless gjk_dist_run makes them */
    dist_frame_init(&P->fa, A);
    dist_frame_init(&P->fb, B);
    P->hintA = P->hintB = -1;
    if (!scaled)
        P->want = WANT_FULL;
    /* no hint for the first climbs: they start from the graph's table */
    if (A->kind == RVE_SHAPE_POLYTOPE && A->graph)
        graph_prefetch(A);
    if (B->kind == RVE_SHAPE_POLYTOPE && B->graph)
        graph_prefetch(B);
    P->m1 = P->m2 = 1;
    P->sc = 0;
    if (scaled)
        gjk_scale_factors(fmax(gjk_shape_extent(A), gjk_shape_extent(B)), P);
    /* the shift pays when the positions are far from the origin compared
     * with their difference (rounding eps |pos_A - pos_B| instead of eps
     * |pos|); near the origin it would only add that rounding */
    double dab[3];
    v3_sub(dab, A->pos, B->pos);
    int shift = v3_maxabs(dab) < fmax_(v3_maxabs(A->pos), v3_maxabs(B->pos));
    if (shift)
        v3_copy(P->c, B->pos);
    else
        v3_set(P->c, 0, 0, 0);
    P->local = shift || scaled;
    if (scaled) {
        for (int i = 0; i < 3; i++) {
            /* scale first: pos_A - pos_B may overflow */
            P->pa[i] = A->pos[i] * P->m1 * P->m2 - P->c[i] * P->m1 * P->m2;
            P->pb[i] = B->pos[i] * P->m1 * P->m2 - P->c[i] * P->m1 * P->m2;
        }
    } else {
        v3_sub(P->pa, A->pos, P->c);
        v3_sub(P->pb, B->pos, P->c);
    }
    /* the first direction: between the bodies' middles (gjk_shape_mid; a quarter to a third
     * fewer support calls on separated pairs), else between their first vertices */
    double ca[3], cb[3], wa[3], wb[3]; /* pair_place may not alias its input */
    /* a posed polytope's middle is taken as its origin (0, 0, 0): its place
     * is its position (no rotation of a zero vector) */
    int oa = gjk_shape_mid(A, ca), ob = gjk_shape_mid(B, cb);
    if (scaled) {
        scale2(P, ca);
        scale2(P, cb);
    }
    if (oa)
        v3_copy(wa, P->pa);
    else
        pair_place(&P->fa, P->pa, ca, wa);
    if (ob)
        v3_copy(wb, P->pb);
    else
        pair_place(&P->fb, P->pb, cb, wb);
    v3_sub(v0, wa, wb);
    double dd = v3_dot(v0, v0);
    if (dd > 0 && isfinite(dd))
        return;
    gjk_shape_first(A, ca);
    gjk_shape_first(B, cb);
    if (scaled) {
        scale2(P, ca);
        scale2(P, cb);
    }
    pair_place(&P->fa, P->pa, ca, wa);
    pair_place(&P->fb, P->pb, cb, wb);
    v3_sub(v0, wa, wb);
}

/* The rerun on the scaled pair, out of line: a second inlined copy of the
 * loop in the callers made the ordinary path slower.  margin < 0: distance. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static rve_gjk_status scaled_run(gjk_pair *P, const rve_shape *A, const rve_shape *B, const rve_gjk_opts *o,
                                 rve_gjk_simplex *warm, rve_dist_result *out, double margin)
{
    double v0[3];
    pair_init(P, A, B, 1, v0);
    if (margin >= 0)
        margin *= P->m1 * P->m2;
    return gjk_loop(P, support_scaled, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, o, warm, out,
                    margin, 0);
}

/* the distance query, filling in out what `want` asks for; sv (a constant
 * at every call) drops Johnson's sub-algorithm from this copy of the loop */
DIST_INLINE rve_gjk_status gjk_dist_run(const rve_shape *A, const rve_shape *B, const rve_gjk_opts *opts,
                                         rve_gjk_simplex *warm, rve_dist_result *out, int want, int sv)
{
    static const rve_gjk_opts o0 = {RVE_SUB_SV, GJK_DEFAULT_MAX_ITER, GJK_DEFAULT_EPS_REL, GJK_DEFAULT_EPS_ABS};
    rve_gjk_opts o = opts ? *opts : o0;
    if (sv)
        o.sub = RVE_SUB_SV;
    if (!shape_valid_fast(A) || !shape_valid_fast(B)) {
        gjk_degenerate_result(out);
        return out->status;
    }
    gjk_pair P;
    double v0[3];
    pair_init(&P, A, B, 0, v0);
    /* rounded shapes need the witnesses to move them by the radii */
    P.want = want == WANT_D && (A->radius > 0 || B->radius > 0) ? WANT_PQ : want;
    rve_gjk_simplex w0;
    if (warm)
        w0 = *warm;
    rve_gjk_status st;
    double ra[3 * DIST_SOA_STRIDE], rb[3 * DIST_SOA_STRIDE];
    /* the small pairs tested first: one test less on their path */
    if (pair_rows(A, B, GJK_ROWS_MAX_NV)) {
        P.ra = pair_rows_fill(A, &P.fa, ra);
        P.rb = pair_rows_fill(B, &P.fb, rb);
        st = gjk_loop(&P, support_rows, vertex_rows, A->nv, B->nv, v0, &o, warm, out, -1.0, 0);
    } else if (pair_rows(A, B, GJK_ROWS32_MAX_NV)) {
        P.ra = pair_rows_fill(A, &P.fa, ra);
        P.rb = pair_rows_fill(B, &P.fb, rb);
        st = gjk_loop(&P, support_rows32, vertex_rows, A->nv, B->nv, v0, &o, warm, out, -1.0, 0);
    } else
        st = pair_fused(A, B)
            ? gjk_loop(&P, support_polypoly, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, &o, warm, out,
                       -1.0, 0)
            : gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, &o, warm, out,
                       -1.0, 0);
    if (needs_rescale(&P, out)) {
        /* extreme magnitudes (or a failure that might come from them): the
         * same query on the pair scaled by a power of two (exact) */
        int nex = out->exact;
        if (warm)
            *warm = w0;
        st = scaled_run(&P, A, B, &o, warm, out, -1.0);
        out->exact += nex;
    }
    /* without radii and the local frame the finish has nothing to do (no call) */
    if (!P.local && !(A->radius > 0) && !(B->radius > 0)) {
        out->status = st;
        return st;
    }
    return gjk_pair_finish(&P, st, out);
}

#endif

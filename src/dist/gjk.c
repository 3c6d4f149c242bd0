/* GJK (Montanari 2017, Algorithm 5): the loop, the support mappings of
 * the pair (local frame, power-of-two scaling) and the public queries; the
 * sub-algorithms are in gjk_sv.c. */
#include "config.h"
#include <rve/dist.h>
#include "dist/gjk_internal.h"
#include <float.h>
#include <math.h>
#include <string.h>

/* ------------------------------------------------------------------ GJK */

typedef void (*gjk_support_fn)(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib);
typedef void (*gjk_vertex_fn)(const gjk_pair *P, int ia, int ib, double a[3], double b[3]);

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

DIST_INLINE void body_support(const rve_shape *s, const dist_frame *f, const double d[3], double b[3], int *idx)
{
    if (f->rotated) {
        const double *R = f->R;
        double dl[3] = {R[0] * d[0] + R[3] * d[1] + R[6] * d[2], R[1] * d[0] + R[4] * d[1] + R[7] * d[2],
                        R[2] * d[0] + R[5] * d[1] + R[8] * d[2]};
        dist_support_body(s, dl, b, idx);
    } else {
        dist_support_body(s, d, b, idx);
    }
}

/* a = s_A(-v), b = s_B(v) */
DIST_INLINE void support_generic(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    double mv[3] = {-v[0], -v[1], -v[2]}, t[3];
    body_support(P->A, &P->fa, mv, t, &P->hintA);
    pair_place(&P->fa, P->pa, t, a);
    *ia = P->hintA;
    body_support(P->B, &P->fb, v, t, &P->hintB);
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
#define GJK_PREROT_MAX_NV 15
_Static_assert(GJK_PREROT_MAX_NV <= DIST_SOA_STRIDE, "the rows hold the padded count");
static inline int pair_prerot(const rve_shape *A, const rve_shape *B)
{
    return A->kind == RVE_SHAPE_POLYTOPE && B->kind == RVE_SHAPE_POLYTOPE && A->nv <= GJK_PREROT_MAX_NV &&
           B->nv <= GJK_PREROT_MAX_NV;
}

static inline const double *prerot_verts(const rve_shape *s, const dist_frame *f, double *buf)
{
    if (f->rotated) {
        dist_rotate_soa(f->R, s->verts, s->nv, buf);
        return buf;
    }
    dist_copy_soa(s->verts, s->nv, buf, DIST_SOA_STRIDE);
    return buf;
}

DIST_INLINE void support_prerot(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    double t[3];
    *ia = dist_argmin_soa16(P->ra, P->A->nv, DIST_SOA_STRIDE, v); /* the maximum in -v */
    *ib = dist_argmax_soa16(P->rb, P->B->nv, DIST_SOA_STRIDE, v);
    dist_soa_point(P->ra, *ia, t);
    v3_add(a, P->pa, t);
    dist_soa_point(P->rb, *ib, t);
    v3_add(b, P->pb, t);
    P->hintA = *ia;
    P->hintB = *ib;
}

static void vertex_prerot(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
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

/* The direction for the bodies' own (unscaled) coordinates, multiplied by a
 * power of two: v of a touching pair is tiny in the scaled units, and
 * v . x for body coordinates x of size 2^sc would underflow into
 * subnormals (for sc = -993 a support point of the wrong vertex, 20 % off
 * the distance, was seen); with max|d| about 2^-sc (clamped to 2^+-1000)
 * the products are near 1.  Power-of-two factors keep the argmax exact. */
static inline void scaled_dir(const gjk_pair *P, const double v[3], double d[3])
{
    double m = v3_maxabs(v);
    int e = m > 0 && isfinite(m) ? -ilogb(m) - P->sc : 0;
    e = e > 1000 ? 1000 : e < -1000 ? -1000 : e;
    int e1 = e / 2;
    for (int i = 0; i < 3; i++)
        d[i] = ldexp(ldexp(v[i], e1), e - e1);
}

static void support_scaled(gjk_pair *P, const double v0[3], double a[3], double b[3], int *ia, int *ib)
{
    double v[3];
    scaled_dir(P, v0, v);
    double mv[3] = {-v[0], -v[1], -v[2]}, t[3];
    body_support(P->A, &P->fa, mv, t, &P->hintA);
    scale2(P, t);
    pair_place(&P->fa, P->pa, t, a);
    *ia = P->hintA;
    body_support(P->B, &P->fb, v, t, &P->hintB);
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

DIST_INLINE void support_ptpoly(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    v3_copy(a, P->pt);
    *ia = 0;
    int i = dist_argmax(P->V, P->nv, v);
    v3_copy(b, P->V + 3 * i);
    *ib = i;
}

static void vertex_ptpoly(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    (void)ia;
    v3_copy(a, P->pt);
    v3_copy(b, P->V + 3 * ib);
}

/* point vs polytope, scaled: the point is in P->pa (scaled) */
/* the same from rows of x, y, z (ptpoly_rows, up to DIST_SOA_STRIDE_PT
 * vertices): the index of dist_argmax, the vertex from V itself */
DIST_INLINE void support_ptrows(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib)
{
    v3_copy(a, P->pt);
    *ia = 0;
    int i = dist_argmax_soa(P->rb, P->nv, DIST_SOA_STRIDE_PT, v);
    v3_copy(b, P->V + 3 * i);
    *ib = i;
}

static void support_ptpoly_scaled(gjk_pair *P, const double v0[3], double a[3], double b[3], int *ia, int *ib)
{
    double v[3];
    scaled_dir(P, v0, v);
    v3_copy(a, P->pa);
    *ia = 0;
    int i = dist_argmax(P->V, P->nv, v);
    v3_copy(b, P->V + 3 * i);
    scale2(P, b);
    *ib = i;
}

static void vertex_ptpoly_scaled(const gjk_pair *P, int ia, int ib, double a[3], double b[3])
{
    (void)ia;
    v3_copy(a, P->pa);
    v3_copy(b, P->V + 3 * ib);
    scale2(P, b);
}

/* The simplex: n points in logical order (slot s[i] of the storage), so that
 * dropping and reordering points moves indices only (no copy of the coordinates). */
typedef struct {
    int n;
    int s[4];                          /* storage slot of point i */
    double y[4][3], a[4][3], b[4][3]; /* by slot */
    int ia[4], ib[4];                  /* by slot */
    double lam[4];                     /* by point */
} gjk_simplex;

#define SY(S, i) ((S).y[(S).s[i]])
#define SA(S, i) ((S).a[(S).s[i]])
#define SB(S, i) ((S).b[(S).s[i]])
#define SIA(S, i) ((S).ia[(S).s[i]])
#define SIB(S, i) ((S).ib[(S).s[i]])

/* keep the points r->idx (storage slots) in that order, and with lam their
 * weights.  All four entries (those past r->n are never read): a copy of n
 * entries was two memcpy calls per iteration (gcc turns the loops into them) */
static inline void simplex_compact(gjk_simplex *S, const sv_res *r, int lam)
{
    for (int i = 0; i < 4; i++)
        S->s[i] = r->idx[i];
    if (lam)
        for (int i = 0; i < 4; i++)
            S->lam[i] = r->lam[i];
    S->n = r->n;
}

/* a storage slot not used by the n points */
static inline int simplex_free_slot(const gjk_simplex *S)
{
    int used = 0;
    for (int i = 0; i < S->n; i++)
        used |= 1 << S->s[i];
#if defined(__GNUC__)
    return __builtin_ctz(~used); /* n <= 3 here: a free slot exists */
#else
    int k = 0;
    while (used & (1 << k))
        k++;
    return k;
#endif
}

/* Signed Volumes (or Johnson) on the points of S with newest point `newest`
 * (logical index, or -1); r->idx gets storage slots.  The same visiting order
 * as sv_run on the compacted points: the newest first, then the others in order. */
DIST_INLINE void simplex_solve_ai(const gjk_simplex *S, int newest, int johnson, sv_res *r, sv_ctx *cx)
{
    if (johnson) {
        double y[4][3];
        for (int i = 0; i < S->n; i++)
            v3_copy(y[i], SY(*S, i));
        dist_johnson_run((const double(*)[3])y, S->n, newest, r);
        for (int i = 0; i < r->n; i++)
            r->idx[i] = S->s[r->idx[i]];
        return;
    }
    const double(*y)[3] = (const double(*)[3])S->y;
    int tail = newest >= 0;
    int o[4], m = 0;
    if (tail)
        o[m++] = S->s[newest];
    for (int i = 0; i < S->n; i++)
        if (i != newest)
            o[m++] = S->s[i];
    switch (S->n) {
    case 1: sv_vertex(y, o[0], r); break;
    case 2: dist_s1d(y, o[0], o[1], tail, r, cx); break;
    case 3: dist_s2d(y, o[0], o[1], o[2], tail, r, cx); break;
    default: dist_s3d(y, o[0], o[1], o[2], o[3], tail, r, cx); break;
    }
}

/* the same, inlined where the compiler decides (the pair loops: forcing it
 * there made the 8-vertex queries slower); the point loop forces it (a
 * call per iteration was 8 % of a point query) */
static inline void simplex_solve(const gjk_simplex *S, int newest, int johnson, sv_res *r, sv_ctx *cx)
{
    simplex_solve_ai(S, newest, johnson, r, cx);
}

static inline double simplex_maxy2(const gjk_simplex *S)
{
    double m = 0;
    for (int i = 0; i < S->n; i++) {
        double t = v3_dot(SY(*S, i), SY(*S, i));
        if (t > m)
            m = t;
    }
    return m;
}

/* the final simplex's vertex indices (and direction) for the next query */
static inline void warm_save(rve_gjk_simplex *warm, const gjk_simplex *S, rve_gjk_status status, const double v[3])
{
    int keep = S->n > 0 && status != RVE_GJK_DEGENERATE;
    for (int i = 0; i < S->n && keep; i++)
        if (SIA(*S, i) < 0 || SIB(*S, i) < 0)
            keep = 0;
    warm->n = keep ? S->n : 0;
    for (int i = 0; i < 4; i++) {
        warm->ia[i] = i < S->n ? SIA(*S, i) : -1;
        warm->ib[i] = i < S->n ? SIB(*S, i) : -1;
    }
    if (status == RVE_GJK_CONVERGED || status == RVE_GJK_CAP)
        v3_copy(warm->v, v);
}

/* warm start: rebuild the previous simplex from its vertex indices, or
 * take the previous direction; 1 when the rebuilt simplex already contains
 * the origin */
static inline int warm_start(gjk_pair *P, gjk_vertex_fn vertex, int nva, int nvb, const double v0[3],
                             const rve_gjk_simplex *warm, gjk_simplex *S, sv_res *r, sv_ctx *cx, double v[3],
                             double *vv, int johnson, double eps_abs2)
{
    int warm_ok = warm && warm->n > 0 && warm->n <= 4 && nva > 0 && nvb > 0;
    if (warm_ok)
        for (int i = 0; i < warm->n; i++)
            if (warm->ia[i] < 0 || warm->ia[i] >= nva || warm->ib[i] < 0 || warm->ib[i] >= nvb)
                warm_ok = 0;
    if (warm_ok) {
        S->n = warm->n;
        for (int i = 0; i < S->n; i++) {
            S->s[i] = i;
            S->ia[i] = warm->ia[i];
            S->ib[i] = warm->ib[i];
            vertex(P, S->ia[i], S->ib[i], S->a[i], S->b[i]);
            v3_sub(S->y[i], S->a[i], S->b[i]);
        }
        simplex_solve(S, -1, johnson, r, cx);
        simplex_compact(S, r, johnson);
        v3_copy(v, r->v);
        *vv = r->vv;
        if (S->n == 4 || *vv <= eps_abs2 * simplex_maxy2(S))
            return 1;
    } else {
        if (warm && (warm->v[0] != 0 || warm->v[1] != 0 || warm->v[2] != 0) &&
            isfinite(warm->v[0] + warm->v[1] + warm->v[2]))
            v3_copy(v, warm->v);
        else
            v3_copy(v, v0);
        if (!(v3_dot(v, v) > 0) || !isfinite(v3_dot(v, v)))
            v3_set(v, 1, 0, 0);
    }

    return 0;
}

/* The barycentric weights of the final simplex, once after the loop: the
 * loop runs its sub-algorithm without them (only v decides the next step).
 * The points in the order simplex_compact kept from the call that chose
 * them, and that call's projection (the loop's v, or the exact one of a
 * refinement) as po, not computed again: the weights are bit for bit that
 * call's (the tetrahedron, inside only, by the same call again: the same
 * exact signs, the same region). */
static inline void simplex_weights(gjk_simplex *S, const double v[3], sv_ctx *cx)
{
    sv_res r;
    cx->want_w = 1;
    if (S->n < 4) /* segments and triangles: no signs to decide again */
        dist_sv_whole((const double(*)[3])S->y, S->n, S->s, v, &r, cx);
    else
        simplex_solve_ai(S, -1, 0, &r, cx);
    simplex_compact(S, &r, 1);
}

/* d, and as asked (want) p, q and the final simplex of the loop, into out */
static inline void loop_result(const gjk_simplex *S, rve_gjk_status status, double vv, int want, rve_dist_result *out)
{
    out->n = want == WANT_FULL ? S->n : 0;
    if (want == WANT_D) {
        out->d = status == RVE_GJK_INTERSECT ? 0 : sqrt(vv);
        return;
    }
    {
        double p[3] = {0, 0, 0}, q[3] = {0, 0, 0};
        for (int i = 0; i < S->n; i++) {
            v3_axpy(p, p, S->lam[i], SA(*S, i));
            v3_axpy(q, q, S->lam[i], SB(*S, i));
        }
        for (int i = 0; i < out->n; i++) {
            v3_copy(out->a[i], SA(*S, i));
            v3_copy(out->b[i], SB(*S, i));
        }
        /* all four (zero past n): a copy of n was a memcpy call */
        for (int i = 0; i < 4; i++)
            out->lambda[i] = i < out->n ? S->lam[i] : 0;
        if (status == RVE_GJK_INTERSECT) {
            double m[3];
            v3_add(m, p, q);
            v3_scale(m, m, 0.5);
            v3_copy(p, m);
            v3_copy(q, m);
            out->d = 0;
        } else {
            /* |v|, not |p - q|: v is the projection of the origin (accurate
             * to the rounding of the support points), while the weights
             * behind p and q can lose digits on a flat face far from the
             * origin (a tangential error of 5e-12 of the size, 577 eps L in
             * |p - q|, seen on the flat families); p and q stay on their bodies */
            out->d = sqrt(vv);
        }
        v3_copy(out->p, p);
        v3_copy(out->q, q);
    }
}

DIST_INLINE rve_gjk_status gjk_loop(gjk_pair *P, gjk_support_fn support, gjk_vertex_fn vertex, int nva,
                                     int nvb, const double v0[3], const rve_gjk_opts *o,
                                     rve_gjk_simplex *warm, rve_dist_result *out, double bool_margin)
{
    const int johnson = o->sub == RVE_SUB_JOHNSON;
    const int maxit = o->max_iter > 0 ? o->max_iter : GJK_DEFAULT_MAX_ITER;
    const double eps_rel = o->eps_rel > 0 ? o->eps_rel : GJK_DEFAULT_EPS_REL;
    const double eps_abs = o->eps_abs > 0 ? o->eps_abs : GJK_DEFAULT_EPS_ABS;
    const double eps_abs2 = eps_abs * eps_abs;
    /* absolute floor of the stopping test: DIST_STOP_ABS eps |v| max|w|, the
     * size of the rounding error of vv - v.w itself (docs/dist.md) */
    const double kabs2 = (DIST_STOP_ABS * DBL_EPSILON) * (DIST_STOP_ABS * DBL_EPSILON);
    gjk_simplex S;
    sv_res r;
    double v[3], vv = INFINITY, wmax2 = 0;
    rve_gjk_status status = RVE_GJK_CAP;
    int it = 0, stalls = 0, refines = 0;
    /* no barycentric weights in the loop: the distance is |v|, and the
     * witnesses' weights come once from the final simplex (simplex_weights) */
    sv_ctx cx = {(const double(*)[3])S.a, (const double(*)[3])S.b, 0, 0, 0};
    S.n = 0;

    if (warm_start(P, vertex, nva, nvb, v0, warm, &S, &r, &cx, v, &vv, johnson, eps_abs2)) {
        status = RVE_GJK_INTERSECT;
        goto done;
    }

    /* at least every |y|^2 of the simplex: the warm start's points, then every w */
    double ymax2 = S.n > 0 ? simplex_maxy2(&S) : 0;
    for (it = 0; it < maxit; it++) {
        double a[3], b[3], w[3];
        int ia, ib;
        support(P, v, a, b, &ia, &ib);
        v3_sub(w, a, b);
        if (bool_margin >= 0) {
            /* intersection test: the plane normal to v separates (by more than the radii) */
            double vw = v3_dot(v, w);
            if (vw > 0 && vw * vw > bool_margin * bool_margin * v3_dot(v, v)) {
                out->iterations = it + 1;
                out->exact = cx.nex;
                P->wmax2 = fmax_(wmax2, v3_dot(w, w));
                out->status = RVE_GJK_CONVERGED;
                out->d = INFINITY;
                out->n = 0;
                return RVE_GJK_CONVERGED;
            }
        }
        double ww = v3_dot(w, w);
        if (ww > wmax2)
            wmax2 = ww;
        ymax2 = ww > ymax2 ? ww : ymax2; /* a NaN ww never enters, as in simplex_maxy2 */
        if (S.n > 0) {
            /* relative test (Algorithm 5, line 8): w is no closer than v, up
             * to eps_rel |v| or, for touching pairs where |v| is tiny, up to
             * the rounding of v.w (the absolute floor) */
            double gap = vv - v3_dot(v, w);
            if (gap <= eps_rel * vv || gap * gap <= kabs2 * vv * wmax2) {
                status = RVE_GJK_CONVERGED;
                break;
            }
            int dup = 0;
            for (int i = 0; i < S.n; i++)
                if ((ia >= 0 && ib >= 0) ? (SIA(S, i) == ia && SIB(S, i) == ib)
                                         : (SY(S, i)[0] == w[0] && SY(S, i)[1] == w[1] && SY(S, i)[2] == w[2]))
                    dup = 1;
            /* a repeated vertex stops only with v.w >= 15/16 |v|^2, which certifies
             * the decision, d only within |v|/16: else v exactly (dist.md gjk6) */
            if (dup && S.n > 1 && refines < GJK_REFINES && gap > 0.0625 * vv) {
                refines++;
                cx.nex++;
                if (S.n == 2)
                    dist_exact_seg_closest(SY(S, 0), SY(S, 1), v);
                else
                    dist_exact_tri_closest(SY(S, 0), SY(S, 1), SY(S, 2), v);
                vv = v3_dot(v, v);
                continue;
            }
            if (dup) {
                status = RVE_GJK_CONVERGED;
                break;
            }
        }
        int slot = simplex_free_slot(&S);
        int k = S.n++;
        S.s[k] = slot;
        v3_copy(S.y[slot], w);
        v3_copy(S.a[slot], a);
        v3_copy(S.b[slot], b);
        S.ia[slot] = ia;
        S.ib[slot] = ib;
        if (support == support_ptpoly || support == support_ptrows)
            simplex_solve_ai(&S, k, johnson, &r, &cx);
        else
            simplex_solve(&S, k, johnson, &r, &cx);
        if (!(r.vv < vv)) {
            /* no progress: keep the previous simplex and stop, unless the
             * two |v|^2 are equal to their rounding (DIST_STOP_ABS eps |v|
             * max|y| each) while w passed the gap test: the new simplex is
             * then as good, and the faces of a flat body met so far may be
             * the wrong ones (docs/dist.md); at most GJK_STALLS times */
            if (k > 0 && stalls < GJK_STALLS && r.vv <= vv + 2 * DIST_STOP_ABS * DBL_EPSILON * sqrt(vv * wmax2)) {
                stalls++;
            } else if (k > 0) {
                S.n = k;
                status = RVE_GJK_CONVERGED;
                break;
            }
        }
        /* the loop's sub-algorithm gives weights only with Johnson's */
        simplex_compact(&S, &r, johnson);
        v3_copy(v, r.v);
        vv = r.vv;
        /* max |y|^2 <= ymax2: the first test only skips the dot products
         * where the second would fail too (the same decisions) */
        if (S.n == 4 || (vv <= eps_abs2 * ymax2 && vv <= eps_abs2 * simplex_maxy2(&S))) {
            status = RVE_GJK_INTERSECT;
            it++;
            break;
        }
        if (!isfinite(vv)) {
            status = RVE_GJK_DEGENERATE;
            break;
        }
    }

done:
    if (P->want != WANT_D && !johnson) {
        if (S.n > 1)
            simplex_weights(&S, v, &cx);
        else
            S.lam[0] = 1;
    }
    P->wmax2 = wmax2;
    out->iterations = it;
    out->exact = cx.nex;
    loop_result(&S, status, vv, P->want, out);
    if (!isfinite(out->d) ||
        (P->want != WANT_D && !isfinite(out->p[0] + out->p[1] + out->p[2] + out->q[0] + out->q[1] + out->q[2]))) {
        status = RVE_GJK_DEGENERATE;
        out->d = NAN;
    }
    out->status = status;
    if (warm)
        warm_save(warm, &S, status, v);
    return status;
}

static int shape_valid_fast(const rve_shape *s)
{
    if (s->kind == RVE_SHAPE_POLYTOPE && (s->nv < 1 || !s->verts))
        return 0;
    return (unsigned)s->kind <= (unsigned)RVE_SHAPE_SUPERQUADRIC;
}

/* The pair in the local frame (origin c = B's position); with scaled, also
 * multiplied by 2^-sc for the pair's extent L. */
DIST_INLINE void pair_init(gjk_pair *P, const rve_shape *A, const rve_shape *B, int scaled, double v0[3])
{
    P->A = A;
    P->B = B;
    dist_frame_init(&P->fa, A);
    dist_frame_init(&P->fb, B);
    P->hintA = P->hintB = -1;
    if (!scaled)
        P->want = WANT_FULL;
    if (A->kind == RVE_SHAPE_POLYTOPE && A->graph)
        P->hintA = A->graph->start;
    if (B->kind == RVE_SHAPE_POLYTOPE && B->graph)
        P->hintB = B->graph->start;
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

/* The loop's squares and determinants stay in range unless it met support
 * points w = a - b beyond 2^200 (|w|^2 beyond 2^400) or only below 2^-200
 * (|w|^2 may underflow to 0),
 * or failed (non-finite, cap): then rerun scaled. */
static inline int needs_rescale(const gjk_pair *P, const rve_dist_result *out)
{
    if (out->status == RVE_GJK_DEGENERATE || out->status == RVE_GJK_CAP)
        return 1;
    return !(P->wmax2 <= 0x1p400 && P->wmax2 >= 0x1p-400);
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
                    margin);
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
    if (pair_prerot(A, B)) {
        P.ra = prerot_verts(A, &P.fa, ra);
        P.rb = prerot_verts(B, &P.fb, rb);
        st = gjk_loop(&P, support_prerot, vertex_prerot, A->nv, B->nv, v0, &o, warm, out, -1.0);
    } else
        st = pair_fused(A, B)
            ? gjk_loop(&P, support_polypoly, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, &o, warm, out,
                       -1.0)
            : gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, &o, warm, out,
                       -1.0);
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

/* The default query (Signed Volumes, default options), one copy for the
 * lean and the full call: as two inlined copies the full call's ran 430
 * instructions more per 8-vertex query than the lean one, of which only
 * some 200 fill in what it asks for */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static rve_gjk_status gjk_dist_default(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm,
                                       rve_dist_result *out, int want)
{
    return gjk_dist_run(A, B, NULL, warm, out, want, 1);
}

/* options that run as the defaults do (a value <= 0 takes the default) */
static int opts_are_default(const rve_gjk_opts *o)
{
    return o->sub == RVE_SUB_SV && (o->max_iter <= 0 || o->max_iter == GJK_DEFAULT_MAX_ITER) &&
           (o->eps_rel <= 0 || o->eps_rel == GJK_DEFAULT_EPS_REL) && (o->eps_abs <= 0 || o->eps_abs == GJK_DEFAULT_EPS_ABS);
}

rve_gjk_status rve_gjk_dist(const rve_shape *A, const rve_shape *B, const rve_gjk_opts *opts,
                            rve_gjk_simplex *warm, rve_dist_result *out)
{
    if (!opts || opts_are_default(opts))
        return gjk_dist_default(A, B, warm, out, WANT_FULL);
    /* Signed Volumes in a copy of its own: with the sub-algorithm a run-time
     * choice in the loop, gcc called it out of line in every iteration
     * (8-32 vertices: 10-25 % slower than the lean call) */
    if (opts->sub != RVE_SUB_JOHNSON)
        return gjk_dist_run(A, B, opts, warm, out, WANT_FULL, 1);
    return gjk_dist_run(A, B, opts, warm, out, WANT_FULL, 0);
}

double rve_gjk_distance(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm, double p[3], double q[3])
{
    rve_dist_result out;
    gjk_dist_default(A, B, warm, &out, p || q ? WANT_PQ : WANT_D);
    if (p)
        v3_copy(p, out.p);
    if (q)
        v3_copy(q, out.q);
    return out.d;
}

int rve_gjk_intersect(const rve_shape *A, const rve_shape *B, rve_gjk_simplex *warm)
{
    rve_gjk_opts o;
    rve_gjk_opts_default(&o);
    if (!shape_valid_fast(A) || !shape_valid_fast(B))
        return -1;
    gjk_pair P;
    double v0[3];
    rve_dist_result out;
    pair_init(&P, A, B, 0, v0);
    P.want = WANT_D;
    double margin = A->radius + B->radius;
    /* the loop compares squares of the margin and of v.w: pairs whose first
     * direction or margin is beyond 2^+-200 (or that fail) run scaled */
    double m0 = fmax_(v3_maxabs(v0), margin);
    rve_gjk_status st = RVE_GJK_DEGENERATE;
    if (m0 <= 0x1p200 && (m0 >= 0x1p-200 || m0 == 0))
        st = gjk_loop(&P, support_generic, vertex_generic, dist_nvertices(A), dist_nvertices(B), v0, &o, warm, &out,
                      margin);
    if (st == RVE_GJK_DEGENERATE || st == RVE_GJK_CAP || needs_rescale(&P, &out)) {
        st = scaled_run(&P, A, B, &o, warm, &out, A->radius + B->radius);
    }
    if (st == RVE_GJK_DEGENERATE)
        return -1;
    if (st == RVE_GJK_INTERSECT)
        return 1;
    return out.d <= margin;
}

/* The scaled loop out of line, as scaled_run: a second inlined copy of the
 * loop made the ordinary point query slower (its sub-algorithm call was no
 * longer inlined). */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static rve_gjk_status ptpoly_scaled_loop(gjk_pair *P, int nv, const double v0[3], const rve_gjk_opts *o,
                                         rve_gjk_simplex *warm, rve_dist_result *out)
{
    return gjk_loop(P, support_ptpoly_scaled, vertex_ptpoly_scaled, 1, nv, v0, o, warm, out, -1.0);
}

/* The polytope of a point query as rows (dist_copy_soa's, DIST_SOA_STRIDE_PT
 * apart) and the mean of its vertices with the sums of ptpoly_run (the even
 * and the odd vertices apart, then added): a 30-vertex query's copy and
 * scans take 16 % fewer instructions than the plain scan's */
static void ptpoly_rows(const double *V, int nv, double *rows, double m[3])
{
    dist_copy_soa(V, nv, rows, DIST_SOA_STRIDE_PT);
    double m2[3] = {0, 0, 0};
    int i = 0;
    v3_set(m, 0, 0, 0);
    for (; i + 2 <= nv; i += 2) {
        v3_add(m, m, V + 3 * i);
        v3_add(m2, m2, V + 3 * i + 3);
    }
    if (i < nv)
        v3_add(m, m, V + 3 * i);
    v3_add(m, m, m2);
    v3_scale(m, m, 1.0 / nv);
}

static double ptpoly_run(const double p[3], const double *verts, int nv, const rve_gjk_opts *o, int scaled,
                         rve_gjk_simplex *warm, rve_dist_result *out, int *rescale, int want)
{
    gjk_pair P;
    P.want = want;
    P.pt = p;
    P.V = verts;
    P.nv = nv;
    P.sc = 0;
    P.m1 = P.m2 = 1;
    if (scaled) {
        double L = v3_maxabs(p);
        for (int i = 0; i < 3 * nv; i++)
            L = fmax(L, fabs(verts[i]));
        gjk_scale_factors(L, &P);
        v3_copy(P.pa, p);
        scale2(&P, P.pa);
    }
    double v0[3], m[3] = {0, 0, 0};
    _Static_assert(DIST_SOA_PAD(DIST_SOA_STRIDE_PT) <= DIST_SOA_STRIDE_PT, "the point rows hold the padding");
    double rows[3 * DIST_SOA_STRIDE_PT];
    const int use_rows = !scaled && nv <= DIST_SOA_STRIDE_PT;
    if (use_rows) {
        ptpoly_rows(verts, nv, rows, m);
        P.rb = rows;
    } else if (nv <= 64) {
        /* two sums (even and odd vertices): half the chain of dependent adds
         * (point rows 3-7 % faster); only the start depends on m */
        double m2[3] = {0, 0, 0};
        int i = 0;
        for (; i + 2 <= nv; i += 2) {
            v3_add(m, m, verts + 3 * i);
            v3_add(m2, m2, verts + 3 * i + 3);
        }
        if (i < nv)
            v3_add(m, m, verts + 3 * i);
        v3_add(m, m, m2);
        v3_scale(m, m, 1.0 / nv);
    } else {
        v3_copy(m, verts);
    }
    if (scaled) {
        scale2(&P, m);
        v3_sub(v0, P.pa, m);
    } else {
        v3_sub(v0, p, m);
    }
    rve_gjk_status st = scaled     ? ptpoly_scaled_loop(&P, nv, v0, o, warm, out)
                        : use_rows ? gjk_loop(&P, support_ptrows, vertex_ptpoly, 1, nv, v0, o, warm, out, -1.0)
                                   : gjk_loop(&P, support_ptpoly, vertex_ptpoly, 1, nv, v0, o, warm, out, -1.0);
    *rescale = needs_rescale(&P, out);
    if (st == RVE_GJK_INTERSECT) {
        v3_copy(out->p, p);
        v3_copy(out->q, p);
        out->d = 0;
    } else if (st != RVE_GJK_DEGENERATE) {
        if (scaled) {
            out->d = ldexp(out->d, P.sc);
            for (int i = 0; i < 3 && want != WANT_D; i++)
                out->q[i] = ldexp(out->q[i], P.sc);
            for (int k = 0; k < out->n; k++)
                for (int i = 0; i < 3; i++) {
                    out->a[k][i] = p[i];
                    out->b[k][i] = ldexp(out->b[k][i], P.sc);
                }
            if (isinf(out->d) && st == RVE_GJK_CONVERGED)
                out->status = st = RVE_GJK_RANGE;
        }
        v3_copy(out->p, p);
    }
    return out->d;
}

double rve_dist_point_polytope_opts(const double p[3], const double *verts, int nv, const rve_gjk_opts *opts,
                                    rve_gjk_simplex *warm, rve_dist_result *out)
{
    rve_dist_result tmp;
    rve_gjk_opts o;
    /* the lean path: without out, only d is computed */
    int want = out ? WANT_FULL : WANT_D;
    if (!out)
        out = &tmp;
    if (opts)
        o = *opts;
    else
        rve_gjk_opts_default(&o);
    if (nv < 1 || !verts || !isfinite(p[0] + p[1] + p[2])) {
        gjk_degenerate_result(out);
        return out->d;
    }
    rve_gjk_simplex w0;
    if (warm)
        w0 = *warm;
    int rescale;
    ptpoly_run(p, verts, nv, &o, 0, warm, out, &rescale, want);
    if (rescale) {
        int nex = out->exact;
        if (warm)
            *warm = w0;
        ptpoly_run(p, verts, nv, &o, 1, warm, out, &rescale, want);
        out->exact += nex;
    }
    return out->d;
}

double rve_dist_point_polytope(const double p[3], const double *verts, int nv, rve_gjk_simplex *warm,
                               rve_dist_result *out)
{
    return rve_dist_point_polytope_opts(p, verts, nv, NULL, warm, out);
}

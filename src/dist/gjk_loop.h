/* The GJK loop (Montanari 2017, Algorithm 5) and its simplex, shared by the
 * pair queries (gjk.c) and the point queries (gjk_point.c): each inlines its
 * own copies, specialised to its support mapping. */
#ifndef RVE_GJK_LOOP_H
#define RVE_GJK_LOOP_H

#include "dist/gjk_internal.h"
#include <float.h>
#include <math.h>
#include <string.h>

typedef void (*gjk_support_fn)(gjk_pair *P, const double v[3], double a[3], double b[3], int *ia, int *ib);
typedef void (*gjk_vertex_fn)(const gjk_pair *P, int ia, int ib, double a[3], double b[3]);

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

/* The simplex: n points in logical order (slot s[i] of the storage), so that
 * dropping and reordering points moves indices only (no copy of the coordinates). */
typedef struct {
    int n;
    int s[4];                          /* storage slot of point i */
    double y[4][3], a[4][3], b[4][3]; /* by slot */
    int ia[4], ib[4];                  /* by slot */
    double lam[4];                     /* by point */
    int sliver;                        /* n = 3: s2d_whole's sliver test of these points, carried
                                          here so that the weights need not repeat it */
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
    S->sliver = r->sliver;
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

/* the intersection test (bool_margin >= 0): the plane normal to v
 * separates the bodies by more than the radii */
static inline int bool_separated(double bool_margin, const double v[3], const double w[3])
{
    double vw = v3_dot(v, w);
    return vw > 0 && vw * vw > bool_margin * bool_margin * v3_dot(v, v);
}

/* its result: separated, d unknown (infinite) */
static inline rve_gjk_status bool_result(gjk_pair *P, rve_dist_result *out, int iterations, int nex, double wmax2)
{
    out->iterations = iterations;
    out->exact = nex;
    P->wmax2 = wmax2;
    out->status = RVE_GJK_CONVERGED;
    out->d = INFINITY;
    out->n = 0;
    return RVE_GJK_CONVERGED;
}

/* whether the gap vv - v.w leaves d uncertain by more than the stopping
 * test's floor, DIST_STOP_ABS eps max|w|: with |w| <= 2 sqrt(3) L that
 * keeps a stop without progress within 56 eps L.  (It was 64 eps max|w|,
 * up to 222 eps L in the worst case; 16 asks for v exactly no more often
 * on bench_dist's touching pairs, the same instructions per query, and
 * 0.1 % more often on the stress families.) */
static inline int uncertain_gap(const double v[3], double vv, const double w[3], double wmax2)
{
    double gap = vv - v3_dot(v, w);
    return gap * gap > (DIST_STOP_ABS * DBL_EPSILON) * (DIST_STOP_ABS * DBL_EPSILON) * vv * wmax2;
}

/* r as the simplex S kept as it is (its slots, its weights) */
static inline void simplex_keep(const gjk_simplex *S, sv_res *r)
{
    r->n = S->n;
    r->sliver = S->sliver;
    for (int i = 0; i < 4; i++) {
        r->idx[i] = S->s[i];
        r->lam[i] = S->lam[i];
    }
}

/* v exactly: the closest point of the segment or triangle S to the origin,
 * rounded once (the sub-algorithm's carries up to eps max|y|); returns |v|^2 */
static inline double simplex_exact_v(const gjk_simplex *S, double v[3])
{
    if (S->n == 2)
        dist_exact_seg_closest(SY(*S, 0), SY(*S, 1), v);
    else
        dist_exact_tri_closest(SY(*S, 0), SY(*S, 1), SY(*S, 2), v);
    return v3_dot(v, v);
}

/* whether the support point (ia, ib), or w for shapes without vertex
 * indices, is already in the simplex (a repeated vertex) */
static inline int simplex_has(const gjk_simplex *S, int ia, int ib, const double w[3])
{
    int dup = 0;
    for (int i = 0; i < S->n; i++)
        if ((ia >= 0 && ib >= 0) ? (SIA(*S, i) == ia && SIB(*S, i) == ib)
                                 : (SY(*S, i)[0] == w[0] && SY(*S, i)[1] == w[1] && SY(*S, i)[2] == w[2]))
            dup = 1;
    return dup;
}

/* gjk_dup_certified for the loop's simplex: v's error is at most 16 eps
 * max|y| as the sub-algorithm rounds it (docs/dist.md, gjk6), a few eps |v|
 * once computed exactly (v_exact); the allowance tau = 8 eps max|w| |v|
 * keeps exact ties from asking for v exactly again and costs at most 16 eps
 * max|w| of the distance */
static int dup_certified(const gjk_pair *P, const gjk_simplex *S, const double v[3], int ia, int ib, int v_exact,
                         double vv, double wmax2)
{
    int sia[4], sib[4];
    for (int i = 0; i < S->n; i++) {
        sia[i] = SIA(*S, i);
        sib[i] = SIB(*S, i);
    }
    double nv = sqrt(vv), kappa = v_exact ? 2 * DBL_EPSILON * nv : 16 * DBL_EPSILON * sqrt(simplex_maxy2(S));
    return gjk_dup_certified(P, S->n, sia, sib, v, ia, ib, kappa, 8 * DBL_EPSILON * sqrt(wmax2) * nv);
}

/* The barycentric weights of the final simplex, once after the loop: the
 * loop runs its sub-algorithm without them (only v decides the next step).
 * The points in the order simplex_compact kept from the call that chose
 * them, and that call's projection (the loop's v, or the exact one of a
 * refinement) as po, not computed again: the weights are bit for bit that
 * call's (s1d_whole's and s2d_whole's arithmetic, inline here: as a call
 * through dist_sv_whole they were half the witnesses' cost).  Slivers and
 * weights that lost their digits take the out-of-line path with its exact
 * values; the tetrahedron (inside only) is solved again by the same call:
 * the same exact signs, the same region.  Forced inline: gcc called it out
 * of line, 45 instructions more per 8-vertex full call. */
DIST_INLINE void simplex_weights(gjk_simplex *S, const double v[3], sv_ctx *cx)
{
    const double *s1 = SY(*S, 0), *s2 = SY(*S, 1);
    double e1[3];
    v3_sub(e1, s2, s1);
    if (S->n == 2) {
        sv_seg_weights(s1, s2, e1, v, S->lam);
        return;
    }
    sv_res r;
    if (S->n == 3) {
        const double *s3 = SY(*S, 2);
        double e2[3], nn[3];
        v3_sub(e2, s3, s1);
        v3_cross(nn, e1, e2);
        /* the sliver test as the sub-algorithm made it (25 instructions less) */
        if (sv_tri_weights(s1, s2, s3, nn, v, S->lam) && !S->sliver)
            return;
        cx->want_w = 1;
        dist_sv_whole((const double(*)[3])S->y, S->n, S->s, v, &r, cx);
    } else {
        cx->want_w = 1;
        simplex_solve_ai(S, -1, 0, &r, cx);
    }
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
            const double *a = SA(*S, i), *b = SB(*S, i);
            v3_axpy(p, p, S->lam[i], a);
            v3_axpy(q, q, S->lam[i], b);
            if (want == WANT_FULL) {
                v3_copy(out->a[i], a);
                v3_copy(out->b[i], b);
            }
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
                                     rve_gjk_simplex *warm, rve_dist_result *out, double bool_margin,
                                     int inline_solve)
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
    int it = 0, stalls = 0, refines = 0, v_exact = 0, refined = 0;
    /* no barycentric weights in the loop: the distance is |v|, and the
     * witnesses' weights come once from the final simplex (simplex_weights) */
    sv_ctx cx = {(const double(*)[3])S.a, (const double(*)[3])S.b, 0, 0, 0};
    S.n = 0;
    S.sliver = 0;

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
        if (bool_margin >= 0 && bool_separated(bool_margin, v, w))
            return bool_result(P, out, it + 1, cx.nex, fmax_(wmax2, v3_dot(w, w)));
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
            int dup = simplex_has(&S, ia, ib, w);
            /* a repeated vertex stops only with v.w >= 15/16 |v|^2, which certifies
             * the decision (dist.md gjk6), and when no other vertex is so near a
             * tie with the chosen ones that v's error could have picked them
             * (dup_certified: the distance to a few eps L, dist.md stop 34);
             * else v exactly, then the same tests again */
            if (dup && S.n > 1 && refines < GJK_REFINES &&
                (gap > 0.0625 * vv || !dup_certified(P, &S, v, ia, ib, v_exact, vv, wmax2))) {
                refines++;
                cx.nex++;
                vv = simplex_exact_v(&S, v);
                v_exact = 1;
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
        if (inline_solve)
            simplex_solve_ai(&S, k, johnson, &r, &cx);
        else
            simplex_solve(&S, k, johnson, &r, &cx);
        if (!(r.vv < vv)) {
            /* no progress: keep the previous simplex and stop, unless the
             * two |v|^2 are equal to their rounding (DIST_STOP_ABS eps |v|
             * max|y| each) while w passed the gap test: the new simplex is
             * then as good, and the faces of a flat body met so far may be
             * the wrong ones (docs/dist.md); at most GJK_STALLS times.  When
             * the gap leaves d uncertain by more than the test's floor
             * (uncertain_gap), v may be mostly rounding and its
             * support point not the one the exact v asks for: v exactly
             * first (a point 7.8e-14 inside was reported 4e-14 outside;
             * docs/dist.md, stop 34) */
            if (k > 0 && stalls < GJK_STALLS && r.vv <= vv + 2 * DIST_STOP_ABS * DBL_EPSILON * sqrt(vv * wmax2)) {
                stalls++;
            } else if (k > 0 && k > 1 && !v_exact && refines < GJK_REFINES && uncertain_gap(v, vv, SY(S, k), wmax2)) {
                /* the previous simplex again, as the next step's result
                 * (a continue from here made every query 5 % slower) */
                refines++;
                cx.nex++;
                S.n = k;
                simplex_keep(&S, &r);
                r.vv = simplex_exact_v(&S, r.v);
                refined = 1;
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
        v_exact = refined;
        refined = 0;
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

#endif

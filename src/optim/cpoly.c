/* cpoly.c - convex polytopes by half-space clipping (see cpoly.h). */
#include "config.h"
#include "optim/cpoly.h"
#include "util/vec3.h"
#include <math.h>
#include <string.h>

void cpoly_box(cpoly *P, const double lo[3], const double hi[3])
{
    static const int faces[6][4] = {
        {0, 4, 6, 2}, {1, 3, 7, 5}, /* x-, x+ */
        {0, 1, 5, 4}, {2, 6, 7, 3}, /* y-, y+ */
        {0, 2, 3, 1}, {4, 5, 7, 6}, /* z-, z+ */
    };
    P->nv = 8;
    P->overflow = 0;
    for (int i = 0; i < 8; i++) {
        P->v[i][0] = (i & 1) ? hi[0] : lo[0];
        P->v[i][1] = (i & 2) ? hi[1] : lo[1];
        P->v[i][2] = (i & 4) ? hi[2] : lo[2];
    }
    P->nf = 6;
    P->ni = 24;
    for (int f = 0; f < 6; f++) {
        int ax = f / 2, up = f % 2;
        P->fid[f] = -1 - f;
        P->fn[f][0] = P->fn[f][1] = P->fn[f][2] = 0;
        P->fn[f][ax] = up ? 1.0 : -1.0;
        P->fd[f] = up ? hi[ax] : -lo[ax];
        P->fs[f] = 4 * f;
        P->fc[f] = 4;
        for (int j = 0; j < 4; j++)
            P->fvi[4 * f + j] = faces[f][j];
    }
}

typedef struct {
    int a, b, idx;
} cut_edge;

/* A monotone substitute for atan2(y, x) on [0, 4): the cyclic order of the
 * cap points is all that is needed, and atan2 was a visible share of the
 * clipping time. */
static inline double pseudo_angle(double x, double y)
{
    double s = fabs(x) + fabs(y);
    if (s == 0)
        return 0;
    double r = y / s; /* in [-1, 1], the sine-like coordinate on the diamond */
    if (x >= 0)
        return y >= 0 ? r : 4.0 + r;
    return 2.0 - r;
}

/* the cap face of a clip: the cut points ordered by angle around their
 * centroid in the plane un . x = ud, face id `id` */
static void add_cap(cpoly *Q, int *cap, int ncap, const double un[3], double ud, int id)
{
    if (Q->nf >= CP_MAXF || Q->ni + ncap > CP_MAXI) {
        Q->overflow = 1;
        return;
    }
    /* order the cap points by angle around their centroid */
    double c[3] = {0, 0, 0}, e1[3], e2[3];
    for (int j = 0; j < ncap; j++)
        v3_add(c, c, Q->v[cap[j]]);
    v3_scale(c, c, 1.0 / ncap);
    double ax[3] = {0, 0, 0};
    int k = fabs(un[0]) < fabs(un[1]) ? (fabs(un[0]) < fabs(un[2]) ? 0 : 2) : (fabs(un[1]) < fabs(un[2]) ? 1 : 2);
    ax[k] = 1;
    v3_cross(e1, un, ax);
    v3_normalize(e1);
    v3_cross(e2, un, e1);
    double ang[CP_MAXV];
    for (int j = 0; j < ncap; j++) {
        double r[3];
        v3_sub(r, Q->v[cap[j]], c);
        ang[j] = pseudo_angle(v3_dot(r, e1), v3_dot(r, e2));
    }
    for (int j = 1; j < ncap; j++) { /* insertion sort (few points) */
        double a = ang[j];
        int ci = cap[j], l = j - 1;
        while (l >= 0 && ang[l] > a) {
            ang[l + 1] = ang[l];
            cap[l + 1] = cap[l];
            l--;
        }
        ang[l + 1] = a;
        cap[l + 1] = ci;
    }
    int g = Q->nf++;
    Q->fid[g] = id;
    v3_copy(Q->fn[g], un);
    Q->fd[g] = ud;
    Q->fs[g] = Q->ni;
    Q->fc[g] = ncap;
    memcpy(Q->fvi + Q->ni, cap, (size_t)ncap * sizeof(int));
    Q->ni += ncap;
}

int cpoly_clip(const cpoly *P, cpoly *Q, const double n[3], double d, int id)
{
    double nn = v3_norm(n);
    double un[3] = {n[0] / nn, n[1] / nn, n[2] / nn}, ud = d / nn;
    double s[CP_MAXV];
    unsigned char in[CP_MAXV], on[CP_MAXV];
    int anyout = 0, allout = 1;
    double eps = 1e-11 * (1.0 + fabs(ud));
    for (int i = 0; i < P->nv; i++) {
        s[i] = v3_dot(un, P->v[i]) - ud;
        in[i] = s[i] <= eps;
        on[i] = fabs(s[i]) <= eps;
        if (!in[i])
            anyout = 1;
        if (s[i] < -eps)
            allout = 0;
    }
    if (!anyout)
        return 0;
    Q->overflow = P->overflow;
    if (allout) {
        Q->nv = Q->nf = Q->ni = 0;
        return 1;
    }
    int map[CP_MAXV];
    Q->nv = 0;
    for (int i = 0; i < P->nv; i++) {
        if (in[i]) {
            map[i] = Q->nv;
            v3_copy(Q->v[Q->nv++], P->v[i]);
        } else
            map[i] = -1;
    }
    cut_edge cuts[CP_MAXV];
    int ncut = 0;
    int cap[CP_MAXV];
    int ncap = 0;
    Q->nf = 0;
    Q->ni = 0;
    int poly[CP_MAXV];
    for (int f = 0; f < P->nf; f++) {
        const int *fv = P->fvi + P->fs[f];
        int m = P->fc[f], np = 0;
        for (int j = 0; j < m; j++) {
            int a = fv[j], b = fv[(j + 1) % m];
            if (in[a] && np < CP_MAXV)
                poly[np++] = map[a];
            if (in[a] == in[b])
                continue;
            int ia = in[a] ? a : b, ob = in[a] ? b : a; /* inside, outside */
            int ci;
            if (on[ia]) {
                ci = map[ia];
                if (in[a])
                    goto addcap; /* already emitted as a */
                /* entering at an "on" vertex: it is emitted next as a */
            } else {
                int lo = a < b ? a : b, hi = a < b ? b : a;
                ci = -1;
                for (int c = 0; c < ncut; c++)
                    if (cuts[c].a == lo && cuts[c].b == hi) {
                        ci = cuts[c].idx;
                        break;
                    }
                if (ci < 0) {
                    if (Q->nv >= CP_MAXV || ncut >= CP_MAXV) {
                        Q->overflow = 1;
                        continue;
                    }
                    double tt = s[ia] / (s[ia] - s[ob]);
                    double *q = Q->v[Q->nv];
                    for (int c = 0; c < 3; c++)
                        q[c] = P->v[ia][c] + tt * (P->v[ob][c] - P->v[ia][c]);
                    ci = Q->nv++;
                    cuts[ncut].a = lo;
                    cuts[ncut].b = hi;
                    cuts[ncut].idx = ci;
                    ncut++;
                }
                if (np < CP_MAXV)
                    poly[np++] = ci;
            }
        addcap:;
            int seen = 0;
            for (int c = 0; c < ncap; c++)
                if (cap[c] == ci) {
                    seen = 1;
                    break;
                }
            if (!seen && ncap < CP_MAXV)
                cap[ncap++] = ci;
        }
        /* drop consecutive duplicates */
        int w = 0;
        for (int j = 0; j < np; j++)
            if (w == 0 || poly[w - 1] != poly[j])
                poly[w++] = poly[j];
        while (w > 1 && poly[w - 1] == poly[0])
            w--;
        if (w < 3)
            continue;
        if (Q->nf >= CP_MAXF || Q->ni + w > CP_MAXI) {
            Q->overflow = 1;
            continue;
        }
        int g = Q->nf++;
        Q->fid[g] = P->fid[f];
        v3_copy(Q->fn[g], P->fn[f]);
        Q->fd[g] = P->fd[f];
        Q->fs[g] = Q->ni;
        Q->fc[g] = w;
        memcpy(Q->fvi + Q->ni, poly, (size_t)w * sizeof(int));
        Q->ni += w;
    }
    if (ncap >= 3)
        add_cap(Q, cap, ncap, un, ud, id);
    return 1;
}

const cpoly *cpoly_laguerre_cell(cpoly *work0, cpoly *work1, const double lo[3], const double hi[3],
                                 const double *xs, int k, const int *cand, int ncand,
                                 int override, const double ov[4])
{
    cpoly *P = work0, *Q = work1;
    cpoly_box(P, lo, hi);
    const double *sk = (k == override) ? ov : xs + 4 * (size_t)k;
    double sk2 = v3_norm2(sk);
    /* radius of P around s_k, for the quick rejection of far planes */
    double R2 = 0;
    for (int i = 0; i < P->nv; i++) {
        double r2 = v3_dist2(P->v[i], sk);
        if (r2 > R2)
            R2 = r2;
    }
    double R = sqrt(R2);
    for (int c = 0; c < ncand; c++) {
        int j = cand[c];
        if (j == k)
            continue;
        const double *sj = (j == override) ? ov : xs + 4 * (size_t)j;
        double n[3];
        v3_sub(n, sj, sk);
        double nn = v3_norm(n);
        double d = 0.5 * (v3_norm2(sj) - sj[3] - sk2 + sk[3]);
        /* plane: n . x <= d */
        if (nn == 0) {
            if (sk[3] >= sj[3])
                continue;
            P->nv = P->nf = P->ni = 0;
            return P;
        }
        /* the plane is at distance (d - n.sk)/|n| from s_k along n */
        if ((d - v3_dot(n, sk)) >= R * nn)
            continue;
        if (cpoly_clip(P, Q, n, d, j)) {
            cpoly *tmp = P;
            P = Q;
            Q = tmp;
            if (P->nv == 0)
                return P;
            R2 = 0;
            for (int i = 0; i < P->nv; i++) {
                double r2 = v3_dist2(P->v[i], sk);
                if (r2 > R2)
                    R2 = r2;
            }
            R = sqrt(R2);
        }
    }
    return P;
}

double cpoly_volume(const cpoly *P)
{
    if (P->nv == 0)
        return 0;
    double c[3] = {0, 0, 0};
    for (int i = 0; i < P->nv; i++)
        v3_add(c, c, P->v[i]);
    v3_scale(c, c, 1.0 / P->nv);
    double vol = 0;
    for (int f = 0; f < P->nf; f++) {
        const int *fv = P->fvi + P->fs[f];
        double a[3], b[3], e[3], x[3];
        v3_sub(a, P->v[fv[0]], c);
        for (int j = 1; j + 1 < P->fc[f]; j++) {
            v3_sub(b, P->v[fv[j]], c);
            v3_sub(e, P->v[fv[j + 1]], c);
            v3_cross(x, b, e);
            vol += fabs(v3_dot(a, x)) / 6.0;
        }
    }
    return vol;
}

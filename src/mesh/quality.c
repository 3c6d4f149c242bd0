/* quality.c - shape quality of tetrahedra. */
#include "config.h"
#include "util/vec3.h"
#include <rve/mesh.h>
#include <math.h>

void rve_tet_quality(const double a[3], const double b[3], const double c[3], const double d[3],
                     double *gamma, double *q, double *volume)
{
    double ab[3], ac[3], ad[3], bc[3], bd[3], cd[3], x[3];
    v3_sub(ab, b, a);
    v3_sub(ac, c, a);
    v3_sub(ad, d, a);
    v3_sub(bc, c, b);
    v3_sub(bd, d, b);
    v3_sub(cd, d, c);
    v3_cross(x, ac, ad);
    double v = v3_dot(ab, x) / 6.0;
    /* faces areas: inscribed radius r = 3 V / total area */
    double n1[3], n2[3], n3[3], n4[3];
    v3_cross(n1, ab, ac);
    v3_cross(n2, ab, ad);
    v3_cross(n3, ac, ad);
    v3_cross(n4, bc, bd);
    double area = 0.5 * (v3_norm(n1) + v3_norm(n2) + v3_norm(n3) + v3_norm(n4));
    double rin = area > 0 ? 3.0 * fabs(v) / area : 0;
    /* circumradius: |a|^2 (b x c) + ... with edges from a: R = |l1^2 (u2 x u3) + l2^2 (u3 x u1) + l3^2 (u1 x u2)| / (12 |V|) */
    double l1 = v3_norm2(ab), l2 = v3_norm2(ac), l3 = v3_norm2(ad);
    double c23[3], c31[3], c12[3], s[3];
    v3_cross(c23, ac, ad);
    v3_cross(c31, ad, ab);
    v3_cross(c12, ab, ac);
    for (int i = 0; i < 3; i++)
        s[i] = l1 * c23[i] + l2 * c31[i] + l3 * c12[i];
    double rc = v != 0 ? v3_norm(s) / (12.0 * fabs(v)) : INFINITY;
    double g = (v != 0 && isfinite(rc) && rc > 0) ? 3.0 * rin / rc : 0;
    double ms = (l1 + l2 + l3 + v3_norm2(bc) + v3_norm2(bd) + v3_norm2(cd)) / 6.0;
    double qq = ms > 0 ? 6.0 * sqrt(2.0) * v / pow(ms, 1.5) : 0;
    if (v <= 0) {
        g = -fabs(g);
        qq = -fabs(qq);
    }
    if (gamma)
        *gamma = g;
    if (q)
        *q = qq;
    if (volume)
        *volume = v;
}

void rve_mesh_quality_compute(const rve_mesh *m, rve_mesh_quality *q)
{
    int tn = m->order == 2 ? 10 : 4;
    q->ntets = m->ntets;
    q->nnodes = m->nnodes;
    q->gamma_min = q->q_min = INFINITY;
    q->gamma_mean = q->q_mean = 0;
    q->gamma_below_01 = q->gamma_below_03 = q->q_below_01 = q->q_below_03 = 0;
    q->inverted = 0;
    for (size_t e = 0; e < m->ntets; e++) {
        const size_t *t = m->tets + e * (size_t)tn;
        double g, s, v;
        rve_tet_quality(m->xyz + 3 * t[0], m->xyz + 3 * t[1], m->xyz + 3 * t[2], m->xyz + 3 * t[3],
                        &g, &s, &v);
        if (v <= 0)
            q->inverted++;
        if (g < q->gamma_min)
            q->gamma_min = g;
        if (s < q->q_min)
            q->q_min = s;
        q->gamma_mean += g;
        q->q_mean += s;
        q->gamma_below_01 += g < 0.1;
        q->gamma_below_03 += g < 0.3;
        q->q_below_01 += s < 0.1;
        q->q_below_03 += s < 0.3;
    }
    if (m->ntets) {
        double n = (double)m->ntets;
        q->gamma_mean /= n;
        q->q_mean /= n;
        q->gamma_below_01 /= n;
        q->gamma_below_03 /= n;
        q->q_below_01 /= n;
        q->q_below_03 /= n;
    } else {
        q->gamma_min = q->q_min = 0;
    }
}

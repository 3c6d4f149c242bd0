/* geom.c - geometric queries on a tessellation. */
#include "config.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define RVE_PI_ 3.14159265358979323846

double rve_tess_power(const rve_tess *t, int i, const double x[3])
{
    const double *s = t->seeds + 4 * (size_t)i;
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        double d = x[a] - s[a];
        if (t->periodic[a]) {
            double P = t->hi[a] - t->lo[a];
            d -= P * nearbyint(d / P);
        }
        d2 += d * d;
    }
    return d2 - s[3] * s[3];
}

int rve_tess_locate(const rve_tess *t, const double x[3])
{
    int best = 0;
    double bd = INFINITY;
    for (int i = 0; i < t->n; i++) {
        double d = rve_tess_power(t, i, x);
        if (d < bd) {
            bd = d;
            best = i;
        }
    }
    return best;
}

/* Squared distance from x to segment [a, b]. */
static double seg_dist2(const double x[3], const double a[3], const double b[3])
{
    double ab[3], ax[3];
    v3_sub(ab, b, a);
    v3_sub(ax, x, a);
    double l2 = v3_norm2(ab), u = l2 > 0 ? v3_dot(ax, ab) / l2 : 0;
    if (u < 0) u = 0;
    if (u > 1) u = 1;
    double q[3];
    v3_axpy(q, a, u, ab);
    return v3_dist2(x, q);
}

double rve_tess_cell_dist(const rve_tess *t, int i, const double x[3])
{
    const rve_tess_poly *p = &t->cells[i];
    if (p->nv == 0) return INFINITY;
    double smax = -INFINITY;
    for (int f = 0; f < p->nf; f++) {
        double pl[4];
        rve_tess_cell_plane(t, i, f, pl);
        double s = v3_dot(pl, x) - pl[3];
        if (s > smax) smax = s;
    }
    if (smax <= 0) return smax;
    /* outside: distance to the nearest face polygon among the faces x sees */
    double best = INFINITY;
    for (int f = 0; f < p->nf; f++) {
        double pl[4];
        rve_tess_cell_plane(t, i, f, pl);
        double s = v3_dot(pl, x) - pl[3];
        if (s <= 0) continue;
        double y[3];
        v3_axpy(y, x, -s, pl); /* projection on the plane */
        int inside = 1, a0 = p->foff[f], m = p->foff[f + 1] - a0;
        for (int k = 0; k < m && inside; k++) {
            const double *a = p->v + 3 * p->floop[a0 + k], *b = p->v + 3 * p->floop[a0 + (k + 1) % m];
            double ab[3], ay[3], c[3];
            v3_sub(ab, b, a);
            v3_sub(ay, y, a);
            v3_cross(c, ab, ay);
            if (v3_dot(c, pl) < 0) inside = 0;
        }
        double d2;
        if (inside)
            d2 = s * s;
        else {
            d2 = INFINITY;
            for (int k = 0; k < m; k++) {
                double e = seg_dist2(x, p->v + 3 * p->floop[a0 + k], p->v + 3 * p->floop[a0 + (k + 1) % m]);
                if (e < d2) d2 = e;
            }
        }
        if (d2 < best) best = d2;
    }
    return sqrt(best);
}

double rve_tess_cell_eqd(const rve_tess *t, int i)
{
    return cbrt(6.0 * t->cells[i].vol / RVE_PI_);
}

double rve_tess_cell_sphericity(const rve_tess *t, int i)
{
    const rve_tess_poly *p = &t->cells[i];
    if (p->nv == 0 || !(p->area > 0)) return 0;
    return cbrt(RVE_PI_) * pow(6.0 * p->vol, 2.0 / 3.0) / p->area;
}

double rve_tess_face_area_between(const rve_tess *t, int i, int j)
{
    const rve_tess_poly *p = &t->cells[i];
    double a = 0;
    for (int f = 0; f < p->nf; f++)
        if (p->fnbr[f] == j) a += p->farea[f];
    return a;
}

int rve_tess_cell_neighbours(const rve_tess *t, int i, int *nb, int max)
{
    const rve_tess_poly *p = &t->cells[i];
    /* small lists: collect, sort, unique in a local buffer */
    int cnt = 0;
    int stackbuf[128], *buf = stackbuf;
    if (p->nf > 128) {
        buf = malloc(sizeof(int) * (size_t)p->nf);
        if (!buf) return -1;
    }
    for (int f = 0; f < p->nf; f++)
        if (p->fnbr[f] >= 0) buf[cnt++] = p->fnbr[f];
    for (int x = 1; x < cnt; x++) {
        int v = buf[x], y = x - 1;
        while (y >= 0 && buf[y] > v) {
            buf[y + 1] = buf[y];
            y--;
        }
        buf[y + 1] = v;
    }
    int m = 0;
    for (int x = 0; x < cnt; x++)
        if (x == 0 || buf[x] != buf[x - 1]) {
            if (nb && m < max) nb[m] = buf[x];
            m++;
        }
    if (buf != stackbuf) free(buf);
    return m;
}

void rve_tess_face_vertex(const rve_tess *t, int f, int k, int c, double x[3])
{
    int o = t->face_voff[f] + k;
    v3_copy(x, t->ver + 3 * t->face_ver[o]);
    if (!t->face_vimg) return;
    int s[3], r[3] = {0, 0, 0};
    rve_tess_img_unpack(t->face_vimg[o], s);
    if (c != t->face_cell[2 * f]) rve_tess_img_unpack(t->face_img[f], r);
    for (int a = 0; a < 3; a++)
        if (t->periodic[a]) x[a] += (s[a] - r[a]) * (t->hi[a] - t->lo[a]);
}

double rve_tess_edge_length(const rve_tess *t, int e)
{
    /* periodic edges: use a face containing it to unwrap */
    if (t->face_vimg && t->edge_foff[e + 1] > t->edge_foff[e]) {
        int g = t->edge_faces[t->edge_foff[e]];
        int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
        for (int k = 0; k < m; k++)
            if (t->face_edge[a0 + k] == e) {
                double x[3], y[3];
                rve_tess_face_vertex(t, g, k, t->face_cell[2 * g], x);
                rve_tess_face_vertex(t, g, (k + 1) % m, t->face_cell[2 * g], y);
                return v3_dist(x, y);
            }
    }
    return v3_dist(t->ver + 3 * t->edge_ver[2 * e], t->ver + 3 * t->edge_ver[2 * e + 1]);
}

rve_status rve_tess_rasterize(const rve_tess *t, const uint32_t *labels, rve_map *map, rve_err *err)
{
    if (!t->periodic[0] && !t->periodic[1] && !t->periodic[2])
        return rve_tess_rasterize_seeds(t->seeds, t->n, labels, map, err);
    /* periodic: all images within one period (27 at most) as plain seeds */
    int ni = 1;
    for (int a = 0; a < 3; a++) ni *= t->periodic[a] ? 3 : 1;
    size_t m = (size_t)t->n * ni;
    if (m > (size_t)2000000000) return rve_err_set(err, RVE_ENOMEM, "", "rasterize: too many seeds");
    double *s = malloc(sizeof(double) * 4 * m);
    uint32_t *lab = malloc(sizeof(uint32_t) * m);
    if (!s || !lab) {
        free(s);
        free(lab);
        return rve_err_set(err, RVE_ENOMEM, "", "rasterize: out of memory");
    }
    /* images ordered so that all images of seed i precede those of i + 1:
     * ties still go to the lowest seed index */
    size_t k = 0;
    for (int i = 0; i < t->n; i++)
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    int d[3] = {dx, dy, dz}, ok = 1;
                    for (int a = 0; a < 3; a++)
                        if (!t->periodic[a] && d[a]) ok = 0;
                    if (!ok) continue;
                    for (int a = 0; a < 3; a++)
                        s[4 * k + a] = t->seeds[4 * (size_t)i + a] + d[a] * (t->hi[a] - t->lo[a]);
                    s[4 * k + 3] = t->seeds[4 * (size_t)i + 3];
                    lab[k] = labels ? labels[i] : (uint32_t)i + 1;
                    k++;
                }
    rve_status st = rve_tess_rasterize_seeds(s, (int)m, lab, map, err);
    free(s);
    free(lab);
    return st;
}

/* cx.c - geometry and checks of the internal polyhedral complex. */
#include "config.h"
#include "mesh/cx.h"
#include "util/vec3.h"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rve_cx_free(rve_cx *c)
{
    if (!c)
        return;
    free(c->v);
    free(c->foff);
    free(c->fv);
    free(c->fpt);
    free(c->fflat);
    free(c->fc);
    free(c->fdom);
    free(c->cid);
    free(c->fper);
    free(c->ccell);
    free(c->cshift);
    free(c);
}

void rve_cx_face_centre(const rve_cx *c, int f, double p[3])
{
    int n = c->foff[f + 1] - c->foff[f];
    p[0] = p[1] = p[2] = 0;
    for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
        v3_add(p, p, c->v + 3 * c->fv[i]);
    if (n > 0)
        v3_scale(p, p, 1.0 / n);
}

void rve_cx_face_normal(const rve_cx *c, int f, double n[3])
{
    const double *o = c->fpt + 3 * f;
    int a0 = c->foff[f], a1 = c->foff[f + 1];
    n[0] = n[1] = n[2] = 0;
    for (int i = a0; i < a1; i++) {
        const double *p = c->v + 3 * c->fv[i];
        const double *q = c->v + 3 * c->fv[i + 1 < a1 ? i + 1 : a0];
        double u[3], w[3], x[3];
        v3_sub(u, p, o);
        v3_sub(w, q, o);
        v3_cross(x, u, w);
        v3_add(n, n, x);
    }
}

double rve_cx_cell_volume(const rve_cx *c, int k)
{
    /* Divergence theorem with the fans, relative to a reference point of the
     * cell (the first vertex found) to limit cancellation. */
    double vol = 0, ref[3] = {0, 0, 0};
    int have_ref = 0;
    for (int f = 0; f < c->nf; f++) {
        double s;
        if (c->fc[2 * f] == k)
            s = 1;
        else if (c->fc[2 * f + 1] == k)
            s = -1;
        else
            continue;
        if (!have_ref) {
            v3_copy(ref, c->v + 3 * c->fv[c->foff[f]]);
            have_ref = 1;
        }
        int a0 = c->foff[f], a1 = c->foff[f + 1];
        double o[3];
        v3_sub(o, c->fpt + 3 * f, ref);
        for (int i = a0; i < a1; i++) {
            double p[3], q[3], x[3];
            v3_sub(p, c->v + 3 * c->fv[i], ref);
            v3_sub(q, c->v + 3 * c->fv[i + 1 < a1 ? i + 1 : a0], ref);
            v3_cross(x, p, q);
            vol += s * v3_dot(o, x) / 6.0;
        }
    }
    return vol;
}

typedef struct {
    int a, b, n;
} edge_use;

static int cmp_edge_use(const void *x, const void *y)
{
    const edge_use *p = x, *q = y;
    if (p->a != q->a)
        return p->a < q->a ? -1 : 1;
    if (p->b != q->b)
        return p->b < q->b ? -1 : 1;
    int x1 = abs(p->n), y1 = abs(q->n);
    return x1 < y1 ? -1 : x1 > y1;
}

int rve_cx_check(const rve_cx *c, char *why, size_t n)
{
    for (int f = 0; f < c->nf; f++) {
        int a0 = c->foff[f], a1 = c->foff[f + 1];
        if (a1 - a0 < 3) {
            snprintf(why, n, "face %d has %d vertices", f, a1 - a0);
            return 1;
        }
        for (int i = a0; i < a1; i++)
            for (int j = i + 1; j < a1; j++)
                if (c->fv[i] == c->fv[j]) {
                    snprintf(why, n, "face %d visits vertex %d twice", f, c->fv[i]);
                    return 1;
                }
        if (c->fc[2 * f] < 0 || c->fc[2 * f] >= c->nc || c->fc[2 * f + 1] >= c->nc ||
            c->fc[2 * f] == c->fc[2 * f + 1]) {
            snprintf(why, n, "face %d has bad cells %d %d", f, c->fc[2 * f], c->fc[2 * f + 1]);
            return 1;
        }
    }
    /* Directed edge uses per cell: each (cell, a, b) must pair with (cell, b, a). */
    size_t m = 0;
    for (int f = 0; f < c->nf; f++)
        m += (size_t)(c->foff[f + 1] - c->foff[f]) * (c->fc[2 * f + 1] >= 0 ? 2 : 1);
    edge_use *u = malloc((m ? m : 1) * sizeof *u);
    if (!u) {
        snprintf(why, n, "out of memory");
        return 1;
    }
    /* Encode the cell in n and sort by (cell, min, max) with the direction in sign. */
    size_t k = 0;
    for (int f = 0; f < c->nf; f++) {
        int a0 = c->foff[f], a1 = c->foff[f + 1];
        for (int s = 0; s < 2; s++) {
            int cell = c->fc[2 * f + s];
            if (cell < 0)
                continue;
            for (int i = a0; i < a1; i++) {
                int p = c->fv[i], q = c->fv[i + 1 < a1 ? i + 1 : a0];
                if (s)
                    p ^= q, q ^= p, p ^= q;
                u[k].a = cell;
                u[k].b = p < q ? p : q;
                u[k].n = (p < q ? 1 : -1) * (1 + (p < q ? q : p));
                k++;
            }
        }
    }
    qsort(u, k, sizeof *u, cmp_edge_use);
    int bad = 0;
    size_t i = 0;
    while (i < k && !bad) {
        size_t j = i;
        int sum = 0, cnt = 0, other = abs(u[i].n);
        while (j < k && u[j].a == u[i].a && u[j].b == u[i].b) {
            /* group further by the other end */
            if (abs(u[j].n) != other)
                break;
            sum += u[j].n > 0 ? 1 : -1;
            cnt++;
            j++;
        }
        if (cnt != 2 || sum != 0) {
            snprintf(why, n, "cell %d is not closed at edge %d-%d (%d uses)", u[i].a, u[i].b,
                     other - 1, cnt);
            bad = 1;
        }
        i = j;
    }
    free(u);
    return bad;
}

uint64_t rve_cx_xyz_hash(const double x[3])
{
    uint64_t b[3], h = 0x243F6A8885A308D3ull;
    memcpy(b, x, sizeof b);
    for (int k = 0; k < 3; k++)
        h = (h ^ b[k]) * 0x9E3779B97F4A7C15ull, h ^= h >> 29;
    return h;
}

int *rve_cx_periodic_links(const rve_cx *c, const unsigned *mask, const int *alive, unsigned planes)
{
    size_t cap = 16;
    while (cap < 2 * (size_t)c->nv + 16)
        cap *= 2;
    int *tab = calloc(cap, sizeof *tab); /* vertex + 1, 0 empty */
    int *link = malloc((3 * (size_t)c->nv + 1) * sizeof *link);
    if (!tab || !link) {
        free(tab);
        free(link);
        return NULL;
    }
    for (int v = 0; v < c->nv; v++)
        if ((!alive || alive[v]) && (mask[v] & planes)) {
            size_t s = (size_t)rve_cx_xyz_hash(c->v + 3 * v) & (cap - 1);
            while (tab[s])
                s = (s + 1) & (cap - 1);
            tab[s] = v + 1;
        }
    for (int v = 0; v < c->nv; v++)
        for (int ax = 0; ax < 3; ax++) {
            link[3 * v + ax] = -1;
            if ((alive && !alive[v]) || !(mask[v] & planes & (3u << (2 * ax))))
                continue;
            double x[3];
            memcpy(x, c->v + 3 * v, sizeof x);
            x[ax] = x[ax] == c->dom_lo[ax] ? c->dom_hi[ax] : c->dom_lo[ax];
            for (size_t s = (size_t)rve_cx_xyz_hash(x) & (cap - 1); tab[s]; s = (s + 1) & (cap - 1))
                if (memcmp(c->v + 3 * (tab[s] - 1), x, sizeof x) == 0) {
                    link[3 * v + ax] = tab[s] - 1;
                    break;
                }
        }
    free(tab);
    return link;
}

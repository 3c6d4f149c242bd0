/* periodic_detect.c - recognise a periodic box complex written as a
 * tessellation of its pieces (rve_reg_periodic, then a .tess file): cells
 * sharing grain labels, and along an axis every polygon on the upper box face
 * the exact translate of one on the lower face, and the other way round.
 * Such a complex gets its periodic links (fper) back, so that it is meshed
 * periodically. */
#include "config.h"
#include "mesh/mesh_internal.h"
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int mesh_int_cmp(const void *x, const void *y)
{
    int a = *(const int *)x, b = *(const int *)y;
    return a < b ? -1 : a > b;
}

/* Vertex i of face f with coordinate a set to the lower box plane. */
static void lowered(const rve_cx *c, int f, int i, int a, double x[3])
{
    memcpy(x, c->v + 3 * c->fv[c->foff[f] + i], 3 * sizeof(double));
    x[a] = c->dom_lo[a];
}

/* Order-independent key of face f's vertex set, lowered along a. */
static uint64_t face_key(const rve_cx *c, int f, int a)
{
    uint64_t k = 0;
    for (int i = 0; i < c->foff[f + 1] - c->foff[f]; i++) {
        double x[3];
        lowered(c, f, i, a, x);
        k += rve_cx_xyz_hash(x);
    }
    return k;
}

/* Same lowered vertex sets, bit for bit? */
static int same_face(const rve_cx *c, int f, int g, int a)
{
    int n = c->foff[f + 1] - c->foff[f];
    if (n != c->foff[g + 1] - c->foff[g])
        return 0;
    for (int i = 0; i < n; i++) {
        double x[3], y[3];
        int found = 0;
        lowered(c, f, i, a, x);
        for (int j = 0; j < n && !found; j++) {
            lowered(c, g, j, a, y);
            found = memcmp(x, y, sizeof x) == 0;
        }
        if (!found)
            return 0;
    }
    return 1;
}

/* Link the faces of the upper plane of axis a to their translates; 1 when
 * every face on both planes has exactly one partner, else 0 (links undone). */
static int link_axis(rve_cx *c, int a, mesh_key *lo)
{
    int nlo = 0, nhi = 0;
    for (int f = 0; f < c->nf; f++)
        if (c->fdom[f] == 2 * a) {
            lo[nlo].k = face_key(c, f, a);
            lo[nlo++].i = f;
        } else if (c->fdom[f] == 2 * a + 1) {
            nhi++;
        }
    if (nlo == 0 || nlo != nhi)
        return 0;
    qsort(lo, (size_t)nlo, sizeof *lo, mesh_key_cmp);
    int ok = 1;
    for (int f = 0; f < c->nf && ok; f++) {
        if (c->fdom[f] != 2 * a + 1)
            continue;
        uint64_t k = face_key(c, f, a);
        int l = 0, h = nlo;
        while (l < h) { /* first key >= k */
            int m = (l + h) / 2;
            if (lo[m].k < k)
                l = m + 1;
            else
                h = m;
        }
        int g = -1;
        for (int j = l; j < nlo && lo[j].k == k && g < 0; j++)
            if (c->fper[lo[j].i] < 0 && same_face(c, f, lo[j].i, a))
                g = lo[j].i;
        if (g < 0)
            ok = 0;
        else
            c->fper[f] = g, c->fper[g] = f;
    }
    if (!ok)
        for (int f = 0; f < c->nf; f++)
            if (c->fdom[f] == 2 * a || c->fdom[f] == 2 * a + 1)
                c->fper[f] = -1;
    return ok;
}

int mesh_cx_detect_periodic(rve_cx *c)
{
    if (c->fper || c->ndom != 6)
        return 0;
    int shared = 0; /* some grain label on two cells */
    int *lab = malloc(((size_t)c->nc + 1) * sizeof *lab);
    if (!lab)
        return -1;
    memcpy(lab, c->cid, (size_t)c->nc * sizeof *lab);
    qsort(lab, (size_t)c->nc, sizeof *lab, mesh_int_cmp);
    for (int k = 1; k < c->nc; k++)
        shared |= lab[k] == lab[k - 1];
    free(lab);
    if (!shared)
        return 0;
    c->fper = malloc(((size_t)c->nf + 1) * sizeof *c->fper);
    mesh_key *keys = malloc(((size_t)c->nf + 1) * sizeof *keys);
    if (!c->fper || !keys) {
        free(keys);
        return -1;
    }
    for (int f = 0; f < c->nf; f++)
        c->fper[f] = -1;
    int any = 0;
    for (int a = 0; a < 3; a++)
        any += c->periodic[a] = link_axis(c, a, keys);
    free(keys);
    if (!any) {
        free(c->fper);
        c->fper = NULL;
    }
    return any > 0;
}

/* fold.c - folded face pairs: two bent quadrilaterals of one cell that share
 * three vertices (two consecutive edges a-m-b) bound a thin wedge of the cell
 * along that path.  Their fans (face points at the vertex means, a few
 * thousandths apart) put two nearly parallel spokes at every shared vertex,
 * which no tetrahedron can fill well (seed 3's worst tetrahedra,
 * docs/periodic.md).  Moving each face point onto the middle vertex m makes
 * the fan the triangulation by the diagonal u-m (u the vertex not shared):
 * the wedge opens at the shared edges.  The geometry changes (the face is
 * another surface through the same vertices); the pair moves together or not
 * at all, only when the wedge opens (at both shared edges the new triangles
 * keep the fans' side and make a larger angle), both faces' new triangles
 * face the way their fans did and every cell keeps a positive volume. */
#include "config.h"

#include "mesh/cx.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    int k, f;
} cellface;

static int cf_cmp(const void *x, const void *y)
{
    const cellface *a = x, *b = y;
    return a->k != b->k ? (a->k > b->k) - (a->k < b->k) : (a->f > b->f) - (a->f < b->f);
}

static int is_quad(const rve_cx *c, int f)
{
    return !c->fflat[f] && c->foff[f + 1] - c->foff[f] == 4;
}

/* the index (0-3) in f of the one vertex of f that g lacks, or -1 when f and
 * g do not share exactly three vertices */
static int unshared(const rve_cx *c, int f, int g)
{
    int nsh = 0, iu = -1;
    for (int i = 0; i < 4; i++) {
        int in = 0;
        for (int j = c->foff[g]; j < c->foff[g + 1]; j++)
            in |= c->fv[j] == c->fv[c->foff[f] + i];
        if (in)
            nsh++;
        else
            iu = i;
    }
    return nsh == 3 ? iu : -1;
}

static int cells_positive(const rve_cx *c, int f)
{
    for (int s = 0; s < 2; s++)
        if (c->fc[2 * f + s] >= 0 && !(rve_cx_cell_volume(c, c->fc[2 * f + s]) > 0))
            return 0;
    return 1;
}

/* move f's face point onto the vertex opposite its vertex iu; 1 if kept */
static int fold_one(rve_cx *c, int f, int iu)
{
    int a0 = c->foff[f];
    const double *u = c->v + 3 * c->fv[a0 + iu], *a = c->v + 3 * c->fv[a0 + (iu + 1) % 4],
                 *m = c->v + 3 * c->fv[a0 + (iu + 2) % 4], *b = c->v + 3 * c->fv[a0 + (iu + 3) % 4];
    double n0[3], x[3], y[3], t1[3], t2[3], old[3];
    rve_cx_face_normal(c, f, n0);
    v3_sub(x, u, m);
    v3_sub(y, a, m);
    v3_cross(t1, x, y);
    v3_sub(x, b, m);
    v3_sub(y, u, m);
    v3_cross(t2, x, y);
    if (!(v3_dot(t1, n0) > 0 && v3_dot(t2, n0) > 0))
        return 0;
    v3_copy(old, c->fpt + 3 * f);
    v3_copy(c->fpt + 3 * f, m);
    if (cells_positive(c, f))
        return 1;
    v3_copy(c->fpt + 3 * f, old);
    return 0;
}

/* angle (radians) at the edge p-m between the half-planes through x and y */
static double dihedral(const double *p, const double *m, const double *x, const double *y)
{
    double e[3], u[3], w[3], t[3];
    v3_sub(e, m, p);
    v3_normalize(e);
    v3_sub(u, x, p);
    v3_scale(t, e, v3_dot(u, e));
    v3_sub(u, u, t);
    v3_sub(w, y, p);
    v3_scale(t, e, v3_dot(w, e));
    v3_sub(w, w, t);
    double nu = sqrt(v3_dot(u, u)), nw = sqrt(v3_dot(w, w));
    if (!(nu > 0 && nw > 0))
        return 0;
    double cs = v3_dot(u, w) / (nu * nw);
    return acos(cs > 1 ? 1 : cs < -1 ? -1 : cs);
}

static double orient(const double *p, const double *m, const double *x, const double *y)
{
    double a[3], b[3], d[3], n[3];
    v3_sub(a, m, p);
    v3_sub(b, x, p);
    v3_sub(d, y, p);
    v3_cross(n, a, b);
    return v3_dot(n, d);
}

/* The pair's wedge opens: at both shared edges (a-m and m-b), the new
 * triangles (through f's and g's unshared vertices) keep the side the fans
 * (through the face points) had and make a larger angle than the fans did. */
static int opens(const rve_cx *c, int f, int iu, int g, int ju)
{
    int a0 = c->foff[f];
    const double *u = c->v + 3 * c->fv[a0 + iu], *w = c->v + 3 * c->fv[c->foff[g] + ju];
    const double *m = c->v + 3 * c->fv[a0 + (iu + 2) % 4];
    for (int s = 1; s <= 3; s += 2) {
        const double *p = c->v + 3 * c->fv[a0 + (iu + s) % 4];
        const double *cf = c->fpt + 3 * f, *cg = c->fpt + 3 * g;
        double o0 = orient(p, m, cf, cg), o1 = orient(p, m, u, w);
        if (!(o0 * o1 > 0) || !(dihedral(p, m, u, w) > dihedral(p, m, cf, cg)))
            return 0;
    }
    return 1;
}

int rve_cx_fold_quads(rve_cx *c)
{
    size_t n = 0;
    for (int f = 0; f < c->nf; f++)
        if (is_quad(c, f))
            n += (c->fc[2 * f] >= 0) + (c->fc[2 * f + 1] >= 0);
    cellface *cf = malloc((n + 1) * sizeof *cf);
    unsigned char *done = calloc((size_t)c->nf + 1, 1);
    if (!cf || !done) {
        free(cf);
        free(done);
        return -1;
    }
    n = 0;
    for (int f = 0; f < c->nf; f++)
        if (is_quad(c, f))
            for (int s = 0; s < 2; s++)
                if (c->fc[2 * f + s] >= 0)
                    cf[n++] = (cellface){c->fc[2 * f + s], f};
    qsort(cf, n, sizeof *cf, cf_cmp);
    int folded = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n && cf[j].k == cf[i].k; j++) {
            int f = cf[i].f, g = cf[j].f;
            if (done[f] || done[g])
                continue;
            int iu = unshared(c, f, g), ju = unshared(c, g, f);
            if (iu < 0 || ju < 0)
                continue;
            /* the same middle vertex m: the shared path is a-m-b in both */
            if (c->fv[c->foff[f] + (iu + 2) % 4] != c->fv[c->foff[g] + (ju + 2) % 4])
                continue;
            done[f] = done[g] = 1;
            if (!opens(c, f, iu, g, ju))
                continue;
            double of[3], og[3];
            v3_copy(of, c->fpt + 3 * f);
            v3_copy(og, c->fpt + 3 * g);
            if (fold_one(c, f, iu) && fold_one(c, g, ju)) {
                folded += 2;
                continue;
            }
            v3_copy(c->fpt + 3 * f, of); /* both or neither */
            v3_copy(c->fpt + 3 * g, og);
        }
    free(cf);
    free(done);
    return folded;
}

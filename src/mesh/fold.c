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
#include "mesh/mesh_internal.h"
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

/* The index in face f of the vertex its face point is on (within rounding of
 * a written .tess), or -1: such a fan is the fan from that vertex, whose two
 * triangles at the vertex are degenerate. */
int mesh_fpt_vertex(const rve_cx *c, int f)
{
    int a0 = c->foff[f], n = c->foff[f + 1] - a0;
    const double *o = c->fpt + 3 * f;
    double ext = 0;
    for (int i = 0; i < n; i++)
        ext = fmax(ext, v3_dist(c->v + 3 * c->fv[a0 + i], o));
    for (int i = 0; i < n; i++)
        if (v3_dist(c->v + 3 * c->fv[a0 + i], o) <= 1e-12 * ext)
            return i;
    return -1;
}

/* The triangles of face h as gmsh meshes it (gmsh.c): the fan from the face
 * point (n triangles; the point gets the id -2 - h) or, when the face point
 * is its vertex ap, the fan from that vertex (n - 2). */
static int face_ntri(const rve_cx *c, int h, int ap)
{
    int n = c->foff[h + 1] - c->foff[h];
    return ap >= 0 ? n - 2 : n;
}

/* triangle i of face h */
static void face_tri(const rve_cx *c, int h, int ap, int i, int id[3], const double *x[3])
{
    int a0 = c->foff[h], n = c->foff[h + 1] - a0;
    int k[3] = {ap >= 0 ? ap : -1, ap >= 0 ? (ap + i + 1) % n : i, ap >= 0 ? (ap + i + 2) % n : (i + 1) % n};
    for (int e = 0; e < 3; e++) {
        id[e] = k[e] < 0 ? -2 - h : c->fv[a0 + k[e]];
        x[e] = k[e] < 0 ? c->fpt + 3 * h : c->v + 3 * id[e];
    }
}

/* the point opposite the loop edge j -> j + 1 in h's triangle on that edge */
static const double *edge_apex(const rve_cx *c, int h, int ap, int j)
{
    int a0 = c->foff[h], n = c->foff[h + 1] - a0;
    if (ap < 0)
        return c->fpt + 3 * h;
    int k = ap == j ? (j + 2) % n : ap == (j + 1) % n ? (j + n - 1) % n : ap;
    return c->v + 3 * c->fv[a0 + k];
}

static int in_cells(const rve_cx *c, int h, const int K[4])
{
    for (int s = 0; s < 2; s++)
        for (int i = 0; i < 4; i++)
            if (c->fc[2 * h + s] >= 0 && c->fc[2 * h + s] == K[i])
                return 1;
    return 0;
}

/* the loop position of the edge x-y (either way) in h, or -1 */
static int find_edge(const rve_cx *c, int h, int x, int y)
{
    int a0 = c->foff[h], n = c->foff[h + 1] - a0;
    for (int j = 0; j < n; j++) {
        int p = c->fv[a0 + j], q = c->fv[a0 + (j + 1) % n];
        if ((p == x && q == y) || (p == y && q == x))
            return j;
    }
    return -1;
}

/* The smallest angle at the edges of f and g between their triangles and the
 * triangles of the other faces of the cells K on the same edges. */
static double pair_min_angle(const rve_cx *c, const int F[2], const int K[4])
{
    double amin = 4; /* above pi */
    for (int h = 0; h < c->nf; h++) {
        if (!in_cells(c, h, K))
            continue;
        int aph = mesh_fpt_vertex(c, h);
        for (int s = 0; s < 2; s++) {
            int f = F[s], a0 = c->foff[f], n = c->foff[f + 1] - a0, apf = mesh_fpt_vertex(c, f);
            if (h == f)
                continue;
            for (int j = 0; j < n; j++) {
                int x = c->fv[a0 + j], y = c->fv[a0 + (j + 1) % n], jh = find_edge(c, h, x, y);
                if (jh >= 0)
                    amin = fmin(amin, mesh_edge_angle(c->v + 3 * x, c->v + 3 * y, edge_apex(c, f, apf, j),
                                                      edge_apex(c, h, aph, jh)));
            }
        }
    }
    return amin;
}

/* No triangle of f or g (as they are now) meets a triangle of another face
 * of the cells K, nor each other, beyond their shared vertices.  A triangle
 * that left the pieces K would cross one of their faces, so the pieces'
 * faces are all that need testing. */
static int pair_clear(const rve_cx *c, const int F[2], const int K[4])
{
    for (int h = 0; h < c->nf; h++) {
        if (!in_cells(c, h, K))
            continue;
        int aph = mesh_fpt_vertex(c, h), nh = face_ntri(c, h, aph);
        for (int s = 0; s < 2; s++) {
            int f = F[s], apf = mesh_fpt_vertex(c, f), nt = face_ntri(c, f, apf);
            if (h == f || (s == 1 && h == F[0]))
                continue;
            for (int i = 0; i < nt; i++) {
                int ia[3], ib[3];
                const double *xa[3], *xb[3];
                face_tri(c, f, apf, i, ia, xa);
                if (ia[0] == ia[1] || ia[1] == ia[2] || ia[2] == ia[0])
                    continue;
                for (int k = 0; k < nh; k++) {
                    face_tri(c, h, aph, k, ib, xb);
                    if (ib[0] == ib[1] || ib[1] == ib[2] || ib[2] == ib[0])
                        continue;
                    if (mesh_tri_meet(ia, xa, ib, xb))
                        return 0;
                }
            }
        }
    }
    return 1;
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
        double o0 = mesh_orient3(p, m, cf, cg), o1 = mesh_orient3(p, m, u, w);
        if (!(o0 * o1 > 0) || !(mesh_edge_angle(p, m, u, w) > mesh_edge_angle(p, m, cf, cg)))
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
            int F[2] = {f, g}, K[4] = {c->fc[2 * f], c->fc[2 * f + 1], c->fc[2 * g], c->fc[2 * g + 1]};
            double before = pair_min_angle(c, F, K);
            v3_copy(of, c->fpt + 3 * f);
            v3_copy(og, c->fpt + 3 * g);
            if (fold_one(c, f, iu) && fold_one(c, g, ju) && pair_min_angle(c, F, K) > before &&
                pair_clear(c, F, K)) {
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

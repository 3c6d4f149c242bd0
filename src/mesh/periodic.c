/* periodic.c - the box complex of a periodic tessellation (internal).
 *
 * The cells of a periodic tessellation are whole polyhedra around their
 * seeds and cross the box.  Meshing needs the box itself: each cell is cut by
 * the lattice of box planes lo + k L into pieces, and the piece in lattice
 * box k is translated by -k L into the box.  The pieces of one cell are one
 * grain (same label).  Each cell is cut in its own frame; pieces of
 * different cells then share vertices through a merge within a tolerance
 * (the cells come from independent voro++ computations, their common
 * vertices agree to rounding only).
 *
 * Periodicity is exact by construction, not by tolerance: a vertex is stored
 * as its canonical position (the coordinates on upper box faces replaced by
 * the lower ones) plus the mask of the upper faces it lies on, and its
 * coordinates are the canonical ones with the masked axes set to hi.  Copies
 * of a vertex on opposite box faces therefore have bit-identical tangential
 * coordinates and normal coordinates exactly lo and hi.  Face polygons on
 * opposite box faces are matched through those copies (rve_cx.fper). */
#include "config.h"
#include "mesh/mesh_internal.h"
#include "mesh/periodic_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ pieces of all cells */
typedef struct {
    int np;           /* pieces */
    int *pgrain;      /* np: cell index */
    int *pshift;      /* 3 np: lattice box */
    int nv;           /* piece vertices (box frame, before merging) */
    double *v;
    int nf;           /* piece faces */
    int *foff, *fv;   /* loops into v */
    int *fdom;        /* domain plane or -1 */
    int *fpiece;      /* piece of each face */
    int cv, cf, cfv;
} pieces;

static void pieces_free(pieces *s)
{
    free(s->pgrain);
    free(s->pshift);
    free(s->v);
    free(s->foff);
    free(s->fv);
    free(s->fdom);
    free(s->fpiece);
}

/* Append piece p (cell k, translated by -g L, snapped onto the box planes). */
static int pieces_add(pieces *s, const mesh_cpoly *p, int k, const int g[3], const rve_tess *t, double eps)
{
    if (s->nv + p->nv > s->cv) {
        int c = 2 * (s->nv + p->nv) + 64;
        double *x = realloc(s->v, (size_t)(3 * c) * sizeof *x);
        if (!x)
            return -1;
        s->v = x;
        s->cv = c;
    }
    if (s->nf + p->nf + 1 > s->cf) {
        int c = 2 * (s->nf + p->nf) + 64;
        int *a = realloc(s->foff, (size_t)(c + 1) * sizeof *a);
        if (a)
            s->foff = a;
        int *b = realloc(s->fdom, (size_t)c * sizeof *b);
        if (b)
            s->fdom = b;
        int *e = realloc(s->fpiece, (size_t)c * sizeof *e);
        if (e)
            s->fpiece = e;
        if (!a || !b || !e)
            return -1;
        s->cf = c;
    }
    int nfv0 = s->nf ? s->foff[s->nf] : 0;
    if (nfv0 + p->nfv > s->cfv) {
        int c = 2 * (nfv0 + p->nfv) + 64;
        int *a = realloc(s->fv, (size_t)c * sizeof *a);
        if (!a)
            return -1;
        s->fv = a;
        s->cfv = c;
    }
    if ((s->np & (s->np - 1)) == 0 || s->np == 0) { /* grow at powers of two */
        int *a = realloc(s->pgrain, (size_t)(2 * s->np + 2) * sizeof *a);
        if (a)
            s->pgrain = a;
        int *b = realloc(s->pshift, (size_t)(6 * s->np + 6) * sizeof *b);
        if (b)
            s->pshift = b;
        if (!a || !b)
            return -1;
    }
    for (int i = 0; i < p->nv; i++) {
        double *x = s->v + 3 * (s->nv + i);
        for (int a = 0; a < 3; a++) {
            double L = t->hi[a] - t->lo[a];
            x[a] = p->v[3 * i + a] - g[a] * L;
            /* cut vertices land on the box planes up to the rounding of -g L */
            if (fabs(x[a] - t->lo[a]) <= eps)
                x[a] = t->lo[a];
            else if (fabs(x[a] - t->hi[a]) <= eps)
                x[a] = t->hi[a];
        }
    }
    if (s->nf == 0)
        s->foff[0] = 0;
    for (int f = 0; f < p->nf; f++) {
        int off = s->foff[s->nf];
        for (int i = p->foff[f]; i < p->foff[f + 1]; i++)
            s->fv[off++] = s->nv + p->fv[i];
        s->fdom[s->nf] = p->fdom[f];
        s->fpiece[s->nf] = s->np;
        s->foff[++s->nf] = off;
    }
    s->nv += p->nv;
    memcpy(s->pshift + 3 * s->np, g, 3 * sizeof(int));
    s->pgrain[s->np++] = k;
    return 0;
}

/* Faces of p (lattice box g) lying wholly on one of its periodic box
 * planes (a cell touching a plane after the snap) become box faces. */
static void tag_plane_faces(mesh_cpoly *p, const int g[3], const rve_tess *t)
{
    for (int f = 0; f < p->nf; f++)
        for (int a = 0; a < 3 && p->fdom[f] < 0; a++) {
            if (!t->periodic[a])
                continue;
            for (int side = 0; side < 2; side++) {
                double P = mesh_periodic_plane(t, a, g[a] + side);
                int on = 1;
                for (int i = p->foff[f]; i < p->foff[f + 1] && on; i++)
                    on = p->v[3 * p->fv[i] + a] == P;
                if (on)
                    p->fdom[f] = 2 * a + side;
            }
        }
}

/* Cut cell k (vertices cv, snapped) into the lattice boxes it meets; the
 * pieces go to s. */
static int cut_cell(const rve_tess *t, int k, const double *cv, pieces *s, mesh_cpoly buf[2], double eps)
{
    const rve_tess_poly *c = &t->cells[k];
    int gmin[3], gmax[3];
    for (int a = 0; a < 3; a++) {
        double mn = INFINITY, mx = -INFINITY, L = t->hi[a] - t->lo[a];
        for (int i = 0; i < c->nv; i++) {
            mn = fmin(mn, cv[3 * i + a]);
            mx = fmax(mx, cv[3 * i + a]);
        }
        gmin[a] = gmax[a] = 0;
        if (t->periodic[a]) {
            /* boxes the cell has volume in: a cell touching a plane from
             * one side (a snapped vertex) does not cross it */
            gmin[a] = (int)floor((mn - t->lo[a]) / L);
            gmax[a] = (int)floor((mx - t->lo[a]) / L);
            if (mesh_periodic_plane(t, a, gmin[a] + 1) <= mn)
                gmin[a]++;
            else if (mesh_periodic_plane(t, a, gmin[a]) > mn)
                gmin[a]--;
            if (mesh_periodic_plane(t, a, gmax[a]) >= mx)
                gmax[a]--;
            else if (mesh_periodic_plane(t, a, gmax[a] + 1) < mx)
                gmax[a]++;
        }
        if (gmax[a] - gmin[a] > 4)
            return -2; /* a cell wider than the box: refused by the caller */
    }
    int g[3];
    for (g[0] = gmin[0]; g[0] <= gmax[0]; g[0]++)
        for (g[1] = gmin[1]; g[1] <= gmax[1]; g[1]++)
            for (g[2] = gmin[2]; g[2] <= gmax[2]; g[2]++) {
                mesh_cpoly *cur = &buf[0], *nxt = &buf[1];
                if (mesh_cpoly_reserve(cur, c->nv, c->nf, c->nfv) != 0)
                    return -1;
                memcpy(cur->v, cv, (size_t)(3 * c->nv) * sizeof(double));
                memcpy(cur->foff, c->foff, (size_t)(c->nf + 1) * sizeof(int));
                memcpy(cur->fv, c->floop, (size_t)c->nfv * sizeof(int));
                for (int f = 0; f < c->nf; f++)
                    cur->fdom[f] = c->fnbr[f] < 0 ? -c->fnbr[f] - 1 : -1;
                cur->nv = c->nv;
                cur->nf = c->nf;
                cur->nfv = c->nfv;
                for (int a = 0; a < 3 && cur->nf > 0; a++)
                    for (int side = 0; side < 2 && cur->nf > 0; side++) {
                        int gk = g[a] + side;
                        if ((side == 0 && g[a] == gmin[a]) || (side == 1 && g[a] == gmax[a]))
                            continue; /* the cell does not cross this plane */
                        double P = mesh_periodic_plane(t, a, gk);
                        int rc = mesh_cpoly_clip(cur, nxt, a, P, side == 0, 2 * a + side);
                        if (rc != 0)
                            return rc;
                        mesh_cpoly *x = cur;
                        cur = nxt;
                        nxt = x;
                    }
                tag_plane_faces(cur, g, t);
                if (cur->nf > 0 && pieces_add(s, cur, k, g, t, eps) != 0)
                    return -1;
            }
    return 0;
}

/* --------------------------------------------------- merging the vertices */
/* Map every piece vertex to a merged vertex: vid[i] in [0, *nout), with
 * coordinates *vout and (class, mask) in vcls / vmask; (*vcm)[8 class + mask]
 * is the merged vertex of a class and mask (-1 if none). */
static rve_status merge_vertices(const rve_tess *t, const pieces *s, double eps, int *vid,
                                 double **vout, int **vcls, unsigned char **vmask, int **vcm,
                                 int *nout, rve_err *err)
{
    mesh_vmerge m;
    int vm_rc = mesh_vmerge_init(&m, (size_t)s->nv);
    int *cm = NULL; /* 8 per class: merged vertex of each mask */
    int *ccls = malloc(((size_t)s->nv + 1) * sizeof *ccls);
    unsigned char *cmask = malloc((size_t)s->nv + 1);
    double *v = malloc((3 * (size_t)s->nv + 1) * sizeof *v);
    rve_status st = RVE_OK;
    if (vm_rc != 0 || !ccls || !cmask || !v) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    int *cls = vid; /* classes first, merged ids after */
    unsigned char *mask = cmask;
    for (int i = 0; i < s->nv; i++) {
        double x[3];
        v3_copy(x, s->v + 3 * i);
        mask[i] = 0;
        for (int a = 0; a < 3; a++)
            if (t->periodic[a] && x[a] == t->hi[a]) {
                mask[i] |= (unsigned char)(1u << a);
                x[a] = t->lo[a];
            }
        cls[i] = mesh_vmerge_find(&m, x, 2 * eps, eps);
    }
    cm = malloc((8 * (size_t)m.ncls + 1) * sizeof *cm);
    if (!cm) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < 8 * (size_t)m.ncls; i++)
        cm[i] = -1;
    int n = 0;
    for (int i = 0; i < s->nv; i++) {
        int *slot = cm + 8 * cls[i] + mask[i];
        if (*slot < 0) {
            *slot = n;
            ccls[n] = cls[i];
            cmask[n] = mask[i]; /* n <= i: the entry i is read before being overwritten */
            double *x = v + 3 * n;
            v3_copy(x, m.rep + 3 * cls[i]);
            for (int a = 0; a < 3; a++)
                if (mask[i] >> a & 1)
                    x[a] = t->hi[a];
            n++;
        }
        vid[i] = *slot;
    }
    *nout = n;
    *vout = v;
    *vcls = ccls;
    *vmask = cmask;
    *vcm = cm;
    cm = NULL;
    v = NULL;
    ccls = NULL;
    cmask = NULL;
done:
    mesh_vmerge_free(&m);
    free(cm);
    free(ccls);
    free(cmask);
    free(v);
    return st;
}

/* ------------------------------------------------------ faces of the complex */

/* Hash of the vertex set ids[0..n) (sorted into tmp). */
static uint64_t set_hash(const int *ids, int n, int *tmp)
{
    memcpy(tmp, ids, (size_t)n * sizeof *tmp);
    qsort(tmp, (size_t)n, sizeof *tmp, mesh_int_cmp);
    uint64_t h = 1469598103934665603ull ^ (uint64_t)n;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint64_t)(uint32_t)tmp[i]) * 1099511628211ull;
    return h;
}

static int same_set(const int *a, int na, const int *b, int nb, int *t1, int *t2)
{
    if (na != nb)
        return 0;
    set_hash(a, na, t1);
    set_hash(b, nb, t2);
    return memcmp(t1, t2, (size_t)na * sizeof *t1) == 0;
}

/* Loops of the piece faces in merged vertices, in place (a loop never
 * grows), consecutive repeats dropped (vertices merged within the
 * tolerance); a face left with < 3 vertices gets domain -100 (dropped). */
static void merged_loops(pieces *s, const int *vid)
{
    int w = 0, a0 = 0;
    for (int f = 0; f < s->nf; f++) {
        int a1 = s->foff[f + 1], start = w;
        for (int i = a0; i < a1; i++) {
            int x = vid[s->fv[i]];
            if (w > start && s->fv[w - 1] == x)
                continue;
            s->fv[w++] = x;
        }
        while (w - start > 1 && s->fv[w - 1] == s->fv[start])
            w--;
        if (w - start < 3) {
            w = start;
            s->fdom[f] = -100;
        }
        s->foff[f] = start;
        a0 = a1; /* the next face's old start (foff[f + 1] is rewritten next) */
        s->foff[f + 1] = w;
    }
}

/* Pair the interior piece faces (each is seen from its two pieces) into
 * complex faces; box faces stay single.  fc / fsrc receive, per complex
 * face, the two pieces (-1 on the box) and the piece face it takes its loop
 * from. */
static rve_status pair_faces(const pieces *s, int *fsrc, int *fc, int *nf_out, rve_err *err)
{
    mesh_key *k = malloc(((size_t)s->nf + 1) * sizeof *k);
    int maxn = 3;
    for (int f = 0; f < s->nf; f++)
        if (s->foff[f + 1] - s->foff[f] > maxn)
            maxn = s->foff[f + 1] - s->foff[f];
    int *t1 = malloc((size_t)maxn * sizeof *t1), *t2 = malloc((size_t)maxn * sizeof *t2);
    char *used = calloc((size_t)s->nf + 1, 1);
    if (!k || !t1 || !t2 || !used) {
        free(k);
        free(t1);
        free(t2);
        free(used);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    int nk = 0, nf = 0;
    rve_status st = RVE_OK;
    for (int f = 0; f < s->nf; f++) {
        if (s->fdom[f] == -1) {
            k[nk].k = set_hash(s->fv + s->foff[f], s->foff[f + 1] - s->foff[f], t1);
            k[nk++].i = f;
        } else if (s->fdom[f] >= 0) {
            fsrc[nf] = f;
            fc[2 * nf] = s->fpiece[f];
            fc[2 * nf + 1] = -1;
            nf++;
        }
    }
    qsort(k, (size_t)nk, sizeof *k, mesh_key_cmp);
    for (int i = 0; i < nk && st == RVE_OK; i++) {
        int f = k[i].i;
        if (used[f])
            continue;
        int g = -1;
        for (int j = i + 1; j < nk && k[j].k == k[i].k && g < 0; j++) {
            int h = k[j].i;
            if (!used[h] && same_set(s->fv + s->foff[f], s->foff[f + 1] - s->foff[f],
                                     s->fv + s->foff[h], s->foff[h + 1] - s->foff[h], t1, t2))
                g = h;
        }
        if (g < 0) {
            st = rve_err_set(err, RVE_EINTERNAL, NULL,
                             "periodic cut: a face of a piece of cell %d has no match on the other side",
                             s->pgrain[s->fpiece[f]] + 1);
            break;
        }
        used[f] = used[g] = 1;
        fsrc[nf] = f;
        fc[2 * nf] = s->fpiece[f];
        fc[2 * nf + 1] = s->fpiece[g];
        nf++;
    }
    *nf_out = nf;
    free(k);
    free(t1);
    free(t2);
    free(used);
    return st;
}

/* Partner of every face on an upper box face: the face on the lower one
 * whose vertices are its vertices' canonical copies (fper, both ways). */
static rve_status match_partners(const rve_cx *c, const int *vcls, const unsigned char *vmask,
                                 const int *vcm, const int periodic[3], rve_err *err)
{
    int maxn = 3;
    for (int f = 0; f < c->nf; f++)
        if (c->foff[f + 1] - c->foff[f] > maxn)
            maxn = c->foff[f + 1] - c->foff[f];
    mesh_key *k = malloc(((size_t)c->nf + 1) * sizeof *k);
    int *p = malloc((size_t)maxn * sizeof *p), *t1 = malloc((size_t)maxn * sizeof *t1),
        *t2 = malloc((size_t)maxn * sizeof *t2);
    rve_status st = RVE_OK;
    if (!k || !p || !t1 || !t2) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (int f = 0; f < c->nf; f++)
        c->fper[f] = -1;
    for (int a = 0; a < 3 && st == RVE_OK; a++) {
        if (!periodic[a])
            continue;
        int nk = 0;
        for (int f = 0; f < c->nf; f++)
            if (c->fdom[f] == 2 * a) {
                k[nk].k = set_hash(c->fv + c->foff[f], c->foff[f + 1] - c->foff[f], t1);
                k[nk++].i = f;
            }
        qsort(k, (size_t)nk, sizeof *k, mesh_key_cmp);
        for (int f = 0; f < c->nf && st == RVE_OK; f++) {
            if (c->fdom[f] != 2 * a + 1)
                continue;
            int n = c->foff[f + 1] - c->foff[f], ok = 1;
            for (int i = 0; i < n && ok; i++) {
                int v = c->fv[c->foff[f] + i];
                p[i] = vcm[8 * vcls[v] + (vmask[v] & ~(1 << a))];
                ok = p[i] >= 0;
            }
            uint64_t h = ok ? set_hash(p, n, t1) : 0;
            int lo = 0, hi = nk, g = -1;
            while (ok && lo < hi) { /* first key >= h */
                int mid = (lo + hi) / 2;
                if (k[mid].k < h)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            for (int j = lo; ok && j < nk && k[j].k == h && g < 0; j++) {
                int q = k[j].i;
                if (same_set(p, n, c->fv + c->foff[q], c->foff[q + 1] - c->foff[q], t1, t2))
                    g = q;
            }
            if (g < 0 || c->fper[g] >= 0)
                st = rve_err_set(err, RVE_EINTERNAL, NULL,
                                 "periodic cut: a face on the upper %c face has no translate on the lower one",
                                 "xyz"[a]);
            else {
                c->fper[f] = g;
                c->fper[g] = f;
            }
        }
    }
done:
    free(k);
    free(p);
    free(t1);
    free(t2);
    return st;
}

/* Drop the merged vertices no face uses (their faces degenerated). */
static rve_status compact_vertices(rve_cx *c, rve_err *err)
{
    int *nid = malloc(((size_t)c->nv + 1) * sizeof *nid);
    if (!nid)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int i = 0; i < c->nv; i++)
        nid[i] = -1;
    for (int i = 0; i < c->foff[c->nf]; i++)
        nid[c->fv[i]] = 0;
    int n = 0;
    for (int i = 0; i < c->nv; i++)
        if (nid[i] == 0) {
            nid[i] = n;
            memmove(c->v + 3 * n, c->v + 3 * i, 3 * sizeof(double));
            n++;
        }
    for (int i = 0; i < c->foff[c->nf]; i++)
        c->fv[i] = nid[c->fv[i]];
    c->nv = n;
    free(nid);
    return RVE_OK;
}

/* The complex of the pieces: faces from pair_faces, vertices merged. */
static rve_status assemble(const rve_tess *t, const int *ids, const pieces *s, const int *fsrc,
                           const int *fc, int nf, double *v, int nv, rve_cx **out, rve_err *err)
{
    rve_cx *c = calloc(1, sizeof *c);
    if (!c) {
        free(v);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    int nfv = 0;
    for (int f = 0; f < nf; f++)
        nfv += s->foff[fsrc[f] + 1] - s->foff[fsrc[f]];
    c->nv = nv;
    c->v = v;
    c->nf = nf;
    c->nc = s->np;
    c->foff = malloc((size_t)(nf + 1) * sizeof(int));
    c->fv = malloc((size_t)(nfv + 1) * sizeof(int));
    c->fpt = malloc((size_t)(3 * nf + 1) * sizeof(double));
    c->fflat = malloc((size_t)(nf + 1) * sizeof(int));
    c->fc = malloc((size_t)(2 * nf + 1) * sizeof(int));
    c->fdom = malloc((size_t)(nf + 1) * sizeof(int));
    c->fper = malloc((size_t)(nf + 1) * sizeof(int));
    c->cid = malloc((size_t)(s->np + 1) * sizeof(int));
    c->ccell = malloc((size_t)(s->np + 1) * sizeof(int));
    c->cshift = malloc((size_t)(3 * s->np + 1) * sizeof(int));
    if (!c->foff || !c->fv || !c->fpt || !c->fflat || !c->fc || !c->fdom || !c->fper || !c->cid ||
        !c->ccell || !c->cshift) {
        rve_cx_free(c);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    double scale = 0;
    for (int a = 0; a < 3; a++)
        scale = fmax(scale, t->hi[a] - t->lo[a]);
    int w = 0;
    for (int f = 0; f < nf; f++) {
        int g = fsrc[f];
        c->foff[f] = w;
        for (int i = s->foff[g]; i < s->foff[g + 1]; i++)
            c->fv[w++] = s->fv[i];
        c->fc[2 * f] = fc[2 * f];
        c->fc[2 * f + 1] = fc[2 * f + 1];
        c->fdom[f] = fc[2 * f + 1] < 0 ? s->fdom[g] : -1;
    }
    c->foff[nf] = w;
    for (int f = 0; f < nf; f++) {
        rve_cx_face_centre(c, f, c->fpt + 3 * f);
        /* planar within rounding (a cut of a planar face): one plane surface;
         * box faces are planar exactly */
        double n[3], dev = 0;
        rve_cx_face_normal(c, f, n);
        double a2 = v3_normalize(n);
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++) {
            double d[3];
            v3_sub(d, c->v + 3 * c->fv[i], c->fpt + 3 * f);
            dev = fmax(dev, fabs(v3_dot(d, n)));
        }
        c->fflat[f] = c->fdom[f] >= 0 || (a2 > 0 && dev <= 1e-9 * scale);
    }
    for (int k = 0; k < s->np; k++)
        c->cid[k] = ids ? ids[s->pgrain[k]] : s->pgrain[k] + 1;
    memcpy(c->ccell, s->pgrain, (size_t)s->np * sizeof(int));
    memcpy(c->cshift, s->pshift, (size_t)(3 * s->np) * sizeof(int));
    c->ndom = 6;
    for (int k = 0; k < 6; k++) {
        double *d = c->dom + 4 * k;
        int ax = k / 2, hi = k % 2;
        d[0] = d[1] = d[2] = 0;
        d[ax] = hi ? 1 : -1;
        d[3] = hi ? t->hi[ax] : -t->lo[ax];
    }
    for (int a = 0; a < 3; a++) {
        c->dom_lo[a] = t->lo[a];
        c->dom_hi[a] = t->hi[a];
        c->periodic[a] = t->periodic[a] != 0;
    }
    *out = c;
    return RVE_OK;
}

rve_status rve_cx_from_periodic(const rve_tess *t, const int *ids, double snap, rve_cx **out,
                                int *nsnap, rve_err *err)
{
    *out = NULL;
    double scale = 0;
    for (int a = 0; a < 3; a++)
        scale = fmax(scale, t->hi[a] - t->lo[a]);
    /* far above the rounding of voro++'s vertices, far below any real edge */
    double eps = 1e-9 * scale;
    pieces s = {0};
    mesh_cpoly buf[2] = {{0}, {0}};
    rve_status st = RVE_OK;
    double *sv = NULL;
    size_t *off = NULL;
    int ns = 0;
    if (mesh_periodic_snap(t, snap, eps, &sv, &off, &ns) != 0)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (nsnap)
        *nsnap = ns;
    for (int k = 0; k < t->n && st == RVE_OK; k++) {
        if (t->cells[k].nv == 0)
            continue;
        int rc = cut_cell(t, k, sv + 3 * off[k], &s, buf, eps);
        if (rc == -1)
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        else if (rc != 0)
            st = rve_err_set(err, RVE_EDATA, NULL,
                             "cell %d is too large or complex to be cut by the periodic box", k + 1);
    }
    mesh_cpoly_free(&buf[0]);
    mesh_cpoly_free(&buf[1]);
    free(sv);
    free(off);
    int *vid = NULL, *vcls = NULL, *vcm = NULL, *fsrc = NULL, *fc = NULL, nv = 0, nf = 0;
    unsigned char *vmask = NULL;
    double *v = NULL;
    rve_cx *c = NULL;
    if (st == RVE_OK && s.np == 0)
        st = rve_err_set(err, RVE_EDATA, NULL, "the tessellation has no cell");
    if (st == RVE_OK) {
        vid = malloc(((size_t)s.nv + 1) * sizeof *vid);
        fsrc = malloc(((size_t)s.nf + 1) * sizeof *fsrc);
        fc = malloc((2 * (size_t)s.nf + 1) * sizeof *fc);
        if (!vid || !fsrc || !fc)
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    if (st == RVE_OK)
        st = merge_vertices(t, &s, eps, vid, &v, &vcls, &vmask, &vcm, &nv, err);
    if (st == RVE_OK) {
        merged_loops(&s, vid);
        st = pair_faces(&s, fsrc, fc, &nf, err);
    }
    if (st == RVE_OK) {
        st = assemble(t, ids, &s, fsrc, fc, nf, v, nv, &c, err);
        v = NULL; /* owned by c (or freed with it) */
    }
    if (st == RVE_OK)
        st = match_partners(c, vcls, vmask, vcm, t->periodic, err);
    if (st == RVE_OK)
        st = compact_vertices(c, err);
    if (st != RVE_OK) {
        rve_cx_free(c);
        c = NULL;
    }
    free(v);
    free(vid);
    free(vcls);
    free(vmask);
    free(vcm);
    free(fsrc);
    free(fc);
    pieces_free(&s);
    *out = c;
    return st;
}


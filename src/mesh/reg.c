/* reg.c - regularisation of a polyhedral complex: short-edge collapse with
 * least-squares vertex placement (Montanari 2017, Sec. 6.3.2, Eq. 6.6). */
#include "config.h"
#include "mesh/reg_state.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>


void rve_reg_opts_default(rve_reg_opts *o)
{
    o->rsel = 1;
    o->length = 0;
    o->max_angle = 20;
    o->max_passes = 20;
    o->remove_small_cells = 0;
    o->min_angle = 12;
    o->map = NULL;
    o->ids = NULL;
    o->box_snap = 0;
    o->box_shift = 1;
    o->progress = NULL;
    o->progress_ctx = NULL;
}

/* ----------------------------------------------------------------- heap */
typedef struct {
    double len;
    int a, b;
} hent;

typedef struct {
    hent *h;
    size_t n, cap;
} heap;

static int heap_push(heap *q, double len, int a, int b)
{
    if (q->n == q->cap) {
        size_t cap = q->cap ? 2 * q->cap : 256;
        hent *h = realloc(q->h, cap * sizeof *h);
        if (!h)
            return -1;
        q->h = h;
        q->cap = cap;
    }
    size_t i = q->n++;
    while (i > 0) {
        size_t p = (i - 1) / 2;
        if (q->h[p].len <= len)
            break;
        q->h[i] = q->h[p];
        i = p;
    }
    q->h[i].len = len;
    q->h[i].a = a;
    q->h[i].b = b;
    return 0;
}

static hent heap_pop(heap *q)
{
    hent top = q->h[0], last = q->h[--q->n];
    size_t i = 0;
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= q->n)
            break;
        if (c + 1 < q->n && q->h[c + 1].len < q->h[c].len)
            c++;
        if (q->h[c].len >= last.len)
            break;
        q->h[i] = q->h[c];
        i = c;
    }
    if (q->n)
        q->h[i] = last;
    return top;
}


static int push_vertex_edges(reg *r, heap *q, int a)
{
    const rve_cx *c = r->c;
    for (int i = 0; i < r->vf[a].n; i++) {
        int f = r->vf[a].a[i], a0 = c->foff[f], n = r->flen[f];
        for (int j = 0; j < n; j++) {
            if (c->fv[a0 + j] != a)
                continue;
            int nb[2] = {c->fv[a0 + (j + 1) % n], c->fv[a0 + (j + n - 1) % n]};
            for (int s = 0; s < 2; s++) {
                double L = reg_elen(r, a, nb[s]);
                if (L < r->threshold && a < nb[s])
                    if (heap_push(q, L, a, nb[s]))
                        return -1;
                if (L < r->threshold && nb[s] < a)
                    if (heap_push(q, L, nb[s], a))
                        return -1;
            }
        }
    }
    return 0;
}

typedef struct {
    double v;
    int k;
} volidx;

static int cmp_volidx(const void *x, const void *y)
{
    const volidx *a = x, *b = y;
    return a->v < b->v ? -1 : a->v > b->v ? 1 : a->k - b->k;
}


#define NOMEM(err) rve_err_set(err, RVE_ENOMEM, NULL, "out of memory")

/* Incidence of the complex (vertex -> faces, cell -> faces), the box planes
 * of each vertex (snapped exactly onto them) and the periodic links. */
static rve_status reg_setup(reg *r, rve_cx *c, rve_err *err)
{
    r->c = c;
    r->flen = malloc((size_t)c->nf * sizeof(int) + 1);
    r->mask = calloc((size_t)c->nv + 1, sizeof(unsigned));
    r->valive = calloc((size_t)c->nv + 1, sizeof(int));
    r->vf = calloc((size_t)c->nv + 1, sizeof(ilist));
    r->coff = calloc((size_t)c->nc + 1, sizeof(int));
    r->cfac = malloc(((size_t)c->nf * 2 + 1) * sizeof(int));
    if (!r->flen || !r->plane0 || !r->mask || !r->valive || !r->vf || !r->coff || !r->cfac)
        return NOMEM(err);
    for (int f = 0; f < c->nf; f++) {
        r->flen[f] = c->foff[f + 1] - c->foff[f];
        for (int i = c->foff[f]; i < c->foff[f + 1]; i++) {
            int v = c->fv[i];
            r->valive[v] = 1;
            if (c->fdom[f] >= 0)
                r->mask[v] |= 1u << c->fdom[f];
            if (il_push(&r->vf[v], f))
                return NOMEM(err);
        }
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0)
                r->coff[c->fc[2 * f + s] + 1]++;
    }
    for (int k = 0; k < c->nc; k++)
        r->coff[k + 1] += r->coff[k];
    int *pos = malloc(((size_t)c->nc + 1) * sizeof(int));
    if (!pos)
        return NOMEM(err);
    memcpy(pos, r->coff, ((size_t)c->nc + 1) * sizeof(int));
    for (int f = 0; f < c->nf; f++)
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0)
                r->cfac[pos[c->fc[2 * f + s]]++] = f;
    free(pos);
    /* vertices on the domain faces lie exactly on them */
    for (int v = 0; v < c->nv; v++)
        for (int k = 0; k < c->ndom; k++)
            if (r->mask[v] & (1u << k))
                reg_snap_plane(c->dom + 4 * k, c->v + 3 * v);
    return reg_frozen_links(r) != 0 ? NOMEM(err) : RVE_OK;
}

static int push_all(reg *r, heap *q)
{
    for (int v = 0; v < r->c->nv; v++)
        if (r->valive[v] && push_vertex_edges(r, q, v))
            return -1;
    return 0;
}

/* Cells (or, on a periodic box complex, pieces of a grain with another
 * piece at least that large) smaller than a cube of the threshold, merged
 * into one vertex each, smallest first, when the checks allow it.  Cells:
 * only on request (remove_small; their grains vanish); pieces: always
 * (caps a cell sticks through a box face with: the grain keeps its body). */
static rve_status remove_tiny(reg *r, heap *q, int remove_small, rve_reg_report *rep, rve_err *err)
{
    rve_cx *c = r->c;
    double tiny = r->threshold * r->threshold * r->threshold;
    double *vol = malloc(((size_t)c->nc + 1) * sizeof(double));
    double *big = malloc(((size_t)c->nc + 1) * sizeof(double)); /* per cell: largest piece */
    volidx *vi = malloc(((size_t)c->nc + 1) * sizeof *vi);
    rve_status st = RVE_OK;
    if (!vol || !big || !vi || reg_cell_volumes(c, r->flen, vol) != 0) {
        st = NOMEM(err);
        goto out;
    }
    for (int k = 0; k < c->nc; k++)
        big[k] = 0;
    for (int k = 0; k < c->nc && c->ccell; k++)
        big[c->ccell[k]] = fmax(big[c->ccell[k]], vol[k]);
    int nsmall = 0;
    for (int k = 0; k < c->nc; k++) {
        int piece = c->ccell && big[c->ccell[k]] >= tiny;
        if (vol[k] > 0 && vol[k] < tiny && (piece || remove_small)) {
            vi[nsmall].v = vol[k];
            vi[nsmall++].k = k;
        }
    }
    qsort(vi, (size_t)nsmall, sizeof *vi, cmp_volidx);
    for (int i = 0; i < nsmall && st == RVE_OK; i++) {
        int k = vi[i].k, kept = -1, res;
        if (c->ccell && big[c->ccell[k]] >= tiny) {
            res = reg_delete_piece(r, k);
            if (res == -2)
                st = rve_err_set(err, RVE_EINTERNAL, NULL,
                                 "regularisation: a periodic copy of a piece deletion failed after the others");
            rep->pieces_removed += res > 0; /* edges pushed after all deletions */
        } else {
            res = reg_try_delete_cell(r, k, &kept);
            if (res > 0 && push_vertex_edges(r, q, kept))
                res = -1;
            rep->cells_removed += res > 0;
        }
        if (res == -1)
            st = NOMEM(err);
    }
out:
    free(vol);
    free(big);
    free(vi);
    return st;
}

/* Collapse the short edges in the heap, shortest first; refused ones are
 * tried again in the next pass while a pass does something. */
static rve_status collapse_passes(reg *r, heap *q, int max_passes, rve_reg_report *rep, rve_err *err)
{
    rve_cx *c = r->c;
    ilist refused = {NULL, 0, 0};
    rve_status st = RVE_OK;
    for (int pass = 0; pass < max_passes && st == RVE_OK; pass++) {
        size_t done = 0;
        refused.n = 0;
        size_t guard = 0, cap = 100 * ((size_t)c->foff[c->nf] + 100);
        while (q->n > 0 && st == RVE_OK) {
            if (++guard > cap) {
                st = rve_err_set(err, RVE_ECAP, NULL, "regularisation: iteration cap reached");
                break;
            }
            hent e = heap_pop(q);
            if (!r->valive[e.a] || !r->valive[e.b] || reg_elen(r, e.a, e.b) != e.len ||
                !reg_edge_exists(r, e.a, e.b))
                continue;
            /* keep the vertex with the larger constraint set */
            int a = e.a, b = e.b;
            if ((r->mask[b] | r->mask[a]) == r->mask[b] && r->mask[b] != r->mask[a]) {
                a = e.b;
                b = e.a;
            }
            int copies[8], ncopies = 0;
            int res = reg_collapse_any(r, a, b, copies, &ncopies);
            if (res == -2) {
                st = rve_err_set(err, RVE_EINTERNAL, NULL,
                                 "regularisation: a periodic copy of a collapse failed after the others");
                break;
            }
            for (int i = 0; res >= 0 && i < ncopies; i++)
                if (push_vertex_edges(r, q, copies[i]))
                    res = -1;
            if (res == 0 && (il_push(&refused, e.a) || il_push(&refused, e.b)))
                res = -1;
            if (res == 1) {
                done++;
                rep->removed++;
                if (push_vertex_edges(r, q, a))
                    res = -1;
            }
            if (res < 0)
                st = NOMEM(err);
        }
        rep->passes++;
        if (done == 0 || st != RVE_OK)
            break;
        for (int i = 0; i + 1 < refused.n; i += 2) {
            int x = refused.a[i], y = refused.a[i + 1];
            if (r->valive[x] && r->valive[y] && heap_push(q, reg_elen(r, x, y), x, y)) {
                st = NOMEM(err);
                break;
            }
        }
    }
    free(refused.a);
    return st;
}

/* Drop the dead faces (periodic partners renumbered: a face and its
 * translate die together) and the dead vertices. */
static rve_status compact(reg *r, rve_err *err)
{
    rve_cx *c = r->c;
    int k = 0, nf = 0;
    int *off = malloc(((size_t)c->nf + 1) * sizeof(int));
    int *fmap = malloc(((size_t)c->nf + 1) * sizeof(int));
    int *map = malloc(((size_t)c->nv + 1) * sizeof(int));
    if (!off || !fmap || !map) {
        free(off);
        free(fmap);
        free(map);
        return NOMEM(err);
    }
    for (int f = 0; f < c->nf; f++) {
        fmap[f] = -1; /* a dead face's partner must die too (checked below) */
        if (r->flen[f] < 3)
            continue;
        int a0 = c->foff[f];
        if (c->fper) /* old partner index now, renumbered below */
            c->fper[nf] = c->fper[f];
        fmap[f] = nf;
        off[nf] = k;
        memmove(c->fv + k, c->fv + a0, (size_t)r->flen[f] * sizeof(int));
        k += r->flen[f];
        memmove(c->fpt + 3 * nf, c->fpt + 3 * f, 3 * sizeof(double));
        c->fflat[nf] = c->fflat[f];
        c->fc[2 * nf] = c->fc[2 * f];
        c->fc[2 * nf + 1] = c->fc[2 * f + 1];
        c->fdom[nf] = c->fdom[f];
        memmove(r->plane0 + 4 * nf, r->plane0 + 4 * f, 4 * sizeof(double));
        nf++;
    }
    off[nf] = k;
    memcpy(c->foff, off, ((size_t)nf + 1) * sizeof(int));
    rve_status st = RVE_OK;
    for (int f = 0; c->fper && f < nf; f++)
        if (c->fper[f] >= 0 && (c->fper[f] = fmap[c->fper[f]]) < 0)
            st = rve_err_set(err, RVE_EINTERNAL, NULL,
                             "regularisation removed a periodic box face but not its translate");
    c->nf = nf;
    for (int v = 0; v < c->nv; v++)
        map[v] = -1;
    for (int i = 0; i < c->foff[c->nf]; i++)
        map[c->fv[i]] = 1;
    int nv = 0;
    for (int v = 0; v < c->nv; v++)
        if (map[v] >= 0) {
            map[v] = nv;
            memmove(c->v + 3 * nv, c->v + 3 * v, 3 * sizeof(double));
            nv++;
        }
    for (int i = 0; i < c->foff[c->nf]; i++)
        c->fv[i] = map[c->fv[i]];
    c->nv = nv;
    free(off);
    free(fmap);
    free(map);
    return st;
}

/* Face points (vertex means) and the largest bend of a non-planar face. */
static double face_points(reg *r)
{
    rve_cx *c = r->c;
    double maxbend = 0;
    for (int f = 0; f < c->nf; f++) {
        int n = c->foff[f + 1] - c->foff[f];
        reg_fan_centre(r, f, c->fv + c->foff[f], n, -1, NULL, c->fpt + 3 * f);
        if (c->fflat[f])
            continue;
        double ctr[3];
        double mc = reg_loop_min_cos(r, f, c->fv + c->foff[f], n, -1, NULL, ctr);
        double ang = acos(mc > 1 ? 1 : mc < -1 ? -1 : mc) * 180.0 / PI;
        if (ang > maxbend)
            maxbend = ang;
    }
    return maxbend;
}

static void reg_free(reg *r, int nv0)
{
    free(r->flen);
    free(r->mask);
    free(r->valive);
    if (r->vf)
        for (int v = 0; v < nv0; v++)
            free(r->vf[v].a);
    free(r->vf);
    free(r->coff);
    free(r->cfac);
    free(r->F.a);
    free(r->cells.a);
    free(r->tmp.a);
    free(r->newloop);
    free(r->nloff);
    free(r->fw);
    free(r->plink);
}

rve_status rve_cx_reg(rve_cx *c, double *plane0, double threshold, double max_angle,
                      int max_passes, int remove_small, int stretch, rve_reg_report *rep, rve_err *err)
{
    memset(rep, 0, sizeof *rep);
    rep->threshold = threshold;
    reg_histogram(c, NULL, threshold, rep->hist_before, &rep->edges_before, &rep->short_before,
                  &rep->min_before);
    reg r;
    memset(&r, 0, sizeof r);
    int nv0 = c->nv;
    r.threshold = threshold;
    r.cos_max = cos(max_angle * PI / 180.0);
    r.plane0 = plane0; /* compacted with the faces */
    heap q = {NULL, 0, 0};
    rve_status st = reg_setup(&r, c, err);
    /* Two rounds: regularisation shrinks some cells below the size at which
     * they are removed, and removing cells leaves new short edges. */
    int rounds = remove_small || c->fper ? 2 : 1;
    for (int round = 0; round < rounds && st == RVE_OK; round++) {
        if (remove_small || c->fper)
            st = remove_tiny(&r, &q, remove_small, rep, err);
        if (st == RVE_OK && push_all(&r, &q))
            st = NOMEM(err);
        if (st == RVE_OK)
            st = collapse_passes(&r, &q, max_passes, rep, err);
    }
    if (st == RVE_OK && c->fper && stretch) { /* the short edges no collapse removed, lengthened */
        int ns = reg_stretch_short(&r);
        if (ns == -2)
            st = rve_err_set(err, RVE_EINTERNAL, NULL,
                             "regularisation: a periodic copy of a move failed after the others");
        else if (ns < 0)
            st = NOMEM(err);
        else
            rep->stretched = (size_t)ns;
    }
    if (st == RVE_OK)
        st = compact(&r, err);
    if (st == RVE_OK) {
        rep->max_bend = face_points(&r);
        if (rve_cx_reg_measure(c, threshold, rep) != 0)
            st = NOMEM(err);
    }
    reg_free(&r, nv0);
    free(q.h);
    return st;
}

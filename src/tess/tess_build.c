/* tess_build.c - the rve_tess of a .tess file read by tess_read.c:
 * topology straight from the file when not periodic; rebuilt from the seeds
 * and checked against the file's vertices when periodic; the entry points
 * rve_tess_read_tess(_mem). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "tess/tess_read.h"
#include "util/vec3.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------- non-periodic build */

/* Neper writes, for some regularised faces, the edge list rotated against
 * the vertex list (its reader matches them by content); rotate it back so
 * that edge k joins vertices k and k+1, or fail when no rotation fits. */
static int align_face_edges(lexer *L, tess_file *F)
{
    int *tmp = NULL;
    size_t cap = 0;
    for (int g = 0; g < F->nface; g++) {
        int a0 = F->fvoff[g], m = F->fvoff[g + 1] - a0, *fe = F->fedge + a0, *fv = F->fver + a0;
        int found = -1;
        for (int s = 0; s < m && found < 0; s++) {
            int ok = 1;
            for (int k = 0; k < m && ok; k++) {
                int se = fe[(k + m - s) % m], e = abs(se) - 1;
                int x = F->edge_ver[2 * e + (se > 0 ? 0 : 1)], y = F->edge_ver[2 * e + (se > 0 ? 1 : 0)];
                ok = x == fv[k] && y == fv[(k + 1) % m];
            }
            if (ok) found = s;
        }
        if (found < 0) {
            free(tmp);
            char m2[120];
            snprintf(m2, sizeof m2, "face %d: its edges do not join its vertices in order", g + 1);
            return tess_lx_fail(L, RVE_EDATA, "%s", m2);
        }
        if (found == 0) continue;
        if ((size_t)m > cap) {
            free(tmp);
            cap = (size_t)m;
            tmp = malloc(cap * sizeof(int));
            if (!tmp) return tess_lx_nomem(L);
        }
        for (int k = 0; k < m; k++) tmp[k] = fe[(k + m - found) % m];
        memcpy(fe, tmp, (size_t)m * sizeof(int));
    }
    free(tmp);
    return 1;
}

/* Reverse face g's loop in place (vertices, edges and their signs, plane). */
static int reverse_face(rve_tess *t, int g)
{
    int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
    for (int a = 0, b = m - 1; a < b; a++, b--) {
        int tmp = t->face_ver[a0 + a];
        t->face_ver[a0 + a] = t->face_ver[a0 + b];
        t->face_ver[a0 + b] = tmp;
    }
    /* edge k joins k and k+1: after reversal, edge k is the old edge m-2-k */
    int *ne = malloc(sizeof(int) * (size_t)m);
    signed char *ns = malloc((size_t)m);
    if (!ne || !ns) {
        free(ne);
        free(ns);
        return 0;
    }
    for (int k = 0; k < m; k++) {
        int old = ((m - 2 - k) % m + m) % m;
        ne[k] = t->face_edge[a0 + old];
        ns[k] = (signed char)-t->face_esign[a0 + old];
    }
    memcpy(t->face_edge + a0, ne, sizeof(int) * (size_t)m);
    memcpy(t->face_esign + a0, ns, (size_t)m);
    free(ne);
    free(ns);
    for (int a = 0; a < 4; a++) t->face_plane[4 * g + a] = -t->face_plane[4 * g + a];
    return 1;
}

/* Which wall a boundary face lies on (0: none). */
static int face_wall(const rve_tess *t, int g)
{
    const double *pl = t->face_plane + 4 * g;
    for (int a = 0; a < 3; a++) {
        if (fabs(pl[a]) > 1 - 1e-9) {
            double ext = t->hi[a] - t->lo[a];
            if (pl[a] < 0 && fabs(-pl[3] - t->lo[a]) <= 1e-9 * ext) return -(2 * a + 1);
            if (pl[a] > 0 && fabs(pl[3] - t->hi[a]) <= 1e-9 * ext) return -(2 * a + 2);
        }
    }
    return 0;
}

/* Level 2 vertices, edges and faces from F (arrays taken over), planes
 * normalised, the cells of each face from the polyhedra (a face only used
 * inward is turned over; a face with one cell gets its wall). */
static int build_faces(lexer *L, tess_file *F, rve_tess *t)
{
    int nface = F->nface, nfl = F->fvoff[nface];
    t->nver = F->nver;
    t->ver = F->ver, F->ver = NULL;
    t->ver_state = F->ver_state, F->ver_state = NULL;
    t->nedge = F->nedge;
    t->edge_ver = F->edge_ver, F->edge_ver = NULL;
    t->edge_state = F->edge_state, F->edge_state = NULL;
    t->nface = nface;
    t->face_voff = F->fvoff, F->fvoff = NULL;
    t->face_ver = F->fver, F->fver = NULL;
    t->face_state = F->fstate, F->fstate = NULL;
    t->face_pt = F->fpt, F->fpt = NULL;
    t->face_ptxyz = F->fptxyz, F->fptxyz = NULL;
    t->face_plane = F->fplane, F->fplane = NULL;
    LX_ALLOC(L, t->face_edge, nfl);
    LX_ALLOC(L, t->face_esign, nfl);
    for (int k = 0; k < nfl; k++) {
        t->face_edge[k] = abs(F->fedge[k]) - 1;
        t->face_esign[k] = (signed char)(F->fedge[k] > 0 ? 1 : -1);
    }
    for (int g = 0; g < nface; g++) {
        double *pl = t->face_plane + 4 * g;
        double nn = sqrt(pl[0] * pl[0] + pl[1] * pl[1] + pl[2] * pl[2]);
        if (!(nn > 0) || !isfinite(nn)) return tess_lx_fail(L, RVE_EDATA, "%s", "a face has a null normal");
        for (int a = 0; a < 4; a++) pl[a] /= nn;
    }
    LX_ALLOC(L, t->face_cell, 2 * (size_t)nface);
    LX_ALLOC(L, t->face_img, nface);
    for (int g = 0; g < nface; g++) t->face_cell[2 * g] = t->face_cell[2 * g + 1] = INT_MIN;
    for (int c = 0; c < F->ncell; c++)
        for (int k = F->pfoff[c]; k < F->pfoff[c + 1]; k++) {
            int g = abs(F->pfaces[k]) - 1, slot = F->pfaces[k] > 0 ? 0 : 1;
            if (t->face_cell[2 * g + slot] != INT_MIN)
                return tess_lx_fail(L, RVE_EDATA, "%s", "a face is used twice with the same orientation");
            t->face_cell[2 * g + slot] = c;
        }
    for (int g = 0; g < nface; g++) {
        int *fc = t->face_cell + 2 * g;
        if (fc[0] == INT_MIN && fc[1] == INT_MIN) return tess_lx_fail(L, RVE_EDATA, "%s", "a face belongs to no polyhedron");
        if (fc[0] == INT_MIN) { /* only used inward: flip it so that it points out of its cell */
            fc[0] = fc[1];
            fc[1] = INT_MIN;
            if (!reverse_face(t, g)) return tess_lx_nomem(L);
        }
        if (fc[1] == INT_MIN && !(fc[1] = face_wall(t, g)))
            return tess_lx_fail(L, RVE_EDATA, "%s", "a face has one polyhedron but is not on the domain boundary");
    }
    return 1;
}

/* Volume of polyhedron p (faces cell_faces[k0 ..]) with each face the fan
 * of triangles around its face point, as regularised (bent) faces are
 * meant and meshed: a thin piece with a bent face can have a positive
 * volume that the fans from a vertex (tess_poly_measure) see negative. */
static double point_fan_volume(const rve_tess *t, int k0, const rve_tess_poly *p)
{
    double vol = 0;
    for (int f = 0; f < p->nf; f++) {
        const double *q = t->face_ptxyz + 3 * (size_t)t->cell_faces[k0 + f];
        int m = p->foff[f + 1] - p->foff[f];
        for (int i = 0; i < m; i++) {
            const double *a = p->v + 3 * p->floop[p->foff[f] + i], *b = p->v + 3 * p->floop[p->foff[f] + (i + 1) % m];
            double cr[3];
            v3_cross(cr, a, b);
            vol += v3_dot(q, cr) / 6.0;
        }
    }
    return vol;
}

/* Cells' face lists, edge -> faces, and the per-cell polyhedra (level 1). */
static int build_cells(lexer *L, tess_file *F, rve_tess *t)
{
    int ncell = F->ncell, nver = t->nver, nedge = t->nedge, nfl = t->face_voff[t->nface];
    LX_ALLOC(L, t->cell_foff, ncell + 1);
    memcpy(t->cell_foff, F->pfoff, sizeof(int) * ((size_t)ncell + 1));
    int ncf = F->pfoff[ncell];
    LX_ALLOC(L, t->cell_faces, ncf);
    LX_ALLOC(L, t->cell_fsign, ncf);
    for (int c = 0; c < ncell; c++)
        for (int k = F->pfoff[c]; k < F->pfoff[c + 1]; k++) {
            int g = abs(F->pfaces[k]) - 1;
            t->cell_faces[k] = g;
            t->cell_fsign[k] = (signed char)(t->face_cell[2 * g] == c ? 1 : -1);
        }
    LX_ALLOC(L, t->edge_foff, nedge + 1);
    for (int k = 0; k < nfl; k++) t->edge_foff[t->face_edge[k] + 1]++;
    for (int e = 0; e < nedge; e++) t->edge_foff[e + 1] += t->edge_foff[e];
    LX_ALLOC(L, t->edge_faces, nfl);
    int *cnt = malloc(sizeof(int) * (size_t)(nedge + nver + 1));
    if (!cnt) return tess_lx_nomem(L);
    memcpy(cnt, t->edge_foff, sizeof(int) * (size_t)nedge);
    for (int g = 0; g < t->nface; g++)
        for (int k = t->face_voff[g]; k < t->face_voff[g + 1]; k++) t->edge_faces[cnt[t->face_edge[k]]++] = g;
    int *loc = cnt + nedge, *vl = NULL; /* loc: nver local indices (reuses the counter block) */
    vl = malloc(sizeof(int) * (size_t)(nver > 0 ? nver : 1));
    if (!vl) {
        free(cnt);
        return tess_lx_nomem(L);
    }
    for (int v = 0; v < nver; v++) loc[v] = -1;
    int ok = 1;
    for (int c = 0; c < ncell && ok; c++) {
        int nv = 0, nf = F->pfoff[c + 1] - F->pfoff[c], nfv = 0;
        for (int k = F->pfoff[c]; k < F->pfoff[c + 1]; k++)
            for (int q = t->face_voff[t->cell_faces[k]]; q < t->face_voff[t->cell_faces[k] + 1]; q++, nfv++)
                if (loc[t->face_ver[q]] < 0) loc[t->face_ver[q]] = nv, vl[nv++] = t->face_ver[q];
        rve_tess_poly *p = &t->cells[c];
        if (nf == 0) {
            t->nempty++;
            continue;
        }
        if (tess_poly_alloc(p, nv, nf, nfv) != RVE_OK) {
            ok = tess_lx_nomem(L);
            break;
        }
        for (int u = 0; u < nv; u++) memcpy(p->v + 3 * u, t->ver + 3 * (size_t)vl[u], 3 * sizeof(double));
        int o = 0;
        for (int f = 0; f < nf; f++) {
            int k = F->pfoff[c] + f, g = t->cell_faces[k], s = t->cell_fsign[k];
            int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
            p->foff[f] = o;
            for (int q = 0; q < m; q++) p->floop[o + q] = loc[t->face_ver[a0 + (s > 0 ? q : m - 1 - q)]];
            o += m;
            p->fnbr[f] = t->face_cell[2 * g + (s > 0 ? 1 : 0)];
            p->fimg[f] = 0; /* planes: s * t->face_plane[g] (rve_tess_cell_plane) */
        }
        p->foff[nf] = o;
        tess_poly_measure(p);
        if (!(p->vol > 0) && t->face_ptxyz) p->vol = point_fan_volume(t, F->pfoff[c], p);
        if (!(p->vol > 0)) ok = tess_lx_fail(L, RVE_EDATA, "%s", "a polyhedron is not closed or is inside out");
        for (int u = 0; u < nv; u++) loc[vl[u]] = -1;
    }
    free(vl);
    free(cnt);
    return ok;
}

/* Sort a vertex's cell list: cells ascending, then walls (-1, -2, ...). */
static void sort_cells(int *Lc, int m)
{
    for (int x = 1; x < m; x++) {
        int val = Lc[x], y = x - 1;
        long kv = val >= 0 ? val : (long)INT_MAX - val;
        while (y >= 0 && (Lc[y] >= 0 ? Lc[y] : (long)INT_MAX - Lc[y]) > kv) {
            Lc[y + 1] = Lc[y];
            y--;
        }
        Lc[y + 1] = val;
    }
}

/* vertex -> cells and walls (sorted, unique), and the face areas. */
static int build_ver_cells(lexer *L, rve_tess *t)
{
    int nver = t->nver, nface = t->nface;
    LX_ALLOC(L, t->ver_coff, nver + 1);
    for (int g = 0; g < nface; g++)
        for (int q = t->face_voff[g]; q < t->face_voff[g + 1]; q++)
            t->ver_coff[t->face_ver[q] + 1] += 2; /* at most two cells/walls per face incidence */
    for (int v = 0; v < nver; v++) t->ver_coff[v + 1] += t->ver_coff[v];
    LX_ALLOC(L, t->ver_cells, t->ver_coff[nver]);
    int *fill = malloc(sizeof(int) * (size_t)(nver > 0 ? nver : 1));
    if (!fill) return tess_lx_nomem(L);
    memcpy(fill, t->ver_coff, sizeof(int) * (size_t)nver);
    for (int g = 0; g < nface; g++)
        for (int q = t->face_voff[g]; q < t->face_voff[g + 1]; q++) {
            int v = t->face_ver[q];
            t->ver_cells[fill[v]++] = t->face_cell[2 * g];
            t->ver_cells[fill[v]++] = t->face_cell[2 * g + 1];
        }
    int w = 0;
    for (int v = 0; v < nver; v++) {
        int a = t->ver_coff[v], m = fill[v] - a;
        int *Lc = t->ver_cells + a;
        sort_cells(Lc, m);
        t->ver_coff[v] = w;
        for (int x = 0; x < m; x++)
            if (x == 0 || Lc[x] != Lc[x - 1]) t->ver_cells[w++] = Lc[x];
    }
    t->ver_coff[nver] = w;
    free(fill);
    LX_ALLOC(L, t->face_area, nface);
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        for (int f = 0; f < p->nf; f++)
            if (t->cell_fsign[t->cell_foff[c] + f] > 0) t->face_area[t->cell_faces[t->cell_foff[c] + f]] = p->farea[f];
    }
    return 1;
}

/* The domain box: the domain's vertices, else the vertices' bounding box. */
static int file_box(lexer *L, const tess_file *F, double lo[3], double hi[3])
{
    for (int a = 0; a < 3; a++) lo[a] = F->dlo[a], hi[a] = F->dhi[a];
    if (!F->has_dom)
        for (int v = 0; v < F->nver; v++)
            for (int a = 0; a < 3; a++) {
                if (v == 0 || F->ver[3 * v + a] < lo[a]) lo[a] = F->ver[3 * v + a];
                if (v == 0 || F->ver[3 * v + a] > hi[a]) hi[a] = F->ver[3 * v + a];
            }
    for (int a = 0; a < 3; a++)
        if (!(hi[a] > lo[a]) || !isfinite(hi[a] - lo[a])) return tess_lx_fail(L, RVE_EDATA, "%s", "degenerate domain");
    return 1;
}

static rve_tess *build_plain(lexer *L, tess_file *F)
{
    double lo[3], hi[3];
    if (!file_box(L, F, lo, hi) || !align_face_edges(L, F)) return NULL;
    rve_tess *t = tess_alloc(F->ncell, F->seeds, lo, hi, NULL);
    if (!t) return tess_lx_nomem(L), NULL;
    if (!build_faces(L, F, t) || !build_cells(L, F, t) || !build_ver_cells(L, t)) {
        rve_tess_free(t);
        return NULL;
    }
    t->has_topo = 1;
    return t;
}

/* ----------------------------------------------------------- periodic build */

typedef struct {
    const double *x;
    int i;
} xkey;

static int xkey_cmp(const void *a, const void *b)
{
    double u = ((const xkey *)a)->x[0], v = ((const xkey *)b)->x[0];
    return (u > v) - (u < v);
}

/* Does a rebuilt vertex lie within tol of x modulo the period P? */
static int find_vertex(const xkey *K, int n, const double x[3], const double P[3], double tol)
{
    for (int s = -1; s <= 1; s++) {
        if (s && !(P[0] > 0)) continue;
        double cx = x[0] + s * P[0];
        int lo = 0, hi = n;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (K[mid].x[0] < cx - tol) lo = mid + 1;
            else hi = mid;
        }
        for (int k = lo; k < n && K[k].x[0] <= cx + tol; k++) {
            int ok = 1;
            for (int a = 1; a < 3 && ok; a++) {
                double d = fabs(K[k].x[a] - x[a]);
                if (P[a] > 0) d = fmin(d, fabs(d - P[a]));
                ok = d <= tol;
            }
            if (ok) return 1;
        }
    }
    return 0;
}

/* The cells rebuilt from the seeds in the periodic box; the file's
 * vertices must be the rebuilt ones modulo the period. */
static rve_tess *build_periodic(lexer *L, tess_file *F)
{
    double lo[3], hi[3], P[3];
    if (!F->has_per) return tess_lx_fail(L, RVE_EDATA, "%s", "periodic tessellation without a **periodicity *general section"), NULL;
    if (!F->has_dom) /* Neper's periodic domain starts at 0 */
        for (int a = 0; a < 3; a++) F->dlo[a] = 0, F->dhi[a] = F->perd[a], F->has_dom = 1;
    if (!file_box(L, F, lo, hi)) return NULL;
    double emin = fmin(hi[0] - lo[0], fmin(hi[1] - lo[1], hi[2] - lo[2]));
    double emax = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2]));
    if (emax > 1e6 * emin) /* voro++'s block grid would be absurd */
        return tess_lx_fail(L, RVE_EDATA, "%s", "periodic domain with extents differing by more than 10^6"), NULL;
    for (int a = 0; a < 3; a++) {
        P[a] = F->per[a] ? hi[a] - lo[a] : 0;
        if (F->per[a] && fabs(F->perd[a] - P[a]) > 1e-9 * P[a])
            return tess_lx_fail(L, RVE_EDATA, "%s", "**periodicity: distances differ from the domain"), NULL;
    }
    rve_tess_opts o;
    rve_tess_opts_default(&o);
    o.keep_container = 0;
    rve_tess *t = NULL;
    rve_err e2 = {0};
    if (rve_tess_build(F->seeds, F->ncell, lo, hi, F->per, &o, &t, &e2) != RVE_OK) {
        tess_lx_fail(L, e2.code, "rebuilding the periodic cells from the seeds: %s", e2.msg);
        return NULL;
    }
    xkey *K = malloc(sizeof *K * (size_t)(t->nver > 0 ? t->nver : 1));
    if (!K) {
        rve_tess_free(t);
        return tess_lx_nomem(L), NULL;
    }
    for (int v = 0; v < t->nver; v++) K[v].x = t->ver + 3 * (size_t)v, K[v].i = v;
    qsort(K, (size_t)t->nver, sizeof *K, xkey_cmp);
    double ext = fmax(hi[0] - lo[0], fmax(hi[1] - lo[1], hi[2] - lo[2])), tol = 1e-9 * ext;
    int bad = -1;
    for (int v = 0; v < F->nver && bad < 0; v++) {
        double x[3];
        for (int a = 0; a < 3; a++) {
            x[a] = F->ver[3 * (size_t)v + a];
            if (P[a] > 0) x[a] = lo[a] + (x[a] - lo[a]) - P[a] * floor((x[a] - lo[a]) / P[a]);
        }
        if (!find_vertex(K, t->nver, x, P, tol)) bad = v;
    }
    free(K);
    if (bad >= 0 || F->nver - F->nsecver != t->nver || F->nedge - F->nsecedge != t->nedge ||
        F->nface - F->nsecface != t->nface) {
        char m[200];
        if (bad >= 0)
            snprintf(m, sizeof m, "vertex %d is not a vertex of the cells rebuilt from the seeds (regularised?)", bad + 1);
        else
            snprintf(m, sizeof m, "%d / %d / %d primary vertices / edges / faces, the cells rebuilt from the seeds "
                     "have %d / %d / %d", F->nver - F->nsecver, F->nedge - F->nsecedge, F->nface - F->nsecface,
                     t->nver, t->nedge, t->nface);
        rve_tess_free(t);
        return tess_lx_fail(L, RVE_EDATA, "periodic tessellation: %s", m), NULL;
    }
    return t;
}

/* -------------------------------------------------------------- entry points */

/* Move the cell data of F into t. */
static void take_cell_data(tess_file *F, rve_tess *t)
{
    t->ori_des = F->ori_des, F->ori_des = NULL;
    t->crysym = F->crysym, F->crysym = NULL;
    if (F->ori) {
        t->ori = F->ori, F->ori = NULL;
        t->ori_n = (int)(F->nori / (size_t)F->ncell);
    }
    memcpy(t->format, F->format, sizeof t->format);
}

rve_status rve_tess_read_tess_mem(const char *buf, size_t n, const char *name, rve_tess **out, int **ids,
                                  rve_err *err)
{
    *out = NULL;
    if (ids) *ids = NULL;
    lexer L = {buf, buf + n, name, err, 0};
    tess_file F;
    memset(&F, 0, sizeof F);
    rve_tess *t = NULL;
    if (tess_rd_file(&L, &F)) {
        int per = F.gen_periodic || F.per[0] || F.per[1] || F.per[2];
        t = per ? build_periodic(&L, &F) : build_plain(&L, &F);
    }
    if (!t) {
        tess_tf_free(&F);
        if (err && err->code == RVE_OK) rve_err_set(err, RVE_EDATA, name, "invalid .tess file");
        return err ? err->code : RVE_EDATA;
    }
    take_cell_data(&F, t);
    if (ids) *ids = F.ids, F.ids = NULL;
    tess_tf_free(&F);
    *out = t;
    return RVE_OK;
}

rve_status rve_tess_read_tess(const char *path, rve_tess **out, int **ids, rve_err *err)
{
    *out = NULL;
    if (ids) *ids = NULL;
    char *buf = NULL;
    size_t nbuf = 0;
    rve_status st = rve_read_file(path, &buf, &nbuf, err);
    if (st) return st;
    st = rve_tess_read_tess_mem(buf, nbuf, path, out, ids, err);
    free(buf);
    return st;
}

rve_status rve_tess_copy_cell_data(rve_tess *dst, const rve_tess *src, rve_err *err)
{
    if (dst->n != src->n) return rve_err_set(err, RVE_EUSAGE, NULL, "copying cell data between different cell counts");
    char *des = src->ori_des ? strdup(src->ori_des) : NULL;
    char *cs = src->crysym ? strdup(src->crysym) : NULL;
    size_t no = src->ori ? (size_t)src->ori_n * (size_t)src->n : 0;
    double *ori = no ? malloc(no * sizeof(double)) : NULL;
    if ((src->ori_des && !des) || (src->crysym && !cs) || (no && !ori)) {
        free(des);
        free(cs);
        free(ori);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    if (no) memcpy(ori, src->ori, no * sizeof(double));
    free(dst->ori_des);
    free(dst->crysym);
    free(dst->ori);
    dst->ori_des = des;
    dst->crysym = cs;
    dst->ori = ori;
    dst->ori_n = no ? src->ori_n : 0;
    memcpy(dst->format, src->format, sizeof dst->format);
    return RVE_OK;
}

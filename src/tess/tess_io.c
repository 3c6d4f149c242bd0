/* tess_io.c - Neper .tess reading and writing, VTK output, seed files. */
#include "config.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ .tess write */

static const char *wall_label[6] = {"x0", "x1", "y0", "y1", "z0", "z1"};

/* Domain cube: vertex k has bits (x, y, z); edges along x, y, z. */
static void dom_vertex(const rve_tess *t, int k, double x[3])
{
    for (int a = 0; a < 3; a++) x[a] = ((k >> a) & 1) ? t->hi[a] : t->lo[a];
}

/* Edge k: axis = k / 4; the two other coordinates' bits from k % 4. */
static void dom_edge(int k, int *axis, int *v1, int *v2, int walls[2])
{
    int ax = k / 4, r = k % 4;
    int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
    if (o1 > o2) {
        int tmp = o1;
        o1 = o2;
        o2 = tmp;
    }
    int b1 = r & 1, b2 = (r >> 1) & 1;
    int base = (b1 << o1) | (b2 << o2);
    *axis = ax;
    *v1 = base;
    *v2 = base | (1 << ax);
    walls[0] = -(2 * o1 + b1 + 1);
    walls[1] = -(2 * o2 + b2 + 1);
}

static int has_wall(const rve_tess *t, int v, int w)
{
    for (int q = t->ver_coff[v]; q < t->ver_coff[v + 1]; q++)
        if (t->ver_cells[q] == w) return 1;
    return 0;
}

rve_status rve_tess_write_tess(rve_tess *t, const char *path, const int *ids, rve_err *err)
{
    rve_status st;
    if (!t->has_topo && (st = rve_tess_topology(t, err)) != RVE_OK) return st;
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af) return err ? err->code : RVE_EIO;
    FILE *fp = rve_afile_fp(af);
    fprintf(fp, "***tess\n **format\n   3.5\n **general\n   3 standard\n **cell\n   %d\n", t->n);
    fprintf(fp, "  *id\n  ");
    for (int i = 0; i < t->n; i++) fprintf(fp, " %d%s", ids ? ids[i] : i + 1, (i % 16 == 15 || i == t->n - 1) ? "\n  " : "");
    fprintf(fp, "\n  *seed\n");
    for (int i = 0; i < t->n; i++) {
        const double *s = t->seeds + 4 * (size_t)i;
        fprintf(fp, "   %d %.17g %.17g %.17g %.17g\n", i + 1, s[0], s[1], s[2], s[3]);
    }
    fprintf(fp, " **vertex\n   %d\n", t->nver);
    for (int v = 0; v < t->nver; v++)
        fprintf(fp, "   %d %.17g %.17g %.17g %d\n", v + 1, t->ver[3 * v], t->ver[3 * v + 1], t->ver[3 * v + 2],
                t->ver_state[v]);
    fprintf(fp, " **edge\n   %d\n", t->nedge);
    for (int e = 0; e < t->nedge; e++)
        fprintf(fp, "   %d %d %d %d\n", e + 1, t->edge_ver[2 * e] + 1, t->edge_ver[2 * e + 1] + 1, t->edge_state[e]);
    fprintf(fp, " **face\n   %d\n", t->nface);
    for (int g = 0; g < t->nface; g++) {
        int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
        fprintf(fp, "   %d %d", g + 1, m);
        for (int k = 0; k < m; k++) fprintf(fp, " %d", t->face_ver[a0 + k] + 1);
        fprintf(fp, "\n     %d", m);
        for (int k = 0; k < m; k++) fprintf(fp, " %d", t->face_esign[a0 + k] * (t->face_edge[a0 + k] + 1));
        double pl[4], q[3];
        rve_tess_face_plane(t, g, pl);
        fprintf(fp, "\n     %.17g %.17g %.17g %.17g\n", pl[3], pl[0], pl[1], pl[2]);
        rve_tess_face_point(t, g, q);
        fprintf(fp, "     %d %d %.17g %.17g %.17g\n", t->face_state[g], t->face_pt[g], q[0], q[1], q[2]);
    }
    fprintf(fp, " **polyhedron\n   %d\n", t->n);
    for (int c = 0; c < t->n; c++) {
        fprintf(fp, "   %d %d", c + 1, t->cell_foff[c + 1] - t->cell_foff[c]);
        for (int k = t->cell_foff[c]; k < t->cell_foff[c + 1]; k++)
            fprintf(fp, " %d", t->cell_fsign[k] * (t->cell_faces[k] + 1));
        fputc('\n', fp);
    }
    /* domain: a cube, with the tessellation entities on its vertices, edges, faces */
    fprintf(fp, " **domain\n  *general\n   cube\n  *vertex\n   8\n");
    int dv[8];
    for (int k = 0; k < 8; k++) {
        double x[3];
        dom_vertex(t, k, x);
        dv[k] = -1;
        int w[3] = {-(1 + (k & 1)), -(3 + ((k >> 1) & 1)), -(5 + ((k >> 2) & 1))};
        for (int v = 0; v < t->nver && dv[k] < 0; v++)
            if (has_wall(t, v, w[0]) && has_wall(t, v, w[1]) && has_wall(t, v, w[2])) dv[k] = v;
        fprintf(fp, "   %d %.17g %.17g %.17g x%dy%dz%d\n", k + 1, x[0], x[1], x[2], k & 1, (k >> 1) & 1, (k >> 2) & 1);
        if (dv[k] >= 0)
            fprintf(fp, "     1 %d\n", dv[k] + 1);
        else
            fprintf(fp, "     0\n");
    }
    fprintf(fp, "  *edge\n   12\n");
    for (int k = 0; k < 12; k++) {
        int ax, v1, v2, w[2];
        dom_edge(k, &ax, &v1, &v2, w);
        int cnt = 0;
        for (int e = 0; e < t->nedge; e++) {
            int a = t->edge_ver[2 * e], b = t->edge_ver[2 * e + 1];
            if (has_wall(t, a, w[0]) && has_wall(t, a, w[1]) && has_wall(t, b, w[0]) && has_wall(t, b, w[1])) cnt++;
        }
        char lab[8];
        int o[2] = {(-w[0] - 1) / 2, (-w[1] - 1) / 2};
        snprintf(lab, sizeof lab, "%c%d%c%d", "xyz"[o[0]], (-w[0] - 1) % 2, "xyz"[o[1]], (-w[1] - 1) % 2);
        fprintf(fp, "   %d 2 %d %d %s\n     %d", k + 1, v1 + 1, v2 + 1, lab, cnt);
        for (int e = 0; e < t->nedge; e++) {
            int a = t->edge_ver[2 * e], b = t->edge_ver[2 * e + 1];
            if (has_wall(t, a, w[0]) && has_wall(t, a, w[1]) && has_wall(t, b, w[0]) && has_wall(t, b, w[1]))
                fprintf(fp, " %d", e + 1);
        }
        fputc('\n', fp);
    }
    fprintf(fp, "  *face\n   6\n");
    for (int k = 0; k < 6; k++) {
        int ax = k / 2, side = k % 2;
        int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
        /* corners counter-clockwise seen from outside */
        int base = side << ax;
        int cv[4] = {base, base | (1 << o1), base | (1 << o1) | (1 << o2), base | (1 << o2)};
        if (!side) {
            int tmp = cv[1];
            cv[1] = cv[3];
            cv[3] = tmp;
        }
        int ce[4];
        for (int q = 0; q < 4; q++) {
            int a = cv[q], b = cv[(q + 1) % 4];
            for (int e = 0; e < 12; e++) {
                int eax, e1, e2, w[2];
                dom_edge(e, &eax, &e1, &e2, w);
                if ((e1 == a && e2 == b) || (e1 == b && e2 == a)) ce[q] = e;
            }
        }
        double pl[4] = {0, 0, 0, 0};
        pl[ax] = side ? 1 : -1;
        pl[3] = side ? t->hi[ax] : -t->lo[ax];
        int cnt = 0;
        for (int g = 0; g < t->nface; g++) cnt += t->face_cell[2 * g + 1] == -(k + 1);
        fprintf(fp, "   %d 4 %d %d %d %d\n     4 %d %d %d %d\n     plane\n     4 %.17g %.17g %.17g %.17g\n     %s\n     %d\n    ",
                k + 1, cv[0] + 1, cv[1] + 1, cv[2] + 1, cv[3] + 1, ce[0] + 1, ce[1] + 1, ce[2] + 1, ce[3] + 1,
                pl[3], pl[0], pl[1], pl[2], wall_label[k], cnt);
        for (int g = 0; g < t->nface; g++)
            if (t->face_cell[2 * g + 1] == -(k + 1)) fprintf(fp, " %d", g + 1);
        fputc('\n', fp);
    }
    if (t->periodic[0] || t->periodic[1] || t->periodic[2])
        fprintf(fp, " **periodicity\n  *general\n   %d %d %d\n   %.17g %.17g %.17g\n", t->periodic[0], t->periodic[1],
                t->periodic[2], t->hi[0] - t->lo[0], t->hi[1] - t->lo[1], t->hi[2] - t->lo[2]);
    fprintf(fp, "***end\n");
    return rve_afile_commit(af, err);
}

/* ------------------------------------------------------------- .tess read */

typedef struct {
    const char *s, *end, *path;
    rve_err *err;
    int bad;
} lexer;

static int lx_tok(lexer *L, const char **tok, size_t *len)
{
    while (L->s < L->end && isspace((unsigned char)*L->s)) L->s++;
    if (L->s >= L->end) return 0;
    *tok = L->s;
    while (L->s < L->end && !isspace((unsigned char)*L->s)) L->s++;
    *len = (size_t)(L->s - *tok);
    return 1;
}

/* Peek: is the next token a section marker (starts with '*')? */
static int lx_peek_star(lexer *L)
{
    const char *p = L->s;
    while (p < L->end && isspace((unsigned char)*p)) p++;
    return p < L->end && *p == '*';
}

static int lx_is(const char *tok, size_t len, const char *w)
{
    return len == strlen(w) && memcmp(tok, w, len) == 0;
}

static rve_status lx_fail(lexer *L, const char *what)
{
    if (!L->bad) rve_err_set(L->err, RVE_EDATA, L->path, "%s", what);
    L->bad = 1;
    return RVE_EDATA;
}

static int lx_long(lexer *L, long lo, long hi, long *out, const char *what)
{
    const char *tok;
    size_t len;
    char buf[64];
    if (!lx_tok(L, &tok, &len) || len >= sizeof buf) return lx_fail(L, what), 0;
    memcpy(buf, tok, len);
    buf[len] = 0;
    if (rve_parse_int_range(buf, lo, hi, out) != RVE_OK) {
        char m[160];
        snprintf(m, sizeof m, "%s: expected an integer, got '%s'", what, buf);
        return lx_fail(L, m), 0;
    }
    return 1;
}

static int lx_double(lexer *L, double *out, const char *what)
{
    const char *tok;
    size_t len;
    char buf[128];
    if (!lx_tok(L, &tok, &len) || len >= sizeof buf) return lx_fail(L, what), 0;
    memcpy(buf, tok, len);
    buf[len] = 0;
    if (rve_parse_double(buf, out) != RVE_OK) {
        char m[200];
        snprintf(m, sizeof m, "%s: expected a number, got '%s'", what, buf);
        return lx_fail(L, m), 0;
    }
    return 1;
}

/* Skip tokens up to the next token starting with the given marker prefix at a
 * section level ("**" or "***"). */
static void lx_skip_to_section(lexer *L)
{
    for (;;) {
        const char *p = L->s;
        while (p < L->end && isspace((unsigned char)*p)) p++;
        if (p >= L->end) {
            L->s = p;
            return;
        }
        if (p + 1 < L->end && p[0] == '*' && p[1] == '*') {
            L->s = p;
            return;
        }
        const char *tok;
        size_t len;
        lx_tok(L, &tok, &len);
    }
}

#define RD_LONG(var, lo, hi, what)                       \
    do {                                                 \
        long v_;                                         \
        if (!lx_long(&L, (lo), (hi), &v_, (what))) goto fail; \
        (var) = (int)v_;                                 \
        (void)(var);                                     \
    } while (0)
#define RD_DBL(var, what)                                \
    do {                                                 \
        if (!lx_double(&L, &(var), (what))) goto fail;   \
    } while (0)
#define RALLOC(ptr, count)                                                              \
    do {                                                                                \
        (ptr) = calloc((size_t)(count) > 0 ? (size_t)(count) : 1, sizeof(*(ptr)));      \
        if (!(ptr)) {                                                                   \
            rve_err_set(err, RVE_ENOMEM, path, "out of memory");                        \
            goto fail;                                                                  \
        }                                                                               \
    } while (0)

rve_status rve_tess_read_tess(const char *path, rve_tess **out, int **ids_out, rve_err *err)
{
    *out = NULL;
    if (ids_out) *ids_out = NULL;
    char *buf = NULL;
    size_t nbuf = 0;
    rve_status st = rve_read_file(path, &buf, &nbuf, err);
    if (st) return st;
    lexer L = {buf, buf + nbuf, path, err, 0};
    rve_tess *t = NULL;
    int ncell = -1, has_seed = 0, *ids = NULL, nver = -1, nedge = -1, nface = -1, npoly = -1, has_dom = 0, per[3] = {0, 0, 0};
    double *seeds = NULL, *ver = NULL, dlo[3] = {0, 0, 0}, dhi[3] = {0, 0, 0}, perd[3] = {0, 0, 0};
    int *ver_state = NULL, *edge_ver = NULL, *edge_state = NULL;
    int *fvoff = NULL, *fver = NULL, *fedge = NULL, *fstate = NULL, *fpt = NULL;
    double *fplane = NULL, *fptxyz = NULL;
    int *pfoff = NULL, *pfaces = NULL;
    const char *tok;
    size_t len;
    if (!lx_tok(&L, &tok, &len) || !lx_is(tok, len, "***tess")) {
        rve_err_set(err, RVE_EDATA, path, "not a .tess file (no ***tess header)");
        goto fail;
    }
    while (lx_tok(&L, &tok, &len)) {
        if (lx_is(tok, len, "***end")) break;
        if (lx_is(tok, len, "**format")) {
            if (!lx_tok(&L, &tok, &len)) goto trunc;
            if (len < 1 || (tok[0] != '2' && tok[0] != '3')) {
                rve_err_set(err, RVE_EDATA, path, "unsupported .tess format '%.*s' (2.x or 3.x expected)", (int)(len > 20 ? 20 : len), tok);
                goto fail;
            }
        } else if (lx_is(tok, len, "**general")) {
            int dim;
            RD_LONG(dim, 1, 3, "**general: dimension");
            if (dim != 3) {
                rve_err_set(err, RVE_EDATA, path, "only 3D tessellations are supported (dimension %d)", dim);
                goto fail;
            }
            if (!lx_tok(&L, &tok, &len)) goto trunc;
        } else if (lx_is(tok, len, "**cell")) {
            RD_LONG(ncell, 1, INT_MAX / 8, "**cell: number of cells");
            RALLOC(seeds, 4 * (size_t)ncell);
            while (lx_peek_star(&L)) {
                const char *p = L.s;
                lx_tok(&L, &tok, &len);
                if (len >= 2 && tok[1] == '*') { /* next section */
                    L.s = p;
                    break;
                }
                if (lx_is(tok, len, "*id")) {
                    RALLOC(ids, ncell);
                    for (int i = 0; i < ncell; i++) RD_LONG(ids[i], INT_MIN, INT_MAX, "*id: cell id");
                } else if (lx_is(tok, len, "*seed")) {
                    has_seed = 1;
                    for (int i = 0; i < ncell; i++) {
                        int id;
                        RD_LONG(id, 1, ncell, "*seed: seed number");
                        for (int a = 0; a < 4; a++) RD_DBL(seeds[4 * (size_t)(id - 1) + a], "*seed: coordinates and weight");
                    }
                } else { /* *ori, *crysym, ...: skip to the next marker */
                    while (!lx_peek_star(&L) && lx_tok(&L, &tok, &len)) {
                    }
                }
            }
        } else if (lx_is(tok, len, "**vertex")) {
            RD_LONG(nver, 0, INT_MAX / 8, "**vertex: number of vertices");
            RALLOC(ver, 3 * (size_t)nver);
            RALLOC(ver_state, nver);
            for (int v = 0; v < nver; v++) {
                int id;
                RD_LONG(id, v + 1, v + 1, "**vertex: vertex number (in order)");
                for (int a = 0; a < 3; a++) RD_DBL(ver[3 * (size_t)v + a], "**vertex: coordinates");
                RD_LONG(ver_state[v], INT_MIN, INT_MAX, "**vertex: state");
            }
        } else if (lx_is(tok, len, "**edge")) {
            RD_LONG(nedge, 0, INT_MAX / 8, "**edge: number of edges");
            RALLOC(edge_ver, 2 * (size_t)nedge);
            RALLOC(edge_state, nedge);
            if (nver < 0) {
                rve_err_set(err, RVE_EDATA, path, "**edge before **vertex");
                goto fail;
            }
            for (int e = 0; e < nedge; e++) {
                int id;
                RD_LONG(id, e + 1, e + 1, "**edge: edge number (in order)");
                for (int a = 0; a < 2; a++) {
                    RD_LONG(edge_ver[2 * e + a], 1, nver, "**edge: vertex");
                    edge_ver[2 * e + a]--;
                }
                RD_LONG(edge_state[e], INT_MIN, INT_MAX, "**edge: state");
            }
        } else if (lx_is(tok, len, "**face")) {
            RD_LONG(nface, 0, INT_MAX / 8, "**face: number of faces");
            if (nver < 0 || nedge < 0) {
                rve_err_set(err, RVE_EDATA, path, "**face before **vertex or **edge");
                goto fail;
            }
            RALLOC(fvoff, nface + 1);
            RALLOC(fplane, 4 * (size_t)nface);
            RALLOC(fstate, nface);
            RALLOC(fpt, nface);
            RALLOC(fptxyz, 3 * (size_t)nface);
            size_t cap = 6 * (size_t)nface + 16, used = 0;
            RALLOC(fver, cap);
            RALLOC(fedge, cap);
            for (int g = 0; g < nface; g++) {
                int id, m, me;
                RD_LONG(id, g + 1, g + 1, "**face: face number (in order)");
                RD_LONG(m, 3, 100000, "**face: number of vertices");
                if (used + (size_t)m > cap) {
                    size_t nc = 2 * cap + (size_t)m;
                    int *a = realloc(fver, nc * sizeof(int));
                    if (!a) goto nomem;
                    fver = a;
                    a = realloc(fedge, nc * sizeof(int));
                    if (!a) goto nomem;
                    fedge = a;
                    cap = nc;
                }
                fvoff[g] = (int)used;
                for (int k = 0; k < m; k++) {
                    RD_LONG(fver[used + k], 1, nver, "**face: vertex");
                    fver[used + k]--;
                }
                RD_LONG(me, m, m, "**face: number of edges (must equal the number of vertices)");
                for (int k = 0; k < me; k++) {
                    RD_LONG(fedge[used + k], -nedge, nedge, "**face: edge");
                    if (fedge[used + k] == 0) {
                        rve_err_set(err, RVE_EDATA, path, "**face %d: edge 0", g + 1);
                        goto fail;
                    }
                }
                used += (size_t)m;
                RD_DBL(fplane[4 * g + 3], "**face: equation");
                for (int a = 0; a < 3; a++) RD_DBL(fplane[4 * g + a], "**face: equation");
                RD_LONG(fstate[g], INT_MIN, INT_MAX, "**face: state");
                RD_LONG(fpt[g], -1, m, "**face: point");
                for (int a = 0; a < 3; a++) RD_DBL(fptxyz[3 * g + a], "**face: point coordinates");
            }
            fvoff[nface] = (int)used;
        } else if (lx_is(tok, len, "**polyhedron")) {
            RD_LONG(npoly, 0, INT_MAX / 8, "**polyhedron: number of polyhedra");
            if (nface < 0) {
                rve_err_set(err, RVE_EDATA, path, "**polyhedron before **face");
                goto fail;
            }
            RALLOC(pfoff, npoly + 1);
            size_t cap = 16 * (size_t)npoly + 16, used = 0;
            RALLOC(pfaces, cap);
            for (int c = 0; c < npoly; c++) {
                int id, m;
                RD_LONG(id, c + 1, c + 1, "**polyhedron: number (in order)");
                RD_LONG(m, 0, 1000000, "**polyhedron: number of faces");
                if (used + (size_t)m > cap) {
                    size_t nc = 2 * cap + (size_t)m;
                    int *a = realloc(pfaces, nc * sizeof(int));
                    if (!a) goto nomem;
                    pfaces = a;
                    cap = nc;
                }
                pfoff[c] = (int)used;
                for (int k = 0; k < m; k++) {
                    RD_LONG(pfaces[used + k], -nface, nface, "**polyhedron: face");
                    if (pfaces[used + k] == 0) {
                        rve_err_set(err, RVE_EDATA, path, "**polyhedron %d: face 0", c + 1);
                        goto fail;
                    }
                }
                used += (size_t)m;
            }
            pfoff[npoly] = (int)used;
        } else if (lx_is(tok, len, "**domain")) {
            /* take the box from the domain vertices when it is a cube */
            const char *save;
            int dn = 0;
            while (lx_peek_star(&L)) {
                save = L.s;
                lx_tok(&L, &tok, &len);
                if (len >= 2 && tok[1] == '*') {
                    L.s = save;
                    break;
                }
                if (lx_is(tok, len, "*vertex")) {
                    RD_LONG(dn, 0, 1000000, "**domain *vertex: count");
                    for (int k = 0; k < dn; k++) {
                        int id, nt;
                        double x[3];
                        RD_LONG(id, 1, dn, "**domain *vertex: number");
                        for (int a = 0; a < 3; a++) RD_DBL(x[a], "**domain *vertex: coordinates");
                        if (!lx_tok(&L, &tok, &len)) goto trunc; /* label */
                        RD_LONG(nt, 0, 1000000, "**domain *vertex: count");
                        for (int q = 0; q < nt; q++) {
                            int vv;
                            RD_LONG(vv, INT_MIN, INT_MAX, "**domain *vertex: vertex");
                        }
                        for (int a = 0; a < 3; a++) {
                            if (k == 0 || x[a] < dlo[a]) dlo[a] = x[a];
                            if (k == 0 || x[a] > dhi[a]) dhi[a] = x[a];
                        }
                    }
                    has_dom = dn > 0;
                } else {
                    while (!lx_peek_star(&L) && lx_tok(&L, &tok, &len)) {
                    }
                }
            }
        } else if (lx_is(tok, len, "**periodicity") || lx_is(tok, len, "**periodic")) {
            const char *save;
            while (lx_peek_star(&L)) {
                save = L.s;
                lx_tok(&L, &tok, &len);
                if (len >= 2 && tok[1] == '*') {
                    L.s = save;
                    break;
                }
                if (lx_is(tok, len, "*general")) {
                    for (int a = 0; a < 3; a++) RD_LONG(per[a], 0, 1, "**periodicity: flag");
                    for (int a = 0; a < 3; a++) RD_DBL(perd[a], "**periodicity: distance");
                } else {
                    while (!lx_peek_star(&L) && lx_tok(&L, &tok, &len)) {
                    }
                }
            }
        } else if (len >= 2 && tok[0] == '*' && tok[1] == '*') {
            lx_skip_to_section(&L);
        } else {
            rve_err_set(err, RVE_EDATA, path, "unexpected '%.*s'", (int)(len > 40 ? 40 : len), tok);
            goto fail;
        }
    }
    if (ncell < 1 || nver < 0 || nedge < 0 || nface < 0 || npoly < 0) {
        rve_err_set(err, RVE_EDATA, path, "incomplete tessellation (missing **cell, **vertex, **edge, **face or **polyhedron)");
        goto fail;
    }
    if (!has_seed) {
        rve_err_set(err, RVE_EDATA, path, "no **cell *seed section (seeds and weights are needed)");
        goto fail;
    }
    if (npoly != ncell) {
        rve_err_set(err, RVE_EDATA, path, "%d polyhedra for %d cells", npoly, ncell);
        goto fail;
    }
    if (per[0] || per[1] || per[2]) {
        rve_err_set(err, RVE_EDATA, path, "reading periodic tessellations is not supported");
        goto fail;
    }
    (void)perd;
    if (!has_dom)
        for (int v = 0; v < nver; v++)
            for (int a = 0; a < 3; a++) {
                if (v == 0 || ver[3 * v + a] < dlo[a]) dlo[a] = ver[3 * v + a];
                if (v == 0 || ver[3 * v + a] > dhi[a]) dhi[a] = ver[3 * v + a];
            }
    for (int a = 0; a < 3; a++)
        if (!(dhi[a] > dlo[a])) {
            rve_err_set(err, RVE_EDATA, path, "degenerate domain");
            goto fail;
        }
    /* edges of the faces must join consecutive vertices */
    for (int g = 0; g < nface; g++) {
        int a0 = fvoff[g], m = fvoff[g + 1] - a0;
        for (int k = 0; k < m; k++) {
            int se = fedge[a0 + k], e = abs(se) - 1;
            int a = fver[a0 + k], b = fver[a0 + (k + 1) % m];
            int x = edge_ver[2 * e + (se > 0 ? 0 : 1)], y = edge_ver[2 * e + (se > 0 ? 1 : 0)];
            if (x != a || y != b) {
                rve_err_set(err, RVE_EDATA, path, "face %d: edge %d does not join vertices %d and %d", g + 1, e + 1, a + 1, b + 1);
                goto fail;
            }
        }
    }
    {
        int per0[3] = {0, 0, 0};
        t = tess_alloc(ncell, seeds, dlo, dhi, per0);
        if (!t) goto nomem;
    }
    free(seeds);
    seeds = NULL;
    /* global topology straight from the file */
    t->nver = nver;
    t->ver = ver;
    ver = NULL;
    t->ver_state = ver_state;
    ver_state = NULL;
    t->nedge = nedge;
    t->edge_ver = edge_ver;
    edge_ver = NULL;
    t->edge_state = edge_state;
    edge_state = NULL;
    t->nface = nface;
    t->face_voff = fvoff;
    fvoff = NULL;
    t->face_ver = fver;
    fver = NULL;
    t->face_plane = NULL;
    int nfl = t->face_voff[nface];
    RALLOC(t->face_edge, nfl);
    RALLOC(t->face_esign, nfl);
    for (int k = 0; k < nfl; k++) {
        t->face_edge[k] = abs(fedge[k]) - 1;
        t->face_esign[k] = (signed char)(fedge[k] > 0 ? 1 : -1);
    }
    free(fedge);
    fedge = NULL;
    /* planes {a b c d}, normalised */
    RALLOC(t->face_plane, 4 * (size_t)nface);
    for (int g = 0; g < nface; g++) {
        double *pl = t->face_plane + 4 * g;
        memcpy(pl, fplane + 4 * g, 4 * sizeof(double));
        double nn = sqrt(pl[0] * pl[0] + pl[1] * pl[1] + pl[2] * pl[2]);
        if (!(nn > 0)) {
            rve_err_set(err, RVE_EDATA, path, "face %d: null normal", g + 1);
            goto fail;
        }
        for (int a = 0; a < 4; a++) pl[a] /= nn;
    }
    free(fplane);
    fplane = NULL;
    t->face_state = fstate;
    fstate = NULL;
    t->face_pt = fpt;
    fpt = NULL;
    t->face_ptxyz = fptxyz;
    fptxyz = NULL;
    /* cells of each face from the polyhedra */
    RALLOC(t->face_cell, 2 * (size_t)nface);
    RALLOC(t->face_img, nface);
    for (int g = 0; g < nface; g++) t->face_cell[2 * g] = t->face_cell[2 * g + 1] = INT_MIN;
    for (int c = 0; c < ncell; c++)
        for (int k = pfoff[c]; k < pfoff[c + 1]; k++) {
            int g = abs(pfaces[k]) - 1, slot = pfaces[k] > 0 ? 0 : 1;
            if (t->face_cell[2 * g + slot] != INT_MIN) {
                rve_err_set(err, RVE_EDATA, path, "face %d is used twice with the same orientation", g + 1);
                goto fail;
            }
            t->face_cell[2 * g + slot] = c;
        }
    for (int g = 0; g < nface; g++) {
        int *fc = t->face_cell + 2 * g;
        if (fc[0] == INT_MIN && fc[1] == INT_MIN) {
            rve_err_set(err, RVE_EDATA, path, "face %d belongs to no polyhedron", g + 1);
            goto fail;
        }
        if (fc[0] == INT_MIN) { /* only used inward: flip it so that it points out of its cell */
            fc[0] = fc[1];
            fc[1] = INT_MIN;
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
                goto nomem;
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
        }
        if (fc[1] == INT_MIN) { /* boundary face: which wall? */
            const double *pl = t->face_plane + 4 * g;
            int w = 0;
            for (int a = 0; a < 3 && !w; a++) {
                if (fabs(pl[a]) > 1 - 1e-9) {
                    double ext = dhi[a] - dlo[a];
                    if (pl[a] < 0 && fabs(-pl[3] - dlo[a]) <= 1e-9 * ext) w = -(2 * a + 1);
                    if (pl[a] > 0 && fabs(pl[3] - dhi[a]) <= 1e-9 * ext) w = -(2 * a + 2);
                }
            }
            if (!w) {
                rve_err_set(err, RVE_EDATA, path, "face %d has one polyhedron but is not on the domain boundary", g + 1);
                goto fail;
            }
            fc[1] = w;
        }
        t->face_img[g] = 0;
    }
    /* cells' faces; polyhedra whose face signs were flipped above follow */
    RALLOC(t->cell_foff, ncell + 1);
    memcpy(t->cell_foff, pfoff, sizeof(int) * ((size_t)ncell + 1));
    int ncf = pfoff[ncell];
    RALLOC(t->cell_faces, ncf);
    RALLOC(t->cell_fsign, ncf);
    for (int c = 0; c < ncell; c++)
        for (int k = pfoff[c]; k < pfoff[c + 1]; k++) {
            int g = abs(pfaces[k]) - 1;
            t->cell_faces[k] = g;
            t->cell_fsign[k] = (signed char)(t->face_cell[2 * g] == c ? 1 : -1);
        }
    /* edge -> faces */
    RALLOC(t->edge_foff, nedge + 1);
    for (int k = 0; k < nfl; k++) t->edge_foff[t->face_edge[k] + 1]++;
    for (int e = 0; e < nedge; e++) t->edge_foff[e + 1] += t->edge_foff[e];
    RALLOC(t->edge_faces, nfl);
    {
        int *cnt = malloc(sizeof(int) * (size_t)(nedge > 0 ? nedge : 1));
        if (!cnt) goto nomem;
        memcpy(cnt, t->edge_foff, sizeof(int) * (size_t)nedge);
        for (int g = 0; g < nface; g++)
            for (int k = t->face_voff[g]; k < t->face_voff[g + 1]; k++) t->edge_faces[cnt[t->face_edge[k]]++] = g;
        free(cnt);
    }
    /* per-cell polyhedra from the faces; vertex -> cells */
    {
        int *loc = malloc(sizeof(int) * (size_t)(nver > 0 ? nver : 1));
        int *vl = malloc(sizeof(int) * (size_t)(nver > 0 ? nver : 1));
        int *vcnt = calloc((size_t)nver + 1, sizeof(int));
        if (!loc || !vl || !vcnt) {
            free(loc);
            free(vl);
            free(vcnt);
            goto nomem;
        }
        for (int v = 0; v < nver; v++) loc[v] = -1;
        for (int c = 0; c < ncell; c++) {
            int nv = 0, nf = pfoff[c + 1] - pfoff[c], nfv = 0;
            for (int k = pfoff[c]; k < pfoff[c + 1]; k++) {
                int g = t->cell_faces[k];
                for (int q = t->face_voff[g]; q < t->face_voff[g + 1]; q++) {
                    int v = t->face_ver[q];
                    if (loc[v] < 0) {
                        loc[v] = nv;
                        vl[nv++] = v;
                    }
                    nfv++;
                }
            }
            rve_tess_poly *p = &t->cells[c];
            if (nf == 0) {
                t->nempty++;
                continue;
            }
            if (tess_poly_alloc(p, nv, nf, nfv) != RVE_OK) {
                free(loc);
                free(vl);
                free(vcnt);
                goto nomem;
            }
            for (int u = 0; u < nv; u++) memcpy(p->v + 3 * u, t->ver + 3 * vl[u], 3 * sizeof(double));
            int o = 0;
            for (int f = 0; f < nf; f++) {
                int k = pfoff[c] + f, g = t->cell_faces[k], s = t->cell_fsign[k];
                int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
                p->foff[f] = o;
                for (int q = 0; q < m; q++) p->floop[o + q] = loc[t->face_ver[a0 + (s > 0 ? q : m - 1 - q)]];
                o += m;
                p->fnbr[f] = t->face_cell[2 * g + (s > 0 ? 1 : 0)];
                p->fimg[f] = 0; /* planes: s * t->face_plane[g] (rve_tess_cell_plane) */
            }
            p->foff[nf] = o;
            tess_poly_measure(p);
            if (!(p->vol > 0)) {
                rve_err_set(err, RVE_EDATA, path, "polyhedron %d is not closed or is inside out (volume %g)", c + 1, p->vol);
                free(loc);
                free(vl);
                free(vcnt);
                goto fail;
            }
            for (int u = 0; u < nv; u++) {
                vcnt[vl[u] + 1]++;
                loc[vl[u]] = -1;
            }
        }
        /* walls at vertices */
        for (int g = 0; g < nface; g++)
            if (t->face_cell[2 * g + 1] < 0)
                for (int q = t->face_voff[g]; q < t->face_voff[g + 1]; q++) vcnt[t->face_ver[q] + 1]++;
        for (int v = 0; v < nver; v++) vcnt[v + 1] += vcnt[v];
        t->ver_coff = vcnt;
        t->ver_cells = malloc(sizeof(int) * (size_t)(vcnt[nver] > 0 ? vcnt[nver] : 1));
        int *fill = malloc(sizeof(int) * (size_t)(nver > 0 ? nver : 1));
        if (!t->ver_cells || !fill) {
            free(fill);
            free(loc);
            free(vl);
            goto nomem;
        }
        memcpy(fill, vcnt, sizeof(int) * (size_t)nver);
        for (int c = 0; c < ncell; c++) {
            for (int k = pfoff[c]; k < pfoff[c + 1]; k++) {
                int g = t->cell_faces[k];
                for (int q = t->face_voff[g]; q < t->face_voff[g + 1]; q++) {
                    int v = t->face_ver[q];
                    if (loc[v] != c) {
                        loc[v] = c;
                        t->ver_cells[fill[v]++] = c;
                    }
                }
            }
        }
        for (int g = 0; g < nface; g++)
            if (t->face_cell[2 * g + 1] < 0)
                for (int q = t->face_voff[g]; q < t->face_voff[g + 1]; q++) t->ver_cells[fill[t->face_ver[q]]++] = t->face_cell[2 * g + 1];
        /* sort and unique as in the topology builder */
        int w = 0;
        for (int v = 0; v < nver; v++) {
            int a = t->ver_coff[v], b = fill[v];
            int *Lc = t->ver_cells + a;
            int m = b - a;
            for (int x = 1; x < m; x++) {
                int val = Lc[x], y = x - 1;
                long kv = val >= 0 ? val : (long)INT_MAX - val;
                while (y >= 0 && (Lc[y] >= 0 ? Lc[y] : (long)INT_MAX - Lc[y]) > kv) {
                    Lc[y + 1] = Lc[y];
                    y--;
                }
                Lc[y + 1] = val;
            }
            t->ver_coff[v] = w;
            for (int x = 0; x < m; x++)
                if (x == 0 || Lc[x] != Lc[x - 1]) t->ver_cells[w++] = Lc[x];
        }
        t->ver_coff[nver] = w;
        free(fill);
        free(loc);
        free(vl);
    }
    RALLOC(t->face_area, nface);
    for (int c = 0; c < ncell; c++) {
        const rve_tess_poly *p = &t->cells[c];
        for (int f = 0; f < p->nf; f++)
            if (t->cell_fsign[pfoff[c] + f] > 0) t->face_area[t->cell_faces[pfoff[c] + f]] = p->farea[f];
    }
    free(pfoff);
    free(pfaces);
    free(buf);
    t->has_topo = 1;
    if (ids_out) *ids_out = ids;
    else free(ids);
    *out = t;
    return RVE_OK;
trunc:
    rve_err_set(err, RVE_EDATA, path, "truncated file");
    goto fail;
nomem:
    rve_err_set(err, RVE_ENOMEM, path, "out of memory");
fail:
    if (err && err->code == RVE_OK) rve_err_set(err, RVE_EDATA, path, "invalid .tess file");
    free(buf);
    free(ids);
    free(seeds);
    free(ver);
    free(ver_state);
    free(edge_ver);
    free(edge_state);
    free(fvoff);
    free(fver);
    free(fedge);
    free(fstate);
    free(fpt);
    free(fplane);
    free(fptxyz);
    free(pfoff);
    free(pfaces);
    rve_tess_free(t);
    return err ? err->code : RVE_EDATA;
}

/* ---------------------------------------------------------------- VTK */

rve_status rve_tess_write_vtk(rve_tess *t, const char *path, const int *ids, rve_err *err)
{
    int periodic = t->periodic[0] || t->periodic[1] || t->periodic[2];
    rve_status st;
    if (!periodic && !t->has_topo && (st = rve_tess_topology(t, err)) != RVE_OK) return st;
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af) return err ? err->code : RVE_EIO;
    FILE *fp = rve_afile_fp(af);
    int ncell = t->n - t->nempty;
    fprintf(fp, "# vtk DataFile Version 3.0\nrve tessellation\nASCII\nDATASET UNSTRUCTURED_GRID\n");
    long long size = 0;
    if (!periodic) {
        fprintf(fp, "POINTS %d double\n", t->nver);
        for (int v = 0; v < t->nver; v++)
            fprintf(fp, "%.17g %.17g %.17g\n", t->ver[3 * v], t->ver[3 * v + 1], t->ver[3 * v + 2]);
    } else { /* whole cells: points per cell */
        long long np = 0;
        for (int c = 0; c < t->n; c++) np += t->cells[c].nv;
        fprintf(fp, "POINTS %lld double\n", np);
        for (int c = 0; c < t->n; c++)
            for (int u = 0; u < t->cells[c].nv; u++) {
                const double *x = t->cells[c].v + 3 * u;
                fprintf(fp, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
            }
    }
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        if (p->nv == 0) continue;
        size += 2 + p->nf + p->nfv;
    }
    fprintf(fp, "CELLS %d %lld\n", ncell, size);
    long long base = 0;
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        if (p->nv == 0) continue;
        fprintf(fp, "%d %d", 1 + p->nf + p->nfv, p->nf);
        for (int f = 0; f < p->nf; f++) {
            int m = p->foff[f + 1] - p->foff[f];
            fprintf(fp, " %d", m);
            if (!periodic) {
                /* global vertex ids, loop outward from this cell */
                int k = t->cell_foff[c] + f, g = t->cell_faces[k], s = t->cell_fsign[k];
                int a0 = t->face_voff[g];
                for (int q = 0; q < m; q++) fprintf(fp, " %d", t->face_ver[a0 + (s > 0 ? q : m - 1 - q)]);
            } else
                for (int q = p->foff[f]; q < p->foff[f + 1]; q++) fprintf(fp, " %lld", base + p->floop[q]);
        }
        fputc('\n', fp);
        base += p->nv;
    }
    fprintf(fp, "CELL_TYPES %d\n", ncell);
    for (int c = 0; c < ncell; c++) fprintf(fp, "42\n");
    fprintf(fp, "CELL_DATA %d\nSCALARS id int 1\nLOOKUP_TABLE default\n", ncell);
    for (int c = 0; c < t->n; c++)
        if (t->cells[c].nv) fprintf(fp, "%d\n", ids ? ids[c] : c + 1);
    fprintf(fp, "SCALARS volume double 1\nLOOKUP_TABLE default\n");
    for (int c = 0; c < t->n; c++)
        if (t->cells[c].nv) fprintf(fp, "%.17g\n", t->cells[c].vol);
    return rve_afile_commit(af, err);
}

/* --------------------------------------------------------------- seeds */

rve_status rve_tess_read_seeds(const char *path, double **seeds, int *n, rve_err *err)
{
    *seeds = NULL;
    *n = 0;
    char *buf;
    size_t nb;
    rve_status st = rve_read_file(path, &buf, &nb, err);
    if (st) return st;
    size_t cap = 1024;
    int m = 0;
    double *s = malloc(sizeof(double) * 4 * cap);
    if (!s) {
        free(buf);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    char *line = buf;
    int lineno = 0;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        double v[5];
        int k = 0;
        char *p = line;
        for (;;) {
            while (*p && isspace((unsigned char)*p)) p++;
            if (!*p) break;
            char *q = p;
            while (*q && !isspace((unsigned char)*q)) q++;
            char save = *q;
            *q = 0;
            if (k >= 4 || rve_parse_double(p, &v[k]) != RVE_OK) {
                free(s);
                free(buf);
                return rve_err_set(err, RVE_EDATA, path, "line %d: expected 'x y z [w]'", lineno);
            }
            k++;
            *q = save;
            p = q;
        }
        if (k != 0) {
            if (k < 3) {
                free(s);
                free(buf);
                return rve_err_set(err, RVE_EDATA, path, "line %d: expected 'x y z [w]'", lineno);
            }
            if (k == 3) v[3] = 0;
            if ((size_t)m == cap) {
                if (cap > (size_t)INT_MAX / 8) {
                    free(s);
                    free(buf);
                    return rve_err_set(err, RVE_EDATA, path, "too many seeds");
                }
                double *s2 = realloc(s, sizeof(double) * 8 * cap);
                if (!s2) {
                    free(s);
                    free(buf);
                    return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
                }
                s = s2;
                cap *= 2;
            }
            memcpy(s + 4 * (size_t)m, v, 4 * sizeof(double));
            m++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(buf);
    if (m == 0) {
        free(s);
        return rve_err_set(err, RVE_EDATA, path, "no seeds");
    }
    *seeds = s;
    *n = m;
    return RVE_OK;
}

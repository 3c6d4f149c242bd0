/* tess_read.c - Neper .tess reading: the lexer and one reader per section,
 * which fill a tess_file (the file's content, 1-based ids made 0-based);
 * tess_build.c turns it into an rve_tess. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "tess/tess_read.h"
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ lexer */


static int lx_tok(lexer *L, const char **tok, size_t *len)
{
    while (L->s < L->end && isspace((unsigned char)*L->s)) L->s++;
    if (L->s >= L->end) return 0;
    *tok = L->s;
    while (L->s < L->end && !isspace((unsigned char)*L->s)) L->s++;
    *len = (size_t)(L->s - *tok);
    return 1;
}

/* Is the next token a marker (starts with '*')?  level: how many stars it
 * starts with (0 when not a marker). */
static int lx_peek_level(const lexer *L)
{
    const char *p = L->s;
    while (p < L->end && isspace((unsigned char)*p)) p++;
    int n = 0;
    while (p + n < L->end && p[n] == '*') n++;
    return n;
}

static int lx_is(const char *tok, size_t len, const char *w)
{
    return len == strlen(w) && memcmp(tok, w, len) == 0;
}

int tess_lx_fail(lexer *L, rve_status code, const char *fmt, const char *arg)
{
    if (!L->bad) rve_err_set(L->err, code, L->path, fmt, arg);
    L->bad = 1;
    return 0;
}

int tess_lx_nomem(lexer *L) { return tess_lx_fail(L, RVE_ENOMEM, "%s", "out of memory"); }

static int lx_long(lexer *L, long lo, long hi, long *out, const char *what)
{
    const char *tok;
    size_t len;
    char buf[64], m[200];
    if (!lx_tok(L, &tok, &len)) return tess_lx_fail(L, RVE_EDATA, "%s: truncated file", what);
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    if (rve_parse_int_range(buf, lo, hi, out) != RVE_OK) {
        snprintf(m, sizeof m, "%s: expected an integer in [%ld, %ld], got '%s'", what, lo, hi, buf);
        return tess_lx_fail(L, RVE_EDATA, "%s", m);
    }
    return 1;
}

static int lx_int(lexer *L, long lo, long hi, int *out, const char *what)
{
    long v;
    if (!lx_long(L, lo, hi, &v, what)) return 0;
    *out = (int)v;
    return 1;
}

static int lx_double(lexer *L, double *out, const char *what)
{
    const char *tok;
    size_t len;
    char buf[128], m[240];
    if (!lx_tok(L, &tok, &len)) return tess_lx_fail(L, RVE_EDATA, "%s: truncated file", what);
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, tok, len);
    buf[len] = 0;
    if (rve_parse_double(buf, out) != RVE_OK) {
        snprintf(m, sizeof m, "%s: expected a number, got '%s'", what, buf);
        return tess_lx_fail(L, RVE_EDATA, "%s", m);
    }
    return 1;
}

/* A count of entities that follow: each takes at least two characters, so
 * a count beyond half the bytes left is refused before anything is
 * allocated for it. */
static int lx_count(lexer *L, long lo, int *out, const char *what)
{
    long left = (long)((L->end - L->s) / 2) + 1;
    return lx_int(L, lo, left < INT_MAX / 8 ? left : INT_MAX / 8, out, what);
}

/* A word (not a marker) into out (at most n - 1 characters). */
static int lx_word(lexer *L, char *out, size_t n, const char *what)
{
    const char *tok;
    size_t len;
    if (lx_peek_level(L) || !lx_tok(L, &tok, &len)) return tess_lx_fail(L, RVE_EDATA, "%s: missing", what);
    if (len >= n) return tess_lx_fail(L, RVE_EDATA, "%s: too long", what);
    memcpy(out, tok, len);
    out[len] = 0;
    return 1;
}

/* Next subsection marker ("*x", one star) of the current section, consumed
 * into tok; 0 at the next section or the end. */
static int lx_sub(lexer *L, const char **tok, size_t *len)
{
    if (lx_peek_level(L) != 1) return 0;
    return lx_tok(L, tok, len);
}

/* Skip values up to the next marker of any level. */
static void lx_skip_values(lexer *L)
{
    const char *tok;
    size_t len;
    while (!lx_peek_level(L) && lx_tok(L, &tok, &len)) {
    }
}

/* ------------------------------------------------------------ file content */


void tess_tf_free(tess_file *F)
{
    free(F->ids);
    free(F->seeds);
    free(F->ori_des);
    free(F->crysym);
    free(F->ori);
    free(F->ver);
    free(F->ver_state);
    free(F->edge_ver);
    free(F->edge_state);
    free(F->fvoff);
    free(F->fver);
    free(F->fedge);
    free(F->fstate);
    free(F->fpt);
    free(F->fplane);
    free(F->fptxyz);
    free(F->pfoff);
    free(F->pfaces);
    memset(F, 0, sizeof *F);
}

/* *ori: a descriptor, then every number up to the next marker (the count
 * per cell depends on the descriptor; it must divide evenly). */
static int rd_cell_ori(lexer *L, tess_file *F)
{
    char des[256];
    if (!lx_word(L, des, sizeof des, "*ori: descriptor")) return 0;
    free(F->ori_des);
    F->ori_des = strdup(des);
    if (!F->ori_des) return tess_lx_nomem(L);
    size_t cap = 0;
    F->nori = 0;
    while (!lx_peek_level(L) && L->s < L->end) {
        double v;
        if (!lx_double(L, &v, "*ori: value")) return 0;
        if (F->nori == cap) {
            cap = cap ? 2 * cap : 64;
            double *p = realloc(F->ori, cap * sizeof *p);
            if (!p) return tess_lx_nomem(L);
            F->ori = p;
        }
        F->ori[F->nori++] = v;
    }
    if (F->nori == 0 || F->nori % (size_t)F->ncell)
        return tess_lx_fail(L, RVE_EDATA, "%s", "*ori: the number of values is not a multiple of the number of cells");
    return 1;
}

static int rd_cell(lexer *L, tess_file *F)
{
    const char *tok;
    size_t len;
    if (F->ncell > 0) return tess_lx_fail(L, RVE_EDATA, "%s", "two **cell sections");
    if (!lx_count(L, 1, &F->ncell, "**cell: number of cells")) return 0;
    LX_ALLOC(L, F->seeds, 4 * (size_t)F->ncell);
    while (lx_sub(L, &tok, &len)) {
        if (lx_is(tok, len, "*id")) {
            LX_ALLOC(L, F->ids, F->ncell);
            for (int i = 0; i < F->ncell; i++)
                if (!lx_int(L, INT_MIN, INT_MAX, &F->ids[i], "*id: cell id")) return 0;
        } else if (lx_is(tok, len, "*seed")) {
            F->has_seed = 1;
            for (int i = 0; i < F->ncell; i++) {
                int id;
                if (!lx_int(L, 1, F->ncell, &id, "*seed: seed number")) return 0;
                for (int a = 0; a < 4; a++)
                    if (!lx_double(L, &F->seeds[4 * (size_t)(id - 1) + a], "*seed: coordinates and weight")) return 0;
            }
        } else if (lx_is(tok, len, "*ori")) {
            if (!rd_cell_ori(L, F)) return 0;
        } else if (lx_is(tok, len, "*crysym")) {
            char cs[128];
            if (!lx_word(L, cs, sizeof cs, "*crysym")) return 0;
            free(F->crysym);
            F->crysym = strdup(cs);
            if (!F->crysym) return tess_lx_nomem(L);
        } else { /* *lam, *mode, *orispread, *weight, ...: not used */
            lx_skip_values(L);
        }
    }
    return 1;
}

static int rd_vertex(lexer *L, tess_file *F)
{
    if (F->ver) return tess_lx_fail(L, RVE_EDATA, "%s", "two **vertex sections");
    if (!lx_count(L, 0, &F->nver, "**vertex: number of vertices")) return 0;
    LX_ALLOC(L, F->ver, 3 * (size_t)F->nver);
    LX_ALLOC(L, F->ver_state, F->nver);
    for (int v = 0; v < F->nver; v++) {
        int id;
        if (!lx_int(L, v + 1, v + 1, &id, "**vertex: vertex number (in order)")) return 0;
        for (int a = 0; a < 3; a++)
            if (!lx_double(L, &F->ver[3 * (size_t)v + a], "**vertex: coordinates")) return 0;
        if (!lx_int(L, INT_MIN, INT_MAX, &F->ver_state[v], "**vertex: state")) return 0;
    }
    return 1;
}

static int rd_edge(lexer *L, tess_file *F)
{
    if (!F->ver || F->edge_ver) return tess_lx_fail(L, RVE_EDATA, "%s", "**edge before **vertex, or twice");
    if (!lx_count(L, 0, &F->nedge, "**edge: number of edges")) return 0;
    LX_ALLOC(L, F->edge_ver, 2 * (size_t)F->nedge);
    LX_ALLOC(L, F->edge_state, F->nedge);
    for (int e = 0; e < F->nedge; e++) {
        int id;
        if (!lx_int(L, e + 1, e + 1, &id, "**edge: edge number (in order)")) return 0;
        for (int a = 0; a < 2; a++) {
            if (!lx_int(L, 1, F->nver, &F->edge_ver[2 * (size_t)e + a], "**edge: vertex")) return 0;
            F->edge_ver[2 * (size_t)e + a]--;
        }
        if (!lx_int(L, INT_MIN, INT_MAX, &F->edge_state[e], "**edge: state")) return 0;
    }
    return 1;
}

/* Grow two int arrays to hold need entries. */
static int grow2(lexer *L, int **a, int **b, size_t *cap, size_t need)
{
    if (need <= *cap) return 1;
    size_t nc = 2 * *cap + need;
    int *p = realloc(*a, nc * sizeof(int));
    if (!p) return tess_lx_nomem(L);
    *a = p;
    if (b) {
        p = realloc(*b, nc * sizeof(int));
        if (!p) return tess_lx_nomem(L);
        *b = p;
    }
    *cap = nc;
    return 1;
}

static int rd_face(lexer *L, tess_file *F)
{
    if (!F->edge_ver || F->fvoff) return tess_lx_fail(L, RVE_EDATA, "%s", "**face before **edge, or twice");
    if (!lx_count(L, 0, &F->nface, "**face: number of faces")) return 0;
    int nf = F->nface;
    LX_ALLOC(L, F->fvoff, nf + 1);
    LX_ALLOC(L, F->fplane, 4 * (size_t)nf);
    LX_ALLOC(L, F->fstate, nf);
    LX_ALLOC(L, F->fpt, nf);
    LX_ALLOC(L, F->fptxyz, 3 * (size_t)nf);
    size_t cap = 6 * (size_t)nf + 16, used = 0;
    LX_ALLOC(L, F->fver, cap);
    LX_ALLOC(L, F->fedge, cap);
    for (int g = 0; g < nf; g++) {
        int id, m, me;
        if (!lx_int(L, g + 1, g + 1, &id, "**face: face number (in order)") ||
            !lx_count(L, 3, &m, "**face: number of vertices") ||
            !grow2(L, &F->fver, &F->fedge, &cap, used + (size_t)m))
            return 0;
        F->fvoff[g] = (int)used;
        for (int k = 0; k < m; k++) {
            if (!lx_int(L, 1, F->nver, &F->fver[used + k], "**face: vertex")) return 0;
            F->fver[used + k]--;
        }
        if (!lx_int(L, m, m, &me, "**face: number of edges (must equal the number of vertices)")) return 0;
        for (int k = 0; k < me; k++) {
            if (!lx_int(L, -F->nedge, F->nedge, &F->fedge[used + k], "**face: edge")) return 0;
            if (F->fedge[used + k] == 0) return tess_lx_fail(L, RVE_EDATA, "%s", "**face: edge 0");
        }
        used += (size_t)m;
        double *pl = F->fplane + 4 * (size_t)g;
        if (!lx_double(L, &pl[3], "**face: equation")) return 0;
        for (int a = 0; a < 3; a++)
            if (!lx_double(L, &pl[a], "**face: equation")) return 0;
        if (!lx_int(L, INT_MIN, INT_MAX, &F->fstate[g], "**face: state") ||
            !lx_int(L, -1, m, &F->fpt[g], "**face: point"))
            return 0;
        for (int a = 0; a < 3; a++)
            if (!lx_double(L, &F->fptxyz[3 * (size_t)g + a], "**face: point coordinates")) return 0;
    }
    F->fvoff[nf] = (int)used;
    return 1;
}

static int rd_poly(lexer *L, tess_file *F)
{
    if (!F->fvoff || F->pfoff) return tess_lx_fail(L, RVE_EDATA, "%s", "**polyhedron before **face, or twice");
    if (!lx_count(L, 0, &F->npoly, "**polyhedron: number of polyhedra")) return 0;
    LX_ALLOC(L, F->pfoff, F->npoly + 1);
    size_t cap = 16 * (size_t)F->npoly + 16, used = 0;
    LX_ALLOC(L, F->pfaces, cap);
    for (int c = 0; c < F->npoly; c++) {
        int id, m;
        if (!lx_int(L, c + 1, c + 1, &id, "**polyhedron: number (in order)") ||
            !lx_count(L, 0, &m, "**polyhedron: number of faces") ||
            !grow2(L, &F->pfaces, NULL, &cap, used + (size_t)m))
            return 0;
        F->pfoff[c] = (int)used;
        for (int k = 0; k < m; k++) {
            if (!lx_int(L, -F->nface, F->nface, &F->pfaces[used + k], "**polyhedron: face")) return 0;
            if (F->pfaces[used + k] == 0) return tess_lx_fail(L, RVE_EDATA, "%s", "**polyhedron: face 0");
        }
        used += (size_t)m;
    }
    F->pfoff[F->npoly] = (int)used;
    return 1;
}

/* **domain: a cube; its box from the domain vertices.  The domain edges
 * (with or without the 3.5 type lines) and faces are derived from the
 * box, so they are skipped. */
static int rd_domain(lexer *L, tess_file *F)
{
    const char *tok;
    size_t len;
    while (lx_sub(L, &tok, &len)) {
        if (lx_is(tok, len, "*general")) {
            char type[64];
            if (!lx_word(L, type, sizeof type, "**domain *general: type")) return 0;
            if (strcmp(type, "cube") != 0)
                return tess_lx_fail(L, RVE_EDATA, "domain type '%s' is not supported (cube only)", type);
        } else if (lx_is(tok, len, "*vertex")) {
            int dn;
            if (!lx_int(L, 0, 1000000, &dn, "**domain *vertex: count")) return 0;
            for (int k = 0; k < dn; k++) {
                int id, nt, vv;
                double x[3];
                char lab[64];
                if (!lx_int(L, 1, dn, &id, "**domain *vertex: number")) return 0;
                for (int a = 0; a < 3; a++)
                    if (!lx_double(L, &x[a], "**domain *vertex: coordinates")) return 0;
                if (!lx_word(L, lab, sizeof lab, "**domain *vertex: label") ||
                    !lx_int(L, 0, 1000000, &nt, "**domain *vertex: count"))
                    return 0;
                for (int q = 0; q < nt; q++)
                    if (!lx_int(L, 0, INT_MAX, &vv, "**domain *vertex: vertex")) return 0;
                for (int a = 0; a < 3; a++) {
                    if (k == 0 || x[a] < F->dlo[a]) F->dlo[a] = x[a];
                    if (k == 0 || x[a] > F->dhi[a]) F->dhi[a] = x[a];
                }
            }
            F->has_dom = dn > 0;
        } else {
            lx_skip_values(L);
        }
    }
    return 1;
}

/* **periodicity: the flags and distances; the secondary vertices are
 * counted (the periodic builder compares the primaries with its own). */
static int rd_periodicity(lexer *L, tess_file *F)
{
    const char *tok;
    size_t len;
    while (lx_sub(L, &tok, &len)) {
        if (lx_is(tok, len, "*general")) {
            F->has_per = 1;
            for (int a = 0; a < 3; a++)
                if (!lx_int(L, 0, 1, &F->per[a], "**periodicity: flag")) return 0;
            for (int a = 0; a < 3; a++)
                if (!lx_double(L, &F->perd[a], "**periodicity: distance")) return 0;
        } else if (lx_is(tok, len, "*vertex")) {
            if (!lx_int(L, 0, F->nver, &F->nsecver, "**periodicity *vertex: count")) return 0;
            for (int k = 0; k < F->nsecver; k++) {
                int sv, pv, sh;
                if (!lx_int(L, 1, F->nver, &sv, "**periodicity *vertex: secondary") ||
                    !lx_int(L, 1, F->nver, &pv, "**periodicity *vertex: primary"))
                    return 0;
                for (int a = 0; a < 3; a++)
                    if (!lx_int(L, -1, 1, &sh, "**periodicity *vertex: shift")) return 0;
            }
        } else if (lx_is(tok, len, "*edge") || lx_is(tok, len, "*face")) {
            int *cnt = tok[1] == 'e' ? &F->nsecedge : &F->nsecface;
            if (!lx_count(L, 0, cnt, "**periodicity: count")) return 0;
            lx_skip_values(L);
        } else {
            lx_skip_values(L);
        }
    }
    return 1;
}

static int rd_head(lexer *L, tess_file *F, const char *tok, size_t len)
{
    if (lx_is(tok, len, "**format")) {
        if (!lx_word(L, F->format, sizeof F->format, "**format")) return 0;
        if (F->format[0] != '2' && F->format[0] != '3')
            return tess_lx_fail(L, RVE_EDATA, "unsupported .tess format '%s' (2.x or 3.x expected)", F->format);
        return 1;
    }
    int dim;
    char type[64];
    if (!lx_int(L, 1, 3, &dim, "**general: dimension")) return 0;
    if (dim != 3) return tess_lx_fail(L, RVE_EDATA, "%s", "only 3D tessellations are supported");
    if (!lx_word(L, type, sizeof type, "**general: type")) return 0;
    F->gen_periodic = strcmp(type, "periodic") == 0;
    return 1;
}

/* Read every section into F. */
int tess_rd_file(lexer *L, tess_file *F)
{
    const char *tok;
    size_t len;
    if (!lx_tok(L, &tok, &len) || !lx_is(tok, len, "***tess"))
        return tess_lx_fail(L, RVE_EDATA, "%s", "not a .tess file (no ***tess header)");
    int ended = 0;
    while (!ended && lx_tok(L, &tok, &len)) {
        int ok = 1;
        if (lx_is(tok, len, "***end"))
            ended = 1;
        else if (lx_is(tok, len, "**format") || lx_is(tok, len, "**general"))
            ok = rd_head(L, F, tok, len);
        else if (lx_is(tok, len, "**cell"))
            ok = rd_cell(L, F);
        else if (lx_is(tok, len, "**vertex"))
            ok = rd_vertex(L, F);
        else if (lx_is(tok, len, "**edge"))
            ok = rd_edge(L, F);
        else if (lx_is(tok, len, "**face"))
            ok = rd_face(L, F);
        else if (lx_is(tok, len, "**polyhedron"))
            ok = rd_poly(L, F);
        else if (lx_is(tok, len, "**domain"))
            ok = rd_domain(L, F);
        else if (lx_is(tok, len, "**periodicity") || lx_is(tok, len, "**periodic"))
            ok = rd_periodicity(L, F);
        else if (len >= 2 && tok[0] == '*' && tok[1] == '*' && (len < 3 || tok[2] != '*')) {
            /* **scale and other sections we do not use */
            while (lx_peek_level(L) == 1 && lx_tok(L, &tok, &len)) lx_skip_values(L);
            lx_skip_values(L);
        } else {
            char w[48];
            snprintf(w, sizeof w, "%.*s", (int)(len > 40 ? 40 : len), tok);
            return tess_lx_fail(L, RVE_EDATA, "unexpected '%s'", w);
        }
        if (!ok) return 0;
    }
    if (!ended) return tess_lx_fail(L, RVE_EDATA, "%s", "truncated file (no ***end)");
    if (F->ncell < 1 || !F->ver || !F->edge_ver || !F->fvoff || !F->pfoff)
        return tess_lx_fail(L, RVE_EDATA, "%s",
                       "incomplete tessellation (missing **cell, **vertex, **edge, **face or **polyhedron)");
    if (!F->has_seed) return tess_lx_fail(L, RVE_EDATA, "%s", "no **cell *seed section (seeds and weights are needed)");
    if (F->npoly != F->ncell) return tess_lx_fail(L, RVE_EDATA, "%s", "the numbers of polyhedra and cells differ");
    return 1;
}

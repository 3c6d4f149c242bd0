/* Grain sets: allocation, text output and input in the `rve dist` shape syntax. */
#include "config.h"
#include <rve/pack.h>
#include "pack/pack_internal.h"
#include "util/vec3.h"
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

rve_pack_set *rve_pack_set_alloc(size_t n)
{
    rve_pack_set *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->n = n;
    s->b = calloc(n ? n : 1, sizeof *s->b);
    if (!s->b) {
        free(s);
        return NULL;
    }
    for (size_t i = 0; i < n; i++)
        s->b[i].q[0] = 1.0;
    s->L[0] = s->L[1] = s->L[2] = 1.0;
    s->periodic = 1;
    return s;
}

void rve_pack_set_free(rve_pack_set *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->n; i++)
        rve_pack_body_free(&s->b[i]);
    free(s->b);
    free(s);
}

double rve_pack_set_volume_solid(const rve_pack_set *s)
{
    double v = 0;
    for (size_t i = 0; i < s->n; i++)
        v += s->b[i].volume;
    return v;
}

rve_status rve_pack_set_write(const rve_pack_set *s, FILE *fp, rve_err *err)
{
    fprintf(fp, "# domain %.17g %.17g %.17g %s\n", s->L[0], s->L[1], s->L[2],
            s->periodic ? "periodic" : "walls");
    size_t cap = 4096;
    char *buf = malloc(cap);
    if (!buf)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < s->n; i++) {
        int need = rve_pack_body_format(&s->b[i], buf, cap);
        if (need >= 0 && (size_t)need >= cap) {
            cap = (size_t)need + 1;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            }
            buf = nb;
            rve_pack_body_format(&s->b[i], buf, cap);
        }
        fputs(buf, fp);
        fputc('\n', fp);
    }
    free(buf);
    return ferror(fp) ? rve_err_set(err, RVE_EIO, NULL, "write failed") : RVE_OK;
}

/* ------------------------------------------------------------- reading */
typedef struct {
    const char *p;
    const char *name;
    long line;
    rve_err *err;
} lexer;

static void lex_skip(lexer *lx)
{
    for (;;) {
        while (isspace((unsigned char)*lx->p)) {
            if (*lx->p == '\n')
                lx->line++;
            lx->p++;
        }
        if (*lx->p == '#') {
            while (*lx->p && *lx->p != '\n')
                lx->p++;
            continue;
        }
        return;
    }
}

/* Next token into tok; returns 0 at end of input. */
static int lex_token(lexer *lx, char *tok, size_t n)
{
    lex_skip(lx);
    if (!*lx->p)
        return 0;
    size_t k = 0;
    while (*lx->p && !isspace((unsigned char)*lx->p) && *lx->p != '#') {
        if (k + 1 < n)
            tok[k++] = *lx->p;
        lx->p++;
    }
    tok[k] = '\0';
    return 1;
}

static rve_status lex_numbers(lexer *lx, const char *what, int count, double *v)
{
    char tok[128];
    for (int k = 0; k < count; k++) {
        if (!lex_token(lx, tok, sizeof tok))
            return rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: %s: expected %d numbers, input ends",
                               lx->line, what, count);
        if (rve_parse_double(tok, &v[k]) != RVE_OK)
            return rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: %s: '%s' is not a finite number",
                               lx->line, what, tok);
    }
    return RVE_OK;
}

static rve_status set_quat(lexer *lx, double q[4], const double *in)
{
    double n = sqrt(in[0] * in[0] + in[1] * in[1] + in[2] * in[2] + in[3] * in[3]);
    if (!(n > 0))
        return rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: zero quaternion", lx->line);
    for (int k = 0; k < 4; k++)
        q[k] = in[k] / n;
    return RVE_OK;
}

/* "compound K poly n ... poly n ...": the pieces in world coordinates (as
 * rve_pack_body_format writes them); the body gets the identity orientation
 * at the centroid of its hull, its volume sampled on a grid of 1/40 of the
 * hull's size. */
static rve_status parse_compound(lexer *lx, rve_pack_body *b)
{
    char tok[128];
    long np;
    if (!lex_token(lx, tok, sizeof tok) || rve_parse_int_range(tok, 1, 1 << 20, &np) != RVE_OK)
        return rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: compound: expected a piece count", lx->line);
    double **pv = calloc((size_t)np, sizeof *pv);
    int *pn = calloc((size_t)np, sizeof *pn);
    rve_status st = pv && pn ? RVE_OK : rve_err_set(lx->err, RVE_ENOMEM, lx->name, "out of memory");
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (long k = 0; k < np && st == RVE_OK; k++) {
        long n;
        if (!lex_token(lx, tok, sizeof tok) || strcasecmp(tok, "poly") != 0) {
            st = rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: compound piece %ld: expected 'poly'", lx->line,
                             k + 1);
            break;
        }
        if (!lex_token(lx, tok, sizeof tok) || rve_parse_int_range(tok, 4, 1000000, &n) != RVE_OK) {
            st = rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: compound piece %ld: expected a vertex count >= 4",
                             lx->line, k + 1);
            break;
        }
        pn[k] = (int)n;
        pv[k] = malloc(sizeof(double) * 3 * (size_t)n);
        if (!pv[k]) {
            st = rve_err_set(lx->err, RVE_ENOMEM, lx->name, "out of memory");
            break;
        }
        st = lex_numbers(lx, "compound piece", 3 * (int)n, pv[k]);
        for (long i = 0; i < 3 * n && st == RVE_OK; i++) {
            lo[i % 3] = fmin(lo[i % 3], pv[k][i]);
            hi[i % 3] = fmax(hi[i % 3], pv[k][i]);
        }
    }
    if (st == RVE_OK) {
        double hs[3];
        for (int a = 0; a < 3; a++)
            hs[a] = fmax(hi[a] - lo[a], 1e-300) / 40;
        st = pack_body_compound(b, (int)np, pv, pn, hs, lx->err);
        if (st != RVE_OK && lx->err) {
            char msg[RVE_ERR_MSG_MAX];
            snprintf(msg, sizeof msg, "%s", lx->err->msg);
            rve_err_set(lx->err, st, lx->name, "line %ld: compound: %s", lx->line, msg);
        }
    }
    for (long k = 0; pv && k < np; k++)
        free(pv[k]);
    free(pv);
    free(pn);
    return st;
}

static rve_status parse_body(lexer *lx, const char *kw, rve_pack_body *b)
{
    double v[12];
    rve_status st;
    char where[64];
    snprintf(where, sizeof where, "%s", kw);
    if (strcasecmp(kw, "sphere") == 0) {
        if ((st = lex_numbers(lx, where, 4, v)) != RVE_OK)
            return st;
        if ((st = rve_pack_body_sphere(b, v[3], lx->err)) != RVE_OK)
            goto bad;
        v3_copy(b->x, v);
        return RVE_OK;
    }
    if (strcasecmp(kw, "ellipsoid") == 0) {
        if ((st = lex_numbers(lx, where, 10, v)) != RVE_OK)
            return st;
        if ((st = rve_pack_body_ellipsoid(b, v[3], v[4], v[5], lx->err)) != RVE_OK)
            goto bad;
        v3_copy(b->x, v);
        return set_quat(lx, b->q, v + 6);
    }
    if (strcasecmp(kw, "superquadric") == 0) {
        if ((st = lex_numbers(lx, where, 12, v)) != RVE_OK)
            return st;
        if ((st = rve_pack_body_superquadric(b, v[3], v[4], v[5], v[6], v[7], lx->err)) != RVE_OK)
            goto bad;
        v3_copy(b->x, v);
        return set_quat(lx, b->q, v + 8);
    }
    if (strcasecmp(kw, "box") == 0) {
        if ((st = lex_numbers(lx, where, 10, v)) != RVE_OK)
            return st;
        double q[4], pts[24];
        if ((st = set_quat(lx, q, v + 6)) != RVE_OK)
            return st;
        for (int k = 0; k < 3; k++)
            if (!(v[3 + k] > 0))
                return rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: box half-extents must be positive",
                                   lx->line);
        for (int c = 0; c < 8; c++) {
            double l[3] = {(c & 1 ? 1 : -1) * v[3], (c & 2 ? 1 : -1) * v[4], (c & 4 ? 1 : -1) * v[5]}, w[3];
            v3_qrot(w, q, l);
            v3_add(pts + 3 * c, w, v);
        }
        if ((st = rve_pack_body_poly(b, 8, pts, lx->err)) != RVE_OK)
            goto bad;
        return RVE_OK;
    }
    if (strcasecmp(kw, "poly") == 0) {
        char tok[128];
        long n;
        if (!lex_token(lx, tok, sizeof tok) || rve_parse_int_range(tok, 1, 1000000, &n) != RVE_OK)
            return rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: poly: expected a vertex count", lx->line);
        double *pts = malloc(sizeof(double) * 3 * (size_t)n);
        if (!pts)
            return rve_err_set(lx->err, RVE_ENOMEM, lx->name, "out of memory");
        st = lex_numbers(lx, where, 3 * (int)n, pts);
        if (st != RVE_OK) {
            free(pts);
            return st;
        }
        st = rve_pack_body_poly(b, (int)n, pts, lx->err);
        free(pts);
        if (st != RVE_OK)
            goto bad;
        return st;
    }
    if (strcasecmp(kw, "compound") == 0)
        return parse_compound(lx, b);
    if (strcasecmp(kw, "point") == 0 || strcasecmp(kw, "segment") == 0 || strcasecmp(kw, "triangle") == 0)
        return rve_err_set(lx->err, RVE_EDATA, lx->name, "line %ld: '%s' has no volume and cannot be packed",
                           lx->line, kw);
    return rve_err_set(lx->err, RVE_EDATA, lx->name,
                       "line %ld: unknown shape '%s' (sphere, ellipsoid, superquadric, box, poly)", lx->line, kw);
bad:
    if (lx->err) {
        char msg[RVE_ERR_MSG_MAX];
        snprintf(msg, sizeof msg, "%s", lx->err->msg);
        rve_err_set(lx->err, st, lx->name, "line %ld: %s", lx->line, msg);
    }
    return st;
}

/* "# domain LX LY LZ periodic|walls" anywhere at the start of a line. */
static int find_domain(const char *text, double L[3], int *periodic)
{
    const char *p = text;
    while (p && *p) {
        const char *q = p;
        while (*q == ' ' || *q == '\t')
            q++;
        if (*q == '#') {
            q++;
            while (*q == ' ' || *q == '\t')
                q++;
            if (strncmp(q, "domain", 6) == 0) {
                char kind[32] = "";
                if (sscanf(q + 6, "%lf %lf %lf %31s", &L[0], &L[1], &L[2], kind) == 4) {
                    *periodic = strcmp(kind, "periodic") == 0;
                    if (strcmp(kind, "periodic") != 0 && strcmp(kind, "walls") != 0)
                        return -1;
                    if (!(L[0] > 0 && L[1] > 0 && L[2] > 0) || !isfinite(L[0] + L[1] + L[2]))
                        return -1;
                    return 1;
                }
                return -1;
            }
        }
        p = strchr(p, '\n');
        if (p)
            p++;
    }
    return 0;
}

rve_status rve_pack_bodies_parse(const char *text, const char *name, rve_pack_body **bodies,
                                 size_t *n, double L[3], int *has_domain, int *periodic,
                                 rve_err *err)
{
    *bodies = NULL;
    *n = 0;
    int hd = find_domain(text, L, periodic);
    if (hd < 0)
        return rve_err_set(err, RVE_EDATA, name,
                           "bad '# domain LX LY LZ periodic|walls' line (positive sizes expected)");
    if (has_domain)
        *has_domain = hd;
    lexer lx = {text, name, 1, err};
    size_t cap = 0;
    rve_pack_body *b = NULL;
    char tok[64];
    while (lex_token(&lx, tok, sizeof tok)) {
        if (*n == cap) {
            cap = cap ? 2 * cap : 64;
            rve_pack_body *nb = realloc(b, cap * sizeof *b);
            if (!nb) {
                rve_err_set(err, RVE_ENOMEM, name, "out of memory");
                goto fail;
            }
            b = nb;
        }
        memset(&b[*n], 0, sizeof b[*n]);
        if (parse_body(&lx, tok, &b[*n]) != RVE_OK) {
            rve_pack_body_free(&b[*n]);
            goto fail;
        }
        (*n)++;
    }
    *bodies = b;
    return RVE_OK;
fail:
    for (size_t i = 0; i < *n; i++)
        rve_pack_body_free(&b[i]);
    free(b);
    *n = 0;
    return err ? err->code : RVE_EDATA;
}

rve_status rve_pack_set_read(const char *path, rve_pack_set **out, rve_err *err)
{
    *out = NULL;
    char *text;
    size_t len;
    rve_status st = rve_read_file(path, &text, &len, err);
    if (st != RVE_OK)
        return st;
    if (strlen(text) != len) {
        free(text);
        return rve_err_set(err, RVE_EDATA, path, "file contains NUL bytes");
    }
    rve_pack_body *b;
    size_t n;
    double L[3] = {1, 1, 1};
    int hd = 0, per = 1;
    st = rve_pack_bodies_parse(text, path, &b, &n, L, &hd, &per, err);
    free(text);
    if (st != RVE_OK)
        return st;
    if (!hd) {
        for (size_t i = 0; i < n; i++)
            rve_pack_body_free(&b[i]);
        free(b);
        return rve_err_set(err, RVE_EDATA, path, "no '# domain LX LY LZ periodic|walls' line");
    }
    rve_pack_set *s = calloc(1, sizeof *s);
    if (!s) {
        for (size_t i = 0; i < n; i++)
            rve_pack_body_free(&b[i]);
        free(b);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    s->n = n;
    s->b = b ? b : calloc(1, sizeof *s->b);
    v3_copy(s->L, L);
    s->periodic = per;
    *out = s;
    return RVE_OK;
}

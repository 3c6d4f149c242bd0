/* Grain maps: Neper .tesr (format 2.0 and 2.1) and raw arrays, read and write. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "raster/map_internal.h"
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rve_map_bytes_needed(uint32_t nlabels, int signed16)
{
    if (nlabels <= 255)
        return 1;
    if (nlabels <= (signed16 ? 32767u : 65535u))
        return 2;
    return 4;
}

static int host_big_endian(void)
{
    const uint16_t one = 1;
    return *(const unsigned char *)&one == 0;
}

uint32_t rve_map_unpack(uint32_t *dst, const unsigned char *src, size_t n, int bytes, int swap)
{
    uint32_t mx = 0;
    if (bytes == 1) {
        for (size_t i = 0; i < n; i++) {
            dst[i] = src[i];
            if (dst[i] > mx)
                mx = dst[i];
        }
    } else if (bytes == 2) {
        for (size_t i = 0; i < n; i++) {
            uint16_t v;
            memcpy(&v, src + 2 * i, 2);
            if (swap)
                v = (uint16_t)((v >> 8) | (v << 8));
            dst[i] = v;
            if (v > mx)
                mx = v;
        }
    } else {
        for (size_t i = 0; i < n; i++) {
            uint32_t v;
            memcpy(&v, src + 4 * i, 4);
            if (swap)
                v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
            dst[i] = v;
            if (v > mx)
                mx = v;
        }
    }
    return mx;
}

static void pack(unsigned char *dst, const uint32_t *src, size_t n, int bytes, int swap)
{
    for (size_t i = 0; i < n; i++) {
        uint32_t v = src[i];
        if (bytes == 1) {
            dst[i] = (unsigned char)v;
        } else if (bytes == 2) {
            uint16_t w = (uint16_t)v;
            if (swap)
                w = (uint16_t)((w >> 8) | (w << 8));
            memcpy(dst + 2 * i, &w, 2);
        } else {
            if (swap)
                v = (v >> 24) | ((v >> 8) & 0xff00u) | ((v << 8) & 0xff0000u) | (v << 24);
            memcpy(dst + 4 * i, &v, 4);
        }
    }
}

/* ------------------------------------------------------------ tokenizer */
typedef struct {
    const char *b;
    size_t n, pos;
    char tok[256];
    size_t tokstart;
} tk;

static int is_ws(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

/* Next whitespace-separated token (truncated to 255 chars); 0 at the end. */
static int tk_next(tk *t)
{
    while (t->pos < t->n && is_ws(t->b[t->pos]))
        t->pos++;
    if (t->pos >= t->n)
        return 0;
    t->tokstart = t->pos;
    size_t k = 0;
    while (t->pos < t->n && !is_ws(t->b[t->pos])) {
        if (k < sizeof t->tok - 1)
            t->tok[k++] = t->b[t->pos];
        t->pos++;
    }
    t->tok[k] = 0;
    return 1;
}

/* Peek: does the next token start with '*'? (also 1 at the end) */
static int tk_peek_star(tk *t)
{
    size_t p = t->pos;
    while (p < t->n && is_ws(t->b[p]))
        p++;
    return p >= t->n || t->b[p] == '*';
}

static int parse_ulong(const char *s, unsigned long long *v)
{
    if (!*s)
        return 0;
    unsigned long long x = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return 0;
        x = x * 10 + (unsigned)(*s - '0');
        if (x > 0xffffffffffull)
            return 0;
    }
    *v = x;
    return 1;
}

static int tk_int(tk *t, long lo, long hi, long *v)
{
    if (!tk_next(t))
        return 0;
    return rve_parse_int_range(t->tok, lo, hi, v) == RVE_OK;
}

static int tk_double(tk *t, double *v)
{
    if (!tk_next(t))
        return 0;
    return rve_parse_double(t->tok, v) == RVE_OK;
}

static int data_format(const char *s, int *bytes, int *big)
{
    *big = 0;
    if (strcmp(s, "ascii") == 0) {
        *bytes = 0;
        return 1;
    }
    if (strncmp(s, "binary", 6) != 0)
        return 0;
    const char *p = s + 6;
    if (strncmp(p, "8", 1) == 0 && (p[1] == 0 || p[1] == '_'))
        *bytes = 1, p += 1;
    else if (strncmp(p, "16", 2) == 0)
        *bytes = 2, p += 2;
    else if (strncmp(p, "32", 2) == 0)
        *bytes = 4, p += 2;
    else
        return 0;
    if (*p == 0)
        return 1;
    if (strcmp(p, "_big") == 0) {
        *big = 1;
        return 1;
    }
    if (strcmp(p, "_little") == 0)
        return 1;
    return 0;
}

#define FAIL(code, ...)                                   \
    do {                                                  \
        rve_err_set(err, code, name, __VA_ARGS__);        \
        goto fail;                                        \
    } while (0)

/* State of one .tesr reading, shared by its section readers (each returns
 * 0 with err set on failure; tesr_rd_free releases what is held). */
typedef struct {
    tk t;
    const char *name, *dir;
    rve_err *err;
    rve_map *m;
    uint32_t *cellid;
    double *ori;
    char *ori_des, *ext, *crysym;
    long ncell, dim;
    int fmt_bytes, fmt_big, size[3];
    double version; /* of **format: 2.0, 2.1 or 2.2 */
    double h[3], o[3];
    size_t nori, nvox;
    const char *data; /* external data (*file), or NULL: inline after **data */
    size_t ndata;
} tesr_rd;

#define RFAIL(R, code, ...) return (rve_err_set((R)->err, code, (R)->name, __VA_ARGS__), 0)

static void tesr_rd_free(tesr_rd *R)
{
    rve_map_free(R->m);
    free(R->cellid);
    free(R->ori);
    free(R->ori_des);
    free(R->ext);
    free(R->crysym);
}

/* ***tesr, **format (2.0 puts the data format there), **general and its
 * optional subsections (*origin; *hasvoid and unknown ones skipped). */
static int tesr_rd_head(tesr_rd *R, int *have_tok)
{
    tk *t = &R->t;
    if (!tk_next(t) || strcmp(t->tok, "***tesr") != 0)
        RFAIL(R, RVE_EDATA, "not a .tesr file (no ***tesr at the start)");
    if (!tk_next(t) || strcmp(t->tok, "**format") != 0)
        RFAIL(R, RVE_EDATA, "missing **format");
    /* 2.2 (Neper 4.10) has the layout of 2.1; what changed is the meaning
     * of "active"/"passive" in *ori descriptors (see tesr_rd_ori). */
    if (!tk_next(t) || (strcmp(t->tok, "2.0") != 0 && strcmp(t->tok, "2.1") != 0 && strcmp(t->tok, "2.2") != 0))
        RFAIL(R, RVE_EDATA, "unsupported .tesr format '%s' (expected 2.0, 2.1 or 2.2)", t->tok);
    R->version = strtod(t->tok, NULL);
    if (!tk_peek_star(t)) {
        tk_next(t);
        if (!data_format(t->tok, &R->fmt_bytes, &R->fmt_big))
            RFAIL(R, RVE_EDATA, "unknown data format '%s'", t->tok);
    }
    if (!tk_next(t) || strcmp(t->tok, "**general") != 0)
        RFAIL(R, RVE_EDATA, "missing **general");
    if (!tk_int(t, 1, 3, &R->dim) || R->dim < 2)
        RFAIL(R, RVE_EDATA, "**general: dimension must be 2 or 3");
    for (int a = 0; a < R->dim; a++) {
        long v;
        if (!tk_next(t))
            RFAIL(R, RVE_EDATA, "**general: missing raster size");
        if (rve_parse_int_range(t->tok, 1, INT_MAX, &v) != RVE_OK)
            RFAIL(R, RVE_EDATA, "**general: bad raster size '%s' (must be a positive integer)", t->tok);
        R->size[a] = (int)v;
    }
    for (int a = 0; a < R->dim; a++)
        if (!tk_double(t, &R->h[a]) || !(R->h[a] > 0))
            RFAIL(R, RVE_EDATA, "**general: bad voxel size '%s' (must be positive)", t->tok);
    if (R->dim == 2)
        R->h[2] = R->h[0];
    *have_tok = tk_next(t);
    while (*have_tok && t->tok[0] == '*' && t->tok[1] != '*') {
        if (strcmp(t->tok, "*origin") == 0) {
            for (int a = 0; a < R->dim; a++)
                if (!tk_double(t, &R->o[a]))
                    RFAIL(R, RVE_EDATA, "*origin: bad value '%s'", t->tok);
        } else {
            while (!tk_peek_star(t)) /* *hasvoid and unknown: skip their values */
                tk_next(t);
        }
        *have_tok = tk_next(t);
    }
    return 1;
}

/* The *ori descriptor with its convention spelled out as Neper 4.10 (.tesr
 * 2.2, .tess 3.5) means it, so that a map carries one meaning whatever file
 * it came from: before 2.2 Neper's "active" was the sample-to-crystal
 * rotation, and its writers (ours included) write 2.2. */
static char *tesr_modern_descriptor(tesr_rd *R, const char *des)
{
    rve_ori_spec sp;
    rve_err e;
    rve_err_clear(&e);
    /* rve_ori_parse_descriptor knows the .tess numbering: 3.5 is 4.10's */
    if (rve_ori_parse_descriptor(des, R->version < 2.2 - 1e-9 ? 3.4 : 3.5, &sp, &e) != RVE_OK) {
        rve_err_set(R->err, RVE_EDATA, R->name, "*ori: %s", e.msg);
        return NULL;
    }
    char buf[96];
    snprintf(buf, sizeof buf, "%s:%s", rve_ori_des_name(sp.des), sp.conv == RVE_ORI_ACTIVE ? "active" : "passive");
    char *s = strdup(buf);
    if (!s)
        rve_err_set(R->err, RVE_ENOMEM, R->name, "out of memory");
    return s;
}

/* *ori: a descriptor, then every number up to the next marker. */
static int tesr_rd_ori(tesr_rd *R)
{
    tk *t = &R->t;
    if (!tk_next(t) || t->tok[0] == '*')
        RFAIL(R, RVE_EDATA, "*ori: missing descriptor");
    free(R->ori_des);
    R->ori_des = tesr_modern_descriptor(R, t->tok);
    if (!R->ori_des)
        return 0;
    free(R->ori);
    R->ori = NULL;
    R->nori = 0;
    size_t cap = 0;
    while (!tk_peek_star(t)) {
        double v;
        tk_next(t);
        if (rve_parse_double(t->tok, &v) != RVE_OK)
            RFAIL(R, RVE_EDATA, "*ori: bad value '%s'", t->tok);
        if (R->nori == cap) {
            cap = cap ? 2 * cap : 64;
            double *p = realloc(R->ori, cap * sizeof *p);
            if (!p)
                RFAIL(R, RVE_ENOMEM, "out of memory");
            R->ori = p;
        }
        R->ori[R->nori++] = v;
    }
    return 1;
}

/* The optional **cell section (the current token): count, *id, *ori;
 * *seed, *crysym, *coo, *vol... skipped. */
static int tesr_rd_cell(tesr_rd *R, int *have_tok)
{
    tk *t = &R->t;
    if (!tk_peek_star(t)) {
        if (!tk_int(t, 0, (long)RVE_MAP_LABEL_MAX, &R->ncell))
            RFAIL(R, RVE_EDATA, "**cell: bad number of cells '%s'", t->tok);
        if ((size_t)R->ncell > t->n) /* every id needs at least two characters */
            RFAIL(R, RVE_EDATA, "**cell: %ld cells cannot fit in a %zu-byte file", R->ncell, t->n);
    }
    *have_tok = tk_next(t);
    while (*have_tok && t->tok[0] == '*' && t->tok[1] != '*') {
        if (strcmp(t->tok, "*id") == 0) {
            if (R->ncell < 0)
                RFAIL(R, RVE_EDATA, "**cell: *id without a number of cells");
            free(R->cellid);
            R->cellid = malloc(((size_t)R->ncell + 1) * sizeof *R->cellid);
            if (!R->cellid)
                RFAIL(R, RVE_ENOMEM, "out of memory");
            R->cellid[0] = 0;
            for (long c = 1; c <= R->ncell; c++) {
                unsigned long long v;
                if (!tk_next(t) || !parse_ulong(t->tok, &v))
                    RFAIL(R, RVE_EDATA, "*id: expected %ld cell ids, bad or missing value '%s'", R->ncell, t->tok);
                if (v > RVE_MAP_LABEL_MAX)
                    RFAIL(R, RVE_EDATA, "*id: cell id %llu above 2^31 - 1", v);
                R->cellid[c] = (uint32_t)v;
            }
        } else if (strcmp(t->tok, "*ori") == 0) {
            if (!tesr_rd_ori(R))
                return 0;
        } else if (strcmp(t->tok, "*crysym") == 0 && !tk_peek_star(t) && tk_next(t)) {
            rve_laue g; /* kept when rve knows the group; else the symmetry stays unknown */
            free(R->crysym);
            R->crysym = rve_laue_parse(t->tok, &g) == RVE_OK ? strdup(rve_laue_name(g)) : NULL;
        } else {
            while (!tk_peek_star(t))
                tk_next(t);
        }
        *have_tok = tk_next(t);
    }
    return 1;
}

/* **data's format (2.1, 2.2: here; 2.0: under **format), the size cap, and
 * an external *file. */
static int tesr_rd_data_head(tesr_rd *R, size_t maxvox, char *extname, size_t extcap)
{
    tk *t = &R->t;
    if (!tk_peek_star(t)) {
        size_t save = t->pos;
        tk_next(t);
        int b, big;
        if (data_format(t->tok, &b, &big))
            R->fmt_bytes = b, R->fmt_big = big;
        else
            t->pos = save; /* 2.0 ascii data follows directly */
    }
    if (R->fmt_bytes < 0)
        RFAIL(R, RVE_EDATA, "**data: no data format (ascii, binary8, binary16, binary32)");
    size_t nvox = (size_t)R->size[0] * (size_t)R->size[1];
    if (nvox > maxvox / (size_t)R->size[2])
        RFAIL(R, RVE_EDATA, "raster %dx%dx%d is too large (more than %zu voxels)", R->size[0], R->size[1],
              R->size[2], maxvox);
    R->nvox = nvox * (size_t)R->size[2];
    if (tk_peek_star(t) && t->pos < t->n) {
        size_t save = t->pos;
        tk_next(t);
        if (strcmp(t->tok, "*file") != 0) {
            t->pos = save;
            return 1;
        }
        if (!tk_next(t))
            RFAIL(R, RVE_EDATA, "*file: missing file name");
        if (!R->dir)
            RFAIL(R, RVE_EDATA, "*file %s: external data files are not allowed here", t->tok);
        if (t->tok[0] == '/' || !R->dir[0])
            snprintf(extname, extcap, "%s", t->tok);
        else
            snprintf(extname, extcap, "%s/%s", R->dir, t->tok);
        /* read no more than the header allows: binary data is exactly
         * nvox x bytes; an ASCII value takes at most 10 digits, and some
         * room is left for generous separators */
        size_t most = R->fmt_bytes > 0 ? R->nvox * (size_t)R->fmt_bytes : 32 * R->nvox + 65536;
        rve_err e2;
        if (rve_read_file_max(extname, most, &R->ext, &R->ndata, &e2) != RVE_OK)
            RFAIL(R, RVE_EDATA, "*file %s: cannot read the data file: %s", t->tok, e2.msg);
        R->data = R->ext;
    }
    return 1;
}

/* ASCII voxel values, inline or in the external file; *mx: largest label. */
static int tesr_rd_ascii(tesr_rd *R, uint32_t *mx)
{
    tk d = R->t;
    if (R->data)
        d = (tk){R->data, R->ndata, 0, {0}, 0};
    for (size_t v = 0; v < R->nvox; v++) {
        unsigned long long x;
        if (!tk_next(&d) || d.tok[0] == '*')
            RFAIL(R, RVE_EDATA, "**data: %zu voxel values, the header says %zu", v, R->nvox);
        if (!parse_ulong(d.tok, &x))
            RFAIL(R, RVE_EDATA, "**data: bad voxel value '%s' (non-negative integers only)", d.tok);
        if (x > RVE_MAP_LABEL_MAX)
            RFAIL(R, RVE_EDATA, "**data: label %llu above 2^31 - 1", x);
        R->m->lab[v] = (uint32_t)x;
        if (x > *mx)
            *mx = (uint32_t)x;
    }
    if (R->data ? tk_next(&d) : !tk_peek_star(&d))
        RFAIL(R, RVE_EDATA, "**data: more values than the %dx%dx%d voxels of the header", R->size[0], R->size[1],
              R->size[2]);
    return 1;
}

/* Binary voxel values, inline (right after the newline ending the header
 * line) or the whole external file. */
static int tesr_rd_binary(tesr_rd *R, uint32_t *mx)
{
    const tk *t = &R->t;
    const char *data = R->data;
    size_t ndata = R->ndata, need = R->nvox * (size_t)R->fmt_bytes, start = 0;
    if (!data) {
        size_t p = t->pos;
        while (p < t->n && t->b[p] != '\n')
            p++;
        if (p >= t->n)
            RFAIL(R, RVE_EDATA, "**data: no binary data after the header");
        start = p + 1;
        data = t->b;
        ndata = t->n;
        if (ndata - start < need)
            RFAIL(R, RVE_EDATA, "**data: %zu bytes of binary data, the header needs %zu", ndata - start, need);
        /* After the data: only whitespace and the next section. */
        size_t q = start + need;
        while (q < ndata && is_ws(data[q]))
            q++;
        if (q < ndata && data[q] != '*')
            RFAIL(R, RVE_EDATA, "**data: more binary data than the %dx%dx%d voxels of the header", R->size[0],
                  R->size[1], R->size[2]);
    } else if (ndata != need) {
        RFAIL(R, RVE_EDATA, "*file: %zu bytes of data, the header needs %zu (%dx%dx%d x %d bytes)", ndata, need,
              R->size[0], R->size[1], R->size[2], R->fmt_bytes);
    }
    *mx = rve_map_unpack(R->m->lab, (const unsigned char *)data + start, R->nvox, R->fmt_bytes,
                         R->fmt_bytes > 1 && R->fmt_big != host_big_endian());
    if (*mx > RVE_MAP_LABEL_MAX)
        RFAIL(R, RVE_EDATA, "**data: label %u above 2^31 - 1", *mx);
    return 1;
}

/* Grid, ids and orientations (kept per cell when they match the count) into the map. */
static int tesr_rd_finish(tesr_rd *R, uint32_t mx)
{
    rve_map *m = R->m;
    for (int a = 0; a < 3; a++) {
        m->h[a] = R->h[a];
        m->origin[a] = R->o[a];
    }
    m->has_res = 1;
    m->nlabels = mx;
    if (R->cellid) {
        if (mx > (uint32_t)R->ncell)
            RFAIL(R, RVE_EDATA, "**data: label %u but **cell lists %ld cells", mx, R->ncell);
        m->ids = malloc(((size_t)mx + 1) * sizeof *m->ids);
        if (!m->ids)
            RFAIL(R, RVE_ENOMEM, "out of memory");
        memcpy(m->ids, R->cellid, ((size_t)mx + 1) * sizeof *m->ids);
    }
    if (R->ori && R->ncell > 0 && R->nori % (size_t)R->ncell == 0 && R->nori / (size_t)R->ncell <= 16 && mx > 0 &&
        (uint32_t)R->ncell >= mx) {
        m->ori_n = (int)(R->nori / (size_t)R->ncell);
        m->ori = R->ori;
        R->ori = NULL;
        m->ori_des = R->ori_des;
        R->ori_des = NULL;
    }
    m->crysym = R->crysym;
    R->crysym = NULL;
    return 1;
}

rve_status rve_map_read_tesr_mem_capped(const char *buf, size_t n, const char *name,
                                        const char *dir, size_t maxvox, rve_map **out,
                                        rve_err *err)
{
    tesr_rd R;
    memset(&R, 0, sizeof R);
    R.t = (tk){buf, n, 0, {0}, 0};
    R.name = name, R.dir = dir, R.err = err;
    R.ncell = -1, R.fmt_bytes = -1;
    for (int a = 0; a < 3; a++)
        R.size[a] = 1, R.h[a] = 1;
    *out = NULL;
    int have_tok = 0, ok = tesr_rd_head(&R, &have_tok);
    if (ok && have_tok && strcmp(R.t.tok, "**cell") == 0)
        ok = tesr_rd_cell(&R, &have_tok);
    if (ok && (!have_tok || strcmp(R.t.tok, "**data") != 0)) {
        rve_err_set(err, RVE_EDATA, name, "missing **data (found '%s')", have_tok ? R.t.tok : "end of file");
        ok = 0;
    }
    char extname[4096];
    ok = ok && tesr_rd_data_head(&R, maxvox, extname, sizeof extname);
    if (ok && !(R.m = rve_map_alloc(R.size[0], R.size[1], R.size[2]))) {
        rve_err_set(err, RVE_ENOMEM, name, "out of memory for a %dx%dx%d map", R.size[0], R.size[1], R.size[2]);
        ok = 0;
    }
    uint32_t mx = 0;
    ok = ok && (R.fmt_bytes == 0 ? tesr_rd_ascii(&R, &mx) : tesr_rd_binary(&R, &mx)) && tesr_rd_finish(&R, mx);
    if (!ok) {
        tesr_rd_free(&R);
        return err ? err->code : RVE_EDATA;
    }
    *out = R.m;
    R.m = NULL;
    tesr_rd_free(&R);
    return RVE_OK;
}

rve_status rve_map_read_tesr_mem(const char *buf, size_t n, const char *name, const char *dir,
                                 rve_map **out, rve_err *err)
{
    return rve_map_read_tesr_mem_capped(buf, n, name, dir, RVE_MAP_MAX_VOXELS_DEFAULT, out, err);
}

rve_status rve_map_read_tesr(const char *path, rve_map **out, rve_err *err)
{
    char *buf;
    size_t n;
    rve_status s = rve_read_file(path, &buf, &n, err);
    if (s != RVE_OK)
        return s;
    char dir[4096];
    const char *slash = strrchr(path, '/');
    if (slash)
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    else
        snprintf(dir, sizeof dir, ".");
    if (slash == path)
        snprintf(dir, sizeof dir, "/");
    s = rve_map_read_tesr_mem(buf, n, path, dir, out, err);
    free(buf);
    return s;
}

/* ------------------------------------------------------------------ raw */
rve_status rve_map_read_raw(const char *path, const rve_raw_opts *raw, rve_map **out, rve_err *err)
{
    const char *name = path;
    rve_map *m = NULL;
    FILE *fp = NULL;
    unsigned char *buf = NULL;
    *out = NULL;
    if (!raw || raw->nx <= 0 || raw->ny <= 0 || raw->nz <= 0)
        return rve_err_set(err, RVE_EUSAGE, path, "raw input needs positive dimensions (--dims NX,NY,NZ)");
    if (raw->bytes != 1 && raw->bytes != 2 && raw->bytes != 4)
        return rve_err_set(err, RVE_EUSAGE, path, "raw input needs 1, 2 or 4 bytes per voxel");
    struct stat st;
    if (stat(path, &st) != 0)
        return rve_err_set(err, RVE_EIO, path, "cannot open: %s", strerror(errno));
    size_t nvox = (size_t)raw->nx * (size_t)raw->ny * (size_t)raw->nz;
    size_t need = nvox * (size_t)raw->bytes;
    if ((size_t)st.st_size != raw->offset + need)
        return rve_err_set(err, RVE_EDATA, path,
                           "file has %lld bytes, %dx%dx%d x %d bytes%s need %zu",
                           (long long)st.st_size, raw->nx, raw->ny, raw->nz, raw->bytes,
                           raw->offset ? " + offset" : "", raw->offset + need);
    fp = fopen(path, "rb");
    if (!fp)
        return rve_err_set(err, RVE_EIO, path, "cannot open: %s", strerror(errno));
    m = rve_map_alloc(raw->nx, raw->ny, raw->nz);
    if (!m)
        FAIL(RVE_ENOMEM, "out of memory for a %dx%dx%d map", raw->nx, raw->ny, raw->nz);
    if (raw->offset && fseeko(fp, (off_t)raw->offset, SEEK_SET) != 0)
        FAIL(RVE_EIO, "cannot seek: %s", strerror(errno));
    const size_t chunk = (size_t)1 << 20;
    buf = malloc(chunk * (size_t)raw->bytes);
    if (!buf)
        FAIL(RVE_ENOMEM, "out of memory");
    uint32_t mx = 0;
    int swap = raw->bytes > 1 && (raw->big_endian != 0) != host_big_endian();
    for (size_t v = 0; v < nvox; v += chunk) {
        size_t k = nvox - v < chunk ? nvox - v : chunk;
        if (fread(buf, (size_t)raw->bytes, k, fp) != k)
            FAIL(RVE_EDATA, "truncated data");
        uint32_t x = rve_map_unpack(m->lab + v, buf, k, raw->bytes, swap);
        if (x > mx)
            mx = x;
    }
    if (mx > RVE_MAP_LABEL_MAX)
        FAIL(RVE_EDATA, "label %u above 2^31 - 1", mx);
    m->nlabels = mx;
    free(buf);
    fclose(fp);
    *out = m;
    return RVE_OK;
fail:
    free(buf);
    if (fp)
        fclose(fp);
    rve_map_free(m);
    return err ? err->code : RVE_EDATA;
}

static rve_status write_binary(FILE *fp, const rve_map *m, int bytes, int big, const char *name,
                               rve_err *err)
{
    size_t nvox = rve_map_nvox(m);
    const size_t chunk = (size_t)1 << 20;
    unsigned char *buf = malloc(chunk * (size_t)bytes);
    if (!buf)
        return rve_err_set(err, RVE_ENOMEM, name, "out of memory");
    int swap = bytes > 1 && (big != 0) != host_big_endian();
    for (size_t v = 0; v < nvox; v += chunk) {
        size_t k = nvox - v < chunk ? nvox - v : chunk;
        pack(buf, m->lab + v, k, bytes, swap);
        if (fwrite(buf, (size_t)bytes, k, fp) != k) {
            free(buf);
            return rve_err_set(err, RVE_EIO, name, "write failed: %s", strerror(errno));
        }
    }
    free(buf);
    return RVE_OK;
}

static uint32_t max_label(const rve_map *m)
{
    uint32_t mx = 0;
    size_t n = rve_map_nvox(m);
    for (size_t v = 0; v < n; v++)
        if (m->lab[v] > mx)
            mx = m->lab[v];
    return mx;
}

static rve_status check_width(const rve_map *m, int bytes, const char *path, rve_err *err)
{
    if (bytes != 1 && bytes != 2 && bytes != 4)
        return rve_err_set(err, RVE_EUSAGE, path, "sample width must be 1, 2 or 4 bytes, not %d", bytes);
    uint64_t lim = bytes == 4 ? RVE_MAP_LABEL_MAX : ((uint64_t)1 << (8 * bytes)) - 1;
    uint32_t mx = 0;
    size_t n = rve_map_nvox(m);
    for (size_t v = 0; v < n; v++)
        if (m->lab[v] > mx)
            mx = m->lab[v];
    if (mx > lim)
        return rve_err_set(err, RVE_EUSAGE, path, "label %u does not fit in %d byte%s", mx, bytes,
                           bytes > 1 ? "s" : "");
    return RVE_OK;
}

void rve_map_write_opts_default(rve_map_write_opts *o)
{
    memset(o, 0, sizeof *o);
    o->compress = 1;
}

rve_status rve_map_write_raw(const rve_map *m, const char *path, const rve_map_write_opts *o,
                             rve_err *err)
{
    rve_map_write_opts d;
    if (!o) {
        rve_map_write_opts_default(&d);
        o = &d;
    }
    int bytes = o->bytes ? o->bytes : rve_map_bytes_needed(max_label(m), 0); /* not nlabels: it may be stale */
    rve_status s = check_width(m, bytes, path, err);
    if (s != RVE_OK)
        return s;
    rve_afile *af = rve_afile_open(path, 1, err);
    if (!af)
        return err ? err->code : RVE_EIO;
    s = write_binary(rve_afile_fp(af), m, bytes, o->big_endian, path, err);
    if (s != RVE_OK) {
        rve_afile_abort(af);
        return s;
    }
    return rve_afile_commit(af, err);
}

rve_status rve_map_write_tesr(const rve_map *m, const char *path, const rve_map_write_opts *o,
                              rve_err *err)
{
    rve_map_write_opts d;
    if (!o) {
        rve_map_write_opts_default(&d);
        o = &d;
    }
    int bytes = o->bytes ? o->bytes : rve_map_bytes_needed(max_label(m), 1);
    rve_status s = RVE_OK;
    if (!o->ascii) {
        s = check_width(m, bytes, path, err);
        if (s != RVE_OK)
            return s;
    }
    if (o->external && strcmp(path, "-") == 0)
        return rve_err_set(err, RVE_EUSAGE, path, "an external data file needs a named .tesr file");
    char fmt[32];
    if (o->ascii)
        snprintf(fmt, sizeof fmt, "ascii");
    else
        snprintf(fmt, sizeof fmt, "binary%d%s", 8 * bytes, bytes > 1 && o->big_endian ? "_big" : "");
    rve_afile *af = NULL, *afx = NULL;
    char *rawpath = NULL;
    if (o->external) {
        size_t n = strlen(path) + 8;
        rawpath = malloc(n);
        if (!rawpath)
            return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        snprintf(rawpath, n, "%s.raw", path);
        afx = rve_afile_open(rawpath, 1, err);
        if (!afx) {
            free(rawpath);
            return err ? err->code : RVE_EIO;
        }
    }
    af = rve_afile_open(path, 1, err);
    if (!af) {
        rve_afile_abort(afx);
        free(rawpath);
        return err ? err->code : RVE_EIO;
    }
    FILE *fp = rve_afile_fp(af);
    int hasvoid = 0;
    size_t nvox = rve_map_nvox(m);
    for (size_t v = 0; v < nvox && !hasvoid; v++)
        hasvoid = m->lab[v] == 0;
    fprintf(fp, "***tesr\n **format\n   2.2\n **general\n   3\n   %d %d %d\n   %.17g %.17g %.17g\n",
            m->nx, m->ny, m->nz, m->h[0], m->h[1], m->h[2]);
    if (m->origin[0] != 0 || m->origin[1] != 0 || m->origin[2] != 0)
        fprintf(fp, "  *origin\n   %.17g %.17g %.17g\n", m->origin[0], m->origin[1], m->origin[2]);
    fprintf(fp, "  *hasvoid %d\n", hasvoid);
    if (m->ids || (m->ori && m->ori_n > 0) || m->crysym) {
        fprintf(fp, " **cell\n   %u\n", m->nlabels);
        if (m->ids) {
            fprintf(fp, "  *id\n  ");
            for (uint32_t l = 1; l <= m->nlabels; l++)
                fprintf(fp, " %u%s", m->ids[l], (l % 12 == 0 && l < m->nlabels) ? "\n  " : "");
            fprintf(fp, "\n");
        }
        if (m->ori && m->ori_n > 0) {
            /* the HDF5 readers' bare "quaternion" is passive; Neper would
             * read a bare descriptor as active */
            const char *des = m->ori_des ? m->ori_des : "rodrigues";
            fprintf(fp, "  *ori\n   %s\n", strcmp(des, "quaternion") ? des : "quaternion:passive");
            for (uint32_t l = 0; l < m->nlabels; l++) {
                fprintf(fp, "  ");
                for (int q = 0; q < m->ori_n; q++)
                    fprintf(fp, " %.17g", m->ori[(size_t)l * m->ori_n + q]);
                fprintf(fp, "\n");
            }
        }
        if (m->crysym)
            fprintf(fp, "  *crysym\n   %s\n", m->crysym);
    }
    fprintf(fp, " **data\n   %s\n", fmt);
    if (o->external) {
        const char *base = strrchr(rawpath, '/');
        fprintf(fp, "  *file %s\n", base ? base + 1 : rawpath);
    }
    FILE *dfp = o->external ? rve_afile_fp(afx) : fp;
    if (o->ascii) {
        for (size_t v = 0; v < nvox; v++)
            fprintf(dfp, "%u%c", m->lab[v], (v + 1) % (size_t)m->nx == 0 ? '\n' : ' ');
    } else {
        s = write_binary(dfp, m, bytes, o->big_endian, path, err);
        if (s == RVE_OK && !o->external)
            fputc('\n', fp);
    }
    if (s == RVE_OK)
        fprintf(fp, "***end\n");
    if (s == RVE_OK && afx) {
        s = rve_afile_commit(afx, err);
        afx = NULL;
    }
    if (s != RVE_OK) {
        rve_afile_abort(afx);
        rve_afile_abort(af);
        free(rawpath);
        return s;
    }
    free(rawpath);
    return rve_afile_commit(af, err);
}

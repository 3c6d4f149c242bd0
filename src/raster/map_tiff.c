/* Grain maps: multi-page TIFF label stacks (libtiff), read and write.
 *
 * libtiff's messages go to per-handle handlers (TIFFOpenOptions, libtiff
 * >= 4.5): the first error is kept for our own one-line report and nothing
 * reaches stderr; no global state is touched. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "raster/map_internal.h"
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <tiffio.h>
#include <unistd.h>
#ifdef _OPENMP
#include <omp.h>
#endif

typedef struct {
    char msg[256];
    int nerr;
    char warn[256]; /* first warning about the strip/tile layout of the page */
    int nwarn;
} tiff_log;

static int tiff_on_error(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif;
    (void)module;
    tiff_log *lg = user;
    if (lg && lg->nerr++ == 0)
        vsnprintf(lg->msg, sizeof lg->msg, fmt, ap);
    return 1; /* handled: libtiff calls no global handler */
}

/* Warnings are ignored except those about the strip or tile tables: with
 * a StripOffsets or StripByteCounts array shorter than the strips, libtiff
 * only warns and makes up the missing entries, and the labels would then
 * come from header bytes.  Those are kept and turned into errors. */
static int tiff_on_warning(TIFF *tif, void *user, const char *module, const char *fmt, va_list ap)
{
    (void)tif, (void)module;
    tiff_log *lg = user;
    char m[256];
    vsnprintf(m, sizeof m, fmt, ap);
    /* only short tables ("Incorrect count for ..."): a missing StripByteCounts
     * that libtiff computes from the image size is an old writer's habit */
    if (lg && strstr(m, "Incorrect count") &&
        (strstr(m, "StripOffsets") || strstr(m, "StripByteCounts") || strstr(m, "TileOffsets") ||
         strstr(m, "TileByteCounts")) && lg->nwarn++ == 0)
        snprintf(lg->warn, sizeof lg->warn, "%s", m);
    return 1;
}

static TIFFOpenOptions *tiff_options(tiff_log *lg)
{
    TIFFOpenOptions *op = TIFFOpenOptionsAlloc();
    if (!op)
        return NULL;
    TIFFOpenOptionsSetErrorHandlerExtR(op, tiff_on_error, lg);
    TIFFOpenOptionsSetWarningHandlerExtR(op, tiff_on_warning, lg);
    return op;
}

/* --------------------------------------------------------- memory client */
typedef struct {
    const unsigned char *b;
    size_t n;
    size_t pos;
} membuf;

static tmsize_t mem_read(thandle_t h, void *buf, tmsize_t size)
{
    membuf *m = (membuf *)h;
    if (size <= 0 || m->pos >= m->n)
        return 0;
    size_t k = (size_t)size;
    if (k > m->n - m->pos)
        k = m->n - m->pos;
    memcpy(buf, m->b + m->pos, k);
    m->pos += k;
    return (tmsize_t)k;
}
static tmsize_t mem_write(thandle_t h, void *buf, tmsize_t size) { (void)h, (void)buf, (void)size; return -1; }
static toff_t mem_seek(thandle_t h, toff_t off, int whence)
{
    membuf *m = (membuf *)h;
    uint64_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? m->pos : m->n;
    uint64_t p = base + off;
    if (whence != SEEK_SET && (int64_t)off < 0 && (uint64_t)(-(int64_t)off) > base)
        return (toff_t)-1;
    m->pos = p > m->n ? m->n : (size_t)p;
    return p;
}
static int mem_close(thandle_t h) { (void)h; return 0; }
static toff_t mem_size(thandle_t h) { return ((membuf *)h)->n; }
static int mem_map(thandle_t h, void **base, toff_t *size)
{
    membuf *m = (membuf *)h;
    *base = (void *)m->b;
    *size = m->n;
    return 1;
}
static void mem_unmap(thandle_t h, void *base, toff_t size) { (void)h, (void)base, (void)size; }

/* ---------------------------------------------------------------- reader */
#define FAIL(code, ...)                                \
    do {                                               \
        rve_err_set(err, code, name, __VA_ARGS__);     \
        goto fail;                                     \
    } while (0)
#define TFAIL(what)                                                                   \
    FAIL(RVE_EDATA, "page %d: %s%s%s", page + 1, what, lg->msg[0] ? ": " : "", lg->msg)

/* Voxel size / origin from our ImageDescription ("rve_h=a,b,c" and
 * "rve_origin=a,b,c" lines), else ImageJ's "spacing=" for z.  Values are
 * parsed into locals and kept only when valid; a key that is present but
 * not valid is an error (returned as a message in bad), not a silent
 * fallback: "rve_h=0,-1,inf" once gave voxels of 0 x -1 x inf. */
/* Length of a description value for messages: up to the end of its line, at most 40. */
static int value_len(const char *v)
{
    int n = 0;
    while (n < 40 && v[n] && v[n] != '\n' && v[n] != '\r')
        n++;
    return n;
}

static int parse_description(const char *d, double h[3], int *has_h, double o[3], int *has_o,
                             double *spacing, int *has_spacing, char *bad, size_t nbad)
{
    const char *p;
    double v[3];
    if ((p = strstr(d, "rve_h="))) {
        if (sscanf(p + 6, "%lg,%lg,%lg", &v[0], &v[1], &v[2]) != 3 ||
            !(v[0] > 0 && v[1] > 0 && v[2] > 0 && isfinite(v[0]) && isfinite(v[1]) && isfinite(v[2]))) {
            snprintf(bad, nbad, "ImageDescription: rve_h=%.*s: expected three positive finite voxel sizes",
                     value_len(p + 6), p + 6);
            return -1;
        }
        memcpy(h, v, sizeof v);
        *has_h = 1;
    }
    if ((p = strstr(d, "rve_origin="))) {
        if (sscanf(p + 11, "%lg,%lg,%lg", &v[0], &v[1], &v[2]) != 3 || !isfinite(v[0]) || !isfinite(v[1]) ||
            !isfinite(v[2])) {
            snprintf(bad, nbad, "ImageDescription: rve_origin=%.*s: expected three finite numbers",
                     value_len(p + 11), p + 11);
            return -1;
        }
        memcpy(o, v, sizeof v);
        *has_o = 1;
    }
    if ((p = strstr(d, "spacing="))) {
        if (sscanf(p + 8, "%lg", &v[0]) != 1 || !(v[0] > 0) || !isfinite(v[0])) {
            snprintf(bad, nbad, "ImageDescription: spacing=%.*s: expected a positive finite slice spacing",
                     value_len(p + 8), p + 8);
            return -1;
        }
        *spacing = v[0];
        *has_spacing = 1;
    }
    return 0;
}

/* Where to (re)open the file: each thread reads its pages through its own handle. */
typedef struct {
    const char *path;          /* file, or NULL for memory */
    const unsigned char *buf;  /* memory input */
    size_t n;
    size_t maxvox;
} tiff_src;

static TIFF *tiff_open(const tiff_src *src, tiff_log *lg, membuf *mb)
{
    TIFFOpenOptions *op = tiff_options(lg);
    if (!op)
        return NULL;
    TIFF *tif;
    /* Bound libtiff's own allocations. */
    TIFFOpenOptionsSetMaxSingleMemAlloc(op, (tmsize_t)(src->maxvox < ((size_t)1 << 40) ? src->maxvox * 4 + 65536 : 0));
    if (src->path) {
        /* "m": no memory mapping, so that resident memory stays the array plus
         * one strip (a mapped file would count once more). */
        tif = TIFFOpenExt(src->path, "rm", op);
    } else {
        *mb = (membuf){src->buf, src->n, 0};
        tif = TIFFClientOpenExt("memory", "rm", (thandle_t)mb, mem_read, mem_write, mem_seek,
                                mem_close, mem_size, mem_map, mem_unmap, op);
    }
    TIFFOpenOptionsFree(op);
    return tif;
}

/* Read pages [p0, p1) of tif (positioned on page p0) into m, whose layer 0
 * is page base. On failure returns the status, *badpage the page and msg
 * the message. */
/* Signed samples (two's complement, `bytes` wide, held zero-extended in
 * v): negative values become void; returns the largest label. */
static uint32_t negative_to_void(uint32_t *v, size_t n, int bytes)
{
    const uint32_t sign = 1u << (8 * bytes - 1);
    uint32_t mx = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] & sign)
            v[i] = 0;
        mx = v[i] > mx ? v[i] : mx;
    }
    return mx;
}

static rve_status read_pages(TIFF *tif, int p0, int p1, int base, rve_map *m, tiff_log *lg, uint32_t *mxout,
                             int *badpage, char *msg, size_t msgn)
{
    const uint32_t w = (uint32_t)m->nx, hgt = (uint32_t)m->ny;
    unsigned char *buf = NULL;
    size_t bufsize = 0;
    uint32_t mx = 0;
    rve_status st = RVE_EDATA;
    int page;
#define PFAIL(...)                                   \
    do {                                             \
        snprintf(msg, msgn, __VA_ARGS__);            \
        goto fail;                                   \
    } while (0)
#define PTFAIL(what) PFAIL("page %d: %s%s%s", page + 1, what, lg->msg[0] ? ": " : "", lg->msg)
    for (page = p0; page < p1; page++) {
        if (page > p0 && !TIFFReadDirectory(tif))
            PTFAIL("cannot read the page directory");
        uint32_t pw = 0, ph = 0;
        uint16_t bps = 0, spp = 1, fmt = SAMPLEFORMAT_UINT;
        if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &pw) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &ph))
            PTFAIL("no image size");
        if (lg->nwarn) {
            snprintf(msg, msgn, "page %d: inconsistent strip or tile tables (%s)", page + 1, lg->warn);
            goto fail;
        }
        if (pw != w || ph != hgt)
            PFAIL("page %d is %ux%u, page 1 is %ux%u (pages must have one size)", page + 1, pw, ph, w, hgt);
        TIFFGetFieldDefaulted(tif, TIFFTAG_BITSPERSAMPLE, &bps);
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLESPERPIXEL, &spp);
        TIFFGetFieldDefaulted(tif, TIFFTAG_SAMPLEFORMAT, &fmt);
        if (spp != 1)
            PFAIL("page %d has %u samples per pixel (a label map has 1)", page + 1, spp);
        if (fmt == SAMPLEFORMAT_IEEEFP)
            PFAIL("page %d has floating-point samples (labels must be integers)", page + 1);
        if (fmt != SAMPLEFORMAT_UINT && fmt != SAMPLEFORMAT_INT)
            PFAIL("page %d has sample format %u (labels must be integers)", page + 1, fmt);
        if (bps != 8 && bps != 16 && bps != 32)
            PFAIL("page %d has %u-bit samples (8, 16 or 32 expected)", page + 1, bps);
        int bytes = bps / 8;
        uint32_t *dst = m->lab + (size_t)(page - base) * w * hgt;
        if (TIFFIsTiled(tif)) {
            uint32_t tw = 0, th = 0;
            if (!TIFFGetField(tif, TIFFTAG_TILEWIDTH, &tw) || !TIFFGetField(tif, TIFFTAG_TILELENGTH, &th) ||
                tw == 0 || th == 0)
                PTFAIL("bad tile size");
            tmsize_t ts = TIFFTileSize(tif);
            if (ts <= 0 || (uint64_t)ts < (uint64_t)tw * th * bytes)
                PTFAIL("bad tile size");
            /* Tiles may overhang the page (they are multiples of 16, often
             * 256 x 256 on small images), but one far larger than the page
             * comes from a corrupt header: refuse it before allocating it. */
            if ((uint64_t)ts > 4 * (uint64_t)w * hgt * bytes && (uint64_t)ts > ((uint64_t)16 << 20))
                PFAIL("page %d: tiles of %ux%u are far larger than the %ux%u page (corrupt header?)", page + 1, tw,
                      th, w, hgt);
            if ((size_t)ts > bufsize) {
                unsigned char *nb = realloc(buf, (size_t)ts);
                if (!nb) {
                    st = RVE_ENOMEM;
                    PFAIL("out of memory");
                }
                buf = nb;
                bufsize = (size_t)ts;
            }
            for (uint32_t y0 = 0; y0 < hgt; y0 += th)
                for (uint32_t x0 = 0; x0 < w; x0 += tw) {
                    ttile_t tile = TIFFComputeTile(tif, x0, y0, 0, 0);
                    if (TIFFReadEncodedTile(tif, tile, buf, ts) < 0)
                        PTFAIL("corrupt or truncated tile");
                    uint32_t nxc = w - x0 < tw ? w - x0 : tw, nyc = hgt - y0 < th ? hgt - y0 : th;
                    for (uint32_t r = 0; r < nyc; r++) {
                        uint32_t *row = dst + (size_t)(y0 + r) * w + x0;
                        uint32_t x = rve_map_unpack(row, buf + (size_t)r * tw * bytes, nxc, bytes, 0);
                        if (fmt == SAMPLEFORMAT_INT)
                            x = negative_to_void(row, nxc, bytes);
                        if (x > mx)
                            mx = x;
                    }
                }
        } else {
            uint32_t rps = 0;
            TIFFGetFieldDefaulted(tif, TIFFTAG_ROWSPERSTRIP, &rps);
            if (rps == 0 || rps > hgt)
                rps = hgt;
            tstrip_t nstrips = TIFFNumberOfStrips(tif);
            if ((uint64_t)nstrips * rps < hgt)
                PTFAIL("too few strips for the image height");
            size_t rowbytes = (size_t)w * bytes;
            for (uint32_t y0 = 0; y0 < hgt; y0 += rps) {
                uint32_t rows = hgt - y0 < rps ? hgt - y0 : rps;
                tstrip_t strip = TIFFComputeStrip(tif, y0, 0);
                size_t need = rows * rowbytes, nv = (size_t)rows * w;
                uint32_t *d = dst + (size_t)y0 * w;
                /* Decode into the tail of the strip's own rows, then widen
                 * forwards in place (element i is read before it is
                 * overwritten, and later elements lie beyond its bytes). */
                unsigned char *src = (unsigned char *)d + (nv * 4 - need);
                if (TIFFReadEncodedStrip(tif, strip, src, (tmsize_t)need) != (tmsize_t)need)
                    PTFAIL("corrupt or truncated strip");
                uint32_t x;
                if (bytes == 4) {
                    x = 0;
                    for (size_t v = 0; v < nv; v++)
                        if (d[v] > x)
                            x = d[v];
                } else if (bytes == 2) {
                    x = 0;
                    for (size_t v = 0; v < nv; v++) {
                        uint16_t y16;
                        memcpy(&y16, src + 2 * v, 2); /* aliasing-safe load */
                        uint32_t y = y16;
                        d[v] = y;
                        if (y > x)
                            x = y;
                    }
                } else {
                    x = 0;
                    for (size_t v = 0; v < nv; v++) {
                        uint32_t y = src[v];
                        d[v] = y;
                        if (y > x)
                            x = y;
                    }
                }
                if (fmt == SAMPLEFORMAT_INT)
                    x = negative_to_void(d, nv, bytes);
                if (x > mx)
                    mx = x;
            }
        }
    }
    free(buf);
    *mxout = mx;
    return RVE_OK;
fail:
    free(buf);
    *badpage = page;
    return st;
#undef PFAIL
#undef PTFAIL
}

/* The map's geometry from the first page (g: nx, ny, nz = the pages, h,
 * origin, has_res; lab untouched); tif is left on page 1. */
static rve_status tiff_head(TIFF *tif, const tiff_src *src, const char *name, tiff_log *lg, rve_map *g,
                            rve_err *err)
{
    int page = 0;
    uint32_t w = 0, hgt = 0;
    if (!TIFFGetField(tif, TIFFTAG_IMAGEWIDTH, &w) || !TIFFGetField(tif, TIFFTAG_IMAGELENGTH, &hgt))
        TFAIL("no image size");
    if (w == 0 || hgt == 0)
        FAIL(RVE_EDATA, "page 1: image of zero size (%ux%u)", w, hgt);
    if (w > 0x7fffffffu || hgt > 0x7fffffffu)
        FAIL(RVE_EDATA, "page 1: image too large (%ux%u)", w, hgt);
    tdir_t ndir = TIFFNumberOfDirectories(tif);
    if (ndir == 0 || lg->nerr)
        TFAIL("cannot count the pages");
    if ((size_t)w * hgt > src->maxvox / ndir)
        FAIL(RVE_EDATA, "%ux%ux%u voxels: too large (more than %zu)", w, hgt, (unsigned)ndir, src->maxvox);
    if (!TIFFSetDirectory(tif, 0))
        TFAIL("cannot read the first page");
    g->nx = (int)w, g->ny = (int)hgt, g->nz = (int)ndir;

    /* Voxel size: our description, else resolution tags (ignored when in
     * inches: those are display resolutions), ImageJ spacing for z. */
    double h[3] = {1, 1, 1}, o[3] = {0, 0, 0}, spacing = 0;
    int has_h = 0, has_o = 0, has_spacing = 0;
    char *desc = NULL;
    char why[RVE_ERR_MSG_MAX];
    if (TIFFGetField(tif, TIFFTAG_IMAGEDESCRIPTION, &desc) && desc &&
        parse_description(desc, h, &has_h, o, &has_o, &spacing, &has_spacing, why, sizeof why) != 0)
        FAIL(RVE_EDATA, "%s", why);
    /* ImageJ saves stacks over 4 GB with one page directory and the other
     * images raw after the first: reading the directories would give one
     * slice of the stack */
    const char *ij = desc && !strncmp(desc, "ImageJ=", 7) ? strstr(desc, "\nimages=") : NULL;
    long nimg = ij ? strtol(ij + 8, NULL, 10) : 0;
    if (nimg > (long)ndir)
        FAIL(RVE_EDATA, "ImageJ description says %ld images, the file has %u page%s (ImageJ's contiguous "
             "large-stack layout is not read; save the stack as an image sequence or as OME-TIFF)", nimg,
             (unsigned)ndir, ndir == 1 ? "" : "s");
    if (!has_h) {
        float xr = 0, yr = 0;
        uint16_t unit = RESUNIT_INCH;
        TIFFGetFieldDefaulted(tif, TIFFTAG_RESOLUTIONUNIT, &unit);
        if (unit != RESUNIT_INCH && TIFFGetField(tif, TIFFTAG_XRESOLUTION, &xr) &&
            TIFFGetField(tif, TIFFTAG_YRESOLUTION, &yr) && xr > 0 && yr > 0 && isfinite(xr) &&
            isfinite(yr)) {
            h[0] = 1.0 / xr;
            h[1] = 1.0 / yr;
            h[2] = has_spacing ? spacing : h[0];
            has_h = 1;
        }
    }
    for (int a = 0; a < 3; a++) {
        g->h[a] = h[a];
        g->origin[a] = has_o ? o[a] : 0;
    }
    g->has_res = has_h;
    return RVE_OK;
fail:
    return err ? err->code : RVE_EDATA;
}

static rve_status read_tiff(TIFF *tif, const tiff_src *src, const char *name, tiff_log *lg,
                            rve_map **out, rve_err *err)
{
    rve_map *m = NULL, g;
    *out = NULL;
    memset(&g, 0, sizeof g);
    if (tiff_head(tif, src, name, lg, &g, err) != RVE_OK)
        goto fail;
    uint32_t w = (uint32_t)g.nx, hgt = (uint32_t)g.ny;
    tdir_t ndir = (tdir_t)g.nz;
    m = rve_map_alloc((int)w, (int)hgt, (int)ndir);
    if (!m)
        FAIL(RVE_ENOMEM, "out of memory for a %ux%ux%u map", w, hgt, (unsigned)ndir);
    memcpy(m->h, g.h, sizeof m->h);
    memcpy(m->origin, g.origin, sizeof m->origin);
    m->has_res = g.has_res;

    /* Pages in parallel: thread t reads a contiguous range through its own
     * handle (thread 0 uses tif). The first failing page (in page order)
     * is reported. */
    int nt = 1;
#ifdef _OPENMP
    nt = omp_get_max_threads();
#endif
    if ((size_t)w * hgt * ndir < ((size_t)1 << 22) || nt < 1)
        nt = 1; /* small maps: not worth the extra opens */
    if (nt > (int)ndir)
        nt = (int)ndir;
    uint32_t mx = 0;
    int badpage = (int)ndir;
    rve_status bad = RVE_OK;
    char badmsg[RVE_ERR_MSG_MAX] = "";
#pragma omp parallel num_threads(nt) if (nt > 1)
    {
        int t = 0, T = 1;
#ifdef _OPENMP
        t = omp_get_thread_num();
        T = omp_get_num_threads();
#endif
        int p0 = (int)((long)ndir * t / T), p1 = (int)((long)ndir * (t + 1) / T);
        tiff_log mylg = {{0}, 0, {0}, 0};
        tiff_log *L = t == 0 ? lg : &mylg;
        membuf mb;
        TIFF *mytif = t == 0 ? tif : tiff_open(src, L, &mb);
        char msg[RVE_ERR_MSG_MAX];
        uint32_t mymx = 0;
        int bp = p0;
        rve_status s = RVE_OK;
        if (!mytif) {
            s = RVE_EDATA;
            snprintf(msg, sizeof msg, "page %d: cannot reopen the file", p0 + 1);
        } else if (p0 > 0 && (L->nwarn = 0, !TIFFSetDirectory(mytif, (tdir_t)p0))) {
            s = RVE_EDATA;
            snprintf(msg, sizeof msg, "page %d: cannot read the page directory%s%s", p0 + 1,
                     L->msg[0] ? ": " : "", L->msg);
        } else if (p1 > p0) {
            s = read_pages(mytif, p0, p1, 0, m, L, &mymx, &bp, msg, sizeof msg);
        }
        if (mytif && t != 0)
            TIFFClose(mytif);
#pragma omp critical(rve_tiff_read)
        {
            if (mymx > mx)
                mx = mymx;
            if (s != RVE_OK && bp < badpage) {
                badpage = bp;
                bad = s;
                snprintf(badmsg, sizeof badmsg, "%s", msg);
            }
        }
    }
    if (bad != RVE_OK)
        FAIL(bad, "%s", badmsg);
    if (mx > RVE_MAP_LABEL_MAX)
        FAIL(RVE_EDATA, "label %u above 2^31 - 1", mx);
    m->nlabels = mx;
    *out = m;
    return RVE_OK;
fail:
    rve_map_free(m);
    return err ? err->code : RVE_EDATA;
}

rve_status rve_map_read_tiff(const char *path, rve_map **out, rve_err *err)
{
    const char *name = path;
    *out = NULL;
    FILE *probe = fopen(path, "rb");
    if (!probe)
        return rve_err_set(err, RVE_EIO, path, "cannot open: %s", strerror(errno));
    fclose(probe);
    tiff_log lg = {{0}, 0, {0}, 0};
    tiff_src src = {path, NULL, 0, RVE_MAP_MAX_VOXELS_DEFAULT};
    membuf mb;
    TIFF *tif = tiff_open(&src, &lg, &mb);
    if (!tif)
        return rve_err_set(err, RVE_EDATA, name, "not a readable TIFF file%s%s", lg.msg[0] ? ": " : "", lg.msg);
    rve_status s = read_tiff(tif, &src, path, &lg, out, err);
    TIFFClose(tif);
    return s;
}

/* Open path for reading (a one-line error naming it otherwise). */
static TIFF *tiff_open_path(const char *path, tiff_src *src, tiff_log *lg, membuf *mb, rve_err *err)
{
    FILE *probe = fopen(path, "rb");
    if (!probe) {
        rve_err_set(err, RVE_EIO, path, "cannot open: %s", strerror(errno));
        return NULL;
    }
    fclose(probe);
    *src = (tiff_src){path, NULL, 0, RVE_MAP_MAX_VOXELS_DEFAULT};
    TIFF *tif = tiff_open(src, lg, mb);
    if (!tif)
        rve_err_set(err, RVE_EDATA, path, "not a readable TIFF file%s%s", lg->msg[0] ? ": " : "", lg->msg);
    return tif;
}

rve_status rve_map_tiff_geometry(const char *path, rve_map *g, rve_err *err)
{
    tiff_log lg = {{0}, 0, {0}, 0};
    tiff_src src;
    membuf mb;
    TIFF *tif = tiff_open_path(path, &src, &lg, &mb, err);
    if (!tif)
        return err->code;
    rve_status s = tiff_head(tif, &src, path, &lg, g, err);
    TIFFClose(tif);
    return s;
}

rve_status rve_map_read_tiff_pages(const char *path, int k0, int k1, rve_map **out, rve_err *err)
{
    const char *name = path;
    int page = k0;
    rve_map g, *m = NULL;
    memset(&g, 0, sizeof g);
    *out = NULL;
    tiff_log lgs = {{0}, 0, {0}, 0}, *lg = &lgs;
    tiff_src src;
    membuf mb;
    TIFF *tif = tiff_open_path(path, &src, lg, &mb, err);
    if (!tif)
        return err->code;
    if (tiff_head(tif, &src, path, lg, &g, err) != RVE_OK)
        goto fail;
    if (k0 < 0 || k1 > g.nz || k1 <= k0)
        FAIL(RVE_EINTERNAL, "pages %d..%d outside the map", k0 + 1, k1);
    if (!(m = rve_map_alloc(g.nx, g.ny, k1 - k0)))
        FAIL(RVE_ENOMEM, "out of memory for %d pages of %dx%d", k1 - k0, g.nx, g.ny);
    memcpy(m->h, g.h, sizeof m->h);
    memcpy(m->origin, g.origin, sizeof m->origin);
    m->has_res = g.has_res;
    lg->nwarn = 0;
    if (k0 > 0 && !TIFFSetDirectory(tif, (tdir_t)k0))
        TFAIL("cannot read the page directory");
    char msg[RVE_ERR_MSG_MAX];
    uint32_t mx = 0;
    rve_status bad = read_pages(tif, k0, k1, k0, m, lg, &mx, &page, msg, sizeof msg);
    if (bad != RVE_OK)
        FAIL(bad, "%s", msg);
    if (mx > RVE_MAP_LABEL_MAX)
        FAIL(RVE_EDATA, "label %u above 2^31 - 1", mx);
    m->nlabels = mx;
    TIFFClose(tif);
    *out = m;
    return RVE_OK;
fail:
    TIFFClose(tif);
    rve_map_free(m);
    return err->code;
}

rve_status rve_map_read_tiff_mem_capped(const void *buf, size_t n, const char *name,
                                        size_t maxvox, rve_map **out, rve_err *err)
{
    *out = NULL;
    tiff_log lg = {{0}, 0, {0}, 0};
    tiff_src src = {NULL, buf, n, maxvox};
    membuf mb;
    TIFF *tif = tiff_open(&src, &lg, &mb);
    if (!tif)
        return rve_err_set(err, RVE_EDATA, name, "not a readable TIFF file%s%s", lg.msg[0] ? ": " : "", lg.msg);
    rve_status s = read_tiff(tif, &src, name, &lg, out, err);
    TIFFClose(tif);
    return s;
}

rve_status rve_map_read_tiff_mem(const void *buf, size_t n, const char *name, rve_map **out,
                                 rve_err *err)
{
    return rve_map_read_tiff_mem_capped(buf, n, name, RVE_MAP_MAX_VOXELS_DEFAULT, out, err);
}

/* ---------------------------------------------------------------- writer */
static int is_default_geometry(const rve_map *m)
{
    return m->h[0] == 1 && m->h[1] == 1 && m->h[2] == 1 && m->origin[0] == 0 &&
           m->origin[1] == 0 && m->origin[2] == 0;
}

rve_status rve_map_write_tiff(const rve_map *m, const char *path, const rve_map_write_opts *o,
                              rve_err *err)
{
    const char *name = path;
    rve_map_write_opts d;
    if (!o) {
        rve_map_write_opts_default(&d);
        o = &d;
    }
    if (strcmp(path, "-") == 0)
        return rve_err_set(err, RVE_EUSAGE, path, "TIFF output needs a file name, not stdout");
    size_t nvox = rve_map_nvox(m);
    uint32_t mxl = 0;
    for (size_t v = 0; v < nvox; v++) /* not nlabels: it may be stale */
        if (m->lab[v] > mxl)
            mxl = m->lab[v];
    int bytes = o->bytes ? o->bytes : rve_map_bytes_needed(mxl, 0);
    if (bytes != 1 && bytes != 2 && bytes != 4)
        return rve_err_set(err, RVE_EUSAGE, path, "sample width must be 1, 2 or 4 bytes, not %d", bytes);
    uint64_t lim = bytes == 4 ? RVE_MAP_LABEL_MAX : ((uint64_t)1 << (8 * bytes)) - 1;
    for (size_t v = 0; v < nvox; v++)
        if (m->lab[v] > lim)
            return rve_err_set(err, RVE_EUSAGE, path, "label %u does not fit in %d byte%s",
                               m->lab[v], bytes, bytes > 1 ? "s" : "");
    rve_afile *af = rve_afile_open(path, 1, err);
    if (!af)
        return err ? err->code : RVE_EIO;
    int fd = dup(fileno(rve_afile_fp(af)));
    if (fd < 0) {
        rve_afile_abort(af);
        return rve_err_set(err, RVE_EIO, path, "cannot write: %s", strerror(errno));
    }
    tiff_log lg = {{0}, 0, {0}, 0};
    TIFFOpenOptions *op = tiff_options(&lg);
    /* BigTIFF when the data may pass 4 GiB. */
    const char *mode = (uint64_t)nvox * bytes > ((uint64_t)3 << 30) ? "w8" : "w";
    TIFF *tif = op ? TIFFFdOpenExt(fd, path, mode, op) : NULL;
    if (op)
        TIFFOpenOptionsFree(op);
    if (!tif) {
        close(fd);
        rve_afile_abort(af);
        return rve_err_set(err, RVE_EIO, path, "cannot start the TIFF file%s%s", lg.msg[0] ? ": " : "", lg.msg);
    }
    unsigned char *buf = NULL;
    int page = 0;
    char descr[512];
    snprintf(descr, sizeof descr,
             "ImageJ=1.11a\nimages=%d\nslices=%d\nspacing=%.17g\nrve_h=%.17g,%.17g,%.17g\n"
             "rve_origin=%.17g,%.17g,%.17g\n",
             m->nz, m->nz, m->h[2], m->h[0], m->h[1], m->h[2], m->origin[0], m->origin[1],
             m->origin[2]);
    uint32_t rps = (uint32_t)(((size_t)1 << 16) / ((size_t)m->nx * bytes));
    if (rps < 1)
        rps = 1;
    if (rps > (uint32_t)m->ny)
        rps = (uint32_t)m->ny;
    size_t rowbytes = (size_t)m->nx * bytes;
    buf = malloc(rowbytes * rps);
    if (!buf) {
        rve_err_set(err, RVE_ENOMEM, path, "out of memory");
        goto fail;
    }
    for (page = 0; page < m->nz; page++) {
        TIFFSetField(tif, TIFFTAG_SUBFILETYPE, FILETYPE_PAGE);
        TIFFSetField(tif, TIFFTAG_IMAGEWIDTH, (uint32_t)m->nx);
        TIFFSetField(tif, TIFFTAG_IMAGELENGTH, (uint32_t)m->ny);
        TIFFSetField(tif, TIFFTAG_BITSPERSAMPLE, (uint16_t)(8 * bytes));
        TIFFSetField(tif, TIFFTAG_SAMPLESPERPIXEL, (uint16_t)1);
        TIFFSetField(tif, TIFFTAG_SAMPLEFORMAT, SAMPLEFORMAT_UINT);
        TIFFSetField(tif, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(tif, TIFFTAG_PLANARCONFIG, PLANARCONFIG_CONTIG);
        TIFFSetField(tif, TIFFTAG_ROWSPERSTRIP, rps);
        TIFFSetField(tif, TIFFTAG_PAGENUMBER, (uint16_t)(page < 65535 ? page : 65535),
                     (uint16_t)(m->nz < 65535 ? m->nz : 65535));
        if (o->compress) {
            TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_ADOBE_DEFLATE);
            TIFFSetField(tif, TIFFTAG_PREDICTOR, PREDICTOR_HORIZONTAL);
        } else {
            TIFFSetField(tif, TIFFTAG_COMPRESSION, COMPRESSION_NONE);
        }
        if (!is_default_geometry(m)) {
            TIFFSetField(tif, TIFFTAG_RESOLUTIONUNIT, RESUNIT_NONE);
            TIFFSetField(tif, TIFFTAG_XRESOLUTION, (float)(1.0 / m->h[0]));
            TIFFSetField(tif, TIFFTAG_YRESOLUTION, (float)(1.0 / m->h[1]));
            if (page == 0)
                TIFFSetField(tif, TIFFTAG_IMAGEDESCRIPTION, descr);
        }
        const uint32_t *src = m->lab + (size_t)page * m->nx * m->ny;
        for (uint32_t y0 = 0; y0 < (uint32_t)m->ny; y0 += rps) {
            uint32_t rows = (uint32_t)m->ny - y0 < rps ? (uint32_t)m->ny - y0 : rps;
            size_t k = (size_t)rows * m->nx;
            const uint32_t *s = src + (size_t)y0 * m->nx;
            for (size_t v = 0; v < k; v++) {
                if (bytes == 1)
                    buf[v] = (unsigned char)s[v];
                else if (bytes == 2) {
                    uint16_t x = (uint16_t)s[v];
                    memcpy(buf + 2 * v, &x, 2);
                } else
                    memcpy(buf + 4 * v, s + v, 4);
            }
            if (TIFFWriteEncodedStrip(tif, TIFFComputeStrip(tif, y0, 0), buf, (tmsize_t)(k * bytes)) < 0) {
                rve_err_set(err, RVE_EIO, path, "page %d: write failed%s%s", page + 1,
                            lg.msg[0] ? ": " : "", lg.msg);
                goto fail;
            }
        }
        if (!TIFFWriteDirectory(tif)) {
            rve_err_set(err, RVE_EIO, path, "page %d: write failed%s%s", page + 1,
                        lg.msg[0] ? ": " : "", lg.msg);
            goto fail;
        }
    }
    free(buf);
    TIFFClose(tif); /* closes fd (our duplicate) */
    if (lg.nerr)
        return rve_afile_abort(af), rve_err_set(err, RVE_EIO, name, "TIFF write failed: %s", lg.msg);
    return rve_afile_commit(af, err);
fail:
    free(buf);
    TIFFClose(tif);
    rve_afile_abort(af);
    return err ? err->code : RVE_EIO;
}

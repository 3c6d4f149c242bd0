/* Tests of the grain maps: readers, writers, labels, boundary voxels.
 * Oracles: maps built by hand or by a seeded generator in the test itself,
 * TIFF files written here with libtiff directly (tiles, LZW, big-endian),
 * .tesr files written here as literal text/bytes, hand-counted boundaries. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "testutil.h"
#include <rve/raster.h>
#include <math.h>
#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif
#include <stdint.h>
#include <tiffio.h>
#include <unistd.h>

TEST_TMPDIR_FIXTURE("raster")

static const char *tpath(const char *name)
{
    static char buf[8][512];
    static int k = 0;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

#include "test_rng.h"

/* A random map with labels up to maxlab (including 0 and maxlab itself). */
static rve_map *random_map(int nx, int ny, int nz, uint32_t maxlab)
{
    rve_map *m = rve_map_alloc(nx, ny, nz);
    ck_assert_ptr_nonnull(m);
    size_t n = rve_map_nvox(m);
    for (size_t v = 0; v < n; v++)
        m->lab[v] = (uint32_t)(rnd() % ((uint64_t)maxlab + 1));
    m->lab[0] = maxlab;
    m->lab[n - 1] = 0;
    rve_map_update_nlabels(m);
    return m;
}

static void assert_same_labels(const rve_map *a, const rve_map *b)
{
    ck_assert_int_eq(a->nx, b->nx);
    ck_assert_int_eq(a->ny, b->ny);
    ck_assert_int_eq(a->nz, b->nz);
    ck_assert_int_eq(a->nlabels, b->nlabels);
    ck_assert(memcmp(a->lab, b->lab, rve_map_nvox(a) * sizeof *a->lab) == 0);
}

static void write_text(const char *path, const char *text, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(text, 1, n, f), n);
    fclose(f);
}

/* -------------------------------------------------------------- alloc */
START_TEST(test_alloc)
{
    rve_map *m = rve_map_alloc(3, 4, 5);
    ck_assert_ptr_nonnull(m);
    ck_assert_int_eq(m->nlabels, 0);
    ck_assert(m->h[0] == 1 && m->h[1] == 1 && m->h[2] == 1);
    ck_assert(m->origin[0] == 0 && m->ids == NULL);
    ck_assert_uint_eq(rve_map_index(m, 2, 3, 4), 59);
    double c[3];
    m->h[1] = 2;
    m->origin[2] = -1;
    rve_map_voxel_centre(m, 1, 1, 1, c);
    ck_assert(c[0] == 1.5 && c[1] == 3 && c[2] == 0.5);
    rve_map_free(m);
    ck_assert_ptr_null(rve_map_alloc(0, 4, 5));
    ck_assert_ptr_null(rve_map_alloc(3, -1, 5));
    ck_assert_ptr_null(rve_map_alloc(1 << 20, 1 << 20, 1 << 20));
    rve_map_free(NULL);
}
END_TEST

/* -------------------------------------------------------- round trips */
START_TEST(test_roundtrip_all_formats)
{
    const uint32_t maxlabs[3] = {200, 30000, 3000000};
    const int widths[3] = {1, 2, 4};
    for (int w = 0; w < 3; w++) {
        rve_map *m = random_map(7, 5, 4, maxlabs[w]);
        m->h[0] = 0.1;
        m->h[1] = 0.2;
        m->h[2] = 1.0 / 3;
        m->origin[0] = -1.25;
        m->origin[1] = 1e-3;
        m->origin[2] = 7;
        for (int variant = 0; variant < 8; variant++) {
            rve_map_write_opts o;
            rve_map_write_opts_default(&o);
            o.bytes = widths[w];
            const char *path;
            switch (variant) {
            case 0: path = tpath("a.tif"); o.compress = 1; break;
            case 1: path = tpath("b.tiff"); o.compress = 0; break;
            case 2: path = tpath("c.tesr"); break;
            case 3: path = tpath("d.tesr"); o.big_endian = 1; break;
            case 4: path = tpath("e.tesr"); o.ascii = 1; break;
            case 5: path = tpath("f.tesr"); o.external = 1; o.big_endian = w & 1; break;
            case 6: path = tpath("g.raw"); break;
            default: path = tpath("h.raw"); o.big_endian = 1; break;
            }
            rve_err e;
            ck_assert_msg(rve_map_write(m, path, RVE_MAP_AUTO, &o, &e) == RVE_OK, "%s: %s", path, e.msg);
            rve_map *r = NULL;
            rve_raw_opts raw = {7, 5, 4, widths[w], o.big_endian, 0};
            ck_assert_msg(rve_map_read(path, RVE_MAP_AUTO, &raw, &r, &e) == RVE_OK, "%s: %s", path, e.msg);
            assert_same_labels(m, r);
            if (variant < 6) { /* raw carries no geometry */
                for (int a = 0; a < 3; a++) {
                    ck_assert_msg(r->h[a] == m->h[a], "%s h[%d] %.17g", path, a, r->h[a]);
                    ck_assert_msg(r->origin[a] == m->origin[a], "%s o[%d]", path, a);
                }
            }
            rve_map_free(r);
        }
        rve_map_free(m);
    }
}
END_TEST

START_TEST(test_roundtrip_ids_ori)
{
    rve_map *m = rve_map_alloc(4, 3, 2);
    for (size_t v = 0; v < 24; v++)
        m->lab[v] = (uint32_t)(v % 3 + 1);
    m->nlabels = 3;
    m->ids = malloc(4 * sizeof *m->ids);
    m->ids[0] = 0, m->ids[1] = 17, m->ids[2] = 5, m->ids[3] = 2000000000u;
    m->ori_n = 3;
    m->ori = malloc(9 * sizeof *m->ori);
    for (int q = 0; q < 9; q++)
        m->ori[q] = 0.1 * q - 0.3;
    m->ori_des = strdup("rodrigues");
    rve_err e;
    ck_assert(rve_map_write(m, tpath("ids.tesr"), RVE_MAP_AUTO, NULL, &e) == RVE_OK);
    rve_map *r;
    ck_assert_msg(rve_map_read(tpath("ids.tesr"), RVE_MAP_AUTO, NULL, &r, &e) == RVE_OK, "%s", e.msg);
    assert_same_labels(m, r);
    ck_assert_ptr_nonnull(r->ids);
    for (int l = 0; l <= 3; l++)
        ck_assert_uint_eq(rve_map_id(r, (uint32_t)l), m->ids[l]);
    ck_assert_int_eq(r->ori_n, 3);
    for (int q = 0; q < 9; q++)
        ck_assert(r->ori[q] == m->ori[q]);
    /* the reader spells the convention out (Neper: absent means active) */
    ck_assert_str_eq(r->ori_des, "rodrigues:active");
    rve_map_free(r);
    rve_map_free(m);
}
END_TEST

/* A TIFF written with libtiff directly: tiled, LZW, big-endian file. */
START_TEST(test_tiff_libtiff_tiled)
{
    const uint32_t W = 37, H = 21, D = 3;
    const char *path = tpath("tiled.tif");
    TIFF *t = TIFFOpen(path, "wb");
    ck_assert_ptr_nonnull(t);
    uint16_t buf[16 * 16];
    for (uint32_t z = 0; z < D; z++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, W);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, H);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_COMPRESSION, COMPRESSION_LZW);
        TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
        TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_CENTIMETER);
        TIFFSetField(t, TIFFTAG_XRESOLUTION, 4.0f);
        TIFFSetField(t, TIFFTAG_YRESOLUTION, 2.0f);
        for (uint32_t y0 = 0; y0 < H; y0 += 16)
            for (uint32_t x0 = 0; x0 < W; x0 += 16) {
                for (uint32_t r = 0; r < 16; r++)
                    for (uint32_t c = 0; c < 16; c++)
                        buf[r * 16 + c] = (uint16_t)(1000 * z + 10 * (y0 + r) + (x0 + c) % 10 + 60000 * (x0 + c == 5));
                ck_assert(TIFFWriteTile(t, buf, x0, y0, 0, 0) >= 0);
            }
        ck_assert(TIFFWriteDirectory(t));
    }
    TIFFClose(t);
    rve_map *m;
    rve_err e;
    ck_assert_msg(rve_map_read_tiff(path, &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_int_eq(m->nx, (int)W);
    ck_assert_int_eq(m->ny, (int)H);
    ck_assert_int_eq(m->nz, (int)D);
    for (uint32_t z = 0; z < D; z++)
        for (uint32_t y = 0; y < H; y++)
            for (uint32_t x = 0; x < W; x++)
                ck_assert_uint_eq(m->lab[rve_map_index(m, (int)x, (int)y, (int)z)],
                                  (uint16_t)(1000 * z + 10 * y + x % 10 + 60000 * (x == 5)));
    ck_assert(m->h[0] == 0.25 && m->h[1] == 0.5 && m->h[2] == 0.25);
    ck_assert(m->has_res);
    rve_map_free(m);
}
END_TEST

/* Found by the fuzzer: a tiny tiled TIFF whose header declares tiles of
 * about 8 GB.  The reader must refuse it from the header, naming the tiles,
 * instead of allocating the tile buffer (the data is corrupt anyway, so only
 * the message tells whether the check came before the allocation). */
START_TEST(test_tiff_huge_tiles)
{
    static const unsigned char bad[] = {
  0x49, 0x49, 0x2a, 0x00, 0x24, 0x00, 0x00, 0x00, 0x88, 0x63, 0x9c, 0x9f,
  0x0b, 0x02, 0x87, 0x3b, 0x58, 0x11, 0xec, 0x02, 0x6e, 0xeb, 0xaf, 0x30,
  0x76, 0x3e, 0x92, 0xb8, 0x3a, 0x2e, 0x92, 0x00, 0x15, 0x7b, 0x1a, 0x2b,
  0x12, 0x00, 0xfe, 0x00, 0x04, 0x04, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00,
  0x00, 0x00, 0x00, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x00,
  0x00, 0x00, 0x01, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00,
  0x00, 0x00, 0x02, 0x00, 0x01, 0x00, 0x01, 0x00, 0x03, 0x00, 0x10, 0x00,
  0x00, 0xfa, 0x02, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x08, 0x00,
  0x00, 0x00, 0x06, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00,
  0x00, 0x00, 0x0e, 0x01, 0x02, 0x00, 0x4a, 0x00, 0x00, 0x00, 0x12, 0x01,
  0x00, 0x00, 0x11, 0x01, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0x08, 0x00,
  0x00, 0x00, 0x15, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00,
  0x00, 0x00, 0x16, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00,
  0x00, 0x00, 0x43, 0x01, 0x04, 0x00, 0x01, 0x00, 0x00, 0x00, 0xe4, 0xff,
  0xff, 0xff, 0xe6, 0x03, 0x05, 0x00, 0x01, 0x00, 0xf9, 0xff, 0x01, 0x01,
  0x00, 0x2c, 0x1b, 0x01, 0x05, 0x00, 0x01, 0x00, 0x00, 0x00, 0x0a, 0x01,
  0x00, 0xfd, 0x1c, 0x01, 0x03, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x00,
  0x00, 0x00, 0x28, 0x01, 0x03, 0x00, 0x01, 0x00, 0x04, 0x00, 0x01, 0x00,
  0x00, 0x00, 0x29, 0x01, 0x03, 0x00, 0x02, 0x00, 0x00, 0x00, 0x00, 0x08,
  0x00, 0x00, 0x08, 0x00, 0x03, 0x00, 0x3d, 0x01, 0x03, 0x00, 0x01, 0x00,
  0x00, 0x00, 0x02, 0x00, 0x00, 0x00, 0x53, 0x01, 0x03, 0x00, 0x01, 0x01,
  0x20, 0x00, 0x00, 0x00, 0x00, 0x00
    };
    rve_map *m = NULL;
    rve_err e;
    rve_err_clear(&e);
    ck_assert_int_ne(rve_map_read_tiff_mem(bad, sizeof bad, "huge-tiles.tif", &m, &e), RVE_OK);
    ck_assert_ptr_null(m);
    ck_assert_msg(strstr(e.msg, "far larger than") != NULL, "message: %s", e.msg);
    ck_assert_msg(strstr(e.msg, "huge-tiles.tif") != NULL || strstr(e.file, "huge-tiles.tif") != NULL,
                  "message does not name the file: %s", e.msg);
}
END_TEST

/* Hand-written .tesr files: format 2.0 and 2.1, ascii and binary. */
START_TEST(test_tesr_literal)
{
    const char *t20 = "***tesr\n **format\n   2.0 ascii\n **general\n   3\n   2 2 1\n   0.5 0.5 2\n"
                      "  *origin\n   1 2 3\n  *hasvoid 1\n **cell\n   3\n  *id\n   10 20 30\n"
                      "  *seed\n   1 0 0 0 0\n   2 1 1 1 0\n   3 2 2 2 0\n"
                      "  *ori\n   e\n 1 2 3\n 4 5 6\n 7 8 9\n  *crysym\n   cubic\n"
                      " **data\n3 0 1 2\n***end\n";
    write_text(tpath("t20.tesr"), t20, strlen(t20));
    rve_map *m;
    rve_err e;
    ck_assert_msg(rve_map_read_tesr(tpath("t20.tesr"), &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_int_eq(m->nx, 2);
    ck_assert_int_eq(m->nz, 1);
    ck_assert_uint_eq(m->lab[0], 3);
    ck_assert_uint_eq(m->lab[1], 0);
    ck_assert_uint_eq(m->lab[3], 2);
    ck_assert_uint_eq(m->nlabels, 3);
    ck_assert_uint_eq(rve_map_id(m, 3), 30);
    ck_assert_uint_eq(rve_map_id(m, 1), 10);
    ck_assert(m->h[0] == 0.5 && m->h[2] == 2 && m->origin[1] == 2);
    ck_assert_int_eq(m->ori_n, 3);
    ck_assert(m->ori[8] == 9);
    rve_map_free(m);

    /* 2.1, binary16_big inline, values 258 and 1 */
    const char head[] = "***tesr\n **format\n   2.1\n **general\n   3\n   2 1 1\n   1 1 1\n **data\n   binary16_big\n";
    char buf[256];
    size_t n = strlen(head);
    memcpy(buf, head, n);
    const unsigned char data[4] = {1, 2, 0, 1};
    memcpy(buf + n, data, 4);
    n += 4;
    const char *tail = "\n***end\n";
    memcpy(buf + n, tail, strlen(tail));
    n += strlen(tail);
    ck_assert_msg(rve_map_read_tesr_mem(buf, n, "mem", NULL, &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_uint_eq(m->lab[0], 258);
    ck_assert_uint_eq(m->lab[1], 1);
    rve_map_free(m);
    /* The same bytes little-endian: 513 and 256. */
    const char head2[] = "***tesr\n **format\n   2.0 binary16\n **general\n   3\n   2 1 1\n   1 1 1\n **data\n";
    n = strlen(head2);
    memcpy(buf, head2, n);
    memcpy(buf + n, data, 4);
    n += 4;
    ck_assert_msg(rve_map_read_tesr_mem(buf, n, "mem", NULL, &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_uint_eq(m->lab[0], 513);
    ck_assert_uint_eq(m->lab[1], 256);
    rve_map_free(m);
}
END_TEST

/* ------------------------------------------------------------ bad input */
static void expect_fail(rve_status got, const rve_err *e, const char *what)
{
    ck_assert_msg(got != RVE_OK, "%s: accepted", what);
    ck_assert_msg(e->msg[0] != 0 && strchr(e->msg, '\n') == NULL, "%s: bad message", what);
}

static void write_tiff_pages(const char *path, int npages, const uint32_t *w, uint16_t bps, uint16_t fmt)
{
    TIFF *t = TIFFOpen(path, "w");
    ck_assert_ptr_nonnull(t);
    unsigned char row[64 * 8];
    memset(row, 0, sizeof row);
    if (bps == 32)
        memset(row, 0x80, sizeof row); /* 0x80808080 > 2^31 */
    for (int p = 0; p < npages; p++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w[p]);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, 4);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bps);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_SAMPLEFORMAT, fmt);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 4);
        for (int r = 0; r < 4; r++)
            ck_assert(TIFFWriteScanline(t, row, (uint32_t)r, 0) >= 0);
        ck_assert(TIFFWriteDirectory(t));
    }
    TIFFClose(t);
}

START_TEST(test_bad_tiff)
{
    rve_map *m = NULL;
    rve_err e;
    uint32_t w2[2] = {8, 9}, w1[2] = {8, 8};
    write_tiff_pages(tpath("sizes.tif"), 2, w2, 16, SAMPLEFORMAT_UINT);
    expect_fail(rve_map_read_tiff(tpath("sizes.tif"), &m, &e), &e, "pages of different sizes");
    ck_assert_ptr_nonnull(strstr(e.msg, "page 2"));
    write_tiff_pages(tpath("float.tif"), 1, w1, 32, SAMPLEFORMAT_IEEEFP);
    expect_fail(rve_map_read_tiff(tpath("float.tif"), &m, &e), &e, "float samples");
    ck_assert_ptr_nonnull(strstr(e.msg, "floating"));
    /* signed samples are read, negative values void: 0x80808080 as int32 */
    write_tiff_pages(tpath("signed.tif"), 1, w1, 32, SAMPLEFORMAT_INT);
    ck_assert_int_eq(rve_map_read_tiff(tpath("signed.tif"), &m, &e), RVE_OK);
    ck_assert_uint_eq(m->nlabels, 0);
    for (size_t v = 0; v < rve_map_nvox(m); v++)
        ck_assert_uint_eq(m->lab[v], 0);
    rve_map_free(m);
    m = NULL;
    write_tiff_pages(tpath("big.tif"), 1, w1, 32, SAMPLEFORMAT_UINT);
    expect_fail(rve_map_read_tiff(tpath("big.tif"), &m, &e), &e, "labels above 2^31");
    ck_assert_ptr_nonnull(strstr(e.msg, "2^31"));
    /* Truncated copies of a valid compressed file: every prefix must fail cleanly. */
    rve_map *g = random_map(20, 10, 6, 500);
    ck_assert(rve_map_write(g, tpath("ok.tif"), RVE_MAP_AUTO, NULL, &e) == RVE_OK);
    char *buf;
    size_t n;
    ck_assert(rve_read_file(tpath("ok.tif"), &buf, &n, &e) == RVE_OK);
    for (size_t k = 0; k < n; k += 1 + n / 97) {
        rve_status s = rve_map_read_tiff_mem(buf, k, "trunc.tif", &m, &e);
        if (s == RVE_OK) { /* a prefix may hold fewer pages... never garbage labels */
            ck_assert_int_le(m->nz, 6);
            rve_map_free(m);
        } else {
            ck_assert(strchr(e.msg, '\n') == NULL);
        }
    }
    /* Corrupt bytes in the middle. */
    for (size_t k = 16; k < n; k += 1 + n / 53) {
        char save = buf[k];
        buf[k] ^= 0x5a;
        rve_status s = rve_map_read_tiff_mem(buf, n, "corrupt.tif", &m, &e);
        if (s == RVE_OK)
            rve_map_free(m);
        buf[k] = save;
    }
    free(buf);
    rve_map_free(g);
    expect_fail(rve_map_read_tiff(tpath("missing.tif"), &m, &e), &e, "missing file");
    write_text(tpath("text.tif"), "hello", 5);
    expect_fail(rve_map_read_tiff(tpath("text.tif"), &m, &e), &e, "not a TIFF");
}
END_TEST

START_TEST(test_bad_tesr)
{
    rve_map *m = NULL;
    rve_err e;
    const char *cases[][2] = {
        {"***tesr\n **format\n 2.1\n **general\n 3\n 2 2 1\n 1 1 1\n **data\n ascii\n 1 2 3\n***end\n", "too few values"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 2 2 1\n 1 1 1\n **data\n ascii\n 1 2 3 4 5\n***end\n", "too many values"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 0 2 1\n 1 1 1\n **data\n ascii\n\n***end\n", "zero dims"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n 1 1 1\n **data\n ascii\n 3000000000\n***end\n", "label above 2^31"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n 1 1 1\n **data\n ascii\n -1\n***end\n", "negative"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 2 1 1\n 1 1 1\n **data\n binary16\nAB", "binary too short"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n 1 1 1\n **data\n binary16\nABCDEF\n***end\n", "binary too long"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n 1 1 1\n **data\n binary16\n *file nothere.raw\n***end\n", "missing external"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n -1 1 1\n **data\n ascii\n 1\n***end\n", "negative voxel size"},
        {"***tesr\n **format\n 9.9\n", "unknown version"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n 1 1 1\n **data\n binary12\n", "bad data format"},
        {"***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n 1 1 1\n **cell\n 2\n *id\n 5 6\n **data\n ascii\n 3\n***end\n", "label above cell count"},
        {"", "empty"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        write_text(tpath("bad.tesr"), cases[c][0], strlen(cases[c][0]));
        rve_status s = rve_map_read_tesr(tpath("bad.tesr"), &m, &e);
        expect_fail(s, &e, cases[c][1]);
        ck_assert_ptr_nonnull(strstr(e.file, "bad.tesr"));
    }
    /* External file of the wrong size. */
    write_text(tpath("x.raw"), "ABC", 3);
    const char *ext = "***tesr\n **format\n 2.1\n **general\n 3\n 1 1 1\n 1 1 1\n **data\n binary16\n *file x.raw\n***end\n";
    write_text(tpath("ext.tesr"), ext, strlen(ext));
    expect_fail(rve_map_read_tesr(tpath("ext.tesr"), &m, &e), &e, "external size");
    write_text(tpath("x.raw"), "AB", 2);
    ck_assert_msg(rve_map_read_tesr(tpath("ext.tesr"), &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_uint_eq(m->lab[0], 'A' + 256u * 'B');
    rve_map_free(m);
    /* Raw with a wrong size. */
    rve_raw_opts raw = {2, 2, 2, 1, 0, 0};
    expect_fail(rve_map_read_raw(tpath("x.raw"), &raw, &m, &e), &e, "raw size");
}
END_TEST

/* --------------------------------------------------------- real data */
START_TEST(test_in100)
{
    TEST_SKIP_WITHOUT_SHARED(dir);
    char path[4096];
    snprintf(path, sizeof path, "%s/in100-a.tif", dir);
    rve_map *m;
    rve_err e;
    ck_assert_msg(rve_map_read_tiff(path, &m, &e) == RVE_OK, "%s", e.msg);
    ck_assert_int_eq(m->nx, 60);
    ck_assert_int_eq(m->ny, 80);
    ck_assert_int_eq(m->nz, 50);
    ck_assert_uint_eq(m->nlabels, 221);
    ck_assert_uint_eq(rve_map_ngrains(m), 221);
    size_t *c;
    ck_assert(rve_map_counts(m, &c, &e) == RVE_OK);
    ck_assert_uint_eq(c[0], 0);
    size_t mn = SIZE_MAX, mx = 0;
    for (int l = 1; l <= 221; l++) {
        if (c[l] < mn) mn = c[l];
        if (c[l] > mx) mx = c[l];
    }
    ck_assert_uint_eq(mn, 1);       /* README: sizes 1 .. 14958 */
    ck_assert_uint_eq(mx, 14958);
    free(c);
    rve_map_free(m);
}
END_TEST

/* ----------------------------------------------------------- labels */
START_TEST(test_renumber_components_crop)
{
    /* 5x1x1: 7 7 0 9 7 -> grain 7 has two components. */
    rve_map *m = rve_map_alloc(5, 1, 1);
    uint32_t v0[5] = {7, 7, 0, 9, 7};
    memcpy(m->lab, v0, sizeof v0);
    m->nlabels = 9;
    uint32_t *nc;
    rve_err e;
    ck_assert(rve_map_components(m, &nc, &e) == RVE_OK);
    ck_assert_uint_eq(nc[7], 2);
    ck_assert_uint_eq(nc[9], 1);
    ck_assert_uint_eq(nc[8], 0);
    free(nc);
    ck_assert(rve_map_renumber(m, &e) == RVE_OK);
    ck_assert_uint_eq(m->nlabels, 2);
    uint32_t r0[5] = {1, 1, 0, 2, 1};
    ck_assert(memcmp(m->lab, r0, sizeof r0) == 0);
    ck_assert_uint_eq(rve_map_id(m, 1), 7);
    ck_assert_uint_eq(rve_map_id(m, 2), 9);
    /* Crop keeps ids and shifts the origin. */
    rve_map *c;
    m->h[0] = 2;
    ck_assert(rve_map_crop(m, 3, 0, 0, 2, 1, 1, &c, &e) == RVE_OK);
    ck_assert_uint_eq(c->lab[0], 2);
    ck_assert_uint_eq(c->lab[1], 1);
    ck_assert(c->origin[0] == 6);
    ck_assert_uint_eq(rve_map_id(c, 2), 9);
    rve_map_free(c);
    ck_assert(rve_map_crop(m, 4, 0, 0, 2, 1, 1, &c, &e) == RVE_EUSAGE);
    size_t rem;
    ck_assert(rve_map_keep_largest_component(m, &rem, &e) == RVE_OK);
    ck_assert_uint_eq(rem, 1);
    ck_assert_uint_eq(m->lab[4], 0);
    rve_map_free(m);
}
END_TEST

START_TEST(test_remove_small)
{
    /* 6x1x1: 1 1 1 2 3 3 ; grain 2 (1 voxel) removed. */
    rve_map *m = rve_map_alloc(6, 1, 1);
    uint32_t v0[6] = {1, 1, 1, 2, 3, 3};
    memcpy(m->lab, v0, sizeof v0);
    m->nlabels = 3;
    rve_map *a = rve_map_copy(m);
    size_t nrem;
    rve_err e;
    ck_assert(rve_map_remove_small(m, 2, 0, &nrem, &e) == RVE_OK);
    ck_assert_uint_eq(nrem, 1);
    ck_assert_uint_eq(m->lab[3], 0);
    /* absorb: neighbours 1 and 3 tie, smaller label wins */
    ck_assert(rve_map_remove_small(a, 2, 1, &nrem, &e) == RVE_OK);
    ck_assert_uint_eq(a->lab[3], 1);
    rve_map_free(a);
    /* 3x3x1 with a 1-voxel grain in the middle of grain 5 */
    rve_map *b = rve_map_alloc(3, 3, 1);
    for (int v = 0; v < 9; v++)
        b->lab[v] = 5;
    b->lab[4] = 8;
    b->nlabels = 8;
    ck_assert(rve_map_remove_small(b, 2, 1, &nrem, &e) == RVE_OK);
    ck_assert_uint_eq(b->lab[4], 5);
    rve_map_free(b);
    rve_map_free(m);
}
END_TEST

/* --------------------------------------------------------- boundaries */
START_TEST(test_boundary_hand)
{
    /* 4x3x2, x < 2 grain 1, x >= 2 grain 2: the columns x = 1 and x = 2
     * are boundary voxels, 6 per grain. Then voxel (2,1,0) is void: grain 2
     * loses it and grain 1 loses (1,1,0) (its only other-grain neighbour
     * was the void voxel): 5 + 5. */
    rve_map *m = rve_map_alloc(4, 3, 2);
    for (int k = 0; k < 2; k++)
        for (int j = 0; j < 3; j++)
            for (int i = 0; i < 4; i++)
                m->lab[rve_map_index(m, i, j, k)] = i < 2 ? 1 : 2;
    m->nlabels = 2;
    m->h[0] = 0.5;
    m->origin[0] = 10;
    rve_bpoints *b;
    rve_err e;
    ck_assert(rve_map_boundary(m, 1, &b, &e) == RVE_OK);
    ck_assert_uint_eq(b->n, 12);
    ck_assert_uint_eq(b->start[1], 0);
    ck_assert_uint_eq(b->start[2], 6);
    ck_assert_uint_eq(b->start[3], 12);
    for (size_t p = 0; p < b->n; p++) {
        ck_assert(b->w[p] == 1);
        ck_assert(b->x[3 * p] == (b->lab[p] == 1 ? 10.75 : 11.25));
    }
    rve_bpoints_free(b);
    m->lab[rve_map_index(m, 2, 1, 0)] = 0;
    ck_assert(rve_map_boundary(m, 1, &b, &e) == RVE_OK);
    ck_assert_uint_eq(b->start[2] - b->start[1], 5);
    ck_assert_uint_eq(b->start[3] - b->start[2], 5);
    rve_bpoints_free(b);
    /* res = 2: blocks of 2x2x2 voxels. Grain 1's boundary voxels (x = 1;
     * y 0,2 at k = 0; y 0,1,2 at k = 1) fall in blocks (0,0,0) [y 0,1: 2
     * voxels: (1,0,0),(1,0,1),(1,1,1) -> 3] and (0,1,0) [y = 2: (1,2,0),
     * (1,2,1) -> 2]. */
    ck_assert(rve_map_boundary(m, 2, &b, &e) == RVE_OK);
    ck_assert_uint_eq(b->nvox, 10);
    ck_assert_uint_eq(b->start[2] - b->start[1], 2);
    ck_assert(b->w[0] == 3 && b->w[1] == 2);
    /* mean centre of (1,0,0),(1,0,1),(1,1,1): y = (0.5+0.5+1.5)/3, z = (0.5+1.5+1.5)/3 */
    ck_assert(fabs(b->x[1] - 2.5 / 3) < 1e-15 && fabs(b->x[2] - 3.5 / 3) < 1e-15);
    ck_assert(b->x[0] == 10.75);
    double wsum = 0;
    for (size_t p = 0; p < b->n; p++)
        wsum += b->w[p];
    ck_assert(wsum == 10);
    rve_bpoints_free(b);
    rve_map_free(m);
}
END_TEST

/* Brute-force oracle on random maps: a voxel is a boundary voxel iff one of
 * its 26... no: 6 face neighbours is another non-void label. */
START_TEST(test_boundary_random)
{
    int reps = (int)(20 * test_scale() * (test_long() ? 10 : 1)) + 1;
    for (int r = 0; r < reps; r++) {
        rve_map *m = random_map(6 + r % 3, 5, 4 + r % 2, 3);
        rve_bpoints *b;
        rve_err e;
        ck_assert(rve_map_boundary(m, 1, &b, &e) == RVE_OK);
        size_t cnt = 0;
        for (int k = 0; k < m->nz; k++)
            for (int j = 0; j < m->ny; j++)
                for (int i = 0; i < m->nx; i++) {
                    uint32_t l = m->lab[rve_map_index(m, i, j, k)];
                    if (!l)
                        continue;
                    int d[6][3] = {{1, 0, 0}, {-1, 0, 0}, {0, 1, 0}, {0, -1, 0}, {0, 0, 1}, {0, 0, -1}};
                    int bnd = 0;
                    for (int q = 0; q < 6; q++) {
                        int a = i + d[q][0], bb = j + d[q][1], c = k + d[q][2];
                        if (a < 0 || bb < 0 || c < 0 || a >= m->nx || bb >= m->ny || c >= m->nz)
                            continue;
                        uint32_t u = m->lab[rve_map_index(m, a, bb, c)];
                        bnd |= u && u != l;
                    }
                    if (bnd) {
                        int found = 0;
                        for (size_t p = b->start[l]; p < b->start[l + 1]; p++)
                            found |= b->x[3 * p] == i + 0.5 && b->x[3 * p + 1] == j + 0.5 &&
                                     b->x[3 * p + 2] == k + 0.5;
                        ck_assert(found);
                        cnt++;
                    }
                }
        ck_assert_uint_eq(cnt, b->n);
        rve_bpoints_free(b);
        rve_map_free(m);
    }
}
END_TEST


/* ------------------------------------------------------------ statistics */
/* A ball of diameter D voxels: voxels whose centre lies within D/2 of the grid centre. */
static rve_map *ball_map(int D, int pad)
{
    int n = D + 2 * pad;
    rve_map *m = rve_map_alloc(n, n, n);
    double c = n / 2.0, r = D / 2.0;
    for (int k = 0; k < n; k++)
        for (int j = 0; j < n; j++)
            for (int i = 0; i < n; i++) {
                double x = i + 0.5 - c, y = j + 0.5 - c, z = k + 0.5 - c;
                m->lab[rve_map_index(m, i, j, k)] = x * x + y * y + z * z <= r * r ? 1 : 0;
            }
    m->nlabels = 1;
    return m;
}

START_TEST(test_ball_sphericity)
{
    rve_map *m = ball_map(40, 4);
    m->h[0] = m->h[1] = m->h[2] = 0.5; /* sphericity is scale-free */
    rve_grain_stat *st;
    rve_err e;
    ck_assert(rve_map_stats(m, &st, &e) == RVE_OK);
    double R = 10; /* 20 voxels of 0.5 */
    fprintf(stderr, "ball d=40: nvox %zu (ideal %.0f), area %.4f (ideal %.4f), sphericity %.5f\n",
            st[1].nvox, 4.0 / 3 * M_PI * 8000, st[1].area, 4 * M_PI * R * R, st[1].sphericity);
    ck_assert(fabs(st[1].sphericity - 1) < 0.02);
    ck_assert(fabs(st[1].area / (4 * M_PI * R * R) - 1) < 0.02);
    /* centroid: the ball is symmetric about the grid centre (24 voxels = 12) */
    for (int a = 0; a < 3; a++)
        ck_assert(fabs(st[1].centroid[a] - 12) < 1e-12);
    ck_assert(fabs(st[1].diameq - 20) < 0.1);
    ck_assert(fabs(st[1].aspect[0] - 1) < 1e-9 && fabs(st[1].aspect[1] - 1) < 1e-9);
    ck_assert(fabs(st[1].axes[0] - R) < 0.05);
    ck_assert_int_eq(st[1].nneigh, 0);
    ck_assert_int_eq(st[1].border, 0);
    ck_assert_int_eq(st[1].ncomp, 1);
    free(st);
    rve_map_free(m);
    /* The raw voxel-face count (an independent estimate) is ~1.5x larger. */
}
END_TEST

START_TEST(test_box_stats)
{
    /* A 10x6x4 box (grain 1) at (3,2,1) in a 16x10x8 map of h = (1, 2, 0.5),
     * the rest grain 2 except one void voxel. */
    rve_map *m = rve_map_alloc(16, 10, 8);
    m->h[1] = 2;
    m->h[2] = 0.5;
    m->origin[0] = 100;
    for (int k = 0; k < 8; k++)
        for (int j = 0; j < 10; j++)
            for (int i = 0; i < 16; i++)
                m->lab[rve_map_index(m, i, j, k)] =
                    (i >= 3 && i < 13 && j >= 2 && j < 8 && k >= 1 && k < 5) ? 1 : 2;
    m->lab[0] = 0;
    m->nlabels = 2;
    rve_grain_stat *st;
    rve_err e;
    ck_assert(rve_map_stats(m, &st, &e) == RVE_OK);
    ck_assert_uint_eq(st[1].nvox, 240);
    ck_assert(fabs(st[1].volume - 240) < 1e-12);
    ck_assert(fabs(st[1].centroid[0] - (100 + 8)) < 1e-12);
    ck_assert(fabs(st[1].centroid[1] - 10) < 1e-12);
    ck_assert(fabs(st[1].centroid[2] - 1.5) < 1e-12);
    /* box of sides 10, 12, 2: variance L^2/12, semi-axes sqrt(5/12) L, sorted 12, 10, 2 */
    ck_assert(fabs(st[1].axes[0] - sqrt(5.0 / 12) * 12) < 1e-9);
    ck_assert(fabs(st[1].axes[1] - sqrt(5.0 / 12) * 10) < 1e-9);
    ck_assert(fabs(st[1].axes[2] - sqrt(5.0 / 12) * 2) < 1e-9);
    ck_assert(fabs(fabs(st[1].dirs[0][1]) - 1) < 1e-9);
    ck_assert(fabs(st[1].aspect[0] - 10.0 / 12) < 1e-9);
    ck_assert(fabs(st[1].aspect[1] - 2.0 / 12) < 1e-9);
    /* area: faces 2 (10*12 + 10*2 + 12*2) = 328; the smoothing rounds the
     * edges (by ~sigma = 1 voxel, i.e. 0.5 along z), so a little less */
    fprintf(stderr, "box area %.3f (faces 328)\n", st[1].area);
    ck_assert(st[1].area < 328 && st[1].area > 0.7 * 328);
    ck_assert_int_eq(st[1].nneigh, 1);
    ck_assert_int_eq(st[2].nneigh, 1);
    ck_assert_int_eq(st[2].border, 1);
    ck_assert_int_eq(st[1].border, 0);
    ck_assert_uint_eq(st[2].nvox, 16 * 10 * 8 - 240 - 1);
    free(st);
    rve_map_free(m);
}
END_TEST

/* A large cube: the edge rounding (~0.8 sigma per unit edge length) is a
 * small fraction of the area: 12 * 40 * 0.8 / (6 * 40^2) = 4 %. */
START_TEST(test_cube_area)
{
    rve_map *m = rve_map_alloc(48, 48, 48);
    for (int k = 4; k < 44; k++)
        for (int j = 4; j < 44; j++)
            for (int i = 4; i < 44; i++)
                m->lab[rve_map_index(m, i, j, k)] = 1;
    m->nlabels = 1;
    double area;
    rve_err e;
    ck_assert(rve_map_grain_area(m, 1, &area, &e) == RVE_OK);
    fprintf(stderr, "cube 40: area %.2f (faces 9600)\n", area);
    ck_assert(area < 9600 && area > 0.94 * 9600);
    rve_map_free(m);
}
END_TEST

START_TEST(test_neighbours_small)
{
    /* 2x2x2, eight grains: each voxel has 3 face neighbours, all different. */
    rve_map *m = rve_map_alloc(2, 2, 2);
    for (int v = 0; v < 8; v++)
        m->lab[v] = (uint32_t)v + 1;
    m->nlabels = 8;
    rve_grain_stat *st;
    rve_err e;
    ck_assert(rve_map_stats(m, &st, &e) == RVE_OK);
    for (int l = 1; l <= 8; l++) {
        ck_assert_int_eq(st[l].nneigh, 3);
        ck_assert_uint_eq(st[l].nvox, 1);
        ck_assert(st[l].area > 0); /* single voxels still get a surface */
    }
    free(st);
    /* 5x1x1: 1 2 0 2 3: grain 2 has two components and neighbours 1 only (void between). */
    rve_map_free(m);
    m = rve_map_alloc(5, 1, 1);
    uint32_t v0[5] = {1, 2, 0, 2, 3};
    memcpy(m->lab, v0, sizeof v0);
    m->nlabels = 3;
    ck_assert(rve_map_stats(m, &st, &e) == RVE_OK);
    ck_assert_int_eq(st[2].nneigh, 2);
    ck_assert_int_eq(st[2].ncomp, 2);
    ck_assert_int_eq(st[1].nneigh, 1);
    free(st);
    rve_map_free(m);
}
END_TEST

START_TEST(test_compare_hand)
{
    rve_map *a = rve_map_alloc(4, 1, 1), *b = rve_map_alloc(4, 1, 1);
    uint32_t va[4] = {1, 1, 2, 2}, vb[4] = {5, 5, 5, 7};
    memcpy(a->lab, va, sizeof va);
    memcpy(b->lab, vb, sizeof vb);
    a->nlabels = 2;
    b->nlabels = 7;
    rve_map_cmp *c;
    rve_err e;
    ck_assert(rve_map_compare(a, b, RVE_CMP_MATCH, &c, &e) == RVE_OK);
    ck_assert_uint_eq(c->match[1], 5);
    ck_assert_uint_eq(c->match[2], 7);
    ck_assert_uint_eq(c->nagree, 3);
    ck_assert(fabs(c->agreement - 0.75) < 1e-15);
    ck_assert(fabs(c->iou[1] - 2.0 / 3) < 1e-15);
    ck_assert(fabs(c->iou[2] - 0.5) < 1e-15);
    ck_assert(fabs(c->mean_iou - 7.0 / 12) < 1e-15);
    rve_map_cmp_free(c);
    ck_assert(rve_map_compare(a, b, RVE_CMP_IDENTITY, &c, &e) == RVE_OK);
    ck_assert_uint_eq(c->nagree, 0);
    rve_map_cmp_free(c);
    ck_assert(rve_map_compare(a, a, RVE_CMP_MATCH, &c, &e) == RVE_OK);
    ck_assert(c->agreement == 1 && c->mean_iou == 1);
    rve_map_cmp_free(c);
    rve_map *d = rve_map_alloc(5, 1, 1);
    ck_assert(rve_map_compare(a, d, RVE_CMP_MATCH, &c, &e) == RVE_EDATA);
    rve_map_free(d);
    rve_map_free(a);
    rve_map_free(b);
}
END_TEST


/* 8-bit strips (PackBits, big-endian file) and 32-bit strips (deflate),
 * written by libtiff directly; inch resolution tags are ignored. */
START_TEST(test_tiff_libtiff_8_32)
{
    for (int bits = 8; bits <= 32; bits += 24) {
        const char *path = tpath(bits == 8 ? "s8.tif" : "s32.tif");
        TIFF *t = TIFFOpen(path, bits == 8 ? "wb" : "wl");
        ck_assert_ptr_nonnull(t);
        uint32_t row[13];
        for (int z = 0; z < 4; z++) {
            TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 13);
            TIFFSetField(t, TIFFTAG_IMAGELENGTH, 7);
            TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, bits);
            TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
            TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
            TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 3);
            TIFFSetField(t, TIFFTAG_COMPRESSION, bits == 8 ? COMPRESSION_PACKBITS : COMPRESSION_ADOBE_DEFLATE);
            TIFFSetField(t, TIFFTAG_RESOLUTIONUNIT, RESUNIT_INCH);
            TIFFSetField(t, TIFFTAG_XRESOLUTION, 72.0f);
            TIFFSetField(t, TIFFTAG_YRESOLUTION, 72.0f);
            for (int y = 0; y < 7; y++) {
                unsigned char r8[13];
                for (int x = 0; x < 13; x++) {
                    row[x] = bits == 8 ? (uint32_t)(x * y + z) % 256 : 2000000000u + (uint32_t)(x + 13 * y + 91 * z);
                    r8[x] = (unsigned char)row[x];
                }
                ck_assert(TIFFWriteScanline(t, bits == 8 ? (void *)r8 : (void *)row, (uint32_t)y, 0) >= 0);
            }
            ck_assert(TIFFWriteDirectory(t));
        }
        TIFFClose(t);
        rve_map *m;
        rve_err e;
        ck_assert_msg(rve_map_read_tiff(path, &m, &e) == RVE_OK, "%s", e.msg);
        for (int z = 0; z < 4; z++)
            for (int y = 0; y < 7; y++)
                for (int x = 0; x < 13; x++)
                    ck_assert_uint_eq(m->lab[rve_map_index(m, x, y, z)],
                                      bits == 8 ? (uint32_t)(x * y + z) % 256 : 2000000000u + (uint32_t)(x + 13 * y + 91 * z));
        ck_assert(m->h[0] == 1 && m->h[1] == 1 && m->has_res == 0);
        rve_map_free(m);
    }
}
END_TEST

/* Above 2^22 voxels the pages are read by several threads: same labels, and
 * a bad page far in the stack is the one reported. */
START_TEST(test_tiff_parallel)
{
    rve_map *m = random_map(160, 128, 210, 60000); /* 4.3 M voxels */
    rve_err e;
    rve_map_write_opts o;
    rve_map_write_opts_default(&o);
    o.compress = 0;
    ck_assert(rve_map_write(m, tpath("par.tif"), RVE_MAP_AUTO, &o, &e) == RVE_OK);
    rve_map *r;
    ck_assert_msg(rve_map_read_tiff(tpath("par.tif"), &r, &e) == RVE_OK, "%s", e.msg);
    assert_same_labels(m, r);
    rve_map_free(r);
    /* The same stack with page 170 of another width. */
    TIFF *t = TIFFOpen(tpath("par_bad.tif"), "w");
    ck_assert_ptr_nonnull(t);
    uint16_t *row = calloc(200, sizeof *row);
    for (int z = 0; z < 210; z++) {
        uint32_t w = z == 169 ? 161 : 160;
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, w);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, 128);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_ROWSPERSTRIP, 128);
        for (int y = 0; y < 128; y++)
            ck_assert(TIFFWriteScanline(t, row, (uint32_t)y, 0) >= 0);
        ck_assert(TIFFWriteDirectory(t));
    }
    TIFFClose(t);
    free(row);
    ck_assert(rve_map_read_tiff(tpath("par_bad.tif"), &r, &e) == RVE_EDATA);
    ck_assert_msg(strstr(e.msg, "page 170 is 161x128") != NULL, "%s", e.msg);
    rve_map_free(m);
}
END_TEST

/* The generator: deterministic, seeds matter, and a DCT-like result. */
START_TEST(test_synth)
{
    rve_synth_opts o;
    rve_synth_opts_default(&o);
    o.nx = 40, o.ny = 36, o.nz = 30;
    o.nseeds = 60;
    o.mcs = 10;
    rve_map *a, *b, *c;
    rve_err e;
    ck_assert(rve_map_synth_dct(&o, &a, &e) == RVE_OK);
    ck_assert(rve_map_synth_dct(&o, &b, &e) == RVE_OK);
    assert_same_labels(a, b);
    o.seed = 2;
    ck_assert(rve_map_synth_dct(&o, &c, &e) == RVE_OK);
    ck_assert(memcmp(a->lab, c->lab, rve_map_nvox(a) * sizeof *a->lab) != 0);
    uint32_t ng = rve_map_ngrains(a);
    ck_assert_uint_eq(ng, a->nlabels); /* renumbered 1..N */
    ck_assert(ng > 20 && ng <= 60);
    size_t nvoid = 0;
    for (size_t v = 0; v < rve_map_nvox(a); v++)
        nvoid += a->lab[v] == 0;
    ck_assert(nvoid > 0 && nvoid < rve_map_nvox(a) / 10);
    /* Growth moved boundaries: the result is not the Laguerre raster (mcs 0). */
    o.seed = 1;
    o.mcs = 0;
    o.gb_void = o.surf_void = o.noise = 0;
    rve_map *lag;
    ck_assert(rve_map_synth_dct(&o, &lag, &e) == RVE_OK);
    o.mcs = 10;
    rve_map *grown;
    ck_assert(rve_map_synth_dct(&o, &grown, &e) == RVE_OK);
    rve_map_cmp *cmp;
    ck_assert(rve_map_compare(lag, grown, RVE_CMP_MATCH, &cmp, &e) == RVE_OK);
    ck_assert(cmp->agreement < 0.99 && cmp->agreement > 0.6);
    rve_map_cmp_free(cmp);
    o.nx = 0;
    rve_map *bad = NULL;
    ck_assert(rve_map_synth_dct(&o, &bad, &e) == RVE_EUSAGE);
    rve_map_free(lag), rve_map_free(grown);
    rve_map_free(a), rve_map_free(b), rve_map_free(c);
}
END_TEST

static Suite *raster_suite(void)
{
    Suite *s = suite_create("raster");
    TCase *tc = tcase_create("io");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, test_alloc);
    tcase_add_test(tc, test_roundtrip_all_formats);
    tcase_add_test(tc, test_roundtrip_ids_ori);
    tcase_add_test(tc, test_tiff_libtiff_tiled);
    tcase_add_test(tc, test_tiff_huge_tiles);
    tcase_add_test(tc, test_tesr_literal);
    tcase_add_test(tc, test_tiff_libtiff_8_32);
    tcase_add_test(tc, test_tiff_parallel);
    tcase_add_test(tc, test_bad_tiff);
    tcase_add_test(tc, test_bad_tesr);
    tcase_add_test(tc, test_in100);
    suite_add_tcase(s, tc);
    TCase *tl = tcase_create("labels");
    tcase_add_test(tl, test_renumber_components_crop);
    tcase_add_test(tl, test_remove_small);
    tcase_add_test(tl, test_boundary_hand);
    tcase_add_test(tl, test_boundary_random);
    suite_add_tcase(s, tl);
    TCase *ts = tcase_create("stats");
    tcase_set_timeout(ts, 120);
    tcase_add_test(ts, test_ball_sphericity);
    tcase_add_test(ts, test_box_stats);
    tcase_add_test(ts, test_cube_area);
    tcase_add_test(ts, test_neighbours_small);
    tcase_add_test(ts, test_compare_hand);
    tcase_add_test(ts, test_synth);
    suite_add_tcase(s, ts);
    return s;
}

int main(void)
{
    return test_run_suite(raster_suite());
}

/* Writes a small seed corpus for the fuzz targets: TIFFs (8/16/32-bit,
 * strips or tiles, none/deflate/LZW/PackBits) and .tesr files (2.0/2.1, ascii
 * and binary, *id, *ori). Usage: seeds DIR */
#include "config.h"
#include <rve/raster.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tiffio.h>

static rve_map *small_map(int nx, int ny, int nz, uint32_t maxlab)
{
    rve_map *m = rve_map_alloc(nx, ny, nz);
    size_t n = rve_map_nvox(m);
    for (size_t v = 0; v < n; v++)
        m->lab[v] = (uint32_t)((v * 2654435761u) % (maxlab + 1));
    rve_map_update_nlabels(m);
    return m;
}

static void tiled(const char *path, uint16_t comp)
{
    TIFF *t = TIFFOpen(path, "w");
    if (!t)
        exit(1);
    uint16_t buf[16 * 16];
    for (int z = 0; z < 2; z++) {
        TIFFSetField(t, TIFFTAG_IMAGEWIDTH, 20);
        TIFFSetField(t, TIFFTAG_IMAGELENGTH, 18);
        TIFFSetField(t, TIFFTAG_BITSPERSAMPLE, 16);
        TIFFSetField(t, TIFFTAG_SAMPLESPERPIXEL, 1);
        TIFFSetField(t, TIFFTAG_PHOTOMETRIC, PHOTOMETRIC_MINISBLACK);
        TIFFSetField(t, TIFFTAG_COMPRESSION, comp);
        TIFFSetField(t, TIFFTAG_TILEWIDTH, 16);
        TIFFSetField(t, TIFFTAG_TILELENGTH, 16);
        for (int q = 0; q < 256; q++)
            buf[q] = (uint16_t)(q % 7 + z);
        for (uint32_t y = 0; y < 18; y += 16)
            for (uint32_t x = 0; x < 20; x += 16)
                TIFFWriteTile(t, buf, x, y, 0, 0);
        TIFFWriteDirectory(t);
    }
    TIFFClose(t);
}

/* one seed file: dir/sub/name holding n bytes */
static int put(const char *dir, const char *sub, const char *name, const void *b, size_t n)
{
    char p[4096];
    snprintf(p, sizeof p, "%s/%s/%s", dir, sub, name);
    FILE *f = fopen(p, "wb");
    if (!f)
        return 0;
    int ok = fwrite(b, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

/* Seeds of the seeds, raw and hdf5 targets (see fuzz_*.c for the layouts). */
static int more_seeds(const char *dir)
{
    static const char s1[] = "\0000 0 0\n1 1 1 0.5\n  # a comment\n\n2 0.5 1e-3 # tail\n";
    static const char s2[] = "\0011\n2.5\n# comment\n  3e2\r\n";
    /* .raw: 2x2x1, 1 byte; 2x1x2, 2 bytes big-endian, offset 2 */
    static const unsigned char r1[] = {0, 1, 1, 0, 0, 0, 1, 2, 2, 1};
    static const unsigned char r2[] = {0, 1, 0, 1, 4, 2, 0xff, 0xff, 0, 1, 0, 2, 0, 2, 0, 1};
    if (!put(dir, "seeds", "seeds", s1, sizeof s1 - 1) || !put(dir, "seeds", "volumes", s2, sizeof s2 - 1) ||
        !put(dir, "raw", "raw1", r1, sizeof r1) || !put(dir, "raw", "raw2", r2, sizeof r2))
        return 0;
    /* .tesr with *file: binary8 and ascii */
    const char *tb = "***tesr\n **format\n   2.1\n **general\n   3\n   2 2 1\n   0.5 0.5 1\n **cell\n   2\n"
                     " **data\n   binary8\n*file ext.raw\n***end\n";
    const char *ta = "***tesr\n **format\n   2.1\n **general\n   3\n   2 2 1\n   1 1 1\n **cell\n   2\n"
                     " **data\n   ascii\n*file ext.raw\n***end\n";
    unsigned char b[512];
    size_t n = 0;
    b[n++] = 1, b[n++] = 4, b[n++] = 0;
    memcpy(b + n, "\001\002\002\001", 4), n += 4;
    memcpy(b + n, tb, strlen(tb)), n += strlen(tb);
    if (!put(dir, "raw", "tesr_bin", b, n))
        return 0;
    n = 0;
    b[n++] = 1, b[n++] = 8, b[n++] = 0;
    memcpy(b + n, "1 2\n2 1\n", 8), n += 8;
    memcpy(b + n, ta, strlen(ta)), n += strlen(ta);
    if (!put(dir, "raw", "tesr_ascii", b, n))
        return 0;
    /* hdf5 programs: a pymicro grain_map (int32 4x4x4) and a LabDCT GrainId
     * (uint8 4x4x4) with a Spacing dataset; paths[1], paths[8], paths[15] */
    unsigned char h[600];
    n = 0;
    h[n++] = 1, h[n++] = 1, h[n++] = 2, h[n++] = 2, h[n++] = 3, h[n++] = 3, h[n++] = 3;
    for (int v = 0; v < 64; v++)
        h[n++] = (unsigned char)(1 + v % 3), h[n++] = 0, h[n++] = 0, h[n++] = 0;
    if (!put(dir, "hdf5", "pymicro", h, n))
        return 0;
    n = 0;
    h[n++] = 1, h[n++] = 8, h[n++] = 0, h[n++] = 2, h[n++] = 3, h[n++] = 3, h[n++] = 3;
    for (int v = 0; v < 64; v++)
        h[n++] = (unsigned char)(v % 4);
    h[n++] = 1, h[n++] = 15, h[n++] = 6, h[n++] = 0, h[n++] = 2;
    const double sp[3] = {0.5, 0.5, 0.5};
    memcpy(h + n, sp, sizeof sp), n += sizeof sp;
    return put(dir, "hdf5", "labdct", h, n);
}

int main(int argc, char **argv)
{
    if (argc != 2)
        return 2;
    char p[4096];
    rve_err e;
    const uint32_t maxlabs[3] = {9, 3000, 100000};
    for (int w = 0; w < 3; w++) {
        rve_map *m = small_map(6, 5, 3, maxlabs[w]);
        m->h[0] = 0.5;
        m->origin[2] = -2;
        for (int c = 0; c < 2; c++) {
            rve_map_write_opts o;
            rve_map_write_opts_default(&o);
            o.compress = c;
            snprintf(p, sizeof p, "%s/tiff/w%d_c%d.tif", argv[1], w, c);
            if (rve_map_write_tiff(m, p, &o, &e) != RVE_OK)
                return 1;
        }
        for (int v = 0; v < 3; v++) {
            rve_map_write_opts o;
            rve_map_write_opts_default(&o);
            o.ascii = v == 0;
            o.big_endian = v == 2;
            if (v == 1 && w == 1) {
                m->ids = malloc(((size_t)m->nlabels + 1) * sizeof *m->ids);
                for (uint32_t l = 0; l <= m->nlabels; l++)
                    m->ids[l] = 3 * l;
            }
            snprintf(p, sizeof p, "%s/tesr/w%d_v%d.tesr", argv[1], w, v);
            if (rve_map_write_tesr(m, p, &o, &e) != RVE_OK)
                return 1;
        }
        rve_map_free(m);
    }
    snprintf(p, sizeof p, "%s/tiff/tiled_lzw.tif", argv[1]);
    tiled(p, COMPRESSION_LZW);
    snprintf(p, sizeof p, "%s/tiff/tiled_packbits.tif", argv[1]);
    tiled(p, COMPRESSION_PACKBITS);
    const char *t20 = "***tesr\n **format\n   2.0 ascii\n **general\n   3\n   2 2 1\n   0.5 0.5 2\n"
                      "  *origin\n   1 2 3\n  *hasvoid 1\n **cell\n   3\n  *id\n   10 20 30\n"
                      "  *ori\n   e\n 1 2 3\n 4 5 6\n 7 8 9\n  *crysym\n   cubic\n"
                      " **data\n3 0 1 2\n***end\n";
    snprintf(p, sizeof p, "%s/tesr/v20.tesr", argv[1]);
    FILE *f = fopen(p, "w");
    if (!f)
        return 1;
    fputs(t20, f);
    fclose(f);
    return more_seeds(argv[1]) ? 0 : 1;
}

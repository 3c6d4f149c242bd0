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
    return 0;
}

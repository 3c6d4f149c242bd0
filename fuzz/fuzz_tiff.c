/* libFuzzer target: the TIFF grain-map reader (from memory, voxel cap 2^22). */
#include "config.h"
#include "raster/map_internal.h"
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rve_map *m = NULL;
    rve_err e;
    rve_err_clear(&e);
    if (rve_map_read_tiff_mem_capped(data, size, "fuzz.tif", (size_t)1 << 22, &m, &e) == RVE_OK) {
        /* Touch the result: labels within range. */
        size_t n = rve_map_nvox(m);
        for (size_t v = 0; v < n; v++)
            if (m->lab[v] > m->nlabels)
                __builtin_trap();
        rve_map_free(m);
    } else if (m != NULL || e.msg[0] == 0) {
        __builtin_trap(); /* a failure must report a message and return no map */
    }
    return 0;
}

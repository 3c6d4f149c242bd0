/* libFuzzer target: the Neper .tess reader (from memory), periodic files
 * included (their cells are rebuilt by voro++). */
#include "config.h"
#include <rve/tess.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    rve_tess *t = NULL;
    int *ids = NULL;
    rve_err e;
    rve_err_clear(&e);
    if (rve_tess_read_tess_mem((const char *)data, size, "fuzz.tess", &t, &ids, &e) == RVE_OK) {
        if (!t || t->n < 1 || (t->ori && t->ori_n < 1))
            __builtin_trap();
        rve_err e2;
        rve_err_clear(&e2);
        (void)rve_tess_check(t, &e2); /* walks every array the reader built */
        double vol = 0;
        for (int c = 0; c < t->n; c++) vol += t->cells[c].vol;
        (void)vol;
        rve_tess_free(t);
        free(ids);
    } else if (t != NULL || ids != NULL || e.msg[0] == 0) {
        __builtin_trap();
    }
    return 0;
}

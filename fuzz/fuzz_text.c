/* libFuzzer target: the text parsers of the command line that are not
 * files of their own format: the shape syntax of rve dist / contact / pack
 * --bodies (rve_shape_parse_pair), the size laws of rve pack
 * (rve_distrib_parse) and the --morpho specs of rve gen (rve_morpho_parse).
 * The first byte picks the parser; the rest is the text (NUL-terminated
 * copy).  Semantic checks: a parsed shape passes rve_shape_check; a parsed
 * law has finite parameters and truncation bounds in order; a failure
 * always says why. */
#include "config.h"
#include <rve/dist.h>
#include <rve/optim.h>
#include <rve/pack.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void fuzz_shapes(const char *text)
{
    const char *cur = text;
    for (int k = 0; k < 64 && !rve_shape_text_end(&cur); k++) {
        rve_shape a, b;
        rve_err e;
        rve_err_clear(&e);
        memset(&a, 0, sizeof a);
        memset(&b, 0, sizeof b);
        const char *before = cur;
        rve_status st = rve_shape_parse_pair(&cur, &a, &b, &e);
        if (st == RVE_OK && (rve_shape_check(&a, NULL) != RVE_OK || rve_shape_check(&b, NULL) != RVE_OK))
            __builtin_trap();
        if (st != RVE_OK && e.msg[0] == 0)
            __builtin_trap();
        rve_shape_free(&a);
        rve_shape_free(&b);
        if (st != RVE_OK || cur == before)
            break;
    }
}

static void fuzz_law(const char *text)
{
    rve_distrib law;
    rve_err e;
    rve_err_clear(&e);
    if (rve_distrib_parse(text, &law, &e) == RVE_OK) {
        if (!isfinite(law.p1) || !isfinite(law.p2) || !(law.lo <= law.hi))
            __builtin_trap();
        char buf[256];
        (void)rve_distrib_format(&law, buf, sizeof buf);
        rve_distrib_free(&law);
    } else if (e.msg[0] == 0) {
        __builtin_trap();
    }
}

static void fuzz_morpho(const char *text)
{
    rve_morpho m;
    rve_err e;
    rve_err_clear(&e);
    memset(&m, 0, sizeof m);
    if (rve_morpho_parse(text, &m, &e) == RVE_OK)
        rve_morpho_free(&m);
    else if (e.msg[0] == 0)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1 || size > 65536)
        return 0;
    char *text = malloc(size);
    if (!text)
        return 0;
    memcpy(text, data + 1, size - 1);
    text[size - 1] = '\0';
    switch (data[0] % 3) {
    case 0: fuzz_shapes(text); break;
    case 1: fuzz_law(text); break;
    default: fuzz_morpho(text); break;
    }
    free(text);
    return 0;
}

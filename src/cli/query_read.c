/* The query reader shared by `rve dist` and `rve contact`. */
#include "config.h"
#include "cli/query_read.h"
#include <rve/util.h>
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

void cli_free_pairs(cli_shape_pair *q, size_t n)
{
    for (size_t i = 0; q && i < n; i++) {
        rve_shape_free(&q[i].a);
        rve_shape_free(&q[i].b);
        rve_compound_free(q[i].ca);
        rve_compound_free(q[i].cb);
    }
    free(q);
}

#define CLI_COMPOUND_MAX 100000

/* `compound k` followed by k shapes: the compound of those pieces */
static rve_status parse_compound(const char **cur, rve_compound **out, rve_err *err)
{
    char *end;
    errno = 0;
    long k = strtol(*cur, &end, 10);
    if (end == *cur || errno || k < 1 || k > CLI_COMPOUND_MAX || (*end && !isspace((unsigned char)*end)))
        return rve_err_set(err, RVE_EDATA, NULL, "compound: expected a piece count from 1 to %d",
                           CLI_COMPOUND_MAX);
    *cur = end;
    rve_shape *pc = calloc((size_t)k, sizeof *pc);
    if (!pc)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    rve_status st = RVE_OK;
    long i;
    for (i = 0; i < k && st == RVE_OK; i++) {
        if (rve_shape_text_end(cur)) {
            st = rve_err_set(err, RVE_EDATA, NULL, "compound: %ld of %ld pieces before the end of input", i, k);
            break;
        }
        st = rve_shape_parse(cur, &pc[i], err);
        if (st == RVE_OK)
            st = rve_shape_check(&pc[i], err);
    }
    if (st == RVE_OK)
        st = rve_compound_build(pc, (size_t)k, out, err);
    for (long j = 0; j < k; j++)
        rve_shape_free(&pc[j]);
    free(pc);
    return st;
}

/* one body: a shape, or a compound */
static rve_status parse_body(const char **cur, rve_shape *s, rve_compound **c, rve_err *err)
{
    if (rve_shape_text_end(cur))
        return rve_err_set(err, RVE_EDATA, NULL, "unexpected end of input (expected the second body)");
    if (strncmp(*cur, "compound", 8) == 0 && isspace((unsigned char)(*cur)[8])) {
        *cur += 8;
        return parse_compound(cur, c, err);
    }
    rve_status st = rve_shape_parse(cur, s, err);
    return st == RVE_OK ? rve_shape_check(s, err) : st;
}

rve_status cli_read_pairs(const char *path, cli_shape_pair **out, size_t *n, const char **name, rve_err *err)
{
    char *buf = NULL;
    *name = strcmp(path, "-") == 0 ? "<stdin>" : path;
    rve_status st = rve_read_text_file(path, &buf, err);
    if (st != RVE_OK)
        return st;
    cli_shape_pair *qs = NULL;
    size_t nq = 0, cap = 0;
    const char *cur = buf;
    while (!rve_shape_text_end(&cur)) {
        if (nq == cap) {
            cap = cap ? 2 * cap : 64;
            cli_shape_pair *t = realloc(qs, cap * sizeof *t);
            if (!t) {
                cli_free_pairs(qs, nq);
                free(buf);
                return rve_err_set(err, RVE_ENOMEM, *name, "out of memory");
            }
            qs = t;
        }
        rve_err e2;
        rve_err_clear(&e2);
        memset(&qs[nq], 0, sizeof qs[nq]);
        st = parse_body(&cur, &qs[nq].a, &qs[nq].ca, &e2);
        if (st == RVE_OK)
            st = parse_body(&cur, &qs[nq].b, &qs[nq].cb, &e2);
        if (st != RVE_OK) {
            cli_free_pairs(qs, nq + 1);
            free(buf);
            return rve_err_set(err, st, *name, "query %zu: %s", nq + 1, e2.msg);
        }
        nq++;
    }
    free(buf);
    *out = qs;
    *n = nq;
    return RVE_OK;
}

/* Strict number and list parsing for command-line options. */
#include "config.h"
#include <rve/util.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

rve_status rve_parse_double(const char *s, double *out)
{
    if (!s || !*s)
        return RVE_EUSAGE;
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end != '\0' || errno == ERANGE || !isfinite(v))
        return RVE_EUSAGE;
    *out = v;
    return RVE_OK;
}

rve_status rve_parse_long(const char *s, long *out)
{
    if (!s || !*s)
        return RVE_EUSAGE;
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end != '\0' || errno == ERANGE)
        return RVE_EUSAGE;
    *out = v;
    return RVE_OK;
}

rve_status rve_parse_int_range(const char *s, long lo, long hi, long *out)
{
    long v;
    if (rve_parse_long(s, &v) != RVE_OK || v < lo || v > hi)
        return RVE_EUSAGE;
    *out = v;
    return RVE_OK;
}

rve_status rve_parse_list(const char *s, double *v, int nmax, int *n)
{
    *n = 0;
    if (!s || !*s)
        return RVE_EUSAGE;
    const char *p = s;
    for (;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char tok[64];
        if (len == 0 || len >= sizeof tok || *n >= nmax)
            return RVE_EUSAGE;
        memcpy(tok, p, len);
        tok[len] = '\0';
        if (rve_parse_double(tok, &v[*n]) != RVE_OK)
            return RVE_EUSAGE;
        (*n)++;
        if (!comma)
            return RVE_OK;
        p = comma + 1;
    }
}

rve_status rve_parse_triplet(const char *s, double v[3], int allow_scalar)
{
    double t[3];
    int n;
    if (rve_parse_list(s, t, 3, &n) != RVE_OK)
        return RVE_EUSAGE;
    if (n == 1 && allow_scalar)
        t[1] = t[2] = t[0];
    else if (n != 3)
        return RVE_EUSAGE;
    memcpy(v, t, sizeof t);
    return RVE_OK;
}

/* Morphology specifications, KS and smoothed-CDF distances (the distributions
 * themselves are in src/util/distrib.c). */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/optim.h>
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "synth.h"
#include "util/strtrim.h"

static const char *prop_names[RVE_PROP_COUNT] = {"diameq", "size", "sphericity", "1-sphericity"};

const char *rve_prop_name(rve_prop p)
{
    return (p >= 0 && p < RVE_PROP_COUNT) ? prop_names[p] : "?";
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The KS distance on x sorted in place: no allocation (see rve_ks_distance). */
double synth_ks_distance_inplace(double *s, size_t n, const rve_distrib *d)
{
    if (n == 0)
        return 1;
    qsort(s, n, sizeof *s, cmp_double);
    double D = 0;
    for (size_t i = 0; i < n; i++) {
        double F = rve_distrib_cdf(d, s[i]);
        /* F_n just below s[i] is i/n (ties: the first of equal values). */
        /* With ties the maxima over a run of equal values are still exact. */
        double lo = (double)i / n, hi = (double)(i + 1) / n;
        if (F - lo > D)
            D = F - lo;
        if (hi - F > D)
            D = hi - F;
    }
    return D;
}

double rve_ks_distance(const double *x, size_t n, const rve_distrib *d)
{
    if (n == 0)
        return 1;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    double D = synth_ks_distance_inplace(s, n, d);
    free(s);
    return D;
}

double rve_ks_pvalue(double D, size_t n)
{
    double sn = sqrt((double)n);
    double l = (sn + 0.12 + 0.11 / sn) * D;
    if (l < 0.2)
        return 1;
    double q = 0, sgn = 1;
    for (int k = 1; k <= 100; k++) {
        double t = sgn * exp(-2.0 * k * k * l * l);
        q += t;
        if (fabs(t) < 1e-12)
            break;
        sgn = -sgn;
    }
    q *= 2;
    return q < 0 ? 0 : q > 1 ? 1 : q;
}

/* The distance on x sorted in place: no allocation, so the synthesis
 * objective, evaluated thousands of times, cannot fail half-way. */
double synth_smooth_cdf_distance_inplace(double *s, size_t n, double h, const rve_distrib *d, int m)
{
    if (n == 0 || m <= 0)
        return NAN;
    qsort(s, n, sizeof *s, cmp_double);
    double sum = 0;
    size_t lo = 0;
    for (int k = 0; k < m; k++) {
        double u = (k + 0.5) / m, xk = rve_distrib_quantile(d, u);
        /* values below xk - 8h count fully, above xk + 8h not at all */
        while (lo < n && s[lo] < xk - 8 * h)
            lo++;
        double F = (double)lo;
        for (size_t i = lo; i < n && s[i] <= xk + 8 * h; i++)
            F += 0.5 * erfc((s[i] - xk) / (h * 1.4142135623730951));
        F /= (double)n;
        double e = F - u;
        sum += e * e / (u * (1 - u));
    }
    return sum / m;
}

double rve_smooth_cdf_distance(const double *x, size_t n, double h, const rve_distrib *d, int m)
{
    if (n == 0 || m <= 0)
        return NAN;
    double *s = malloc(n * sizeof *s);
    if (!s)
        return NAN;
    memcpy(s, x, n * sizeof *s);
    double r = synth_smooth_cdf_distance_inplace(s, n, h, d, m);
    free(s);
    return r;
}

/* ------------------------------------------------------------ parsing */
void rve_morpho_free(rve_morpho *m)
{
    if (!m)
        return;
    for (int p = 0; p < RVE_PROP_COUNT; p++)
        rve_distrib_free(&m->dist[p]);
    memset(m, 0, sizeof *m);
}

rve_status rve_morpho_parse(const char *spec, rve_morpho *m, rve_err *err)
{
    memset(m, 0, sizeof *m);
    for (int p = 0; p < RVE_PROP_COUNT; p++) {
        m->dist[p].lo = -HUGE_VAL;
        m->dist[p].hi = HUGE_VAL;
    }
    if (!spec)
        return rve_err_set(err, RVE_EUSAGE, "", "empty morphology");
    const char *s = spec;
    if (strcmp(spec, "gg") == 0)
        s = "diameq:lognormal(1,0.35),1-sphericity:lognormal(0.145,0.03)";
    char *buf = strdup(s);
    if (!buf)
        return rve_err_set(err, RVE_ENOMEM, spec, "out of memory");
    rve_status st = RVE_OK;
    /* split at top-level commas */
    char *item = buf;
    int depth = 0;
    for (char *c = buf;; c++) {
        if (*c == '(')
            depth++;
        else if (*c == ')')
            depth--;
        if ((*c == ',' && depth == 0) || *c == '\0') {
            int end = *c == '\0';
            *c = '\0';
            char *it = str_trim(item);
            char *colon = strchr(it, ':');
            if (!colon) {
                st = rve_err_set(err, RVE_EUSAGE, spec, "'%s': expected PROPERTY:DISTRIBUTION", it);
                break;
            }
            *colon = '\0';
            char *pn = str_trim(it);
            int p;
            for (p = 0; p < RVE_PROP_COUNT; p++)
                if (strcmp(pn, prop_names[p]) == 0)
                    break;
            if (p == RVE_PROP_COUNT) {
                st = rve_err_set(err, RVE_EUSAGE, spec, "unknown property '%s' (diameq, size, sphericity, 1-sphericity)", pn);
                break;
            }
            int other = p == RVE_PROP_DIAMEQ ? RVE_PROP_SIZE : p == RVE_PROP_SIZE ? RVE_PROP_DIAMEQ
                        : p == RVE_PROP_SPHERICITY ? RVE_PROP_1MSPHERICITY : RVE_PROP_SPHERICITY;
            if (m->has[p] || m->has[other]) {
                st = rve_err_set(err, RVE_EUSAGE, spec, "'%s' conflicts with an earlier property", pn);
                break;
            }
            st = rve_distrib_parse(colon + 1, &m->dist[p], err);
            if (st != RVE_OK && err && !err->file[0])
                snprintf(err->file, sizeof err->file, "%s", spec);
            if (st != RVE_OK)
                break;
            m->has[p] = 1;
            if (end)
                break;
            item = c + 1;
        }
        if (depth < 0) {
            st = rve_err_set(err, RVE_EUSAGE, spec, "unbalanced parentheses");
            break;
        }
    }
    free(buf);
    if (st != RVE_OK)
        rve_morpho_free(m);
    return st;
}

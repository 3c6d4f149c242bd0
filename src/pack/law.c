/* Random numbers (xoshiro256**) and size distributions ("lognormal(1,0.2)"). */
#include "config.h"
#include <rve/pack.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ------------------------------------------------------------------ rng */
static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

void rve_pack_rng_seed(rve_pack_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int k = 0; k < 4; k++)
        r->s[k] = splitmix64(&x);
}

static inline uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t rve_pack_rng_next(rve_pack_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

double rve_pack_rng_uniform(rve_pack_rng *r)
{
    return (double)(rve_pack_rng_next(r) >> 11) * 0x1.0p-53;
}

double rve_pack_rng_normal(rve_pack_rng *r)
{
    /* Box-Muller; u1 in (0,1]. */
    double u1 = 1.0 - rve_pack_rng_uniform(r);
    double u2 = rve_pack_rng_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

void rve_pack_rng_quat(rve_pack_rng *r, double q[4])
{
    double u1 = rve_pack_rng_uniform(r), u2 = rve_pack_rng_uniform(r), u3 = rve_pack_rng_uniform(r);
    double a = sqrt(1.0 - u1), b = sqrt(u1);
    q[0] = b * cos(2.0 * M_PI * u3);
    q[1] = a * sin(2.0 * M_PI * u2);
    q[2] = a * cos(2.0 * M_PI * u2);
    q[3] = b * sin(2.0 * M_PI * u3);
}

/* ------------------------------------------------------------------ laws */
static const char *law_names[] = {"constant", "normal", "lognormal", "weibull", "uniform"};

static void skip_ws(const char **p)
{
    while (isspace((unsigned char)**p))
        (*p)++;
}

/* Parse a number token ending at ',' or ')' (strict). */
static int parse_num(const char **p, double *v)
{
    skip_ws(p);
    const char *s = *p;
    size_t len = strcspn(s, ",)");
    while (len > 0 && isspace((unsigned char)s[len - 1]))
        len--;
    char tok[64];
    if (len == 0 || len >= sizeof tok)
        return -1;
    memcpy(tok, s, len);
    tok[len] = '\0';
    if (rve_parse_double(tok, v) != RVE_OK)
        return -1;
    *p = s + len;
    skip_ws(p);
    return 0;
}

rve_status rve_pack_law_parse(const char *s, rve_pack_law *law, rve_err *err)
{
    memset(law, 0, sizeof *law);
    law->from = -INFINITY;
    law->to = INFINITY;
    if (!s)
        return rve_err_set(err, RVE_EUSAGE, NULL, "empty distribution");
    const char *p = s;
    skip_ws(&p);
    double v;
    /* Bare number. */
    if (rve_parse_double(p, &v) == RVE_OK) {
        law->kind = RVE_LAW_CONSTANT;
        law->p1 = v;
        return RVE_OK;
    }
    size_t nl = 0;
    while (isalpha((unsigned char)p[nl]))
        nl++;
    int kind = -1;
    for (int k = 0; k < 5; k++)
        if (strlen(law_names[k]) == nl && strncasecmp(p, law_names[k], nl) == 0)
            kind = k;
    if (kind < 0)
        return rve_err_set(err, RVE_EUSAGE, NULL,
                           "distribution '%s': expected a number or constant(X), normal(M,SD), "
                           "lognormal(M,SD), weibull(K,LAMBDA), uniform(LO,HI)",
                           s);
    law->kind = (rve_pack_law_kind)kind;
    p += nl;
    skip_ws(&p);
    if (*p != '(')
        return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': expected '(' after %s", s,
                           law_names[kind]);
    p++;
    int need = kind == RVE_LAW_CONSTANT ? 1 : 2;
    double par[2] = {0, 0};
    for (int k = 0; k < need; k++) {
        if (parse_num(&p, &par[k]) != 0)
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': parameter %d is not a number",
                               s, k + 1);
        if (k + 1 < need) {
            if (*p != ',')
                return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': %s needs %d parameters",
                                   s, law_names[kind], need);
            p++;
        }
    }
    law->p1 = par[0];
    law->p2 = par[1];
    while (*p == ',') {
        p++;
        skip_ws(&p);
        double *dst = NULL;
        if (strncasecmp(p, "from", 4) == 0) {
            dst = &law->from;
            p += 4;
        } else if (strncasecmp(p, "to", 2) == 0) {
            dst = &law->to;
            p += 2;
        } else
            return rve_err_set(err, RVE_EUSAGE, NULL,
                               "distribution '%s': unexpected extra parameter (only from=A, to=B)", s);
        skip_ws(&p);
        if (*p != '=')
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': expected '=' after from/to", s);
        p++;
        if (parse_num(&p, dst) != 0)
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': bad truncation bound", s);
    }
    if (*p != ')')
        return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': expected ')'", s);
    p++;
    skip_ws(&p);
    if (*p)
        return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': trailing characters", s);
    switch (law->kind) {
    case RVE_LAW_NORMAL:
        if (!(law->p2 >= 0))
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': standard deviation must be >= 0", s);
        break;
    case RVE_LAW_LOGNORMAL:
        if (!(law->p1 > 0) || !(law->p2 >= 0))
            return rve_err_set(err, RVE_EUSAGE, NULL,
                               "distribution '%s': lognormal needs mean > 0 and standard deviation >= 0", s);
        break;
    case RVE_LAW_WEIBULL:
        if (!(law->p1 > 0) || !(law->p2 > 0))
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': weibull needs K > 0 and LAMBDA > 0", s);
        break;
    case RVE_LAW_UNIFORM:
        if (!(law->p2 >= law->p1))
            return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': uniform needs LO <= HI", s);
        break;
    default: break;
    }
    if (!(law->from <= law->to))
        return rve_err_set(err, RVE_EUSAGE, NULL, "distribution '%s': from must not exceed to", s);
    return RVE_OK;
}

int rve_pack_law_format(const rve_pack_law *law, char *buf, size_t n)
{
    int k;
    if (law->kind == RVE_LAW_CONSTANT)
        k = snprintf(buf, n, "constant(%.17g", law->p1);
    else
        k = snprintf(buf, n, "%s(%.17g,%.17g", law_names[law->kind], law->p1, law->p2);
    size_t used = k > 0 ? (size_t)k : 0;
    if (isfinite(law->from))
        used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0, ",from=%.17g", law->from);
    if (isfinite(law->to))
        used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0, ",to=%.17g", law->to);
    used += (size_t)snprintf(buf + (used < n ? used : n), used < n ? n - used : 0, ")");
    return (int)used;
}

static void lognormal_params(const rve_pack_law *law, double *mu, double *sigma)
{
    double m = law->p1, s = law->p2;
    double s2 = log1p((s / m) * (s / m));
    *sigma = sqrt(s2);
    *mu = log(m) - 0.5 * s2;
}

double rve_pack_law_mean(const rve_pack_law *law)
{
    switch (law->kind) {
    case RVE_LAW_CONSTANT: return law->p1;
    case RVE_LAW_NORMAL:
    case RVE_LAW_LOGNORMAL: return law->p1;
    case RVE_LAW_WEIBULL: return law->p2 * tgamma(1.0 + 1.0 / law->p1);
    case RVE_LAW_UNIFORM: return 0.5 * (law->p1 + law->p2);
    }
    return NAN;
}

double rve_pack_law_sd(const rve_pack_law *law)
{
    switch (law->kind) {
    case RVE_LAW_CONSTANT: return 0;
    case RVE_LAW_NORMAL:
    case RVE_LAW_LOGNORMAL: return law->p2;
    case RVE_LAW_WEIBULL: {
        double g1 = tgamma(1.0 + 1.0 / law->p1), g2 = tgamma(1.0 + 2.0 / law->p1);
        double v = g2 - g1 * g1;
        return law->p2 * sqrt(v > 0 ? v : 0);
    }
    case RVE_LAW_UNIFORM: return (law->p2 - law->p1) / sqrt(12.0);
    }
    return NAN;
}

static double draw(const rve_pack_law *law, rve_pack_rng *rng)
{
    switch (law->kind) {
    case RVE_LAW_CONSTANT: return law->p1;
    case RVE_LAW_NORMAL: return law->p1 + law->p2 * rve_pack_rng_normal(rng);
    case RVE_LAW_LOGNORMAL: {
        double mu, sigma;
        lognormal_params(law, &mu, &sigma);
        return exp(mu + sigma * rve_pack_rng_normal(rng));
    }
    case RVE_LAW_WEIBULL: {
        double u = 1.0 - rve_pack_rng_uniform(rng); /* (0,1] */
        return law->p2 * pow(-log(u), 1.0 / law->p1);
    }
    case RVE_LAW_UNIFORM: return law->p1 + (law->p2 - law->p1) * rve_pack_rng_uniform(rng);
    }
    return NAN;
}

rve_status rve_pack_law_sample(const rve_pack_law *law, rve_pack_rng *rng, double *x)
{
    if (law->kind == RVE_LAW_CONSTANT) {
        if (law->p1 < law->from || law->p1 > law->to)
            return rve_err_set(NULL, RVE_EUSAGE, NULL, "constant outside its bounds");
        *x = law->p1;
        return RVE_OK;
    }
    for (int t = 0; t < 10000; t++) {
        double v = draw(law, rng);
        if (v >= law->from && v <= law->to) {
            *x = v;
            return RVE_OK;
        }
    }
    return RVE_ECAP;
}

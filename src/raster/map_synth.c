/* Synthetic DCT-like grain maps: Laguerre raster + Monte Carlo Potts grain
 * growth + unindexed layers + noise. Deterministic (a splitmix64 stream, serial). */
#include "config.h"
#include <rve/raster.h>
#include <rve/util.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    uint64_t s;
} rng;

static uint64_t rng_u64(rng *r) { return rve_splitmix64(&r->s); }
static double rng_unif(rng *r) { return (rng_u64(r) >> 11) * 0x1.0p-53; }
static double rng_normal(rng *r)
{
    double u = rng_unif(r), v = rng_unif(r);
    if (u < 1e-300)
        u = 1e-300;
    return sqrt(-2 * log(u)) * cos(2 * 3.14159265358979323846 * v);
}
static size_t rng_below(rng *r, size_t n) { return (size_t)(rng_u64(r) % n); }

void rve_synth_opts_default(rve_synth_opts *o)
{
    memset(o, 0, sizeof *o);
    o->nx = o->ny = o->nz = 100;
    o->nseeds = 450;
    o->radius_sigma = 0.35;
    o->mcs = 60;
    o->temperature = 0.6;
    o->gb_void = 0.08;
    o->surf_void = 0.3;
    o->noise = 5e-5;
    o->seed = 1;
}

/* Laguerre raster with a bucket grid: the seeds of the voxel's bucket and of
 * rings of buckets around it until no farther seed can win. */
static int laguerre_raster(rve_map *m, const double *sx, const double *rr, int ns, double cell)
{
    int gb[3];
    const int dims[3] = {m->nx, m->ny, m->nz};
    for (int a = 0; a < 3; a++) {
        gb[a] = (int)ceil(dims[a] / cell);
        if (gb[a] < 1)
            gb[a] = 1;
    }
    size_t nb = (size_t)gb[0] * gb[1] * gb[2];
    int *head = malloc(nb * sizeof *head), *next = malloc((size_t)ns * sizeof *next);
    if (!head || !next) {
        free(head), free(next);
        return 0;
    }
    for (size_t b = 0; b < nb; b++)
        head[b] = -1;
    double rmax2 = 0;
    for (int s = 0; s < ns; s++) {
        int c[3];
        for (int a = 0; a < 3; a++) {
            c[a] = (int)(sx[3 * s + a] / cell);
            if (c[a] >= gb[a]) c[a] = gb[a] - 1;
            if (c[a] < 0) c[a] = 0;
        }
        size_t b = (size_t)c[0] + (size_t)gb[0] * (c[1] + (size_t)gb[1] * c[2]);
        next[s] = head[b];
        head[b] = s;
        if (rr[s] * rr[s] > rmax2)
            rmax2 = rr[s] * rr[s];
    }
    int maxring = gb[0] > gb[1] ? gb[0] : gb[1];
    if (gb[2] > maxring)
        maxring = gb[2];
    size_t v = 0;
    for (int k = 0; k < m->nz; k++)
        for (int j = 0; j < m->ny; j++)
            for (int i = 0; i < m->nx; i++, v++) {
                double p[3] = {i + 0.5, j + 0.5, k + 0.5};
                int c[3] = {(int)(p[0] / cell), (int)(p[1] / cell), (int)(p[2] / cell)};
                double best = HUGE_VAL;
                int win = 0;
                for (int R = 0; R <= maxring; R++) {
                    double lb = (R - 1) * cell;
                    if (R > 1 && lb * lb - rmax2 > best)
                        break;
                    for (int dz = -R; dz <= R; dz++)
                        for (int dy = -R; dy <= R; dy++)
                            for (int dx = -R; dx <= R; dx++) {
                                if (abs(dx) != R && abs(dy) != R && abs(dz) != R)
                                    continue;
                                int b0 = c[0] + dx, b1 = c[1] + dy, b2 = c[2] + dz;
                                if (b0 < 0 || b1 < 0 || b2 < 0 || b0 >= gb[0] || b1 >= gb[1] || b2 >= gb[2])
                                    continue;
                                for (int s = head[(size_t)b0 + (size_t)gb[0] * (b1 + (size_t)gb[1] * b2)]; s >= 0; s = next[s]) {
                                    double d0 = p[0] - sx[3 * s], d1 = p[1] - sx[3 * s + 1], d2 = p[2] - sx[3 * s + 2];
                                    double pw = d0 * d0 + d1 * d1 + d2 * d2 - rr[s] * rr[s];
                                    if (pw < best) {
                                        best = pw;
                                        win = s;
                                    }
                                }
                            }
                }
                m->lab[v] = (uint32_t)win + 1;
            }
    free(head), free(next);
    return 1;
}

/* Does voxel v have an in-grid face neighbour of another label? */
static inline int potts_candidate(const uint32_t *lab, size_t v, int i, int j, int k, int nx, int ny,
                                  int nz, size_t sy, size_t sz)
{
    uint32_t l = lab[v];
    return (i > 0 && lab[v - 1] != l) || (i < nx - 1 && lab[v + 1] != l) ||
           (j > 0 && lab[v - sy] != l) || (j < ny - 1 && lab[v + sy] != l) ||
           (k > 0 && lab[v - sz] != l) || (k < nz - 1 && lab[v + sz] != l);
}

/* Monte Carlo Potts model (Glauber dynamics at kT, 26-neighbour unlike-bond
 * energy, free outer surface). A Monte Carlo step visits the 16^3 blocks of
 * the grid in a random order and makes, in each block, as many flip
 * attempts as it has voxels, at random voxels of the block (cache-friendly;
 * the same dynamics as uniform random picks up to the order of updates far
 * apart). A voxel whose six face neighbours share its label is left alone;
 * otherwise the new label is drawn among its 26 neighbours' labels.
 * Returns 0 when out of memory. */
static int potts(rve_map *m, rng *r, int mcs, double kT)
{
    const int nx = m->nx, ny = m->ny, nz = m->nz;
    const size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    const int B = 16;
    double boltz[27];
    for (int d = 0; d < 27; d++)
        boltz[d] = kT > 0 ? exp(-d / kT) : 0;
    long off26[26];
    int no = 0;
    for (int dz = -1; dz <= 1; dz++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dx = -1; dx <= 1; dx++)
                if (dx || dy || dz)
                    off26[no++] = dx + dy * (long)sy + dz * (long)sz;
    const int gx = (nx + B - 1) / B, gy = (ny + B - 1) / B, gz = (nz + B - 1) / B;
    const size_t nblk = (size_t)gx * gy * gz;
    size_t *order = malloc(nblk * sizeof *order);
    if (!order)
        return 0;
    for (int step = 0; step < mcs; step++) {
        for (size_t b = 0; b < nblk; b++)
            order[b] = b;
        for (size_t b = nblk; b > 1; b--) { /* Fisher-Yates */
            size_t c = rng_below(r, b), tmp = order[b - 1];
            order[b - 1] = order[c];
            order[c] = tmp;
        }
        for (size_t ob = 0; ob < nblk; ob++) {
            size_t b = order[ob];
            int bi = (int)(b % (size_t)gx) * B, bj = (int)(b / (size_t)gx % (size_t)gy) * B,
                bk = (int)(b / ((size_t)gx * gy)) * B;
            int ex = nx - bi < B ? nx - bi : B, ey = ny - bj < B ? ny - bj : B, ez = nz - bk < B ? nz - bk : B;
            size_t attempts = (size_t)ex * ey * ez;
            for (size_t t = 0; t < attempts; t++) {
                uint64_t x = rng_u64(r);
                int i = bi + (int)(((x & 0xffffffu) * (uint64_t)ex) >> 24);
                int j = bj + (int)((((x >> 24) & 0xffffffu) * (uint64_t)ey) >> 24);
                int k = bk + (int)((((x >> 48) & 0xffffu) * (uint64_t)ez) >> 16);
                size_t v = (size_t)i + sy * j + sz * k;
                uint32_t l = m->lab[v];
                int edge = i == 0 || j == 0 || k == 0 || i == nx - 1 || j == ny - 1 || k == nz - 1;
                if (!edge && m->lab[v - 1] == l && m->lab[v + 1] == l && m->lab[v - sy] == l &&
                    m->lab[v + sy] == l && m->lab[v - sz] == l && m->lab[v + sz] == l)
                    continue;
                uint32_t nbl[26];
                int nn = 0;
                if (!edge) {
                    for (int q = 0; q < 26; q++)
                        nbl[q] = m->lab[(size_t)((long)v + off26[q])];
                    nn = 26;
                } else {
                    for (int dz = -1; dz <= 1; dz++)
                        for (int dy = -1; dy <= 1; dy++)
                            for (int dx = -1; dx <= 1; dx++) {
                                if (!dx && !dy && !dz)
                                    continue;
                                int a = i + dx, bb = j + dy, c = k + dz;
                                if (a < 0 || bb < 0 || c < 0 || a >= nx || bb >= ny || c >= nz)
                                    continue;
                                nbl[nn++] = m->lab[(size_t)((long)v + dx + dy * (long)sy + dz * (long)sz)];
                            }
                }
                uint32_t cand = nbl[rng_below(r, (size_t)nn)];
                if (cand == l)
                    continue;
                int before = 0, after = 0;
                for (int q = 0; q < nn; q++) {
                    before += nbl[q] != l;
                    after += nbl[q] != cand;
                }
                int dE = after - before;
                if (dE <= 0 || rng_unif(r) < boltz[dE])
                    m->lab[v] = cand;
            }
        }
    }
    free(order);
    return 1;
}

static uint64_t pair_hash(uint32_t a, uint32_t b, uint64_t seed)
{
    uint64_t x = ((uint64_t)(a < b ? a : b) << 32 | (a < b ? b : a)) ^ (seed * 0x9e3779b97f4a7c15ull);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

rve_status rve_map_synth_dct(const rve_synth_opts *o, rve_map **out, rve_err *err)
{
    *out = NULL;
    if (o->nx <= 0 || o->ny <= 0 || o->nz <= 0 || o->nseeds <= 0 || o->nseeds > 100000000 ||
        !(o->radius_sigma >= 0) || o->mcs < 0 || o->mcs > 10000 || !(o->temperature >= 0) ||
        !(o->gb_void >= 0 && o->gb_void <= 1) || !(o->surf_void >= 0 && o->surf_void <= 1) ||
        !(o->noise >= 0 && o->noise <= 0.5))
        return rve_err_set(err, RVE_EUSAGE, "", "bad synthetic-map parameters");
    rve_map *m = rve_map_alloc(o->nx, o->ny, o->nz);
    double *sx = malloc(3 * (size_t)o->nseeds * sizeof *sx), *rr = malloc((size_t)o->nseeds * sizeof *rr);
    uint32_t *copy = NULL;
    if (!m || !sx || !rr) {
        rve_map_free(m), free(sx), free(rr);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (synthetic map)");
    }
    rng r = {o->seed * 0x2545f4914f6cdd1dull + 12345};
    const size_t n = rve_map_nvox(m);
    double spacing = cbrt((double)n / o->nseeds);
    for (int s = 0; s < o->nseeds; s++) {
        sx[3 * s] = rng_unif(&r) * o->nx;
        sx[3 * s + 1] = rng_unif(&r) * o->ny;
        sx[3 * s + 2] = rng_unif(&r) * o->nz;
        rr[s] = 0.5 * spacing * exp(o->radius_sigma * rng_normal(&r));
    }
    if (!laguerre_raster(m, sx, rr, o->nseeds, spacing)) {
        rve_map_free(m), free(sx), free(rr);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (synthetic map)");
    }
    free(sx), free(rr);
    m->nlabels = (uint32_t)o->nseeds;
    if (!potts(m, &r, o->mcs, o->temperature)) {
        rve_map_free(m);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (synthetic map)");
    }

    /* Unindexed layer along some grain boundaries: on a chosen pair (a, b),
     * the voxels of the smaller label touching the other become void. */
    copy = malloc(n * sizeof *copy);
    if (!copy) {
        rve_map_free(m);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (synthetic map)");
    }
    memcpy(copy, m->lab, n * sizeof *copy);
    const int nx = m->nx, ny = m->ny, nz = m->nz;
    const size_t sy = (size_t)nx, sz = (size_t)nx * ny;
    const uint64_t thr = (uint64_t)(o->gb_void * 18446744073709551615.0);
    size_t v = 0;
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++, v++) {
                uint32_t l = copy[v];
                uint32_t nb[6];
                int q = 0;
                if (i > 0) nb[q++] = copy[v - 1];
                if (i < nx - 1) nb[q++] = copy[v + 1];
                if (j > 0) nb[q++] = copy[v - sy];
                if (j < ny - 1) nb[q++] = copy[v + sy];
                if (k > 0) nb[q++] = copy[v - sz];
                if (k < nz - 1) nb[q++] = copy[v + sz];
                for (int t = 0; t < q; t++)
                    if (nb[t] != l && l < nb[t] && o->gb_void > 0 && pair_hash(l, nb[t], o->seed) <= thr) {
                        m->lab[v] = 0;
                        break;
                    }
            }
    free(copy);
    /* Unindexed skin on part of the four side faces (x and y), 1 to 3 voxels
     * thick, varying smoothly along the face like a damaged sample surface. */
    double ph[8];
    for (int q = 0; q < 8; q++)
        ph[q] = 6.283185307179586 * rng_unif(&r);
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            for (int i = 0; i < nx; i++) {
                int dist[4] = {i, nx - 1 - i, j, ny - 1 - j};
                double along[4] = {j, j, i, i};
                for (int f = 0; f < 4; f++) {
                    if (dist[f] > 3)
                        continue;
                    double g = 0.5 + 0.5 * sin(along[f] / 9.0 + ph[2 * f]) * cos(k / 11.0 + ph[2 * f + 1]);
                    double cut = 1 - o->surf_void;
                    if (g > cut && dist[f] < 1 + (int)(3 * (g - cut) / (1 - cut + 1e-12)))
                        m->lab[rve_map_index(m, i, j, k)] = 0;
                }
            }
    /* Isolated noise voxels: half unindexed, half a wrong grain. */
    size_t nnoise = (size_t)(o->noise * (double)n);
    for (size_t q = 0; q < nnoise; q++) {
        size_t u = rng_below(&r, n);
        m->lab[u] = (q & 1) ? 0 : m->lab[rng_below(&r, n)]; /* a grain found elsewhere */
    }
    rve_map_update_nlabels(m);
    rve_status s = rve_map_renumber(m, err);
    if (s != RVE_OK) {
        rve_map_free(m);
        return s;
    }
    free(m->ids); /* seed numbers carry no meaning */
    m->ids = NULL;
    *out = m;
    return RVE_OK;
}

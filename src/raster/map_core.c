/* Grain maps: allocation, labels, renumbering, connectivity, small grains, cropping. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <rve/raster.h>
#include <stdlib.h>
#include <string.h>

#include "map_internal.h"

#define MAP_MAX_VOXELS ((size_t)1 << 40)

rve_map *rve_map_alloc(int nx, int ny, int nz)
{
    if (nx <= 0 || ny <= 0 || nz <= 0)
        return NULL;
    size_t n = (size_t)nx * (size_t)ny;
    if (n > MAP_MAX_VOXELS / (size_t)nz)
        return NULL;
    n *= (size_t)nz;
    rve_map *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->lab = calloc(n, sizeof *m->lab);
    if (!m->lab) {
        free(m);
        return NULL;
    }
    m->nx = nx;
    m->ny = ny;
    m->nz = nz;
    m->h[0] = m->h[1] = m->h[2] = 1.0;
    return m;
}

void rve_map_free(rve_map *m)
{
    if (!m)
        return;
    free(m->lab);
    free(m->ids);
    free(m->ori_des);
    free(m->ori);
    free(m->phase);
    free(m->gos);
    free(m->crysym);
    free(m);
}

rve_map *rve_map_copy(const rve_map *m)
{
    rve_map *c = rve_map_alloc(m->nx, m->ny, m->nz);
    if (!c)
        return NULL;
    memcpy(c->lab, m->lab, rve_map_nvox(m) * sizeof *m->lab);
    memcpy(c->h, m->h, sizeof c->h);
    memcpy(c->origin, m->origin, sizeof c->origin);
    c->nlabels = m->nlabels;
    c->has_res = m->has_res;
    if (m->ids) {
        c->ids = malloc(((size_t)m->nlabels + 1) * sizeof *c->ids);
        if (!c->ids)
            goto fail;
        memcpy(c->ids, m->ids, ((size_t)m->nlabels + 1) * sizeof *c->ids);
    }
    if (m->ori && m->ori_n > 0) {
        size_t k = (size_t)m->ori_n * m->nlabels;
        c->ori = malloc(k * sizeof *c->ori);
        if (!c->ori)
            goto fail;
        memcpy(c->ori, m->ori, k * sizeof *c->ori);
        c->ori_n = m->ori_n;
        if (m->ori_des) {
            c->ori_des = strdup(m->ori_des);
            if (!c->ori_des)
                goto fail;
        }
    }
    if (m->phase && m->nlabels) {
        if (!(c->phase = malloc(m->nlabels * sizeof *c->phase)))
            goto fail;
        memcpy(c->phase, m->phase, m->nlabels * sizeof *c->phase);
    }
    if (m->gos && m->nlabels) {
        if (!(c->gos = malloc(m->nlabels * sizeof *c->gos)))
            goto fail;
        memcpy(c->gos, m->gos, m->nlabels * sizeof *c->gos);
    }
    if (m->crysym && !(c->crysym = strdup(m->crysym)))
        goto fail;
    return c;
fail:
    rve_map_free(c);
    return NULL;
}

rve_map_format rve_map_format_from_path(const char *path)
{
    if (rve_path_has_ext(path, ".tif") || rve_path_has_ext(path, ".tiff"))
        return RVE_MAP_TIFF;
    if (rve_path_has_ext(path, ".tesr"))
        return RVE_MAP_TESR;
    if (rve_path_has_ext(path, ".raw"))
        return RVE_MAP_RAW;
    if (rve_path_has_ext(path, ".dream3d") || rve_path_has_ext(path, ".h5") ||
        rve_path_has_ext(path, ".hdf5"))
        return RVE_MAP_HDF5;
    return RVE_MAP_AUTO;
}

void rve_map_update_nlabels(rve_map *m)
{
    size_t n = rve_map_nvox(m);
    uint32_t mx = 0;
    for (size_t v = 0; v < n; v++)
        if (m->lab[v] > mx)
            mx = m->lab[v];
    m->nlabels = mx;
}

rve_status rve_map_counts(const rve_map *m, size_t **counts, rve_err *err)
{
    size_t *c = calloc((size_t)m->nlabels + 1, sizeof *c);
    if (!c)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (label counts)");
    size_t n = rve_map_nvox(m);
    for (size_t v = 0; v < n; v++) {
        uint32_t l = m->lab[v];
        if (l > m->nlabels) {
            free(c);
            return rve_err_set(err, RVE_EINTERNAL, "", "label %u above nlabels %u", l, m->nlabels);
        }
        c[l]++;
    }
    *counts = c;
    return RVE_OK;
}

/* Per-label tables cost nlabels + 1 entries: fine when labels are about as
 * many as voxels, not for a map whose largest label is 2^31 - 1.  Sparse
 * maps go through their sorted distinct labels instead (memory bounded by
 * the voxel count). */
int rve_map_labels_sparse(const rve_map *m)
{
    return (size_t)m->nlabels > 2 * rve_map_nvox(m) + 4096;
}

static int cmp_u32(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}

/* Sorted distinct non-zero labels of m and of b (NULL: none): *out
 * (malloc'd), *k of them. */
static rve_status distinct_labels(const rve_map *m, const rve_map *b, uint32_t **out, uint32_t *k, rve_err *err)
{
    size_t n = rve_map_nvox(m), nb = b ? rve_map_nvox(b) : 0, j = 0;
    uint32_t *u = malloc((n + nb ? n + nb : 1) * sizeof *u);
    if (!u)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (distinct labels)");
    for (size_t v = 0; v < n; v++)
        if (m->lab[v])
            u[j++] = m->lab[v];
    for (size_t v = 0; v < nb; v++)
        if (b->lab[v])
            u[j++] = b->lab[v];
    qsort(u, j, sizeof *u, cmp_u32);
    size_t w = 0;
    for (size_t i = 0; i < j; i++)
        if (w == 0 || u[i] != u[w - 1])
            u[w++] = u[i];
    *out = u;
    *k = (uint32_t)w;
    return RVE_OK;
}

uint32_t rve_map_ngrains(const rve_map *m)
{
    if (rve_map_labels_sparse(m)) {
        uint32_t *u, k;
        if (distinct_labels(m, NULL, &u, &k, NULL) != RVE_OK)
            return 0;
        free(u);
        return k;
    }
    size_t *c;
    if (rve_map_counts(m, &c, NULL) != RVE_OK)
        return 0;
    uint32_t k = 0;
    for (uint32_t l = 1; l <= m->nlabels; l++)
        k += c[l] > 0;
    free(c);
    return k;
}

/* Relabel m through the sorted table u[0..k) (every label of m is in it):
 * label u[i] becomes i + 1; ids, orientations, phases and spreads follow
 * (zero for a table label m does not have). */
static rve_status relabel_by_table(rve_map *m, const uint32_t *u, uint32_t k, rve_err *err)
{
    const size_t kk = (size_t)k + 1;
    uint32_t *ids = malloc(kk * sizeof *ids);
    double *ori = m->ori && m->ori_n > 0 ? calloc((size_t)m->ori_n * kk, sizeof *ori) : NULL;
    int *phase = m->phase ? calloc(kk, sizeof *phase) : NULL;
    double *gos = m->gos ? calloc(kk, sizeof *gos) : NULL;
    if (!ids || (m->ori && m->ori_n > 0 && !ori) || (m->phase && !phase) || (m->gos && !gos)) {
        free(ids), free(ori), free(phase), free(gos);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (renumbering)");
    }
    ids[0] = 0;
    for (uint32_t i = 0; i < k; i++) {
        const uint32_t l = u[i];
        const int has = l <= m->nlabels;
        ids[i + 1] = has ? rve_map_id(m, l) : l;
        if (has && ori)
            memcpy(ori + (size_t)m->ori_n * i, m->ori + (size_t)m->ori_n * (l - 1), (size_t)m->ori_n * sizeof *ori);
        if (has && phase)
            phase[i] = m->phase[l - 1];
        if (has && gos)
            gos[i] = m->gos[l - 1];
    }
    const size_t n = rve_map_nvox(m);
    for (size_t v = 0; v < n; v++)
        if (m->lab[v]) {
            const uint32_t *p = bsearch(&m->lab[v], u, k, sizeof *u, cmp_u32);
            m->lab[v] = p ? (uint32_t)(p - u) + 1 : 0; /* always found: u holds every label */
        }
    free(m->ids), m->ids = ids;
    if (ori)
        free(m->ori), m->ori = ori;
    if (phase)
        free(m->phase), m->phase = phase;
    if (gos)
        free(m->gos), m->gos = gos;
    m->nlabels = k;
    return RVE_OK;
}

/* rve_map_renumber for sparse labels: new label = rank among the distinct
 * labels (binary search), in increasing order as in the dense path. */
static rve_status renumber_sparse(rve_map *m, rve_err *err)
{
    uint32_t *u, k;
    rve_status s = distinct_labels(m, NULL, &u, &k, err);
    if (s == RVE_OK)
        s = relabel_by_table(m, u, k, err);
    free(u);
    return s;
}

rve_status rve_map_renumber_pair(rve_map *a, rve_map *b, rve_err *err)
{
    uint32_t *u, k;
    rve_status s = distinct_labels(a, b, &u, &k, err);
    if (s != RVE_OK)
        return s;
    s = relabel_by_table(a, u, k, err);
    if (s == RVE_OK)
        s = relabel_by_table(b, u, k, err);
    free(u);
    return s;
}

rve_status rve_map_renumber(rve_map *m, rve_err *err)
{
    if (rve_map_labels_sparse(m))
        return renumber_sparse(m, err);
    size_t *c;
    rve_status s = rve_map_counts(m, &c, err);
    if (s != RVE_OK)
        return s;
    uint32_t *newlab = malloc(((size_t)m->nlabels + 1) * sizeof *newlab);
    if (!newlab) {
        free(c);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (renumbering)");
    }
    uint32_t k = 0;
    newlab[0] = 0;
    for (uint32_t l = 1; l <= m->nlabels; l++)
        newlab[l] = c[l] ? ++k : 0;
    uint32_t *ids = malloc(((size_t)k + 1) * sizeof *ids);
    double *ori = NULL;
    if (!ids || (m->ori && m->ori_n > 0 && !(ori = malloc((size_t)m->ori_n * (k ? k : 1) * sizeof *ori)))) {
        free(ids);
        free(newlab);
        free(c);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (renumbering)");
    }
    ids[0] = 0;
    for (uint32_t l = 1; l <= m->nlabels; l++)
        if (newlab[l]) {
            ids[newlab[l]] = rve_map_id(m, l);
            if (ori)
                memcpy(ori + (size_t)m->ori_n * (newlab[l] - 1), m->ori + (size_t)m->ori_n * (l - 1),
                       (size_t)m->ori_n * sizeof *ori);
        }
    for (uint32_t l = 1; l <= m->nlabels; l++)
        if (newlab[l]) { /* new index <= old index: in place, ascending */
            if (m->phase)
                m->phase[newlab[l] - 1] = m->phase[l - 1];
            if (m->gos)
                m->gos[newlab[l] - 1] = m->gos[l - 1];
        }
    size_t n = rve_map_nvox(m);
    for (size_t v = 0; v < n; v++)
        m->lab[v] = newlab[m->lab[v]];
    int identity = 1;
    for (uint32_t l = 1; l <= k && identity; l++)
        identity = ids[l] == l;
    free(m->ids);
    m->ids = identity ? NULL : ids;
    if (identity)
        free(ids);
    if (ori) {
        free(m->ori);
        m->ori = ori;
    }
    m->nlabels = k;
    free(newlab);
    free(c);
    return RVE_OK;
}

/* Label 6-connected components: comp[v] = component number (1-based) of
 * voxel v (0 for void); *ncomp_total components; csize[c], clab[c] (1-based). */
static rve_status label_components(const rve_map *m, uint32_t **comp_out, size_t *ncomp_total,
                                   size_t **csize_out, uint32_t **clab_out, rve_err *err)
{
    size_t n = rve_map_nvox(m);
    uint32_t *comp = calloc(n, sizeof *comp);
    size_t *stack = malloc(n * sizeof *stack);
    size_t cap = 1024, nc = 0;
    size_t *csize = malloc(cap * sizeof *csize);
    uint32_t *clab = malloc(cap * sizeof *clab);
    if (!comp || !stack || !csize || !clab) {
        free(comp), free(stack), free(csize), free(clab);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (connected components)");
    }
    const int nx = m->nx, ny = m->ny, nz = m->nz;
    const size_t sx = 1, sy = (size_t)nx, sz = (size_t)nx * ny;
    for (size_t v0 = 0; v0 < n; v0++) {
        uint32_t l = m->lab[v0];
        if (l == 0 || comp[v0])
            continue;
        if (nc + 2 >= cap) {
            if (nc > UINT32_MAX - 4) {
                free(comp), free(stack), free(csize), free(clab);
                return rve_err_set(err, RVE_EDATA, "", "too many connected components");
            }
            cap *= 2;
            size_t *a = realloc(csize, cap * sizeof *a);
            if (a)
                csize = a;
            uint32_t *b = realloc(clab, cap * sizeof *b);
            if (b)
                clab = b;
            if (!a || !b) {
                free(comp), free(stack), free(csize), free(clab);
                return rve_err_set(err, RVE_ENOMEM, "", "out of memory (connected components)");
            }
        }
        uint32_t c = (uint32_t)++nc;
        size_t sp = 0, cnt = 0;
        comp[v0] = c;
        stack[sp++] = v0;
        while (sp) { /* each voxel is pushed once: the loop ends after at most n pops */
            size_t v = stack[--sp];
            cnt++;
            int i = (int)(v % (size_t)nx), j = (int)(v / sy % (size_t)ny), k = (int)(v / sz);
            size_t nb[6];
            int nn = 0;
            if (i > 0) nb[nn++] = v - sx;
            if (i < nx - 1) nb[nn++] = v + sx;
            if (j > 0) nb[nn++] = v - sy;
            if (j < ny - 1) nb[nn++] = v + sy;
            if (k > 0) nb[nn++] = v - sz;
            if (k < nz - 1) nb[nn++] = v + sz;
            for (int q = 0; q < nn; q++) {
                size_t u = nb[q];
                if (!comp[u] && m->lab[u] == l) {
                    comp[u] = c;
                    stack[sp++] = u;
                }
            }
        }
        csize[c] = cnt;
        clab[c] = l;
    }
    free(stack);
    *comp_out = comp;
    *ncomp_total = nc;
    *csize_out = csize;
    *clab_out = clab;
    return RVE_OK;
}

rve_status rve_map_components(const rve_map *m, uint32_t **ncomp, rve_err *err)
{
    uint32_t *comp, *clab;
    size_t nc, *csize;
    rve_status s = label_components(m, &comp, &nc, &csize, &clab, err);
    if (s != RVE_OK)
        return s;
    uint32_t *r = calloc((size_t)m->nlabels + 1, sizeof *r);
    if (!r) {
        free(comp), free(csize), free(clab);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    }
    for (size_t c = 1; c <= nc; c++)
        if (clab[c] <= m->nlabels)
            r[clab[c]]++;
    free(comp), free(csize), free(clab);
    *ncomp = r;
    return RVE_OK;
}

rve_status rve_map_keep_largest_component(rve_map *m, size_t *nremoved, rve_err *err)
{
    uint32_t *comp, *clab;
    size_t nc, *csize;
    rve_status s = label_components(m, &comp, &nc, &csize, &clab, err);
    if (s != RVE_OK)
        return s;
    uint32_t *best = calloc((size_t)m->nlabels + 1, sizeof *best);
    if (!best) {
        free(comp), free(csize), free(clab);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    }
    for (size_t c = 1; c <= nc; c++) {
        uint32_t l = clab[c];
        if (!best[l] || csize[c] > csize[best[l]])
            best[l] = (uint32_t)c;
    }
    size_t n = rve_map_nvox(m), rem = 0;
    for (size_t v = 0; v < n; v++)
        if (m->lab[v] && comp[v] != best[m->lab[v]]) {
            m->lab[v] = 0;
            rem++;
        }
    free(best), free(comp), free(csize), free(clab);
    if (nremoved)
        *nremoved = rem;
    return RVE_OK;
}

rve_status rve_map_remove_small(rve_map *m, size_t minvox, int absorb, size_t *nremoved,
                                rve_err *err)
{
    size_t *c;
    rve_status s = rve_map_counts(m, &c, err);
    if (s != RVE_OK)
        return s;
    size_t n = rve_map_nvox(m), nrem = 0;
    for (uint32_t l = 1; l <= m->nlabels; l++)
        if (c[l] > 0 && c[l] < minvox)
            nrem++;
    if (nremoved)
        *nremoved = nrem;
    if (nrem == 0) {
        free(c);
        return RVE_OK;
    }
    /* Mark the voxels of small grains: they become void, or (absorb) take
     * the most frequent label of their non-small face neighbours, layer by
     * layer, at most max(nx, ny, nz) rounds. */
    unsigned char *small = malloc(n);
    uint32_t *next = absorb ? malloc(n * sizeof *next) : NULL;
    if (!small || (absorb && !next)) {
        free(small), free(next), free(c);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (small grains)");
    }
    size_t pending = 0;
    for (size_t v = 0; v < n; v++) {
        uint32_t l = m->lab[v];
        small[v] = l && c[l] < minvox;
        pending += small[v];
        if (small[v] && !absorb)
            m->lab[v] = 0;
    }
    if (absorb) {
        const int nx = m->nx, ny = m->ny, nz = m->nz;
        const size_t sy = (size_t)nx, sz = (size_t)nx * ny;
        int maxround = nx + ny + nz;
        for (int round = 0; round < maxround && pending; round++) {
            memcpy(next, m->lab, n * sizeof *next);
            size_t changed = 0;
            for (size_t v = 0; v < n; v++) {
                if (small[v] != 1)
                    continue;
                int i = (int)(v % (size_t)nx), j = (int)(v / sy % (size_t)ny), k = (int)(v / sz);
                uint32_t cand[6];
                int nn = 0;
                size_t nb[6];
                int q = 0;
                if (i > 0) nb[q++] = v - 1;
                if (i < nx - 1) nb[q++] = v + 1;
                if (j > 0) nb[q++] = v - sy;
                if (j < ny - 1) nb[q++] = v + sy;
                if (k > 0) nb[q++] = v - sz;
                if (k < nz - 1) nb[q++] = v + sz;
                for (int t = 0; t < q; t++)
                    if (!small[nb[t]] || small[nb[t]] == 2)
                        if (m->lab[nb[t]])
                            cand[nn++] = m->lab[nb[t]];
                if (!nn)
                    continue;
                int bestc = 0;
                uint32_t bestl = 0;
                for (int a = 0; a < nn; a++) {
                    int cnt = 0;
                    for (int b = 0; b < nn; b++)
                        cnt += cand[b] == cand[a];
                    if (cnt > bestc || (cnt == bestc && cand[a] < bestl)) {
                        bestc = cnt;
                        bestl = cand[a];
                    }
                }
                next[v] = bestl;
                changed++;
            }
            if (!changed)
                break;
            for (size_t v = 0; v < n; v++)
                if (small[v] == 1 && next[v] != m->lab[v]) {
                    m->lab[v] = next[v];
                    small[v] = 3; /* absorbed this round */
                    pending--;
                }
            for (size_t v = 0; v < n; v++)
                if (small[v] == 3)
                    small[v] = 2;
        }
        for (size_t v = 0; v < n; v++)
            if (small[v] == 1)
                m->lab[v] = 0;
    }
    free(small), free(next), free(c);
    return RVE_OK;
}

rve_status rve_map_crop(const rve_map *m, int i0, int j0, int k0, int nx, int ny, int nz,
                        rve_map **out, rve_err *err)
{
    if (i0 < 0 || j0 < 0 || k0 < 0 || nx <= 0 || ny <= 0 || nz <= 0 || i0 > m->nx - nx ||
        j0 > m->ny - ny || k0 > m->nz - nz)
        return rve_err_set(err, RVE_EUSAGE, "",
                           "crop box %d,%d,%d + %dx%dx%d is not inside the %dx%dx%d map", i0, j0,
                           k0, nx, ny, nz, m->nx, m->ny, m->nz);
    rve_map *c = rve_map_alloc(nx, ny, nz);
    if (!c)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory (crop)");
    for (int k = 0; k < nz; k++)
        for (int j = 0; j < ny; j++)
            memcpy(c->lab + rve_map_index(c, 0, j, k), m->lab + rve_map_index(m, i0, j0 + j, k0 + k),
                   (size_t)nx * sizeof *c->lab);
    for (int a = 0; a < 3; a++)
        c->h[a] = m->h[a];
    c->origin[0] = m->origin[0] + i0 * m->h[0];
    c->origin[1] = m->origin[1] + j0 * m->h[1];
    c->origin[2] = m->origin[2] + k0 * m->h[2];
    c->has_res = m->has_res;
    c->nlabels = m->nlabels;
    /* Keep the label numbering (ids, orientations) of the parent. */
    if (m->ids || m->ori || m->crysym) {
        rve_map tmp = *c;
        tmp.ids = m->ids;
        tmp.ori = m->ori;
        tmp.ori_n = m->ori_n;
        tmp.ori_des = m->ori_des;
        tmp.crysym = m->crysym;
        rve_map *cc = rve_map_copy(&tmp);
        rve_map_free(c);
        if (!cc)
            return rve_err_set(err, RVE_ENOMEM, "", "out of memory (crop)");
        c = cc;
    }
    *out = c;
    return RVE_OK;
}

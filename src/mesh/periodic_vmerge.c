/* periodic_vmerge.c - points merged within a tolerance (internal): the
 * vertices of the periodic pieces and the snap decisions share it. */
#include "config.h"
#include "mesh/periodic_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mesh_vmerge_init(mesh_vmerge *m, size_t n)
{
    memset(m, 0, sizeof *m);
    m->cap = 16;
    while (m->cap < 2 * n + 16)
        m->cap *= 2;
    m->key = malloc(3 * m->cap * sizeof *m->key);
    m->head = malloc(m->cap * sizeof *m->head);
    m->next = malloc((n + 1) * sizeof *m->next);
    m->rep = malloc((3 * n + 1) * sizeof *m->rep);
    if (!m->key || !m->head || !m->next || !m->rep) {
        mesh_vmerge_free(m);
        return -1;
    }
    for (size_t i = 0; i < m->cap; i++)
        m->head[i] = -1;
    return 0;
}

void mesh_vmerge_free(mesh_vmerge *m)
{
    free(m->key);
    free(m->head);
    free(m->next);
    free(m->rep);
    memset(m, 0, sizeof *m);
}

static size_t vm_slot(const mesh_vmerge *m, const int64_t k[3], int *found)
{
    uint64_t h = (uint64_t)k[0] * 0x9E3779B97F4A7C15ull ^ (uint64_t)k[1] * 0xC2B2AE3D27D4EB4Full ^
                 (uint64_t)k[2] * 0x165667B19E3779F9ull;
    size_t i = (size_t)(h >> 20) & (m->cap - 1);
    while (m->head[i] >= 0 &&
           !(m->key[3 * i] == k[0] && m->key[3 * i + 1] == k[1] && m->key[3 * i + 2] == k[2]))
        i = (i + 1) & (m->cap - 1);
    *found = m->head[i] >= 0;
    return i;
}

int mesh_vmerge_find(mesh_vmerge *m, const double x[3], double h, double eps)
{
    int64_t k[3], q[3];
    for (int a = 0; a < 3; a++)
        k[a] = (int64_t)floor(x[a] / h);
    for (int dx = -1; dx <= 1; dx++)
        for (int dy = -1; dy <= 1; dy++)
            for (int dz = -1; dz <= 1; dz++) {
                int found;
                q[0] = k[0] + dx;
                q[1] = k[1] + dy;
                q[2] = k[2] + dz;
                size_t s = vm_slot(m, q, &found);
                for (int c = found ? m->head[s] : -1; c >= 0; c = m->next[c]) {
                    const double *r = m->rep + 3 * c;
                    if (fabs(r[0] - x[0]) <= eps && fabs(r[1] - x[1]) <= eps && fabs(r[2] - x[2]) <= eps)
                        return c;
                }
            }
    int found, c = m->ncls++;
    size_t s = vm_slot(m, k, &found);
    if (!found) {
        memcpy(m->key + 3 * s, k, sizeof k);
        m->head[s] = -1;
    }
    m->next[c] = m->head[s];
    m->head[s] = c;
    v3_copy(m->rep + 3 * c, x);
    return c;
}

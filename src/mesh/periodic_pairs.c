/* periodic_pairs.c - the periodic node pairs of a mesh, by exact coordinates. */
#include "config.h"
#include "mesh/mesh_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------ periodic node pairs */
rve_status rve_mesh_pair_nodes(rve_mesh *m, rve_err *err)
{
    size_t cap = 16;
    while (cap < 2 * m->nnodes + 16)
        cap *= 2;
    size_t *tab = malloc(cap * sizeof *tab); /* node + 1, 0 empty */
    free(m->pairs);
    free(m->pair_mask);
    m->npairs = 0;
    m->pairs = malloc((2 * m->nnodes + 2) * sizeof *m->pairs);
    m->pair_mask = malloc(m->nnodes + 1);
    if (!tab || !m->pairs || !m->pair_mask) {
        free(tab);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    memset(tab, 0, cap * sizeof *tab);
    /* nodes by their exact coordinates (bits: -0 and 0 differ, which the
     * mesh never mixes as both come from the same box planes) */
    for (size_t i = 0; i < m->nnodes; i++) {
        size_t s = (size_t)rve_cx_xyz_hash(m->xyz + 3 * i) & (cap - 1);
        while (tab[s])
            s = (s + 1) & (cap - 1);
        tab[s] = i + 1;
    }
    rve_status st = RVE_OK;
    for (size_t i = 0; i < m->nnodes && st == RVE_OK; i++) {
        const double *x = m->xyz + 3 * i;
        double y[3];
        unsigned mask = 0;
        for (int a = 0; a < 3; a++) {
            y[a] = x[a];
            if (m->periodic[a] && x[a] == m->hi[a]) {
                mask |= 1u << a;
                y[a] = m->lo[a];
            }
        }
        if (!mask)
            continue;
        size_t s = (size_t)rve_cx_xyz_hash(y) & (cap - 1), j = 0;
        while (tab[s] && !j) {
            if (memcmp(m->xyz + 3 * (tab[s] - 1), y, sizeof y) == 0)
                j = tab[s];
            s = (s + 1) & (cap - 1);
        }
        if (!j) {
            st = rve_err_set(err, RVE_EINTERNAL, NULL,
                             "periodic mesh: node %zu (%.17g %.17g %.17g) has no exact translate on the lower box faces",
                             i + 1, x[0], x[1], x[2]);
            break;
        }
        m->pairs[2 * m->npairs] = i;
        m->pairs[2 * m->npairs + 1] = j - 1;
        m->pair_mask[m->npairs++] = (unsigned char)mask;
    }
    free(tab);
    return st;
}

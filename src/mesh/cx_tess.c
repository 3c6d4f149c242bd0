/* cx_tess.c - a tessellation (both levels) from a regularised complex:
 * faces and cells (level 2), edges, the cells and walls at each vertex, and
 * the per-cell polyhedra (level 1). */
#include "config.h"
#include "mesh/mesh_internal.h"
#include "mesh/reg_internal.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Level 2: vertices, faces (planes, areas, face points), the faces of each cell. */
static rve_status c2t_faces(const rve_cx *c, rve_tess *t, const double *plane0, rve_err *err)
{
    rve_status st = RVE_OK;
    int nfv = c->foff[c->nf];
    (void)plane0;
    (void)nfv;
    t->nver = c->nv;
    t->ver = malloc((size_t)(3 * c->nv + 1) * sizeof(double));
    t->ver_state = calloc((size_t)c->nv + 1, sizeof(int));
    t->nface = c->nf;
    t->face_voff = malloc((size_t)(c->nf + 1) * sizeof(int));
    t->face_ver = malloc((size_t)(nfv + 1) * sizeof(int));
    t->face_edge = malloc((size_t)(nfv + 1) * sizeof(int));
    t->face_esign = malloc((size_t)(nfv + 1));
    t->face_cell = malloc((size_t)(2 * c->nf + 1) * sizeof(int));
    t->face_img = calloc((size_t)c->nf + 1, sizeof(int32_t));
    t->face_plane = malloc((size_t)(4 * c->nf + 1) * sizeof(double));
    t->face_area = malloc((size_t)(c->nf + 1) * sizeof(double));
    t->face_state = calloc((size_t)c->nf + 1, sizeof(int));
    t->face_pt = calloc((size_t)c->nf + 1, sizeof(int));
    t->face_ptxyz = malloc((size_t)(3 * c->nf + 1) * sizeof(double));
    t->cell_foff = calloc((size_t)t->n + 1, sizeof(int));
    t->cell_faces = malloc((size_t)(2 * c->nf + 1) * sizeof(int));
    t->cell_fsign = malloc((size_t)(2 * c->nf + 1));
    if (!t->ver || !t->ver_state || !t->face_voff || !t->face_ver || !t->face_edge ||
        !t->face_esign || !t->face_cell || !t->face_img || !t->face_plane || !t->face_area ||
        !t->face_state || !t->face_pt || !t->face_ptxyz || !t->cell_foff || !t->cell_faces ||
        !t->cell_fsign) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        return st;
    }
    t->has_topo = 1;
    memcpy(t->ver, c->v, (size_t)(3 * c->nv) * sizeof(double));
    memcpy(t->face_voff, c->foff, (size_t)(c->nf + 1) * sizeof(int));
    memcpy(t->face_ver, c->fv, (size_t)nfv * sizeof(int));
    for (int f = 0; f < c->nf; f++) {
        t->face_cell[2 * f] = c->fc[2 * f];
        t->face_cell[2 * f + 1] = c->fc[2 * f + 1] >= 0 ? c->fc[2 * f + 1] : -(c->fdom[f] + 1);
        double n[3];
        rve_cx_face_normal(c, f, n);
        double a2 = v3_normalize(n);
        t->face_area[f] = 0.5 * a2;
        if (c->fflat[f]) {
            memcpy(t->face_plane + 4 * f, plane0 + 4 * f, 4 * sizeof(double));
        } else {
            /* best plane through the face point with the fan's mean normal */
            if (!(a2 > 0))
                v3_copy(n, plane0 + 4 * f);
            v3_copy(t->face_plane + 4 * f, n);
            t->face_plane[4 * f + 3] = v3_dot(n, c->fpt + 3 * f);
            t->face_state[f] = 1;
            for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
                t->ver_state[c->fv[i]] = 1;
        }
        t->face_pt[f] = 0;
        memcpy(t->face_ptxyz + 3 * f, c->fpt + 3 * f, 3 * sizeof(double));
        for (int s = 0; s < 2; s++)
            if (c->fc[2 * f + s] >= 0)
                t->cell_foff[c->fc[2 * f + s] + 1]++;
    }
    for (int k = 0; k < t->n; k++)
        t->cell_foff[k + 1] += t->cell_foff[k];
    {
        int *pos = malloc((size_t)(t->n + 1) * sizeof(int));
        if (!pos) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return st;
        }
        memcpy(pos, t->cell_foff, (size_t)(t->n + 1) * sizeof(int));
        for (int f = 0; f < c->nf; f++)
            for (int s = 0; s < 2; s++) {
                int k = c->fc[2 * f + s];
                if (k < 0)
                    continue;
                t->cell_faces[pos[k]] = f;
                t->cell_fsign[pos[k]] = s ? -1 : 1;
                pos[k]++;
            }
        free(pos);
    }
    return st;
}

/* Edges: unique vertex pairs, numbered in order of first appearance. */
static rve_status c2t_edges(const rve_cx *c, rve_tess *t, const double *plane0, rve_err *err)
{
    rve_status st = RVE_OK;
    int nfv = c->foff[c->nf];
    (void)plane0;
    (void)nfv;
    {
        uint64_t *key = malloc((size_t)(nfv + 1) * sizeof(uint64_t));
        int *ord = malloc((size_t)(nfv + 1) * sizeof(int));
        if (!key || !ord) {
            free(key);
            free(ord);
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return st;
        }
        for (int f = 0; f < c->nf; f++) {
            int a0 = c->foff[f], n = c->foff[f + 1] - a0;
            for (int i = 0; i < n; i++) {
                int p = c->fv[a0 + i], q = c->fv[a0 + (i + 1) % n];
                int lo = p < q ? p : q, hi = p < q ? q : p;
                key[a0 + i] = ((uint64_t)(uint32_t)lo << 32) | (uint32_t)hi;
            }
        }
        /* sort incidences by key (key << 32 would overflow: sort (key, index) pairs) */
        {
            mesh_key *kv = malloc((size_t)(nfv + 1) * sizeof *kv);
            if (!kv) {
                free(key);
                free(ord);
                st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                return st;
            }
            for (int i = 0; i < nfv; i++) {
                kv[i].k = key[i];
                kv[i].i = i;
            }
            qsort(kv, (size_t)nfv, sizeof *kv, mesh_key_cmp);
            for (int i = 0; i < nfv; i++)
                ord[i] = kv[i].i;
            free(kv);
        }
        int ne = 0;
        for (int i = 0; i < nfv; i++)
            if (i == 0 || key[ord[i]] != key[ord[i - 1]])
                ne++;
        t->nedge = ne;
        t->edge_ver = malloc((size_t)(2 * ne + 1) * sizeof(int));
        t->edge_state = calloc((size_t)ne + 1, sizeof(int));
        t->edge_foff = calloc((size_t)ne + 1, sizeof(int));
        t->edge_faces = malloc((size_t)(nfv + 1) * sizeof(int));
        if (!t->edge_ver || !t->edge_state || !t->edge_foff || !t->edge_faces) {
            free(key);
            free(ord);
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return st;
        }
        int e = -1;
        for (int i = 0; i < nfv; i++) {
            int inc = ord[i];
            if (i == 0 || key[inc] != key[ord[i - 1]]) {
                e++;
                t->edge_ver[2 * e] = (int)(key[inc] >> 32);
                t->edge_ver[2 * e + 1] = (int)(key[inc] & 0xffffffffu);
                t->edge_foff[e] = i;
            }
            /* face of incidence inc */
            int lo = 0, hi = c->nf;
            while (hi - lo > 1) {
                int mid = (lo + hi) / 2;
                if (c->foff[mid] <= inc)
                    lo = mid;
                else
                    hi = mid;
            }
            t->edge_faces[i] = lo;
            t->face_edge[inc] = e;
            t->face_esign[inc] = (signed char)(c->fv[inc] == t->edge_ver[2 * e] ? 1 : -1);
            if (t->ver_state[t->edge_ver[2 * e]] || t->ver_state[t->edge_ver[2 * e + 1]])
                t->edge_state[e] = 1;
        }
        t->edge_foff[ne] = nfv;
        free(key);
        free(ord);
    }
    return st;
}

/* The cells and walls meeting at each vertex. */
static rve_status c2t_vertex_cells(const rve_cx *c, rve_tess *t, const double *plane0, rve_err *err)
{
    rve_status st = RVE_OK;
    int nfv = c->foff[c->nf];
    (void)plane0;
    (void)nfv;
    {
        int *cnt = calloc((size_t)c->nv + 1, sizeof(int));
        int *list = malloc((size_t)(2 * nfv + 1) * sizeof(int));
        if (!cnt || !list) {
            free(cnt);
            free(list);
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return st;
        }
        /* collect (vertex, cell-or-wall) pairs, sort, unique */
        uint64_t *pr = malloc((size_t)(2 * nfv + 1) * sizeof(uint64_t));
        if (!pr) {
            free(cnt);
            free(list);
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return st;
        }
        size_t m = 0;
        for (int f = 0; f < c->nf; f++)
            for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
                for (int s = 0; s < 2; s++) {
                    int x = t->face_cell[2 * f + s];
                    /* cells ascending then walls: encode walls after cells */
                    uint32_t code = x >= 0 ? (uint32_t)x : (uint32_t)t->n + (uint32_t)(-x - 1);
                    pr[m++] = ((uint64_t)(uint32_t)c->fv[i] << 32) | code;
                }
        qsort(pr, m, sizeof *pr, rve_reg_cmp_u64);
        size_t u = 0;
        for (size_t i = 0; i < m; i++)
            if (i == 0 || pr[i] != pr[i - 1])
                pr[u++] = pr[i];
        t->ver_coff = calloc((size_t)c->nv + 1, sizeof(int));
        t->ver_cells = malloc((u + 1) * sizeof(int));
        if (!t->ver_coff || !t->ver_cells) {
            free(cnt);
            free(list);
            free(pr);
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return st;
        }
        for (size_t i = 0; i < u; i++) {
            int v = (int)(pr[i] >> 32);
            uint32_t code = (uint32_t)(pr[i] & 0xffffffffu);
            t->ver_coff[v + 1]++;
            t->ver_cells[i] = code < (uint32_t)t->n ? (int)code : -(int)(code - (uint32_t)t->n) - 1;
        }
        for (int v = 0; v < c->nv; v++)
            t->ver_coff[v + 1] += t->ver_coff[v];
        free(cnt);
        free(list);
        free(pr);
    }
    return st;
}

/* Level 1: per-cell polyhedra from the faces. */
static rve_status c2t_cells(const rve_cx *c, rve_tess *t, const double *plane0, rve_err *err)
{
    rve_status st = RVE_OK;
    int nfv = c->foff[c->nf];
    (void)plane0;
    (void)nfv;
    {
        int *loc = malloc((size_t)(c->nv + 1) * sizeof(int));
        if (!loc) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            return st;
        }
        for (int v = 0; v < c->nv; v++)
            loc[v] = -1;
        for (int k = 0; k < t->n && st == RVE_OK; k++) {
            int nf = t->cell_foff[k + 1] - t->cell_foff[k], nfk = 0, nvk = 0;
            if (nf == 0) {
                t->nempty++;
                continue;
            }
            for (int j = t->cell_foff[k]; j < t->cell_foff[k + 1]; j++) {
                int f = t->cell_faces[j];
                for (int i = c->foff[f]; i < c->foff[f + 1]; i++) {
                    nfk++;
                    if (loc[c->fv[i]] < 0)
                        loc[c->fv[i]] = nvk++;
                }
            }
            rve_tess_poly *p = &t->cells[k];
            if (tess_poly_alloc(p, nvk, nf, nfk) != RVE_OK) {
                st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
                break;
            }
            int q = 0;
            for (int j = 0; j < nf; j++) {
                int f = t->cell_faces[t->cell_foff[k] + j], s = t->cell_fsign[t->cell_foff[k] + j];
                int a0 = c->foff[f], n = c->foff[f + 1] - a0;
                p->foff[j] = q;
                for (int i = 0; i < n; i++) {
                    int v = c->fv[a0 + (s > 0 ? i : (n - i) % n)];
                    p->floop[q++] = loc[v];
                    v3_copy(p->v + 3 * loc[v], c->v + 3 * v);
                }
                p->fnbr[j] = t->face_cell[2 * f + (s > 0 ? 1 : 0)];
                p->fimg[j] = 0; /* planes: s * t->face_plane[f] (rve_tess_cell_plane) */
            }
            p->foff[nf] = q;
            tess_poly_measure(p);
            /* exact fan volume (the polygon formula assumes planar faces) */
            p->vol = rve_cx_cell_volume(c, k);
            for (int j = t->cell_foff[k]; j < t->cell_foff[k + 1]; j++) {
                int f = t->cell_faces[j];
                for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
                    loc[c->fv[i]] = -1;
            }
        }
        free(loc);
        if (st != RVE_OK)
            return st;
    }
    return st;
}

rve_status mesh_cx_to_tess(const rve_cx *c, const rve_tess *t0, const double *plane0, rve_tess **out,
                           rve_err *err)
{
    rve_tess *t = tess_alloc(t0->n, t0->seeds, t0->lo, t0->hi, t0->periodic);
    if (!t)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    rve_status st = c2t_faces(c, t, plane0, err);
    if (st == RVE_OK)
        st = c2t_edges(c, t, plane0, err);
    if (st == RVE_OK)
        st = c2t_vertex_cells(c, t, plane0, err);
    if (st == RVE_OK)
        st = c2t_cells(c, t, plane0, err);
    /* the orientations and symmetry of the input go to the output file */
    if (st == RVE_OK)
        st = rve_tess_copy_cell_data(t, t0, err);
    if (st != RVE_OK) {
        rve_tess_free(t);
        return st;
    }
    *out = t;
    return RVE_OK;
}

/* gmsh.c - conformal tetrahedral meshing of a polyhedral complex with gmsh's C API. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "mesh/cx.h"
#include "mesh/mesh_internal.h"
#include "util/vec3.h"
#include <rve/mesh.h>
#include <gmshc.h>
#include <math.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static pthread_mutex_t gmsh_lock = PTHREAD_MUTEX_INITIALIZER;

void rve_mesh_opts_default(rve_mesh_opts *o)
{
    o->cl = 0;
    o->rcl = 1;
    o->order = 1;
    o->algo3d = 10;
    o->optimize = 2;
    o->threads = 0;
    o->verbose = 0;
    o->max_elements = 1e7;
}

void rve_mesh_free(rve_mesh *m)
{
    if (!m)
        return;
    free(m->xyz);
    free(m->tets);
    free(m->tet_grain);
    free(m->tris);
    free(m->tri_tag);
    free(m->pairs);
    free(m->pair_mask);
    free(m);
}

/* ------------------------------------------------------------- edge hash */
typedef struct {
    uint64_t *key;
    int *val;
    size_t cap;
} ehash;

static int ehash_init(ehash *h, size_t n)
{
    h->cap = 16;
    while (h->cap < 2 * n + 16)
        h->cap *= 2;
    h->key = malloc(h->cap * sizeof *h->key);
    h->val = malloc(h->cap * sizeof *h->val);
    if (!h->key || !h->val) {
        free(h->key);
        free(h->val);
        return -1;
    }
    for (size_t i = 0; i < h->cap; i++)
        h->key[i] = UINT64_MAX;
    return 0;
}

static void ehash_free(ehash *h)
{
    free(h->key);
    free(h->val);
}

/* Slot of key (a, b) with a < b; *found says whether it is there. */
static size_t ehash_slot(const ehash *h, uint64_t k, int *found)
{
    uint64_t x = k * 0x9E3779B97F4A7C15ull;
    size_t i = (size_t)(x >> 17) & (h->cap - 1);
    while (h->key[i] != UINT64_MAX && h->key[i] != k)
        i = (i + 1) & (h->cap - 1);
    *found = h->key[i] == k;
    return i;
}

static uint64_t ekey(int a, int b)
{
    return ((uint64_t)(uint32_t)a << 32) | (uint32_t)b;
}

/* ---------------------------------------------------------------- errors */
static rve_status gmsh_error(rve_err *err, const char *what)
{
    char *msg = NULL;
    int ierr = 0;
    gmshLoggerGetLastError(&msg, &ierr);
    rve_status s = rve_err_set(err, RVE_EDATA, NULL, "gmsh: %s failed%s%s", what,
                               msg && *msg ? ": " : "", msg ? msg : "");
    if (msg)
        gmshFree(msg);
    return s;
}

static const char *fmt_ext[RVE_MESH_NFORMATS] = {".msh", ".msh", ".inp", ".vtk"};

/* gmsh does not report every write failure (a full disk gives a truncated
 * file and no error), so a written .msh is accepted only when it ends with
 * the closing line of its last section: "$EndElements", or "$EndPeriodic"
 * for periodic meshes, whose node pairs follow the elements. */
static int msh_complete(const char *path)
{
    FILE *fp = fopen(path, "rb");
    if (!fp)
        return 0;
    static const char *const tails[] = {"$EndElements", "$EndPeriodic"};
    char buf[64];
    int ok = 0;
    if (fseek(fp, 0, SEEK_END) == 0) {
        long size = ftell(fp);
        long from = size > (long)sizeof buf - 1 ? size - (long)sizeof buf + 1 : 0;
        if (size > 0 && fseek(fp, from, SEEK_SET) == 0) {
            size_t n = fread(buf, 1, sizeof buf - 1, fp);
            buf[n] = '\0';
            while (n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == '\r'))
                buf[--n] = '\0';
            for (int k = 0; k < 2 && !ok; k++) {
                size_t len = strlen(tails[k]);
                ok = n >= len && strcmp(buf + n - len, tails[k]) == 0;
            }
        }
    }
    if (ferror(fp))
        ok = 0;
    fclose(fp);
    return ok;
}

/* gmsh picks the format from the extension: it writes a temporary named
 * .NAME.XXXXXX.msh of the atomic-file layer, which commits it like any
 * other output (rename now, or at the end of the program's transaction). */
static rve_status write_one(const char *path, rve_mesh_format f, rve_err *err)
{
    rve_afile *af = rve_afile_open_external(path, fmt_ext[f], err);
    if (!af)
        return err ? err->code : RVE_EIO;
    int ierr = 0;
    gmshOptionSetNumber("Mesh.MshFileVersion", f == RVE_MESH_MSH22 ? 2.2 : 4.1, &ierr);
    gmshOptionSetNumber("Mesh.Binary", 0, &ierr);
    gmshOptionSetNumber("Mesh.SaveAll", 0, &ierr);
    ierr = 0;
    gmshWrite(rve_afile_tmp_path(af), &ierr);
    if (ierr || !msh_complete(rve_afile_tmp_path(af))) {
        rve_afile_abort(af);
        return rve_err_set(err, RVE_EIO, path, "cannot write the mesh: %s",
                           ierr ? "gmsh reported an error" : "the file is incomplete (disk full?)");
    }
    return rve_afile_commit(af, err);
}

/* ------------------------------------------------------------- building */
typedef struct {
    int *fsurf_off; /* nf + 1 */
    int *fsurf;     /* gmsh surface tags per face */
    int *cellvol;   /* nc: 1 if the cell has a gmsh volume (empty cells have none) */
} surfmap;

/* one plane surface bounded by the curve loop of the n lines in loop (gmsh
 * tags *nloop + 1 and *nsurf + 1, which it advances) */
static rve_status add_surface(int *loop, size_t n, int *nloop, int *nsurf, rve_err *err)
{
    int ierr = 0;
    gmshModelGeoAddCurveLoop(loop, n, ++*nloop, 0, &ierr);
    if (ierr)
        return gmsh_error(err, "adding a curve loop");
    int w = *nloop;
    gmshModelGeoAddPlaneSurface(&w, 1, ++*nsurf, &ierr);
    if (ierr)
        return gmsh_error(err, "adding a plane surface");
    return RVE_OK;
}

static rve_status build_model(const rve_cx *c, double cl, surfmap *sm, rve_err *err)
{
    int ierr = 0;
    /* Points: vertex i -> tag i + 1; face point f -> nv + f + 1. */
    for (int i = 0; i < c->nv; i++) {
        const double *p = c->v + 3 * i;
        gmshModelGeoAddPoint(p[0], p[1], p[2], cl, i + 1, &ierr);
        if (ierr)
            return gmsh_error(err, "adding a point");
    }
    size_t nfv = (size_t)c->foff[c->nf];
    sm->fsurf_off = malloc((size_t)(c->nf + 1) * sizeof(int));
    sm->fsurf = malloc((nfv + 1) * sizeof(int));
    ehash h;
    if (!sm->fsurf_off || !sm->fsurf || ehash_init(&h, nfv + (size_t)c->nv) != 0)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    int nline = 0, nsurf = 0, nloop = 0;
    rve_status st = RVE_OK;
    int *loop = malloc((size_t)(3 * (nfv + 1)) * sizeof(int));
    if (!loop) {
        ehash_free(&h);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    /* line between gmsh points pa, pb (signed result: orientation pa -> pb) */
#define LINE(pa, pb, out)                                                    \
    do {                                                                     \
        int lo_ = (pa) < (pb) ? (pa) : (pb), hi_ = (pa) < (pb) ? (pb) : (pa); \
        int found_;                                                          \
        size_t s_ = ehash_slot(&h, ekey(lo_, hi_), &found_);                 \
        if (!found_) {                                                       \
            h.key[s_] = ekey(lo_, hi_);                                      \
            h.val[s_] = ++nline;                                             \
            gmshModelGeoAddLine(lo_, hi_, nline, &ierr);                     \
            if (ierr) {                                                      \
                st = gmsh_error(err, "adding a line");                       \
                goto done;                                                   \
            }                                                                \
        }                                                                    \
        (out) = (pa) == lo_ ? h.val[s_] : -h.val[s_];                        \
    } while (0)

    int fp_added = 0, apex;
    for (int f = 0; f < c->nf; f++) {
        int a0 = c->foff[f], a1 = c->foff[f + 1], n = a1 - a0;
        sm->fsurf_off[f] = a0;
        if (c->fflat[f]) {
            for (int i = 0; i < n; i++) {
                int p = c->fv[a0 + i] + 1, q = c->fv[a0 + (i + 1) % n] + 1;
                LINE(p, q, loop[i]);
            }
            if ((st = add_surface(loop, (size_t)n, &nloop, &nsurf, err)) != RVE_OK)
                goto done;
            sm->fsurf[a0] = nsurf;
            for (int i = 1; i < n; i++)
                sm->fsurf[a0 + i] = 0;
        } else if ((apex = mesh_fpt_vertex(c, f)) >= 0) {
            /* the fan from a vertex (rve_cx_fold_quads): n - 2 triangles */
            for (int i = 1; i + 1 < n; i++) {
                int p = c->fv[a0 + apex] + 1, q = c->fv[a0 + (apex + i) % n] + 1,
                    r = c->fv[a0 + (apex + i + 1) % n] + 1;
                int l3[3];
                LINE(p, q, l3[0]);
                LINE(q, r, l3[1]);
                LINE(r, p, l3[2]);
                if ((st = add_surface(l3, 3, &nloop, &nsurf, err)) != RVE_OK)
                    goto done;
                sm->fsurf[a0 + i - 1] = nsurf;
            }
            sm->fsurf[a0 + n - 2] = sm->fsurf[a0 + n - 1] = 0;
        } else {
            const double *o = c->fpt + 3 * f;
            int pt = c->nv + f + 1;
            gmshModelGeoAddPoint(o[0], o[1], o[2], cl, pt, &ierr);
            if (ierr) {
                st = gmsh_error(err, "adding a face point");
                goto done;
            }
            fp_added++;
            for (int i = 0; i < n; i++) {
                int p = c->fv[a0 + i] + 1, q = c->fv[a0 + (i + 1) % n] + 1;
                int l3[3];
                LINE(pt, p, l3[0]);
                LINE(p, q, l3[1]);
                LINE(q, pt, l3[2]);
                if ((st = add_surface(l3, 3, &nloop, &nsurf, err)) != RVE_OK)
                    goto done;
                sm->fsurf[a0 + i] = nsurf;
            }
        }
    }
    sm->fsurf_off[c->nf] = c->foff[c->nf];
    /* Volumes: one surface loop per cell. */
    {
        int *cnt = calloc((size_t)c->nc + 1, sizeof(int));
        if (!cnt) {
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            goto done;
        }
        for (int f = 0; f < c->nf; f++)
            for (int s = 0; s < 2; s++)
                if (c->fc[2 * f + s] >= 0)
                    cnt[c->fc[2 * f + s] + 1] += c->foff[f + 1] - c->foff[f];
        for (int k = 0; k < c->nc; k++)
            cnt[k + 1] += cnt[k];
        int *pos = malloc(((size_t)c->nc + 1) * sizeof(int));
        int *cs = malloc(((size_t)cnt[c->nc] + 1) * sizeof(int));
        if (!pos || !cs) {
            free(cnt);
            free(pos);
            free(cs);
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            goto done;
        }
        memcpy(pos, cnt, ((size_t)c->nc + 1) * sizeof(int));
        for (int f = 0; f < c->nf; f++)
            for (int s = 0; s < 2; s++) {
                int k = c->fc[2 * f + s];
                if (k < 0)
                    continue;
                for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
                    if (sm->fsurf[i])
                        cs[pos[k]++] = s ? -sm->fsurf[i] : sm->fsurf[i];
            }
        sm->cellvol = calloc((size_t)c->nc + 1, sizeof(int));
        if (!sm->cellvol)
            st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        for (int k = 0; k < c->nc && st == RVE_OK; k++) {
            if (pos[k] == cnt[k])
                continue; /* empty cell */
            sm->cellvol[k] = 1;
            int sl = gmshModelGeoAddSurfaceLoop(cs + cnt[k], (size_t)(pos[k] - cnt[k]), k + 1, &ierr);
            if (!ierr)
                gmshModelGeoAddVolume(&sl, 1, k + 1, &ierr);
            if (ierr)
                st = gmsh_error(err, "adding a volume");
        }
        free(cnt);
        free(pos);
        free(cs);
    }
done:
#undef LINE
    free(loop);
    ehash_free(&h);
    return st;
}

static int cell_label(const rve_cx *c, int k)
{
    return c->cid ? c->cid[k] : k + 1;
}

/* Sort cell indices by grain label (stable in the index): a merge sort, as
 * qsort has no context argument in C11. */
static void cid_sort(int *ord, int n, const int *cid)
{
    if (!cid || n < 2)
        return;
    for (int w = 1; w < n; w *= 2)
        for (int i = 0; i + w < n; i += 2 * w) {
            int m = i + w, e = i + 2 * w < n ? i + 2 * w : n;
            /* in-place merge by rotation: runs are short enough in practice */
            for (int a = i, b = m; a < b && b < e;) {
                if (cid[ord[a]] <= cid[ord[b]]) {
                    a++;
                } else {
                    int x = ord[b];
                    memmove(ord + a + 1, ord + a, (size_t)(b - a) * sizeof *ord);
                    ord[a] = x;
                    a++;
                    b++;
                }
            }
        }
}

static rve_status add_physicals(const rve_cx *c, const surfmap *sm, rve_err *err)
{
    int ierr = 0;
    char name[64];
    /* one physical volume per grain (tag = label) with all its volumes (the
     * pieces of a periodic grain cut at the box faces) */
    int *ord = malloc(((size_t)c->nc + 1) * sizeof *ord), *vols = malloc(((size_t)c->nc + 1) * sizeof *vols);
    if (!ord || !vols) {
        free(ord);
        free(vols);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    int no = 0;
    for (int k = 0; k < c->nc; k++)
        if (sm->cellvol[k])
            ord[no++] = k;
    cid_sort(ord, no, c->cid);
    for (int i = 0, j; i < no; i = j) {
        int tag = cell_label(c, ord[i]), nv = 0;
        for (j = i; j < no && cell_label(c, ord[j]) == tag; j++)
            vols[nv++] = ord[j] + 1;
        gmshModelAddPhysicalGroup(3, vols, (size_t)nv, tag, &ierr);
        if (ierr) {
            free(ord);
            free(vols);
            return gmsh_error(err, "adding a physical volume");
        }
        snprintf(name, sizeof name, "grain%d", tag);
        gmshModelSetPhysicalName(3, tag, name, &ierr);
    }
    free(ord);
    free(vols);
    size_t nfv = (size_t)c->foff[c->nf];
    int *list = malloc((nfv + 1) * sizeof(int));
    if (!list)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    static const char *dn[6] = {"x0", "x1", "y0", "y1", "z0", "z1"};
    for (int g = -1; g < c->ndom; g++) {
        size_t n = 0;
        for (int f = 0; f < c->nf; f++)
            if (c->fdom[f] == g)
                for (int i = c->foff[f]; i < c->foff[f + 1]; i++)
                    if (sm->fsurf[i])
                        list[n++] = sm->fsurf[i];
        if (n == 0)
            continue;
        int tag = g < 0 ? 1 : 11 + g;
        gmshModelAddPhysicalGroup(2, list, n, tag, &ierr);
        if (ierr) {
            free(list);
            return gmsh_error(err, "adding a physical surface");
        }
        if (g < 0)
            snprintf(name, sizeof name, "grain_boundaries");
        else if (c->ndom == 6)
            snprintf(name, sizeof name, "domain_%s", dn[g]);
        else
            snprintf(name, sizeof name, "domain_face%d", g + 1);
        gmshModelSetPhysicalName(2, tag, name, &ierr);
    }
    free(list);
    return RVE_OK;
}

/* Periodic box complex: the surfaces on each upper box face are periodic
 * copies of their translates on the lower face (gmsh matches their curves
 * and points itself), so that the surface meshes, hence the nodes, of
 * opposite box faces are translates. */
static rve_status set_periodic(const rve_cx *c, const surfmap *sm, rve_err *err)
{
    int *slave = malloc(((size_t)c->nf + 1) * sizeof *slave), *master = malloc(((size_t)c->nf + 1) * sizeof *master);
    if (!slave || !master) {
        free(slave);
        free(master);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    rve_status st = RVE_OK;
    for (int a = 0; a < 3 && st == RVE_OK; a++) {
        if (!c->periodic[a])
            continue;
        size_t n = 0;
        for (int f = 0; f < c->nf; f++) {
            int g = c->fper[f];
            if (c->fdom[f] != 2 * a + 1 || g < 0)
                continue;
            if (!c->fflat[f] || !c->fflat[g]) {
                st = rve_err_set(err, RVE_EINTERNAL, NULL, "a periodic box face is not planar");
                break;
            }
            slave[n] = sm->fsurf[c->foff[f]];
            master[n++] = sm->fsurf[c->foff[g]];
        }
        /* translation by the period along a: 4 x 4 affine matrix by rows */
        double tfo[16] = {1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1};
        tfo[4 * a + 3] = c->dom_hi[a] - c->dom_lo[a];
        int ierr = 0;
        if (st == RVE_OK && n > 0) {
            gmshModelMeshSetPeriodic(2, slave, n, master, n, tfo, 16, &ierr);
            if (ierr)
                st = gmsh_error(err, "setting periodic surfaces");
        }
    }
    free(slave);
    free(master);
    return st;
}

/* gmsh copies the surface meshes of periodic surfaces exactly (the affine
 * map of a translation only changes the translated coordinate), but places
 * the nodes of periodic curves from their own parametrisation, off their
 * master's translate by ~1e-13.  Here every periodic copy (curves, surfaces,
 * high-order nodes) is set to its master's coordinates with the translated
 * coordinate only changed, so that copies on opposite box faces have
 * bit-identical tangential coordinates.  Masters may be copies themselves
 * (box edges and corners): repeated until nothing changes (depth <= 3). */
static rve_status fix_periodic_nodes(const rve_cx *c, rve_err *err)
{
    int ierr = 0;
    size_t *ntag = NULL, nn = 0, ncd = 0, np = 0;
    double *xyz = NULL, *par = NULL;
    gmshModelMeshGetNodes(&ntag, &nn, &xyz, &ncd, &par, &np, -1, -1, 0, 0, &ierr);
    if (ierr)
        return gmsh_error(err, "reading the nodes");
    gmshFree(par);
    size_t maxtag = 0;
    for (size_t i = 0; i < nn; i++)
        maxtag = ntag[i] > maxtag ? ntag[i] : maxtag;
    size_t *idx = malloc((maxtag + 1) * sizeof *idx);
    char *moved = calloc(nn + 1, 1);
    rve_status st = RVE_OK;
    if (!idx || !moved) {
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        goto done;
    }
    for (size_t i = 0; i < nn; i++)
        idx[ntag[i]] = i;
    for (int pass = 0, changed = 1; changed && pass < 4 && st == RVE_OK; pass++) {
        changed = 0;
        for (int dim = 0; dim <= 2 && st == RVE_OK; dim++) {
            int *dt = NULL;
            size_t ndt = 0;
            gmshModelGetEntities(&dt, &ndt, dim, &ierr);
            for (size_t e = 0; e + 1 < ndt && st == RVE_OK; e += 2) {
                int tm = 0;
                size_t *s = NULL, ns = 0, *m = NULL, nm = 0, ntf = 0;
                double *tf = NULL;
                gmshModelMeshGetPeriodicNodes(dim, dt[e + 1], &tm, &s, &ns, &m, &nm, &tf, &ntf, 1, &ierr);
                if (ierr)
                    st = gmsh_error(err, "reading the periodic nodes");
                for (size_t k = 0; st == RVE_OK && tm != dt[e + 1] && ntf == 16 && k < ns && k < nm; k++) {
                    if (s[k] > maxtag || m[k] > maxtag)
                        continue;
                    double *x = xyz + 3 * idx[s[k]], *y = xyz + 3 * idx[m[k]], z[3];
                    for (int a = 0; a < 3; a++) {
                        double sh = tf[4 * a + 3];
                        z[a] = sh == 0 ? y[a] : y[a] == c->dom_lo[a] && sh > 0 ? c->dom_hi[a]
                                              : y[a] == c->dom_hi[a] && sh < 0 ? c->dom_lo[a]
                                                                               : y[a] + sh;
                    }
                    if (memcmp(x, z, sizeof z) != 0) {
                        memcpy(x, z, sizeof z);
                        moved[idx[s[k]]] = 1;
                        changed = 1;
                    }
                }
                gmshFree(s);
                gmshFree(m);
                gmshFree(tf);
            }
            gmshFree(dt);
        }
    }
    for (size_t i = 0; i < nn && st == RVE_OK; i++)
        if (moved[i]) {
            gmshModelMeshSetNode(ntag[i], xyz + 3 * i, 3, NULL, 0, &ierr);
            if (ierr)
                st = gmsh_error(err, "moving a periodic node");
        }
done:
    free(idx);
    free(moved);
    gmshFree(ntag);
    gmshFree(xyz);
    return st;
}

/* Gather nodes and elements from gmsh. */
static rve_status extract(const rve_cx *c, const surfmap *sm, int order, rve_mesh *m, rve_err *err)
{
    int ierr = 0;
    size_t *ntag = NULL, nn = 0, nc = 0, np = 0;
    double *coord = NULL, *par = NULL;
    gmshModelMeshGetNodes(&ntag, &nn, &coord, &nc, &par, &np, -1, -1, 0, 0, &ierr);
    if (ierr)
        return gmsh_error(err, "reading the nodes");
    size_t maxtag = 0;
    for (size_t i = 0; i < nn; i++)
        if (ntag[i] > maxtag)
            maxtag = ntag[i];
    size_t *idx = malloc((maxtag + 1) * sizeof *idx);
    m->xyz = malloc((nn + 1) * 3 * sizeof(double));
    if (!idx || !m->xyz) {
        free(idx);
        gmshFree(ntag);
        gmshFree(coord);
        gmshFree(par);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    for (size_t i = 0; i <= maxtag; i++)
        idx[i] = SIZE_MAX;
    for (size_t i = 0; i < nn; i++) {
        idx[ntag[i]] = i;
        memcpy(m->xyz + 3 * i, coord + 3 * i, 3 * sizeof(double));
    }
    m->nnodes = nn;
    gmshFree(ntag);
    gmshFree(coord);
    gmshFree(par);

    rve_status st = RVE_OK;
    int ttype = order == 2 ? 11 : 4, tn = order == 2 ? 10 : 4;
    int ftype = order == 2 ? 9 : 2, fn = order == 2 ? 6 : 3;
    size_t cap = 1024;
    m->tets = malloc(cap * (size_t)tn * sizeof(size_t));
    m->tet_grain = malloc(cap * sizeof(int));
    m->ntets = 0;
    if (!m->tets || !m->tet_grain)
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int k = 0; k < c->nc && st == RVE_OK; k++) {
        if (!sm->cellvol[k])
            continue;
        size_t *et = NULL, ne = 0, *nt = NULL, nnt = 0;
        gmshModelMeshGetElementsByType(ttype, &et, &ne, &nt, &nnt, k + 1, 0, 1, &ierr);
        if (ierr) {
            st = gmsh_error(err, "reading the tetrahedra");
            break;
        }
        if (ne == 0)
            st = rve_err_set(err, RVE_EDATA, NULL, "gmsh produced no tetrahedra in grain %d",
                             c->cid ? c->cid[k] : k + 1);
        while (st == RVE_OK && m->ntets + ne > cap) {
            cap *= 2;
            size_t *t2 = realloc(m->tets, cap * (size_t)tn * sizeof(size_t));
            int *g2 = realloc(m->tet_grain, cap * sizeof(int));
            if (t2)
                m->tets = t2;
            if (g2)
                m->tet_grain = g2;
            if (!t2 || !g2)
                st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
        }
        for (size_t e = 0; st == RVE_OK && e < ne; e++) {
            for (int j = 0; j < tn; j++) {
                size_t t = nt[e * (size_t)tn + (size_t)j];
                m->tets[(m->ntets) * (size_t)tn + (size_t)j] = t <= maxtag ? idx[t] : SIZE_MAX;
            }
            m->tet_grain[m->ntets++] = c->cid ? c->cid[k] : k + 1;
        }
        gmshFree(et);
        gmshFree(nt);
    }
    /* boundary triangles: surfaces of domain faces and grain boundaries */
    size_t tcap = 1024;
    m->tris = malloc(tcap * (size_t)fn * sizeof(size_t));
    m->tri_tag = malloc(tcap * sizeof(int));
    m->ntris = 0;
    if (st == RVE_OK && (!m->tris || !m->tri_tag))
        st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (int f = 0; f < c->nf && st == RVE_OK; f++)
        for (int i = c->foff[f]; i < c->foff[f + 1] && st == RVE_OK; i++) {
            if (!sm->fsurf[i])
                continue;
            size_t *et = NULL, ne = 0, *nt = NULL, nnt = 0;
            gmshModelMeshGetElementsByType(ftype, &et, &ne, &nt, &nnt, sm->fsurf[i], 0, 1, &ierr);
            if (ierr) {
                st = gmsh_error(err, "reading the triangles");
                break;
            }
            while (m->ntris + ne > tcap && st == RVE_OK) {
                tcap *= 2;
                size_t *t2 = realloc(m->tris, tcap * (size_t)fn * sizeof(size_t));
                int *g2 = realloc(m->tri_tag, tcap * sizeof(int));
                if (t2)
                    m->tris = t2;
                if (g2)
                    m->tri_tag = g2;
                if (!t2 || !g2)
                    st = rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
            }
            for (size_t e = 0; st == RVE_OK && e < ne; e++) {
                for (int j = 0; j < fn; j++) {
                    size_t t = nt[e * (size_t)fn + (size_t)j];
                    m->tris[m->ntris * (size_t)fn + (size_t)j] = t <= maxtag ? idx[t] : SIZE_MAX;
                }
                m->tri_tag[m->ntris++] = c->fdom[f] < 0 ? 1 : 11 + c->fdom[f];
            }
            gmshFree(et);
            gmshFree(nt);
        }
    free(idx);
    for (size_t e = 0; st == RVE_OK && e < m->ntets * (size_t)tn; e++)
        if (m->tets[e] == SIZE_MAX)
            st = rve_err_set(err, RVE_EINTERNAL, NULL, "gmsh element refers to an unknown node");
    return st;
}

rve_status rve_cx_mesh(const rve_cx *c, const rve_mesh_opts *o, double cl,
                       const char *const outputs[RVE_MESH_NFORMATS], rve_mesh **out, rve_err *err)
{
    if (o->order != 1 && o->order != 2)
        return rve_err_set(err, RVE_EUSAGE, NULL, "element order must be 1 or 2, got %d", o->order);
    if (!(cl > 0) || !isfinite(cl))
        return rve_err_set(err, RVE_EUSAGE, NULL, "element size must be positive, got %g", cl);
    /* A tiny element size would have gmsh run for hours and fill the memory:
     * estimate the count (regular tetrahedra of edge cl filling the domain's
     * box; gmsh gives up to about 3 times more: 68,502 for 24,300 on data/dct)
     * and refuse early. */
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (int i = 0; i < c->nv; i++)
        for (int a = 0; a < 3; a++) {
            lo[a] = fmin(lo[a], c->v[3 * i + a]);
            hi[a] = fmax(hi[a], c->v[3 * i + a]);
        }
    double vol = c->nv > 0 ? (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]) : 0;
    double estimate = vol / (cl * cl * cl / (6 * sqrt(2.0)));
    if (o->max_elements > 0 && estimate > o->max_elements)
        return rve_err_set(err, RVE_ECAP, NULL, "element size %g would give about %.3g tetrahedra "
                           "(volume %g), above the cap of %.3g elements (--max-elements raises it)",
                           cl, estimate, vol, o->max_elements);
    rve_mesh *m = calloc(1, sizeof *m);
    if (!m)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    m->order = o->order;
    m->cl = cl;
    surfmap sm = {NULL, NULL, NULL};
    rve_status st = RVE_OK;
    int ierr = 0;
    pthread_mutex_lock(&gmsh_lock);
    double t0 = rve_now();
    gmshInitialize(0, NULL, 0, &ierr);
    if (ierr) {
        pthread_mutex_unlock(&gmsh_lock);
        rve_mesh_free(m);
        const char *why = mesh_gmsh_unavailable();
        return rve_err_set(err, RVE_EINTERNAL, NULL, "gmsh: %s", why ? why : "cannot initialise");
    }
    gmshOptionSetNumber("General.Terminal", o->verbose ? 1 : 0, &ierr);
    gmshOptionSetNumber("General.Verbosity", o->verbose ? 4 : 1, &ierr);
    gmshOptionSetNumber("General.NumThreads", o->threads > 0 ? o->threads : 1, &ierr);
    gmshLoggerStart(&ierr);
    gmshModelAdd("rve", &ierr);
    st = build_model(c, cl, &sm, err);
    if (st == RVE_OK) {
        gmshModelGeoSynchronize(&ierr);
        if (ierr)
            st = gmsh_error(err, "synchronising the model");
    }
    if (st == RVE_OK)
        st = add_physicals(c, &sm, err);
    if (st == RVE_OK && c->fper)
        st = set_periodic(c, &sm, err);
    if (st == RVE_OK) {
        gmshOptionSetNumber("Mesh.MeshSizeMax", cl, &ierr);
        gmshOptionSetNumber("Mesh.MeshSizeFromCurvature", 0, &ierr);
        gmshOptionSetNumber("Mesh.Algorithm", 6, &ierr); /* Frontal-Delaunay 2D */
        gmshOptionSetNumber("Mesh.Algorithm3D", o->algo3d, &ierr);
        if (ierr)
            st = rve_err_set(err, RVE_EUSAGE, NULL, "gmsh does not accept 3D algorithm %d", o->algo3d);
        gmshOptionSetNumber("Mesh.Optimize", o->optimize > 0, &ierr);
        gmshOptionSetNumber("Mesh.OptimizeThreshold", 0.3, &ierr);
        gmshOptionSetNumber("Mesh.ElementOrder", 1, &ierr);
        gmshOptionSetNumber("Mesh.SecondOrderLinear", 1, &ierr);
    }
    if (st == RVE_OK) {
        gmshModelMeshGenerate(3, &ierr);
        if (ierr)
            st = gmsh_error(err, "meshing");
    }
    for (int i = 1; st == RVE_OK && i < o->optimize; i++) {
        gmshModelMeshOptimize("", 0, 1, NULL, 0, &ierr);
        if (ierr)
            st = gmsh_error(err, "optimising the mesh");
    }
    if (st == RVE_OK && o->order == 2) {
        gmshModelMeshSetOrder(2, &ierr);
        if (ierr)
            st = gmsh_error(err, "making second-order elements");
    }
    if (st == RVE_OK && c->fper)
        st = fix_periodic_nodes(c, err);
    if (st == RVE_OK)
        st = extract(c, &sm, o->order, m, err);
    for (int a = 0; a < 3; a++) {
        m->lo[a] = c->dom_lo[a];
        m->hi[a] = c->dom_hi[a];
        m->periodic[a] = c->fper ? c->periodic[a] : 0;
    }
    if (st == RVE_OK && c->fper)
        st = rve_mesh_pair_nodes(m, err);
    for (int f = 0; st == RVE_OK && f <= RVE_MESH_MSH22; f++)
        if (outputs && outputs[f])
            st = write_one(outputs[f], (rve_mesh_format)f, err);
    m->seconds = rve_now() - t0;
    gmshLoggerStop(&ierr);
    gmshFinalize(&ierr);
    pthread_mutex_unlock(&gmsh_lock);
    free(sm.fsurf_off);
    free(sm.fsurf);
    free(sm.cellvol);
    /* periodic meshes: the solver writers, which add the periodic
     * constraints (inp) and the node masters (vtk) */
    for (int f = RVE_MESH_INP; st == RVE_OK && f < RVE_MESH_NFORMATS; f++)
        if (outputs && outputs[f])
            st = m->npairs == 0 ? rve_mesh_write(m, outputs[f], (rve_mesh_format)f, err)
                                : rve_mesh_write_solver(m, outputs[f],
                                                        f == RVE_MESH_INP ? RVE_SOLVER_ABAQUS : RVE_SOLVER_VTK,
                                                        NULL, err);
    if (st != RVE_OK || !out)
        rve_mesh_free(m);
    else
        *out = m;
    return st;
}

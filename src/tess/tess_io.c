/* tess_io.c - Neper .tess reading and writing, VTK output, seed files. */
#include "config.h"
#include "tess/tess_internal.h"
#include "util/vec3.h"
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ .tess write */

static const char *wall_label[6] = {"x0", "x1", "y0", "y1", "z0", "z1"};

/* Domain cube: vertex k has bits (x, y, z); edges along x, y, z. */
static void dom_vertex(const rve_tess *t, int k, double x[3])
{
    for (int a = 0; a < 3; a++) x[a] = ((k >> a) & 1) ? t->hi[a] : t->lo[a];
}

/* Edge k: axis = k / 4; the two other coordinates' bits from k % 4. */
static void dom_edge(int k, int *axis, int *v1, int *v2, int walls[2])
{
    int ax = k / 4, r = k % 4;
    int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
    if (o1 > o2) {
        int tmp = o1;
        o1 = o2;
        o2 = tmp;
    }
    int b1 = r & 1, b2 = (r >> 1) & 1;
    int base = (b1 << o1) | (b2 << o2);
    *axis = ax;
    *v1 = base;
    *v2 = base | (1 << ax);
    walls[0] = -(2 * o1 + b1 + 1);
    walls[1] = -(2 * o2 + b2 + 1);
}

static int has_wall(const rve_tess *t, int v, int w)
{
    for (int q = t->ver_coff[v]; q < t->ver_coff[v + 1]; q++)
        if (t->ver_cells[q] == w) return 1;
    return 0;
}

/* The file's entities.  Not periodic: the file's vertices, edges and faces
 * are the topology's.  Periodic (Neper's layout): each cell is written
 * whole around its seed, so an entity seen by two cells at different
 * periodic images becomes one file entity per image ("copy"); copies are
 * keyed by (entity, image of the copy), image components in -1..1 (code
 * 0..26, 13 = no shift).  The primary of an entity is its unshifted copy
 * when a cell uses it, else its first copy. */
typedef struct {
    int periodic;
    double P[3];
    int nv, ne, nf;           /* file counts */
    int *vcopy, *ecopy;       /* 27 nver / 27 nedge: file id (0-based) or -1 */
    int *vsrc, *esrc;         /* file vertex / edge -> (entity * 27 + code) */
    int *edrel;               /* nedge: image code of the second vertex relative to the first */
    int *fcopy;               /* 2 nface: file face of side 0 / side 1 */
} tess_out;

static int img_code(const int s[3])
{
    for (int a = 0; a < 3; a++)
        if (s[a] < -1 || s[a] > 1) return -1;
    return (s[0] + 1) + 3 * (s[1] + 1) + 9 * (s[2] + 1);
}

static void code_img(int code, int s[3])
{
    s[0] = code % 3 - 1;
    s[1] = code / 3 % 3 - 1;
    s[2] = code / 9 - 1;
}

static void out_free(tess_out *O)
{
    free(O->vcopy);
    free(O->ecopy);
    free(O->vsrc);
    free(O->esrc);
    free(O->edrel);
    free(O->fcopy);
}

/* Image (as code) of vertex q of a face loop in the frame of the side
 * shifted by sh; -1 when out of range. */
static int loop_code(const rve_tess *t, int q, const int sh[3])
{
    int s[3];
    rve_tess_img_unpack(t->face_vimg[q], s);
    for (int a = 0; a < 3; a++) s[a] += sh[a];
    return img_code(s);
}

/* The shift of the side of face g that cell entry k (sign sg) sees. */
static void side_shift(const rve_tess *t, int g, int sg, int sh[3])
{
    sh[0] = sh[1] = sh[2] = 0;
    if (sg < 0) {
        rve_tess_img_unpack(t->face_img[g], sh);
        for (int a = 0; a < 3; a++) sh[a] = -sh[a];
    }
}

/* Number the copies of a periodic tessellation's entities. */
static rve_status out_periodic(const rve_tess *t, tess_out *O, const char *path, rve_err *err)
{
    size_t nv27 = 27 * (size_t)t->nver, ne27 = 27 * (size_t)t->nedge;
    O->vcopy = malloc(sizeof(int) * (nv27 + 1));
    O->ecopy = malloc(sizeof(int) * (ne27 + 1));
    O->edrel = malloc(sizeof(int) * ((size_t)t->nedge + 1));
    O->fcopy = malloc(sizeof(int) * (2 * (size_t)t->nface + 1));
    if (!O->vcopy || !O->ecopy || !O->edrel || !O->fcopy) return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    memset(O->vcopy, 0xff, sizeof(int) * nv27);
    memset(O->ecopy, 0xff, sizeof(int) * ne27);
    /* mark the copies each side of each face uses */
    for (int c = 0; c < t->n; c++)
        for (int k = t->cell_foff[c]; k < t->cell_foff[c + 1]; k++) {
            int g = t->cell_faces[k], sh[3];
            side_shift(t, g, t->cell_fsign[k], sh);
            int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
            for (int q = 0; q < m; q++) {
                int cv = loop_code(t, a0 + q, sh), cn = loop_code(t, a0 + (q + 1) % m, sh);
                if (cv < 0 || cn < 0)
                    return rve_err_set(err, RVE_EDATA, path, "cell %d spans more than one period", c + 1);
                int e = t->face_edge[a0 + q], first = t->face_esign[a0 + q] > 0 ? cv : cn;
                int sv[3], sn[3], d[3];
                code_img(first, sv);
                code_img(first == cv ? cn : cv, sn);
                for (int a = 0; a < 3; a++) d[a] = sn[a] - sv[a];
                O->edrel[e] = img_code(d);
                O->vcopy[27 * (size_t)t->face_ver[a0 + q] + cv] = 0;
                O->ecopy[27 * (size_t)e + first] = 0;
            }
        }
    /* number them, entity by entity */
    O->nv = O->ne = 0;
    for (size_t k = 0; k < nv27; k++) O->nv += O->vcopy[k] == 0;
    for (size_t k = 0; k < ne27; k++) O->ne += O->ecopy[k] == 0;
    O->vsrc = malloc(sizeof(int) * ((size_t)O->nv + 1));
    O->esrc = malloc(sizeof(int) * ((size_t)O->ne + 1));
    if (!O->vsrc || !O->esrc) return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    int n = 0;
    for (size_t k = 0; k < nv27; k++)
        if (O->vcopy[k] == 0) O->vsrc[n] = (int)k, O->vcopy[k] = n++;
    n = 0;
    for (size_t k = 0; k < ne27; k++)
        if (O->ecopy[k] == 0) O->esrc[n] = (int)k, O->ecopy[k] = n++;
    n = 0;
    for (int g = 0; g < t->nface; g++) {
        O->fcopy[2 * g] = n++;
        O->fcopy[2 * g + 1] = t->face_img[g] ? n++ : O->fcopy[2 * g];
    }
    O->nf = n;
    return RVE_OK;
}

static rve_status out_init(rve_tess *t, tess_out *O, const char *path, rve_err *err)
{
    memset(O, 0, sizeof *O);
    O->periodic = t->periodic[0] || t->periodic[1] || t->periodic[2];
    tess_period(t, O->P);
    O->nv = t->nver, O->ne = t->nedge, O->nf = t->nface;
    if (!O->periodic) return RVE_OK;
    if (!t->face_vimg) return rve_err_set(err, RVE_EINTERNAL, path, "periodic topology without vertex images");
    return out_periodic(t, O, path, err);
}

/* File vertex of vertex v at image code cd (0-based). */
static int out_v(const tess_out *O, int v, int cd) { return O->periodic ? O->vcopy[27 * (size_t)v + cd] : v; }

/* Primary copy of the entity of copy k (by its source key). */
static int out_primary(const int *copy, int key)
{
    int base = key / 27 * 27;
    if (copy[base + 13] >= 0) return copy[base + 13];
    for (int c = 0; c < 27; c++)
        if (copy[base + c] >= 0) return copy[base + c];
    return -1;
}

static void write_cells(FILE *fp, const rve_tess *t, const int *ids)
{
    fprintf(fp, " **cell\n   %d\n  *id\n  ", t->n);
    for (int i = 0; i < t->n; i++) fprintf(fp, " %d%s", ids ? ids[i] : i + 1, (i % 16 == 15 && i < t->n - 1) ? "\n  " : "");
    if (t->crysym) fprintf(fp, "\n  *crysym\n   %s", t->crysym);
    fprintf(fp, "\n  *seed\n");
    for (int i = 0; i < t->n; i++) {
        const double *s = t->seeds + 4 * (size_t)i;
        fprintf(fp, "   %d %.17g %.17g %.17g %.17g\n", i + 1, s[0], s[1], s[2], s[3]);
    }
    if (t->ori && t->ori_n > 0) {
        fprintf(fp, "  *ori\n   %s\n", t->ori_des ? t->ori_des : "rodrigues");
        for (int i = 0; i < t->n; i++) {
            fprintf(fp, "  ");
            for (int q = 0; q < t->ori_n; q++) fprintf(fp, " %.17g", t->ori[(size_t)i * t->ori_n + q]);
            fputc('\n', fp);
        }
    }
}

static void write_vertices_edges(FILE *fp, const rve_tess *t, const tess_out *O)
{
    fprintf(fp, " **vertex\n   %d\n", O->nv);
    for (int i = 0; i < O->nv; i++) {
        int v = O->periodic ? O->vsrc[i] / 27 : i, s[3] = {0, 0, 0};
        if (O->periodic) code_img(O->vsrc[i] % 27, s);
        const double *x = t->ver + 3 * (size_t)v;
        fprintf(fp, "   %d %.17g %.17g %.17g %d\n", i + 1, x[0] + s[0] * O->P[0], x[1] + s[1] * O->P[1],
                x[2] + s[2] * O->P[2], t->ver_state[v]);
    }
    fprintf(fp, " **edge\n   %d\n", O->ne);
    for (int i = 0; i < O->ne; i++) {
        int e = O->periodic ? O->esrc[i] / 27 : i, a = t->edge_ver[2 * e], b = t->edge_ver[2 * e + 1];
        int va = a, vb = b;
        if (O->periodic) {
            int cd = O->esrc[i] % 27, s[3], r[3];
            code_img(cd, s);
            code_img(O->edrel[e], r);
            for (int q = 0; q < 3; q++) r[q] += s[q];
            va = out_v(O, a, cd);
            vb = out_v(O, b, img_code(r));
        }
        fprintf(fp, "   %d %d %d %d\n", i + 1, va + 1, vb + 1, t->edge_state[e]);
    }
}

/* One file face: the copy of face g shifted by sh. */
static void write_face(FILE *fp, const rve_tess *t, const tess_out *O, int g, const int sh[3], int id)
{
    int a0 = t->face_voff[g], m = t->face_voff[g + 1] - a0;
    fprintf(fp, "   %d %d", id, m);
    for (int k = 0; k < m; k++)
        fprintf(fp, " %d", 1 + out_v(O, t->face_ver[a0 + k], O->periodic ? loop_code(t, a0 + k, sh) : 0));
    fprintf(fp, "\n     %d", m);
    for (int k = 0; k < m; k++) {
        int e = t->face_edge[a0 + k], fe = e;
        if (O->periodic) {
            int first = loop_code(t, a0 + (t->face_esign[a0 + k] > 0 ? k : (k + 1) % m), sh);
            fe = O->ecopy[27 * (size_t)e + first];
        }
        fprintf(fp, " %d", t->face_esign[a0 + k] * (fe + 1));
    }
    double pl[4], q[3], d = 0;
    rve_tess_face_plane(t, g, pl);
    rve_tess_face_point(t, g, q);
    for (int a = 0; a < 3; a++) {
        q[a] += sh[a] * O->P[a];
        d += pl[a] * sh[a] * O->P[a];
    }
    fprintf(fp, "\n     %.17g %.17g %.17g %.17g\n", pl[3] + d, pl[0], pl[1], pl[2]);
    fprintf(fp, "     %d %d %.17g %.17g %.17g\n", t->face_state[g], t->face_pt[g], q[0], q[1], q[2]);
}

static void write_faces_polys(FILE *fp, const rve_tess *t, const tess_out *O)
{
    fprintf(fp, " **face\n   %d\n", O->nf);
    for (int g = 0; g < t->nface; g++) {
        int zero[3] = {0, 0, 0}, sh[3];
        write_face(fp, t, O, g, zero, O->fcopy ? O->fcopy[2 * g] + 1 : g + 1);
        if (O->fcopy && O->fcopy[2 * g + 1] != O->fcopy[2 * g]) {
            side_shift(t, g, -1, sh);
            write_face(fp, t, O, g, sh, O->fcopy[2 * g + 1] + 1);
        }
    }
    fprintf(fp, " **polyhedron\n   %d\n", t->n);
    for (int c = 0; c < t->n; c++) {
        fprintf(fp, "   %d %d", c + 1, t->cell_foff[c + 1] - t->cell_foff[c]);
        for (int k = t->cell_foff[c]; k < t->cell_foff[c + 1]; k++) {
            int g = t->cell_faces[k], s = t->cell_fsign[k];
            int ff = O->fcopy ? O->fcopy[2 * g + (s > 0 ? 0 : 1)] : g;
            fprintf(fp, " %d", s * (ff + 1));
        }
        fputc('\n', fp);
    }
}

/* The cube domain's vertices and edges with the tessellation's vertices and
 * edges on them (none on periodic axes: Neper then writes "1 0" for a domain
 * vertex); 3.5: each edge with its type and parameter count. */
static void write_domain_ve(FILE *fp, const rve_tess *t, const tess_out *O)
{
    fprintf(fp, " **domain\n  *general\n   cube\n  *vertex\n   8\n");
    for (int k = 0; k < 8; k++) {
        double x[3];
        dom_vertex(t, k, x);
        int dv = -1, w[3] = {-(1 + (k & 1)), -(3 + ((k >> 1) & 1)), -(5 + ((k >> 2) & 1))};
        for (int v = 0; v < t->nver && dv < 0; v++)
            if (has_wall(t, v, w[0]) && has_wall(t, v, w[1]) && has_wall(t, v, w[2])) dv = v;
        fprintf(fp, "   %d %.17g %.17g %.17g x%dy%dz%d\n", k + 1, x[0], x[1], x[2], k & 1, (k >> 1) & 1, (k >> 2) & 1);
        fprintf(fp, "     1 %d\n", dv >= 0 ? out_v(O, dv, 13) + 1 : 0);
    }
    fprintf(fp, "  *edge\n   12\n");
    for (int k = 0; k < 12; k++) {
        int ax, v1, v2, w[2], cnt = 0;
        dom_edge(k, &ax, &v1, &v2, w);
        for (int pass = 0; pass < 2; pass++) {
            if (pass) fprintf(fp, "     %d", cnt);
            for (int e = 0; e < t->nedge; e++) {
                int a = t->edge_ver[2 * e], b = t->edge_ver[2 * e + 1];
                if (!(has_wall(t, a, w[0]) && has_wall(t, a, w[1]) && has_wall(t, b, w[0]) && has_wall(t, b, w[1])))
                    continue;
                if (!pass) cnt++;
                else fprintf(fp, " %d", (O->periodic ? O->ecopy[27 * (size_t)e + 13] : e) + 1);
            }
            if (!pass) {
                char lab[8];
                int o[2] = {(-w[0] - 1) / 2, (-w[1] - 1) / 2};
                snprintf(lab, sizeof lab, "%c%d%c%d", "xyz"[o[0]], (-w[0] - 1) % 2, "xyz"[o[1]], (-w[1] - 1) % 2);
                fprintf(fp, "   %d 2 %d %d\n     line\n     0\n     %s\n", k + 1, v1 + 1, v2 + 1, lab);
            }
        }
        fputc('\n', fp);
    }
}

static void write_domain_faces(FILE *fp, const rve_tess *t, const tess_out *O)
{
    fprintf(fp, "  *face\n   6\n");
    for (int k = 0; k < 6; k++) {
        int ax = k / 2, side = k % 2;
        int o1 = (ax + 1) % 3, o2 = (ax + 2) % 3;
        /* corners counter-clockwise seen from outside */
        int base = side << ax;
        int cv[4] = {base, base | (1 << o1), base | (1 << o1) | (1 << o2), base | (1 << o2)};
        if (!side) {
            int tmp = cv[1];
            cv[1] = cv[3];
            cv[3] = tmp;
        }
        int ce[4] = {0, 0, 0, 0};
        for (int q = 0; q < 4; q++) {
            int a = cv[q], b = cv[(q + 1) % 4];
            for (int e = 0; e < 12; e++) {
                int eax, e1, e2, w[2];
                dom_edge(e, &eax, &e1, &e2, w);
                if ((e1 == a && e2 == b) || (e1 == b && e2 == a)) ce[q] = e;
            }
        }
        double pl[4] = {0, 0, 0, 0};
        pl[ax] = side ? 1 : -1;
        pl[3] = side ? t->hi[ax] : -t->lo[ax];
        int cnt = 0;
        for (int g = 0; g < t->nface; g++) cnt += t->face_cell[2 * g + 1] == -(k + 1);
        fprintf(fp, "   %d 4 %d %d %d %d\n     4 %d %d %d %d\n     plane\n     4 %.17g %.17g %.17g %.17g\n     %s\n     %d\n    ",
                k + 1, cv[0] + 1, cv[1] + 1, cv[2] + 1, cv[3] + 1, ce[0] + 1, ce[1] + 1, ce[2] + 1, ce[3] + 1,
                pl[3], pl[0], pl[1], pl[2], wall_label[k], cnt);
        for (int g = 0; g < t->nface; g++)
            if (t->face_cell[2 * g + 1] == -(k + 1)) fprintf(fp, " %d", (O->fcopy ? O->fcopy[2 * g] : g) + 1);
        fputc('\n', fp);
    }
}

/* **periodicity: the seeds' images, then every secondary copy with its
 * primary and the shift (secondary = primary + shift * period). */
static void write_periodicity(FILE *fp, const rve_tess *t, const tess_out *O)
{
    fprintf(fp, " **periodicity\n  *general\n   %d %d %d\n   %.17g %.17g %.17g\n  *seed\n", t->periodic[0],
            t->periodic[1], t->periodic[2], t->hi[0] - t->lo[0], t->hi[1] - t->lo[1], t->hi[2] - t->lo[2]);
    int nimg = 0, id = t->n;
    for (int cd = 0; cd < 27; cd++) {
        int s[3];
        code_img(cd, s);
        int ok = cd != 13;
        for (int a = 0; a < 3; a++) ok &= t->periodic[a] || s[a] == 0;
        nimg += ok;
    }
    fprintf(fp, "   %d\n", nimg * t->n);
    for (int cd = 0; cd < 27; cd++) { /* x fastest, then y, then z, as Neper */
        int s[3], ok = cd != 13;
        code_img(cd, s);
        for (int a = 0; a < 3; a++) ok &= t->periodic[a] || s[a] == 0;
        for (int i = 0; ok && i < t->n; i++) fprintf(fp, "   %d %d %d %d %d\n", ++id, i + 1, s[0], s[1], s[2]);
    }
    for (int kind = 0; kind < 2; kind++) {
        int n = kind ? O->ne : O->nv, *src = kind ? O->esrc : O->vsrc, *copy = kind ? O->ecopy : O->vcopy, cnt = 0;
        for (int i = 0; i < n; i++) cnt += out_primary(copy, src[i]) != i;
        fprintf(fp, "  *%s\n   %d\n", kind ? "edge" : "vertex", cnt);
        for (int i = 0; i < n; i++) {
            int p = out_primary(copy, src[i]), s[3], r[3];
            if (p == i) continue;
            code_img(src[i] % 27, s);
            code_img(src[p] % 27, r);
            fprintf(fp, "   %d %d %d %d %d%s\n", i + 1, p + 1, s[0] - r[0], s[1] - r[1], s[2] - r[2], kind ? " 1" : "");
        }
    }
    int cnt = 0;
    for (int g = 0; g < t->nface; g++) cnt += O->fcopy[2 * g + 1] != O->fcopy[2 * g];
    fprintf(fp, "  *face\n   %d\n", cnt);
    for (int g = 0; g < t->nface; g++)
        if (O->fcopy[2 * g + 1] != O->fcopy[2 * g]) {
            int sh[3];
            side_shift(t, g, -1, sh);
            /* -1: same loop as the primary (Neper's face orientation is 1
             * for a reversed loop, see docs/formats.md) */
            fprintf(fp, "   %d %d %d %d %d -1\n", O->fcopy[2 * g + 1] + 1, O->fcopy[2 * g] + 1, sh[0], sh[1], sh[2]);
        }
}

rve_status rve_tess_write_tess(rve_tess *t, const char *path, const int *ids, rve_err *err)
{
    rve_status st;
    if (!t->has_topo && (st = rve_tess_topology(t, err)) != RVE_OK) return st;
    tess_out O;
    if ((st = out_init(t, &O, path, err)) != RVE_OK) {
        out_free(&O);
        return st;
    }
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af) {
        out_free(&O);
        return err ? err->code : RVE_EIO;
    }
    FILE *fp = rve_afile_fp(af);
    fprintf(fp, "***tess\n **format\n   3.5\n **general\n   3 %s\n", O.periodic ? "periodic" : "standard");
    write_cells(fp, t, ids);
    write_vertices_edges(fp, t, &O);
    write_faces_polys(fp, t, &O);
    write_domain_ve(fp, t, &O);
    write_domain_faces(fp, t, &O);
    if (O.periodic) write_periodicity(fp, t, &O);
    fprintf(fp, "***end\n");
    out_free(&O);
    return rve_afile_commit(af, err);
}
/* ---------------------------------------------------------------- VTK */

rve_status rve_tess_write_vtk(rve_tess *t, const char *path, const int *ids, rve_err *err)
{
    int periodic = t->periodic[0] || t->periodic[1] || t->periodic[2];
    rve_status st;
    if (!periodic && !t->has_topo && (st = rve_tess_topology(t, err)) != RVE_OK) return st;
    rve_afile *af = rve_afile_open(path, 0, err);
    if (!af) return err ? err->code : RVE_EIO;
    FILE *fp = rve_afile_fp(af);
    int ncell = t->n - t->nempty;
    fprintf(fp, "# vtk DataFile Version 3.0\nrve tessellation\nASCII\nDATASET UNSTRUCTURED_GRID\n");
    long long size = 0;
    if (!periodic) {
        fprintf(fp, "POINTS %d double\n", t->nver);
        for (int v = 0; v < t->nver; v++)
            fprintf(fp, "%.17g %.17g %.17g\n", t->ver[3 * v], t->ver[3 * v + 1], t->ver[3 * v + 2]);
    } else { /* whole cells: points per cell */
        long long np = 0;
        for (int c = 0; c < t->n; c++) np += t->cells[c].nv;
        fprintf(fp, "POINTS %lld double\n", np);
        for (int c = 0; c < t->n; c++)
            for (int u = 0; u < t->cells[c].nv; u++) {
                const double *x = t->cells[c].v + 3 * u;
                fprintf(fp, "%.17g %.17g %.17g\n", x[0], x[1], x[2]);
            }
    }
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        if (p->nv == 0) continue;
        size += 2 + p->nf + p->nfv;
    }
    fprintf(fp, "CELLS %d %lld\n", ncell, size);
    long long base = 0;
    for (int c = 0; c < t->n; c++) {
        const rve_tess_poly *p = &t->cells[c];
        if (p->nv == 0) continue;
        fprintf(fp, "%d %d", 1 + p->nf + p->nfv, p->nf);
        for (int f = 0; f < p->nf; f++) {
            int m = p->foff[f + 1] - p->foff[f];
            fprintf(fp, " %d", m);
            if (!periodic) {
                /* global vertex ids, loop outward from this cell */
                int k = t->cell_foff[c] + f, g = t->cell_faces[k], s = t->cell_fsign[k];
                int a0 = t->face_voff[g];
                for (int q = 0; q < m; q++) fprintf(fp, " %d", t->face_ver[a0 + (s > 0 ? q : m - 1 - q)]);
            } else
                for (int q = p->foff[f]; q < p->foff[f + 1]; q++) fprintf(fp, " %lld", base + p->floop[q]);
        }
        fputc('\n', fp);
        base += p->nv;
    }
    fprintf(fp, "CELL_TYPES %d\n", ncell);
    for (int c = 0; c < ncell; c++) fprintf(fp, "42\n");
    fprintf(fp, "CELL_DATA %d\nSCALARS id int 1\nLOOKUP_TABLE default\n", ncell);
    for (int c = 0; c < t->n; c++)
        if (t->cells[c].nv) fprintf(fp, "%d\n", ids ? ids[c] : c + 1);
    fprintf(fp, "SCALARS volume double 1\nLOOKUP_TABLE default\n");
    for (int c = 0; c < t->n; c++)
        if (t->cells[c].nv) fprintf(fp, "%.17g\n", t->cells[c].vol);
    return rve_afile_commit(af, err);
}

/* --------------------------------------------------------------- seeds */

rve_status rve_tess_read_seeds(const char *path, double **seeds, int *n, rve_err *err)
{
    *seeds = NULL;
    *n = 0;
    char *buf;
    size_t nb;
    rve_status st = rve_read_file(path, &buf, &nb, err);
    if (st) return st;
    size_t cap = 1024;
    int m = 0;
    double *s = malloc(sizeof(double) * 4 * cap);
    if (!s) {
        free(buf);
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    }
    char *line = buf;
    int lineno = 0;
    while (line && *line) {
        char *nl = strchr(line, '\n');
        if (nl) *nl = 0;
        lineno++;
        char *hash = strchr(line, '#');
        if (hash) *hash = 0;
        double v[5];
        int k = 0;
        char *p = line;
        for (;;) {
            while (*p && isspace((unsigned char)*p)) p++;
            if (!*p) break;
            char *q = p;
            while (*q && !isspace((unsigned char)*q)) q++;
            char save = *q;
            *q = 0;
            if (k >= 4 || rve_parse_double(p, &v[k]) != RVE_OK) {
                free(s);
                free(buf);
                return rve_err_set(err, RVE_EDATA, path, "line %d: expected 'x y z [w]'", lineno);
            }
            k++;
            *q = save;
            p = q;
        }
        if (k != 0) {
            if (k < 3) {
                free(s);
                free(buf);
                return rve_err_set(err, RVE_EDATA, path, "line %d: expected 'x y z [w]'", lineno);
            }
            if (k == 3) v[3] = 0;
            if ((size_t)m == cap) {
                if (cap > (size_t)INT_MAX / 8) {
                    free(s);
                    free(buf);
                    return rve_err_set(err, RVE_EDATA, path, "too many seeds");
                }
                double *s2 = realloc(s, sizeof(double) * 8 * cap);
                if (!s2) {
                    free(s);
                    free(buf);
                    return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
                }
                s = s2;
                cap *= 2;
            }
            memcpy(s + 4 * (size_t)m, v, 4 * sizeof(double));
            m++;
        }
        line = nl ? nl + 1 : NULL;
    }
    free(buf);
    if (m == 0) {
        free(s);
        return rve_err_set(err, RVE_EDATA, path, "no seeds");
    }
    *seeds = s;
    *n = m;
    return RVE_OK;
}

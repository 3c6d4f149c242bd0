/* map_vti.c - DAMASK grid solver input: the grain map as VTK XML image data
 * (.vti, the 0-based cell array `material`) and material.yaml (one material
 * per grain with its orientation and phase).  docs/formats.md, section DAMASK.
 *
 * The .vti is laid out for DAMASK's own line-oriented reader (src/grid/VTI.f90
 * of DAMASK 3): the VTKFile, ImageData and DataArray start tags each on one
 * line, the base64 data alone on the next line, little-endian, uncompressed,
 * a UInt64 byte-count header. */
#include "config.h"
#include "raster/map_internal.h"
#include <rve/ori.h>
#include <rve/raster.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void rve_map_damask_opts_init(rve_map_damask_opts *o)
{
    memset(o, 0, sizeof *o);
    o->homogenization = "SX";
}

/* ------------------------------------------------------------ base64 stream */
typedef struct {
    FILE *fp;
    unsigned char in[3];
    int n;
} b64_stream;

static void b64_flush3(b64_stream *b, int n)
{
    static const char A[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    unsigned v = (unsigned)b->in[0] << 16 | (unsigned)(n > 1 ? b->in[1] : 0) << 8 | (n > 2 ? b->in[2] : 0);
    char o[4] = {A[v >> 18 & 63], A[v >> 12 & 63], n > 1 ? A[v >> 6 & 63] : '=', n > 2 ? A[v & 63] : '='};
    fwrite(o, 1, 4, b->fp);
    b->n = 0;
}

static void b64_put(b64_stream *b, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        b->in[b->n++] = p[i];
        if (b->n == 3)
            b64_flush3(b, 3);
    }
}

static void b64_end(b64_stream *b)
{
    if (b->n > 0)
        b64_flush3(b, b->n);
}

static void put_le(b64_stream *b, uint64_t v, int bytes)
{
    unsigned char o[8];
    for (int i = 0; i < bytes; i++)
        o[i] = (unsigned char)(v >> (8 * i));
    b64_put(b, o, (size_t)bytes);
}

/* --------------------------------------------------------- material numbers */
/* mat[l] for l = 0..nlabels: the grains present in increasing label order get
 * 0..ngrains-1; void (label 0), when present, gets ngrains.  *nmat is the
 * material count (ngrains, + 1 with void). */
static rve_status material_numbers(const rve_map *m, int32_t **out, int32_t *ngrains, int *has_void, rve_err *err)
{
    size_t *cnt = NULL;
    if (m->nlabels > (uint32_t)INT32_MAX - 1)
        return rve_err_set(err, RVE_EDATA, NULL, "labels up to %u do not fit DAMASK's Int32 material ids",
                           (unsigned)m->nlabels);
    if (rve_map_counts(m, &cnt, err) != RVE_OK)
        return err ? err->code : RVE_ENOMEM;
    int32_t *mat = malloc(((size_t)m->nlabels + 1) * sizeof *mat);
    if (!mat) {
        free(cnt);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    int32_t k = 0;
    for (uint32_t l = 1; l <= m->nlabels; l++)
        mat[l] = cnt[l] ? k++ : -1;
    mat[0] = k;
    *has_void = cnt[0] > 0;
    *ngrains = k;
    free(cnt);
    *out = mat;
    return RVE_OK;
}

/* -------------------------------------------------------------------- .vti */
static void write_vti(FILE *fp, const rve_map *m, const int32_t *mat, int32_t nmat)
{
    fprintf(fp, "<?xml version=\"1.0\"?>\n");
    fprintf(fp, "<VTKFile type=\"ImageData\" version=\"1.0\" byte_order=\"LittleEndian\" header_type=\"UInt64\">\n");
    fprintf(fp, "  <ImageData WholeExtent=\"0 %d 0 %d 0 %d\" Origin=\"%.17g %.17g %.17g\" Spacing=\"%.17g %.17g %.17g\">\n",
            m->nx, m->ny, m->nz, m->origin[0], m->origin[1], m->origin[2], m->h[0], m->h[1], m->h[2]);
    fprintf(fp, "    <Piece Extent=\"0 %d 0 %d 0 %d\">\n", m->nx, m->ny, m->nz);
    fprintf(fp, "      <CellData Scalars=\"material\">\n");
    fprintf(fp, "        <DataArray type=\"Int32\" Name=\"material\" format=\"binary\" RangeMin=\"0\" RangeMax=\"%ld\">\n",
            (long)(nmat > 0 ? nmat - 1 : 0));
    fputs("          ", fp);
    size_t nv = rve_map_nvox(m);
    b64_stream b = {fp, {0, 0, 0}, 0};
    put_le(&b, (uint64_t)nv * 4, 8);
    for (size_t v = 0; v < nv; v++)
        put_le(&b, (uint32_t)mat[m->lab[v]], 4);
    b64_end(&b);
    fputc('\n', fp);
    fprintf(fp, "        </DataArray>\n      </CellData>\n    </Piece>\n  </ImageData>\n</VTKFile>\n");
}

/* ----------------------------------------------------------- material.yaml */
/* DAMASK's Bravais lattice for a Laue group (DAMASK has no rhombohedral
 * lattice: trigonal crystals are given its hexagonal one). */
static const char *lattice_of(rve_laue g, const char **note)
{
    static const char *lat[RVE_LAUE_N] = {"aP", "mP", "oP", "hP", "tI", "hP", "cF"};
    static const char *why[RVE_LAUE_N] = {
        "triclinic", "monoclinic (unique axis y); mS if base-centred", "orthorhombic; oS, oI or oF if centred",
        "trigonal, given as DAMASK's hexagonal lattice", "tetragonal; tP if primitive", "hexagonal",
        "cubic: cF (fcc) assumed; cI for bcc, cP for simple cubic"};
    *note = why[g];
    return lat[g];
}

typedef struct {
    int nphase;        /* distinct phase numbers among the grains */
    int phases[64];    /* their numbers (a map has few phases; more are refused) */
} phase_set;

static int grain_phase(const rve_map *m, uint32_t l)
{
    return m->phase ? m->phase[l - 1] : 1;
}

static void phase_name(const rve_map *m, const phase_set *ps, int p, char *buf, size_t n)
{
    if (m->crysym && ps->nphase == 1)
        snprintf(buf, n, "%s", m->crysym);
    else
        snprintf(buf, n, "%s_%d", m->crysym ? m->crysym : "phase", p);
}

static rve_status collect_phases(const rve_map *m, const int32_t *mat, phase_set *ps, rve_err *err)
{
    ps->nphase = 0;
    for (uint32_t l = 1; l <= m->nlabels; l++) {
        if (mat[l] < 0)
            continue;
        int p = grain_phase(m, l), k = 0;
        while (k < ps->nphase && ps->phases[k] != p)
            k++;
        if (k == ps->nphase) {
            if (k == 64)
                return rve_err_set(err, RVE_EDATA, NULL, "more than 64 phases");
            ps->phases[ps->nphase++] = p;
        }
    }
    return RVE_OK;
}

static void yaml_phases(FILE *fp, const rve_map *m, const phase_set *ps, int has_void)
{
    rve_laue g = RVE_LAUE_TRICLINIC;
    int known = m->crysym && rve_laue_parse(m->crysym, &g) == RVE_OK;
    char name[96];
    fprintf(fp, "phase:\n");
    for (int k = 0; k < ps->nphase; k++) {
        const char *note;
        const char *lat = lattice_of(g, &note);
        phase_name(m, ps, ps->phases[k], name, sizeof name);
        fprintf(fp, "  %s:\n    lattice: %s  # %s\n", name, lat, known ? note : "crystal symmetry unknown: set the lattice");
    }
    if (has_void)
        fprintf(fp, "  void:\n    lattice: aP  # the map's void voxels (label 0): give them a compliant material\n");
}

static void yaml_material(FILE *fp, const char *phase, const char *homog, const double q[4], const char *what)
{
    fprintf(fp, "  - homogenization: %s  # %s\n    constituents:\n      - phase: %s\n        v: 1.0\n", homog, what,
            phase);
    fprintf(fp, "        O: [%.16f, %.16f, %.16f, %.16f]\n", q[0], q[1], q[2], q[3]);
}

static rve_status write_yaml(FILE *fp, const rve_map *m, const int32_t *mat, int has_void, const char *vti,
                             const rve_map_damask_opts *o, rve_err *err)
{
    phase_set ps;
    if (collect_phases(m, mat, &ps, err) != RVE_OK)
        return RVE_EDATA;
    int has_ori = m->ori && m->ori_n > 0 && m->ori_des;
    fprintf(fp, "# DAMASK material configuration written by rve for %s: material k is the\n", vti);
    fprintf(fp, "# grain of the k-th smallest label of the map (from 0, as the .vti's `material`)%s.\n",
            has_void ? ", the last one its void voxels" : "");
    fprintf(fp, "# O: unit quaternion (w, x, y, z), w >= 0, DAMASK's convention (Rowenhorst et al. 2015,\n"
                "# passive, P = -1)%s.  The phases name their lattice only: add the elastic\n"
                "# and plastic parameters of your material before running DAMASK_grid.\n",
            has_ori ? "" : "; the input had no orientations: every O is the identity");
    fprintf(fp, "homogenization:\n  %s:\n    N_constituents: 1\n    mechanical: {type: pass}\n", o->homogenization);
    yaml_phases(fp, m, &ps, has_void);
    fprintf(fp, "material:\n");
    char name[96], what[96];
    for (uint32_t l = 1; l <= m->nlabels; l++) {
        if (mat[l] < 0)
            continue;
        double q[4] = {1, 0, 0, 0};
        if (has_ori && rve_map_grain_quat(m, l, q, err) != RVE_OK)
            return RVE_EDATA;
        if (q[0] < 0 || (q[0] == 0 && (q[1] < 0 || (q[1] == 0 && (q[2] < 0 || (q[2] == 0 && q[3] < 0))))))
            for (int i = 0; i < 4; i++)
                q[i] = -q[i];
        phase_name(m, &ps, grain_phase(m, l), name, sizeof name);
        snprintf(what, sizeof what, "material %ld: grain %u (label %u)", (long)mat[l], (unsigned)rve_map_id(m, l),
                 (unsigned)l);
        yaml_material(fp, name, o->homogenization, q, what);
    }
    if (has_void) {
        static const double id[4] = {1, 0, 0, 0};
        snprintf(what, sizeof what, "material %ld: void (label 0)", (long)mat[0]);
        yaml_material(fp, "void", o->homogenization, id, what);
    }
    return RVE_OK;
}

rve_status rve_map_damask_yaml_path(const char *path, char **out, rve_err *err)
{
    const char *slash = strrchr(path, '/');
    size_t d = slash ? (size_t)(slash - path) + 1 : 0;
    char *s = malloc(d + sizeof "material.yaml");
    if (!s)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    memcpy(s, path, d);
    memcpy(s + d, "material.yaml", sizeof "material.yaml");
    *out = s;
    return RVE_OK;
}

static rve_status write_damask(const rve_map *m, const char *path, const rve_map_damask_opts *opts, rve_err *err);

/* Materials are label ranks: a map with sparse huge labels (ids up to
 * 2^31 - 1) is written from a renumbered copy, whose ids keep the file's. */
rve_status rve_map_write_damask(const rve_map *m, const char *path, const rve_map_damask_opts *opts, rve_err *err)
{
    if (!rve_map_labels_sparse(m))
        return write_damask(m, path, opts, err);
    rve_map *c = rve_map_copy(m);
    if (!c)
        return rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    rve_status s = rve_map_renumber(c, err);
    if (s == RVE_OK)
        s = write_damask(c, path, opts, err);
    rve_map_free(c);
    return s;
}

static rve_status write_damask(const rve_map *m, const char *path, const rve_map_damask_opts *opts, rve_err *err)
{
    rve_map_damask_opts def;
    rve_map_damask_opts_init(&def);
    const rve_map_damask_opts *o = opts ? opts : &def;
    if (!o->homogenization || !*o->homogenization || strpbrk(o->homogenization, " :#{}[],\n"))
        return rve_err_set(err, RVE_EUSAGE, NULL, "homogenization name '%s' is not a plain YAML key",
                           o->homogenization ? o->homogenization : "");
    char *ypath = NULL;
    if (!o->material && rve_map_damask_yaml_path(path, &ypath, err) != RVE_OK)
        return RVE_ENOMEM;
    const char *yp = o->material ? o->material : ypath;
    int32_t *mat = NULL, ngrains = 0;
    int has_void = 0;
    rve_status st = material_numbers(m, &mat, &ngrains, &has_void, err);
    if (st == RVE_OK && ngrains == 0)
        st = rve_err_set(err, RVE_EDATA, NULL, "the map has no grain");
    rve_afile *av = NULL, *ay = NULL;
    if (st == RVE_OK && (!(av = rve_afile_open(path, 1, err)) || !(ay = rve_afile_open(yp, 0, err))))
        st = err ? err->code : RVE_EIO;
    if (st == RVE_OK) {
        write_vti(rve_afile_fp(av), m, mat, ngrains + has_void);
        st = write_yaml(rve_afile_fp(ay), m, mat, has_void, path, o, err);
    }
    if (st == RVE_OK) { /* commit frees each file, also when it fails */
        st = rve_afile_commit(av, err);
        if (st == RVE_OK)
            st = rve_afile_commit(ay, err);
        else
            rve_afile_abort(ay);
    } else {
        rve_afile_abort(av);
        rve_afile_abort(ay);
    }
    free(mat);
    free(ypath);
    return st;
}

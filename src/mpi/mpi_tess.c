/* mpi_tess.c - distributed tessellation: per-cell volumes and neighbours of
 * a Voronoi/Laguerre tessellation of a box, written collectively to one
 * HDF5 file (docs/mpi.md).
 *
 * Rank r owns the seeds whose z lies in its slab [z0, z1) of the box.  It
 * keeps its seeds and the ghost seeds within g of the slab, builds their
 * cells with the serial library (rve_tess_build, voro++, no topology) and
 * checks each owned cell: the cell built from a subset of the seeds contains
 * the true cell, and equals it when no seed left out can cut it, i.e. when
 * at every vertex v the owned seed's power p(v) + wmax^2 is below the
 * squared z distance from v to the region left out.  Otherwise the ghost
 * layer deepens and the slab is built again (the last round keeps every
 * seed).  The rows (global seed order) then go to the rank that writes
 * their block (MPI_Alltoallv) and every rank writes its block with a
 * collective hyperslab: no rank holds all cells. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include <hdf5.h>
#include <rve/mpi.h>
#include <rve/tess.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_internal.h"

/* Is owned cell i of t exact, given the seeds kept in [zk0, zk1] (open
 * towards the box walls: nothing is left out beyond them)? */
static int cell_exact(const rve_tess *t, int i, double zk0, double zk1, const double lo[3], const double hi[3],
                      double wmax2)
{
    const rve_tess_poly *c = &t->cells[i];
    const double *s = t->seeds + 4 * (size_t)i;
    for (int k = 0; k < c->nv; k++) {
        const double *v = c->v + 3 * k;
        double dx = v[0] - s[0], dy = v[1] - s[1], dz = v[2] - s[2];
        double p = dx * dx + dy * dy + dz * dz - s[3] * s[3];
        double d = INFINITY;
        if (zk0 > lo[2])
            d = v[2] - zk0;
        if (zk1 < hi[2] && zk1 - v[2] < d)
            d = zk1 - v[2];
        if (d == INFINITY)
            continue;
        if (!(d > 0) || !(p + wmax2 < d * d * (1 - 1e-9)))
            return 0;
    }
    return 1;
}

void mpi_owned_free(mpi_owned *o)
{
    free(o->idx), free(o->vol), free(o->deg), free(o->nb), free(o->area), free(o->cen);
    memset(o, 0, sizeof *o);
}

/* Sort the d neighbours nb (and their face areas a) ascending. */
static void sort_nb(long *nb, double *a, int d)
{
    for (int i = 1; i < d; i++)
        for (int j = i; j > 0 && nb[j - 1] > nb[j]; j--) {
            long t = nb[j];
            nb[j] = nb[j - 1], nb[j - 1] = t;
            double u = a[j];
            a[j] = a[j - 1], a[j - 1] = u;
        }
}

/* Cells of the owned seeds of t (kept seeds k) into o. */
static rve_status collect(const rve_tess *t, const mpi_kept *k, double z0, double z1, int last_slab, mpi_owned *o,
                          rve_err *err)
{
    long n = 0;
    int kmax = 0;
    for (long i = 0; i < k->m; i++) {
        double z = k->s[4 * i + 2];
        if (z >= z0 && (z < z1 || (last_slab && z <= z1))) {
            n++;
            int d = 0;
            for (int f = 0; f < t->cells[i].nf; f++)
                d += t->cells[i].fnbr[f] >= 0;
            kmax = d > kmax ? d : kmax;
        }
    }
    o->n = n, o->kmax = kmax;
    o->idx = malloc((size_t)(n ? n : 1) * sizeof *o->idx);
    o->vol = malloc((size_t)(n ? n : 1) * sizeof *o->vol);
    o->deg = malloc((size_t)(n ? n : 1) * sizeof *o->deg);
    o->nb = calloc((size_t)(n ? n : 1) * (size_t)(kmax ? kmax : 1), sizeof *o->nb);
    o->area = calloc((size_t)(n ? n : 1) * (size_t)(kmax ? kmax : 1), sizeof *o->area);
    o->cen = malloc((size_t)(n ? n : 1) * 3 * sizeof *o->cen);
    if (!o->idx || !o->vol || !o->deg || !o->nb || !o->area || !o->cen)
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    long r = 0;
    for (long i = 0; i < k->m; i++) {
        double z = k->s[4 * i + 2];
        if (!(z >= z0 && (z < z1 || (last_slab && z <= z1))))
            continue;
        const rve_tess_poly *c = &t->cells[i];
        o->idx[r] = (long)k->lab[i] - 1;
        o->vol[r] = c->vol;
        memcpy(o->cen + 3 * (size_t)r, c->centroid, 3 * sizeof(double));
        int d = 0;
        for (int f = 0; f < c->nf; f++)
            if (c->fnbr[f] >= 0) {
                o->area[(size_t)r * kmax + d] = c->farea[f];
                o->nb[(size_t)r * kmax + d++] = (long)k->lab[c->fnbr[f]];
            }
        sort_nb(o->nb + (size_t)r * kmax, o->area + (size_t)r * kmax, d);
        o->deg[r] = d;
        r++;
    }
    return RVE_OK;
}

rve_status mpi_build_slab(const rve_mpi_seeds *src, const double lo[3], const double hi[3], double z0, double z1,
                          int last_slab, mpi_owned *o, rve_mpi_tess_info *info, rve_err *err)
{
    double vol = (hi[0] - lo[0]) * (hi[1] - lo[1]) * (hi[2] - lo[2]);
    double g = 3 * cbrt(vol / (double)src->n);
    mpi_kept k = {0};
    rve_status st = RVE_OK;
    int per[3] = {0, 0, 0};
    rve_tess_opts to;
    rve_tess_opts_default(&to);
    to.topology = 0, to.keep_container = 0;
    for (int round = 1; round <= HALO_ROUNDS; round++) {
        int last = round == HALO_ROUNDS;
        double zk0 = last ? -INFINITY : z0 - g, zk1 = last ? INFINITY : z1 + g;
        st = mpi_select_seeds(src, NULL, zk0, zk1, &k, err);
        if (st != RVE_OK)
            break;
        info->rounds = round, info->ghost = g, info->seeds_kept = k.m;
        if (k.m == 0)
            break; /* no seed near: no owned cell */
        if ((st = mpi_kept_check(&k, err)) != RVE_OK)
            break;
        rve_tess *t = NULL;
        st = rve_tess_build(k.s, (int)k.m, lo, hi, per, &to, &t, err);
        if (st != RVE_OK)
            break;
        int exact = 1;
        for (long i = 0; exact && i < k.m; i++) {
            double z = k.s[4 * i + 2];
            if (z >= z0 && (z < z1 || (last_slab && z <= z1)))
                exact = cell_exact(t, (int)i, fmax(zk0, lo[2]), fmin(zk1, hi[2]), lo, hi, k.wmax2);
        }
        if (exact || last || (zk0 <= lo[2] && zk1 >= hi[2]))
            st = collect(t, &k, z0, z1, last_slab, o, err);
        rve_tess_free(t);
        if (st != RVE_OK || exact || last || (zk0 <= lo[2] && zk1 >= hi[2]))
            break;
        g *= 2;
    }
    mpi_kept_free(&k);
    return st;
}

/* Send every owned row to the rank writing its block [N r / P, N (r+1) / P). */
static rve_status redistribute(MPI_Comm comm, long N, const mpi_owned *o, int kmax, double **rows, long *b0, long *b1,
                               rve_err *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    const int R = 3 + kmax; /* index, volume, degree, neighbours */
    *b0 = N * rank / size, *b1 = N * (rank + 1) / size;
    int *sc = calloc((size_t)size, sizeof *sc), *rc = calloc((size_t)size, sizeof *rc);
    int *sd = calloc((size_t)size, sizeof *sd), *rd = calloc((size_t)size, sizeof *rd);
    double *sb = malloc((size_t)(o->n ? o->n : 1) * R * sizeof *sb);
    *rows = malloc((size_t)((*b1 - *b0) ? (*b1 - *b0) : 1) * R * sizeof **rows);
    if (!sc || !rc || !sd || !rd || !sb || !*rows) {
        free(sc), free(rc), free(sd), free(rd), free(sb);
        return rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    }
    /* rows sorted by destination: the destination of index i is the rank r
     * with N r / P <= i < N (r+1) / P */
    for (long r = 0; r < o->n; r++) {
        int d = (int)(((o->idx[r] + 1) * (long)size - 1) / N);
        while (d > 0 && N * d / size > o->idx[r])
            d--;
        while (d < size - 1 && N * (d + 1) / size <= o->idx[r])
            d++;
        sc[d] += R;
    }
    for (int d = 1; d < size; d++)
        sd[d] = sd[d - 1] + sc[d - 1];
    int *fill = calloc((size_t)size, sizeof *fill);
    for (long r = 0; fill && r < o->n; r++) {
        int d = 0;
        while (d < size - 1 && N * (d + 1) / size <= o->idx[r])
            d++;
        double *row = sb + sd[d] + fill[d];
        fill[d] += R;
        row[0] = (double)o->idx[r], row[1] = o->vol[r], row[2] = o->deg[r];
        for (int q = 0; q < kmax; q++)
            row[3 + q] = q < o->kmax ? (double)o->nb[(size_t)r * o->kmax + q] : 0;
    }
    MPI_Alltoall(sc, 1, MPI_INT, rc, 1, MPI_INT, comm);
    for (int d = 1; d < size; d++)
        rd[d] = rd[d - 1] + rc[d - 1];
    long got = (rd[size - 1] + rc[size - 1]) / R;
    rve_status st = fill ? RVE_OK : rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    if (st == RVE_OK && got != *b1 - *b0)
        st = rve_err_set(err, RVE_EINTERNAL, "", "distributed tess: rank %d received %ld cells for a block of %ld",
                         rank, got, *b1 - *b0);
    double *tmp = st == RVE_OK ? malloc((size_t)(got ? got : 1) * R * sizeof *tmp) : NULL;
    MPI_Alltoallv(sb, sc, sd, MPI_DOUBLE, tmp ? tmp : *rows, rc, rd, MPI_DOUBLE, comm);
    for (long r = 0; tmp && r < got; r++) { /* into block order */
        long i = (long)tmp[(size_t)r * R] - *b0;
        memcpy(*rows + (size_t)i * R, tmp + (size_t)r * R, R * sizeof *tmp);
    }
    if (st == RVE_OK && !tmp)
        st = rve_err_set(err, RVE_ENOMEM, "", "out of memory");
    free(tmp), free(fill), free(sc), free(rc), free(sd), free(rd), free(sb);
    return st;
}

/* One dataset of the cell table: rows [b0, b1) of an (N, cols) array. */
static herr_t put_rows(hid_t f, const char *name, hid_t ft, hid_t mt, long N, int cols, long b0, long b1, hid_t dxpl,
                       const void *v)
{
    int rk = cols > 1 ? 2 : 1;
    hsize_t dims[2] = {(hsize_t)N, (hsize_t)(cols > 0 ? cols : 1)}, off[2] = {(hsize_t)b0, 0};
    hsize_t cnt[2] = {(hsize_t)(b1 - b0), dims[1]};
    hid_t fs = H5Screate_simple(rk, dims, NULL), ms = H5Screate_simple(rk, cnt, NULL);
    hid_t d = H5Dcreate2(f, name, ft, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    herr_t e = d < 0 ? -1 : 0;
    if (e == 0 && b1 > b0)
        e = H5Sselect_hyperslab(fs, H5S_SELECT_SET, off, NULL, cnt, NULL);
    else if (e == 0)
        e = H5Sselect_none(fs) < 0 || H5Sselect_none(ms) < 0 ? -1 : 0;
    if (e >= 0)
        e = H5Dwrite(d, mt, ms, fs, dxpl, v);
    if (d >= 0)
        H5Dclose(d);
    H5Sclose(fs), H5Sclose(ms);
    return e;
}

static rve_status write_cells(MPI_Comm comm, const char *tmp, const char *path, long N, int kmax, long b0, long b1,
                              const double *rows, const double *all, const double lo[3], const double hi[3],
                              rve_err *err)
{
    const int R = 3 + kmax;
    size_t nr = (size_t)(b1 - b0);
    double *vol = malloc((nr ? nr : 1) * sizeof *vol);
    int32_t *deg = malloc((nr ? nr : 1) * sizeof *deg), *nb = malloc((nr ? nr : 1) * (kmax ? kmax : 1) * sizeof *nb);
    rve_status st = vol && deg && nb ? RVE_OK : rve_err_set(err, RVE_ENOMEM, path, "out of memory");
    for (size_t r = 0; st == RVE_OK && r < nr; r++) {
        vol[r] = rows[r * R + 1];
        deg[r] = (int32_t)rows[r * R + 2];
        for (int q = 0; q < kmax; q++)
            nb[r * kmax + q] = (int32_t)rows[r * R + 3 + q];
    }
    st = rve_mpi_agree(comm, st, err);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS), dxpl = H5Pcreate(H5P_DATASET_XFER), f = -1;
    if (st == RVE_OK && (H5Pset_fapl_mpio(fapl, comm, MPI_INFO_NULL) < 0 || H5Pset_dxpl_mpio(dxpl, H5FD_MPIO_COLLECTIVE) < 0 ||
                         (f = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl)) < 0))
        st = rve_err_set(err, RVE_EIO, path, "cannot create the HDF5 file");
    if (f >= 0) {
        herr_t e = 0;
        hsize_t three = 3;
        hid_t s3 = H5Screate_simple(1, &three, NULL);
        hid_t a = H5Acreate2(f, "domain_lo", H5T_IEEE_F64LE, s3, H5P_DEFAULT, H5P_DEFAULT);
        e |= H5Awrite(a, H5T_NATIVE_DOUBLE, lo), H5Aclose(a);
        a = H5Acreate2(f, "domain_hi", H5T_IEEE_F64LE, s3, H5P_DEFAULT, H5P_DEFAULT);
        e |= H5Awrite(a, H5T_NATIVE_DOUBLE, hi), H5Aclose(a);
        H5Sclose(s3);
        e |= put_rows(f, "volume", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, 1, b0, b1, dxpl, vol);
        e |= put_rows(f, "degree", H5T_STD_I32LE, H5T_NATIVE_INT32, N, 1, b0, b1, dxpl, deg);
        e |= put_rows(f, "neighbours", H5T_STD_I32LE, H5T_NATIVE_INT32, N, kmax, b0, b1, dxpl, nb);
        if (all) /* seeds every rank holds: x y z w, each rank its block */
            e |= put_rows(f, "seeds", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, N, 4, b0, b1, dxpl, all + 4 * b0);
        if (H5Fclose(f) < 0 || e < 0)
            st = rve_err_set(err, RVE_EIO, path, "HDF5 write failed");
    }
    H5Pclose(fapl), H5Pclose(dxpl);
    free(vol), free(deg), free(nb);
    st = rve_mpi_agree(comm, st, err);
    int rank;
    MPI_Comm_rank(comm, &rank);
    if (st == RVE_OK && rank == 0 && rename(tmp, path) != 0)
        st = rve_err_set(err, RVE_EIO, path, "cannot rename the temporary file");
    st = rve_mpi_agree(comm, st, err);
    if (st != RVE_OK && rank == 0)
        remove(tmp);
    return st;
}

rve_status rve_mpi_tess_cells(MPI_Comm comm, const rve_mpi_seeds *seeds, const double lo[3], const double hi[3],
                              const char *path, rve_mpi_tess_info *info, rve_err *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    rve_mpi_tess_info dummy;
    if (!info)
        info = &dummy;
    memset(info, 0, sizeof *info);
    rve_status st = mpi_seeds_check(seeds, "tess", err);
    if (st == RVE_OK && !(hi[0] > lo[0] && hi[1] > lo[1] && hi[2] > lo[2]))
        st = rve_err_set(err, RVE_EUSAGE, "", "distributed tess: empty box");
    double z0 = lo[2] + (hi[2] - lo[2]) * rank / size, z1 = rank == size - 1 ? hi[2] : lo[2] + (hi[2] - lo[2]) * (rank + 1) / size;
    mpi_owned o;
    memset(&o, 0, sizeof o);
    double t0 = MPI_Wtime();
    if (st == RVE_OK)
        st = mpi_build_slab(seeds, lo, hi, z0, z1, rank == size - 1, &o, info, err);
    info->cells_owned = o.n;
    info->seconds_build = MPI_Wtime() - t0;
    st = rve_mpi_agree(comm, st, err);
    long total = 0;
    int kmax = 0;
    MPI_Allreduce(&o.n, &total, 1, MPI_LONG, MPI_SUM, comm);
    MPI_Allreduce(&o.kmax, &kmax, 1, MPI_INT, MPI_MAX, comm);
    if (st == RVE_OK && total != seeds->n)
        st = rve_err_set(err, RVE_EINTERNAL, "", "distributed tess: %ld cells owned for %ld seeds", total, seeds->n);
    double *rows = NULL;
    long b0 = 0, b1 = 0;
    t0 = MPI_Wtime();
    if (st == RVE_OK)
        st = rve_mpi_agree(comm, redistribute(comm, seeds->n, &o, kmax, &rows, &b0, &b1, err), err);
    mpi_owned_free(&o);
    size_t n = strlen(path) + 16;
    char *tmp = malloc(n);
    if (st == RVE_OK)
        st = rve_mpi_agree(comm, tmp ? RVE_OK : rve_err_set(err, RVE_ENOMEM, path, "out of memory"), err);
    if (st == RVE_OK) {
        snprintf(tmp, n, "%s.rve-tmp", path);
        H5E_auto2_t efunc;
        void *edata;
        H5Eget_auto2(H5E_DEFAULT, &efunc, &edata);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
        st = write_cells(comm, tmp, path, seeds->n, kmax, b0, b1, rows, seeds->all, lo, hi, err);
        H5Eset_auto2(H5E_DEFAULT, efunc, edata);
    }
    info->seconds_write = MPI_Wtime() - t0;
    info->max_degree = kmax;
    free(tmp), free(rows);
    if (st != RVE_OK && err && !err->file[0])
        snprintf(err->file, sizeof err->file, "%s", path);
    return st;
}

/* mpi_lloyd.c - one distributed Lloyd step of the prescribed-volume
 * synthesis (rve_mpi_lloyd_step): every rank builds the cells of its z slab
 * and the centroids are summed over the ranks. */
#include "config.h"
#include "mpi/mpi_internal.h"
#include <stdlib.h>
#include <string.h>

rve_status rve_mpi_lloyd_step(MPI_Comm comm, size_t n, double *seeds, const double *w, const double domain[3],
                              rve_err *err)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    double lo[3] = {0, 0, 0}, hi[3] = {domain[0], domain[1], domain[2]};
    double z0 = domain[2] * rank / size, z1 = rank == size - 1 ? domain[2] : domain[2] * (rank + 1) / size;
    double *s4 = malloc((n ? n : 1) * 4 * sizeof *s4), *c = calloc((n ? n : 1) * 3, sizeof *c);
    rve_status st = s4 && c && n <= INT32_MAX ? RVE_OK : rve_err_set(err, RVE_ENOMEM, "", "out of memory (%zu cells)", n);
    mpi_owned o;
    memset(&o, 0, sizeof o);
    if (st == RVE_OK) {
        for (size_t i = 0; i < n; i++) {
            memcpy(s4 + 4 * i, seeds + 3 * i, 3 * sizeof *s4);
            s4[4 * i + 3] = w[i];
        }
        rve_mpi_seeds src = {(long)n, s4, NULL, NULL, NULL, NULL, NULL};
        rve_mpi_tess_info ti;
        memset(&ti, 0, sizeof ti);
        st = mpi_build_slab(&src, lo, hi, z0, z1, rank == size - 1, &o, &ti, err);
    }
    st = rve_mpi_agree(comm, st, err);
    long total = 0;
    MPI_Allreduce(&o.n, &total, 1, MPI_LONG, MPI_SUM, comm);
    if (st == RVE_OK && total != (long)n)
        st = rve_err_set(err, RVE_EINTERNAL, "", "distributed Lloyd step: %ld cells owned for %zu seeds", total, n);
    if (st == RVE_OK) {
        for (long r = 0; r < o.n; r++) { /* as the serial step: a cell without volume keeps its seed */
            size_t i = (size_t)o.idx[r];
            memcpy(c + 3 * i, o.vol[r] > 0 ? o.cen + 3 * (size_t)r : seeds + 3 * i, 3 * sizeof *c);
        }
        MPI_Allreduce(MPI_IN_PLACE, c, (int)(3 * n), MPI_DOUBLE, MPI_SUM, comm);
        memcpy(seeds, c, 3 * n * sizeof *c);
    }
    mpi_owned_free(&o);
    free(s4);
    free(c);
    return st;
}

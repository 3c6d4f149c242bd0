/* mpi_core.c - what every distributed command needs: was the process
 * started by mpirun, one agreed error for all ranks, the slab of a rank. */
#include "config.h"
#include <rve/mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int rve_mpi_launched(void)
{
    static const char *const vars[] = {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_RANK", "PMI_SIZE"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++)
        if (getenv(vars[i]))
            return 1;
    return 0;
}

rve_status rve_mpi_agree(MPI_Comm comm, rve_status st, rve_err *err)
{
    int rank, size, first;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int mine = st != RVE_OK ? rank : size;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size)
        return RVE_OK;
    rve_err e;
    if (rank == first) {
        if (err)
            e = *err;
        else
            rve_err_clear(&e);
        e.code = st;
        if (!e.msg[0])
            snprintf(e.msg, sizeof e.msg, "failed on rank %d (%s)", rank, rve_status_name(st));
    }
    MPI_Bcast(&e, (int)sizeof e, MPI_BYTE, first, comm);
    if (err)
        *err = e;
    return e.code;
}

void rve_mpi_layers(int nz, int rank, int size, int *k0, int *k1)
{
    if (size < 1 || nz < 0 || rank < 0 || rank >= size) {
        *k0 = *k1 = 0;
        return;
    }
    int q = nz / size, r = nz % size;
    *k0 = rank * q + (rank < r ? rank : r);
    *k1 = *k0 + q + (rank < r ? 1 : 0);
}

/* mpi_fit.c - the distributed fit (rve_mpi_fit, docs/mpi.md): each rank
 * fits the grains of its z slab with the serial rve_fit on its slab plus a
 * halo, the other grains' seeds frozen, and the seeds are exchanged after
 * every round. */
#include "config.h"
#define _POSIX_C_SOURCE 200809L
#include "mpi/mpi_fit_int.h"
#include "util/mathconst.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Wait for every rank without spinning: the ranks that sit out a coloured
 * round would otherwise poll inside the next collective (OpenMPI busy-waits)
 * and burn a core each for nothing.  A non-blocking barrier tested every
 * millisecond (at most about 28 hours, then a plain wait). */
static void quiet_barrier(MPI_Comm comm)
{
    MPI_Request rq;
    MPI_Ibarrier(comm, &rq);
    int done = 0;
    const struct timespec ms = {0, 1000000};
    for (long i = 0; !done && i < 100000000L; i++) {
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (!done)
            nanosleep(&ms, NULL);
    }
    if (!done)
        MPI_Wait(&rq, MPI_STATUS_IGNORE);
}

/* One rank's sub-fit: the grains present in sub (layers s0..), those the
 * rank owns moving, the others frozen at X (4 per label: x y z W, W = w^2
 * in the common gauge); the owned grains' results go to Y in that gauge
 * (Y zero elsewhere). */
static rve_status sub_fit(const rve_map *sub, const mpi_grains *g, int rank, int free_all, const double *X,
                          const rve_fit_opts *o, double *Y, int *nsub, rve_err *err)
{
    size_t nl1 = (size_t)g->nl + 1, nv = (size_t)sub->nx * sub->ny * sub->nz;
    unsigned char *here = calloc(nl1, 1);
    if (!here)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    for (size_t v = 0; v < nv; v++)
        if (sub->lab[v] <= g->nl)
            here[sub->lab[v]] = 1;
    int ns = 0, nown = 0;
    for (size_t l = 1; l < nl1; l++)
        if (here[l])
            ns++, nown += g->owner[l] == rank;
    *nsub = ns;
    double *seed = malloc((size_t)(ns ? ns : 1) * 3 * sizeof(double));
    double *w = malloc((size_t)(ns ? ns : 1) * sizeof(double));
    unsigned char *fz = malloc((size_t)(ns ? ns : 1));
    rve_status st = seed && w && fz ? RVE_OK : rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    double shift = INFINITY; /* weights are radii: the common gauge shifted to make them real */
    for (size_t l = 1; l < nl1; l++)
        if (here[l] && X[4 * l + 3] < shift)
            shift = X[4 * l + 3];
    int k = 0;
    for (size_t l = 1; st == RVE_OK && l < nl1; l++)
        if (here[l]) {
            memcpy(seed + 3 * (size_t)k, X + 4 * l, 3 * sizeof(double));
            w[k] = sqrt(X[4 * l + 3] - shift);
            fz[k++] = !free_all && g->owner[l] != rank;
        }
    rve_fit_result fr;
    memset(&fr, 0, sizeof fr);
    if (st == RVE_OK && nown > 0) {
        rve_fit_opts so = *o;
        so.init_seed = seed, so.init_weight = w, so.frozen = fz;
        so.progress = NULL;
        st = rve_fit(sub, &so, &fr, err);
        if (st == RVE_OK && fr.n != ns)
            st = rve_err_set(err, RVE_EINTERNAL, NULL, "sub-fit of %d grains returned %d cells", ns, fr.n);
    }
    if (st == RVE_OK && nown > 0) {
        /* back to the common gauge (rve_fit_result.weight_shift) */
        for (int q = 0; q < ns; q++) {
            uint32_t l = fr.label[q];
            if (l > g->nl || g->owner[l] != rank)
                continue;
            memcpy(Y + 4 * (size_t)l, fr.seed + 3 * (size_t)q, 3 * sizeof(double));
            Y[4 * (size_t)l + 3] = fr.weight[q] * fr.weight[q] + fr.weight_shift + shift;
        }
    }
    rve_fit_result_free(&fr);
    free(here);
    free(seed);
    free(w);
    free(fz);
    return st;
}

/* The serial fit's initial guess of the whole map: centroids and
 * equivalent-sphere weights (W = r^2 in voxel lengths L, times L^2). */
static void initial_state(const rve_mpi_map_src *src, const mpi_grains *g, double *X)
{
    double L = cbrt(src->h[0] * src->h[1] * src->h[2]);
    for (size_t l = 1; l <= g->nl; l++) {
        const double *a = g->sum + 4 * l;
        double *x = X + 4 * l;
        if (a[3] <= 0) {
            memset(x, 0, 4 * sizeof(double));
            continue;
        }
        for (int q = 0; q < 3; q++)
            x[q] = src->origin[q] + src->h[q] * (a[q] / a[3]);
        double r = cbrt(3.0 * a[3] / (4.0 * M_PI)) * L;
        x[3] = r * r;
    }
}

/* The result: the state X (4 per label) as n seeds and Neper weights in
 * label order, the smallest weight 0. */
static rve_status fill_result(const rve_mpi_map_src *src, const mpi_grains *g, const double *X,
                              rve_fit_result *r, rve_err *err)
{
    int n = g->n;
    double *s4 = malloc((size_t)(n ? n : 1) * 4 * sizeof(double)), lo[3], hi[3];
    if (!s4)
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    r->n = n;
    r->label = malloc((size_t)(n ? n : 1) * sizeof(uint32_t));
    r->seed = malloc((size_t)(n ? n : 1) * 3 * sizeof(double));
    r->weight = malloc((size_t)(n ? n : 1) * sizeof(double));
    if (!r->label || !r->seed || !r->weight) {
        free(s4);
        return rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    }
    int k = 0;
    for (size_t l = 1; l <= g->nl; l++)
        if (g->sum[4 * l + 3] > 0) {
            r->label[k] = (uint32_t)l;
            memcpy(s4 + 4 * (size_t)k++, X + 4 * l, 4 * sizeof(double));
        }
    /* the seeds inside the map's box, as the serial fit returns them */
    for (int a = 0; a < 3; a++) {
        lo[a] = src->origin[a];
        hi[a] = lo[a] + src->h[a] * (a == 0 ? src->nx : a == 1 ? src->ny : src->nz);
    }
    rve_fit_keep_inside(n, s4, lo, hi);
    double wmin = INFINITY;
    for (k = 0; k < n; k++)
        wmin = fmin(wmin, s4[4 * k + 3]);
    for (k = 0; k < n; k++) {
        memcpy(r->seed + 3 * (size_t)k, s4 + 4 * (size_t)k, 3 * sizeof(double));
        r->weight[k] = sqrt(s4[4 * k + 3] - wmin);
    }
    free(s4);
    return RVE_OK;
}

/* One process: the serial fit of the whole map. */
static rve_status fit_alone(const rve_mpi_map_src *src, const rve_fit_opts *o, rve_fit_result *r,
                            rve_mpi_fit_info *info, rve_err *err)
{
    rve_map *m = NULL;
    rve_status st = src->read(src->ctx, 0, src->nz, &m, err);
    double t0 = MPI_Wtime();
    if (st == RVE_OK)
        st = rve_fit(m, o, r, err);
    info->seconds_fit = MPI_Wtime() - t0;
    info->k1 = info->s1 = src->nz;
    info->grains = info->owned = info->sub_grains = r->n;
    info->rounds = 1;
    info->acc_round[0] = r->acc_init;
    info->acc_round[1] = r->acc_final;
    rve_map_free(m);
    return st;
}

/* The exchange after a round: the seeds of the grains owned by the ranks
 * that fitted in it (active[r]) go from Y (their owner's values) into X on
 * every rank, one MPI_Allgatherv of 4 doubles per such grain, in label
 * order (every rank knows every grain's owner); the other grains did not
 * move.  buf: 4 (nl + 1) doubles of room; cnt, dsp: size ints each.
 * Returns the bytes gathered (the same on every rank). */
static double exchange(MPI_Comm comm, const mpi_grains *g, const unsigned char *active, const double *Y, double *X,
                       double *buf, int *cnt, int *dsp)
{
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    for (int r = 0; r < size; r++)
        cnt[r] = 0;
    for (size_t l = 1; l <= g->nl; l++)
        if (g->owner[l] >= 0 && active[g->owner[l]])
            cnt[g->owner[l]] += 4;
    int at = 0;
    for (int r = 0; r < size; r++)
        dsp[r] = at, at += cnt[r];
    double *mine = buf + dsp[rank]; /* this rank's block, sent in place */
    for (size_t l = 1, k = 0; active[rank] && l <= g->nl; l++)
        if (g->owner[l] == rank)
            memcpy(mine + 4 * k++, Y + 4 * l, 4 * sizeof(double));
    MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, cnt, dsp, MPI_DOUBLE, comm);
    for (int r = 0; r < size; r++)
        cnt[r] = dsp[r]; /* read positions */
    for (size_t l = 1; l <= g->nl; l++) {
        int o = g->owner[l];
        if (o >= 0 && active[o]) {
            memcpy(X + 4 * l, buf + cnt[o], 4 * sizeof(double));
            cnt[o] += 4;
        }
    }
    return (double)at * sizeof(double);
}

/* Copies the layers of part (if any) into lab at layer offset at and frees it. */
static void put_layers(uint32_t *lab, size_t layer, int at, rve_map *part, uint32_t *nlabels)
{
    if (!part)
        return;
    memcpy(lab + layer * (size_t)at, part->lab, layer * (size_t)part->nz * sizeof *lab);
    *nlabels = part->nlabels > *nlabels ? part->nlabels : *nlabels;
    rve_map_free(part);
}

/* The sub-map of layers [s0, s1) from the slab [k0, k1) (taken, *slab
 * NULL after) and the halo layers below and above it, read from src.  The
 * slab's voxels are grown in place (realloc: glibc remaps large blocks
 * without copying) so the slab is never held twice; only one halo part is
 * in memory beside it at a time. */
static rve_status with_halo(const rve_mpi_map_src *src, rve_map **slab, int k0, int k1, int s0, int s1,
                            rve_map **sub, rve_err *err)
{
    size_t layer = (size_t)src->nx * src->ny, nk = (size_t)(k1 - k0);
    rve_map *m = calloc(1, sizeof *m), *part = NULL;
    uint32_t *lab = m ? realloc((*slab)->lab, layer * (size_t)(s1 - s0) * sizeof *lab) : NULL;
    rve_status st = lab ? RVE_OK : rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK) {
        (*slab)->lab = NULL; /* now m's */
        m->lab = lab;
        m->nx = src->nx, m->ny = src->ny, m->nz = s1 - s0;
        m->nlabels = (*slab)->nlabels;
        memmove(lab + layer * (size_t)(k0 - s0), lab, layer * nk * sizeof *lab);
        memcpy(m->h, src->h, sizeof m->h);
        memcpy(m->origin, src->origin, sizeof m->origin);
        m->origin[2] += s0 * src->h[2];
    }
    if (st == RVE_OK && s0 < k0 && (st = src->read(src->ctx, s0, k0, &part, err)) == RVE_OK)
        put_layers(lab, layer, 0, part, &m->nlabels);
    if (st == RVE_OK && k1 < s1 && (st = src->read(src->ctx, k1, s1, &part, err)) == RVE_OK)
        put_layers(lab, layer, k1 - s0, part, &m->nlabels);
    rve_map_free(*slab);
    *slab = NULL;
    if (st != RVE_OK) {
        rve_map_free(m);
        m = NULL;
    }
    *sub = m;
    return st;
}

/* Colours of the frozen rounds: ranks c apart fit together when their
 * grains cannot touch, that is when c - 1 whole slabs (the thinnest, nz / P
 * layers) lie between their slabs and cover the largest grain's extent. */
static int fit_colours(int nz, int size, int halo)
{
    int thin = nz / size;
    if (thin < 1)
        return size;
    int c = 2 + (halo - 1) / thin;
    return c > size ? size : c;
}

rve_status rve_mpi_fit(MPI_Comm comm, const rve_mpi_map_src *src, const rve_fit_opts *o, int sweeps,
                       rve_fit_result *r, rve_mpi_fit_info *info, rve_err *err)
{
    rve_mpi_fit_info inf;
    memset(&inf, 0, sizeof inf);
    memset(r, 0, sizeof *r);
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    sweeps = sweeps < 0 ? 0 : sweeps;
    if (size == 1) {
        rve_status st = fit_alone(src, o, r, &inf, err);
        if (info)
            *info = inf;
        return st;
    }
    rve_mpi_layers(src->nz, rank, size, &inf.k0, &inf.k1);
    int k0 = inf.k0, k1 = inf.k1;
    rve_map *slab = NULL, *sub = NULL;
    rve_status st = k1 > k0 ? src->read(src->ctx, k0, k1, &slab, err) : RVE_OK;
    mpi_grains g;
    memset(&g, 0, sizeof g);
    double *X = NULL, *Y = NULL, *B = NULL, *E = NULL;
    int *cnt = NULL, *dsp = NULL;
    unsigned char *act = NULL;
    if ((st = rve_mpi_agree(comm, st, err)) != RVE_OK)
        goto out;
    if ((st = mpi_grains_reduce(comm, src, slab, k0, &g, err)) != RVE_OK)
        goto out;
    inf.halo = g.halo;
    inf.grains = g.n;
    inf.s0 = k0 - g.halo > 0 ? k0 - g.halo : 0;
    inf.s1 = k1 + g.halo < src->nz ? k1 + g.halo : src->nz;
    if (k1 <= k0)
        inf.s0 = inf.s1 = k0;
    for (size_t l = 1; l <= g.nl; l++)
        inf.owned += g.owner[l] == rank;
    size_t n4 = 4 * ((size_t)g.nl + 1);
    X = calloc(n4, sizeof(double)), Y = calloc(n4, sizeof(double)), B = calloc(n4, sizeof(double));
    E = malloc(n4 * sizeof(double)), cnt = malloc(2 * (size_t)size * sizeof(int)), act = malloc((size_t)size);
    dsp = cnt ? cnt + size : NULL;
    st = X && Y && B && E && cnt && act ? RVE_OK : rve_err_set(err, RVE_ENOMEM, NULL, "out of memory");
    if (st == RVE_OK && inf.s1 > inf.s0)
        st = with_halo(src, &slab, k0, k1, inf.s0, inf.s1, &sub, err); /* only the halo layers are read */
    if ((st = rve_mpi_agree(comm, st, err)) != RVE_OK)
        goto out;
    const uint32_t *own = sub ? sub->lab + (size_t)src->nx * src->ny * (size_t)(k0 - inf.s0) : NULL;
    initial_state(src, &g, X);
    if ((st = mpi_fit_accuracy(comm, src, own, k0, k1, &g, X, &inf.acc_round[0], err)) != RVE_OK)
        goto out;
    memcpy(B, X, n4 * sizeof(double));
    double best = inf.acc_round[0];
    int colours = fit_colours(src->nz, size, g.halo);
    int rounds = 1 + sweeps * colours;
    rounds = rounds > RVE_MPI_FIT_ROUNDS_MAX ? RVE_MPI_FIT_ROUNDS_MAX : rounds;
    inf.colours = colours;
    for (int rd = 1; rd <= rounds; rd++) {
        /* Round 1: every rank fits all the grains of its slab and halo from
         * the initial guess (an overlapping decomposition: each keeps the
         * grains it owns).  Then sweeps of coloured rounds: the ranks of one
         * colour (rank mod colours) fit, moving only their grains against
         * all others' latest seeds (frozen); the others hand on their seeds
         * unchanged. */
        int free_all = rd == 1, active = free_all || (rd - 2) % colours == rank % colours;
        memset(Y, 0, n4 * sizeof(double));
        for (size_t l = 1; l <= g.nl; l++)
            if (g.owner[l] == rank)
                memcpy(Y + 4 * l, X + 4 * l, 4 * sizeof(double));
        double t0 = MPI_Wtime();
        st = sub && active ? sub_fit(sub, &g, rank, free_all, X, o, Y, &inf.sub_grains, err) : RVE_OK;
        inf.seconds_fit += MPI_Wtime() - t0;
        quiet_barrier(comm);
        if ((st = rve_mpi_agree(comm, st, err)) != RVE_OK)
            goto out;
        /* exchange: the moved grains only, from their owners */
        for (int q = 0; q < size; q++)
            act[q] = free_all || (rd - 2) % colours == q % colours;
        inf.exchange_bytes += exchange(comm, &g, act, Y, X, E, cnt, dsp);
        if ((st = mpi_fit_accuracy(comm, src, own, k0, k1, &g, X, &inf.acc_round[rd], err)) != RVE_OK)
            goto out;
        inf.rounds = rd;
        if (inf.acc_round[rd] > best) {
            best = inf.acc_round[rd];
            memcpy(B, X, n4 * sizeof(double));
        }
    }
    st = rve_mpi_agree(comm, fill_result(src, &g, B, r, err), err);
    r->acc_init = inf.acc_round[0];
    r->acc_final = r->acc_polish = best;
    r->rounds = inf.rounds;
out:
    if (info)
        *info = inf;
    rve_map_free(slab);
    rve_map_free(sub);
    mpi_grains_free(&g);
    free(X);
    free(Y);
    free(B);
    free(E);
    free(cnt);
    free(act);
    return st;
}

/* pcg.h - Jacobi-preconditioned conjugate gradients for L x = b with L
 * symmetric positive (semi-)definite, given as a product callback.
 *
 * One body for the serial prescribed-volume solver (src/optim/pvol.c) and
 * its distributed twin (src/mpi/mpi_pvol.c, a library of its own that sees
 * only librve's exported API): hence a static function in a header rather
 * than an exported symbol.  Each process owns m rows; `sum` reduces a local
 * partial dot product over the processes (NULL: serial), so both solvers
 * take the same steps in the same arithmetic order. */
#ifndef RVE_UTIL_PCG_H
#define RVE_UTIL_PCG_H

#include <math.h>
#include <stddef.h>

typedef struct {
    void (*mul)(void *ctx, const double *x, double *y); /* y = L x over the owned rows */
    double (*sum)(void *ctx, double local);             /* global sum of local partial sums, or NULL */
    void *ctx;
} pcg_ops;

static inline double pcg_sum(const pcg_ops *o, double s)
{
    return o->sum ? o->sum(o->ctx, s) : s;
}

/* Solves from x = 0 until |r| <= tol |b| or maxit iterations; diag is L's
 * diagonal (the preconditioner; rows with diag <= 0 are not scaled); work
 * holds 4 m doubles.  Returns the iterations done. */
static inline int pcg_jacobi(size_t m, const double *diag, const double *b, double *x, double tol, int maxit,
                             double *work, const pcg_ops *o)
{
    double *r = work, *z = work + m, *p = work + 2 * m, *q = work + 3 * m, s = 0;
    for (size_t i = 0; i < m; i++) {
        x[i] = 0, r[i] = b[i];
        s += b[i] * b[i];
    }
    double bn = sqrt(pcg_sum(o, s));
    if (bn == 0)
        return 0;
    s = 0;
    for (size_t i = 0; i < m; i++) {
        z[i] = diag[i] > 0 ? r[i] / diag[i] : r[i];
        p[i] = z[i];
        s += r[i] * z[i];
    }
    double rz = pcg_sum(o, s);
    int it;
    for (it = 1; it <= maxit; it++) {
        o->mul(o->ctx, p, q);
        s = 0;
        for (size_t i = 0; i < m; i++)
            s += p[i] * q[i];
        double pq = pcg_sum(o, s);
        if (!(pq > 0))
            break;
        double al = rz / pq, rn = 0;
        for (size_t i = 0; i < m; i++) {
            x[i] += al * p[i];
            r[i] -= al * q[i];
            rn += r[i] * r[i];
        }
        if (sqrt(pcg_sum(o, rn)) <= tol * bn)
            break;
        s = 0;
        for (size_t i = 0; i < m; i++) {
            z[i] = diag[i] > 0 ? r[i] / diag[i] : r[i];
            s += r[i] * z[i];
        }
        double rz2 = pcg_sum(o, s), be = rz2 / rz;
        rz = rz2;
        for (size_t i = 0; i < m; i++)
            p[i] = z[i] + be * p[i];
    }
    return it;
}

#endif

/* synth.h - internals of the synthesis code (not installed). */
#ifndef RVE_OPTIM_SYNTH_H
#define RVE_OPTIM_SYNTH_H

#include <rve/optim.h>
#include <rve/tess.h>

typedef struct {
    size_t n;
    double domain[3];
    int periodic;
    int keep;            /* keep the voro++ container (for rve_tess_update) */
    double *s4;          /* 4 n: seeds and radii handed to rve_tess_build */
    size_t *off;         /* Laplacian CSR */
    int *col;
    double *val;
    size_t cap;
    int tess_calls;
    int newton_iterations;
    long cg_iterations;
    double max_rel_err;
    double tess_seconds;
} synth_ctx;

/* Squared distance from seed i to the seed across face f of its cell p (the
 * periodic image of it when the domain is periodic): the |s_i - s_j| of the
 * volume Hessian's entries area / (2 |s_i - s_j|). */
static inline double synth_face_dist2(const synth_ctx *c, const double *seeds, size_t i, const rve_tess_poly *p, int f)
{
    size_t j = (size_t)p->fnbr[f];
    int sh[3] = {0, 0, 0};
    if (c->periodic)
        rve_tess_img_unpack(p->fimg[f], sh);
    double d2 = 0;
    for (int a = 0; a < 3; a++) {
        double x = seeds[3 * j + a] + sh[a] * c->domain[a] - seeds[3 * i + a];
        d2 += x * x;
    }
    return d2;
}

/* rve_smooth_cdf_distance on x, which it sorts in place; never allocates. */
double synth_smooth_cdf_distance_inplace(double *x, size_t n, double h, const rve_distrib *d, int m);
/* rve_ks_distance on x, which it sorts in place; never allocates. */
double synth_ks_distance_inplace(double *x, size_t n, const rve_distrib *d);

rve_status synth_ctx_init(synth_ctx *c, size_t n, const double domain[3], int periodic, rve_err *err);
void synth_ctx_free(synth_ctx *c);
/* Tessellation of seeds (3 n) with psi = squared radii (shifted so min is 0). */
rve_status synth_tess(synth_ctx *c, const double *seeds, const double *psi, rve_tess **out, rve_err *err);
/* Damped Newton for the volumes target (summing to the domain volume); psi
 * in/out.  On success (or RVE_ECAP) *tess_out (if not NULL) gets the last
 * tessellation. */
rve_status synth_pvol(synth_ctx *c, const double *seeds, const double *target, double *psi,
                      const rve_pvol_params *p, rve_pvol_info *info, rve_tess **tess_out, rve_err *err);

#endif

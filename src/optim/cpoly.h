/* cpoly.h - small convex polytopes built by clipping a box with half-spaces
 * (internal to src/optim).  Used to evaluate one Laguerre cell at a time,
 * re-entrantly, during local optimisation: cell k = box ∩ {x : pd_k(x) <= pd_j(x)}
 * for the candidate seeds j, pd_j(x) = |x - s_j|^2 - t_j.
 *
 * Fixed capacities (no allocation in the hot loop); overflow is reported. */
#ifndef RVE_OPTIM_CPOLY_H
#define RVE_OPTIM_CPOLY_H

#define CP_MAXV 320   /* vertices */
#define CP_MAXF 120   /* faces */
#define CP_MAXI 1600  /* total face-vertex incidences */

typedef struct {
    int nv, nf, ni;
    int overflow;            /* a capacity was exceeded: the result is unreliable */
    double v[CP_MAXV][3];
    int fid[CP_MAXF];        /* plane id: >= 0 a neighbour seed, -1..-6 the box faces x-, x+, y-, y+, z-, z+ */
    double fn[CP_MAXF][3];   /* unit outward normal */
    double fd[CP_MAXF];      /* plane: fn . x = fd; inside: fn . x <= fd */
    int fs[CP_MAXF], fc[CP_MAXF]; /* face f's vertices: fvi[fs[f] .. fs[f] + fc[f] - 1], cyclic */
    int fvi[CP_MAXI];
} cpoly;

/* P = the box [lo, hi]. */
void cpoly_box(cpoly *P, const double lo[3], const double hi[3]);

/* Q = P ∩ {x : n . x <= d} (n need not be unit; it must be nonzero).  Returns 1
 * if the plane cut P, 0 if it was redundant (Q untouched: caller keeps P).
 * An empty result has nv == 0.  P and Q must differ. */
int cpoly_clip(const cpoly *P, cpoly *Q, const double n[3], double d, int id);

/* Laguerre cell of seed k (xk = x, y, z, t) clipped against the seeds listed
 * in cand (xs: 4 doubles per seed; cand entries equal to k are ignored).
 * override/ov: when override >= 0, seed `override` is read from ov instead of xs.
 * Uses two work polytopes; the result is returned (points into one of them). */
const cpoly *cpoly_laguerre_cell(cpoly *work0, cpoly *work1, const double lo[3], const double hi[3],
                                 const double *xs, int k, const int *cand, int ncand,
                                 int override, const double ov[4]);

/* Volume of P (by faces fanned from a point). */
double cpoly_volume(const cpoly *P);

/* Largest signed distance of p to P's face planes (<= 0: inside or on). */
static inline double cpoly_plane_excess(const cpoly *P, const double p[3])
{
    double m = -1e300;
    for (int f = 0; f < P->nf; f++) {
        double s = P->fn[f][0] * p[0] + P->fn[f][1] * p[1] + P->fn[f][2] * p[2] - P->fd[f];
        if (s > m)
            m = s;
    }
    return m;
}

#endif

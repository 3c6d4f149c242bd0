/* rve/ori.h - crystal orientations: descriptors and conversions, crystal
 * symmetry (Laue groups), fundamental zone, misorientation, mean orientation,
 * grain orientation spread, uniform random sampling.
 *
 * ONE CONVENTION (docs/orientations.md has the details and the conversions
 * from other programs): passive rotations with P = -1, as in Rowenhorst et
 * al., "Consistent representations of and conversions between 3D rotations",
 * Modelling Simul. Mater. Sci. Eng. 23 (2015) 083501, followed by DREAM3D and
 * DAMASK.  An orientation g maps sample coordinates to crystal coordinates:
 * v_crystal = g v_sample.  Its quaternion q = (w, x, y, z) = (cos(w/2),
 * n sin(w/2)) for the passive rotation by angle w about axis n, and is kept
 * with w >= 0.  Angles are in radians everywhere in this API.
 *
 * Composition: the matrix of the quaternion product a*b is om(b) om(a); the
 * symmetric equivalents of q are q * s for the proper rotations s of the
 * Laue group; the misorientation from a to b is conj(a) * b. */
#ifndef RVE_ORI_H
#define RVE_ORI_H

#include <rve/util.h>
#include <rve/pack.h> /* rve_rng: the library's one random generator */
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------ descriptors */
typedef enum {
    RVE_ORI_QUATERNION = 0, /* w, x, y, z (unit) */
    RVE_ORI_RODRIGUES,      /* Rodrigues-Frank vector n tan(w/2) (3 values) */
    RVE_ORI_EULER_BUNGE,    /* phi1, Phi, phi2 (ZXZ) */
    RVE_ORI_EULER_KOCKS,    /* Psi, Theta, phi = phi1 - pi/2, Phi, pi/2 - phi2 */
    RVE_ORI_EULER_ROE,      /* psi, theta, phi (ZYZ) = phi1 - pi/2, Phi, phi2 + pi/2 */
    RVE_ORI_MATRIX,         /* 9 values, row-major: g[3 i + j] */
    RVE_ORI_AXISANGLE       /* nx, ny, nz, angle */
} rve_ori_des;
#define RVE_ORI_NDES 7

typedef enum {
    RVE_ORI_PASSIVE = 0, /* ours: sample -> crystal */
    RVE_ORI_ACTIVE = 1   /* the inverse rotation: crystal -> sample */
} rve_ori_conv;

/* How a file writes orientations. */
typedef struct {
    rve_ori_des des;
    rve_ori_conv conv;
    int degrees; /* Euler angles and the axis-angle angle are in degrees */
} rve_ori_spec;

/* Values per orientation (4, 3, 3, 3, 3, 9, 4). */
int rve_ori_des_size(rve_ori_des d);
/* Neper's name of a descriptor ("quaternion", "rodrigues", "euler-bunge",
 * "euler-kocks", "euler-roe", "rotmat", "axis-angle"). */
const char *rve_ori_des_name(rve_ori_des d);

/* A Neper descriptor string ("rodrigues", "euler-bunge:passive", ...) in a
 * .tess/.tesr file of format `format_version` (e.g. 2.0, 3.5) -> spec in OUR
 * convention.  Neper writes Euler and axis-angle angles in degrees.  Neper's
 * labels: before format 3.5 (Neper < 4.10) "active" (also the default when no
 * label is given) described what Rowenhorst calls passive; from 3.5 on the
 * labels mean what they say (docs/orientations.md).  RVE_EUSAGE with a
 * message for an unknown descriptor or label. */
rve_status rve_ori_parse_descriptor(const char *s, double format_version, rve_ori_spec *out,
                                    rve_err *err);

/* Values of descriptor sp -> unit quaternion in our convention.  Refused
 * (RVE_EDATA, message naming the values): NaN or infinite values (except an
 * infinite Rodrigues component, a rotation by pi), quaternions or axes whose
 * norm is off 1 by more than 1e-3, matrices not orthonormal to 1e-3 or with
 * determinant -1.  Nearly unit input is normalised. */
rve_status rve_ori_to_quat(const rve_ori_spec *sp, const double *v, double q[4], rve_err *err);
/* Quaternion (our convention) -> values of descriptor sp. */
void rve_ori_from_quat(const double q[4], const rve_ori_spec *sp, double *v);

/* Plain conversions, our convention, radians; outputs of *2qu have w >= 0,
 * Euler angles phi1, phi2 in [0, 2 pi), Phi in [0, pi]; qu2ax angle in [0, pi]. */
void rve_ori_eu2qu(const double eu[3], double q[4]);
void rve_ori_qu2eu(const double q[4], double eu[3]);
void rve_ori_om2qu(const double om[9], double q[4]);
void rve_ori_qu2om(const double q[4], double om[9]);
void rve_ori_ax2qu(const double ax[4], double q[4]);
void rve_ori_qu2ax(const double q[4], double ax[4]);
/* A rotation by pi has infinite Rodrigues components: qu2ro writes +-inf
 * where the axis component is non-zero (so only axes along x, y or z survive
 * the trip back exactly); ro2qu accepts them. */
void rve_ori_ro2qu(const double ro[3], double q[4]);
void rve_ori_qu2ro(const double q[4], double ro[3]);
/* Euler conventions from / to Bunge (same rotation, other angles). */
void rve_ori_kocks2bunge(const double k[3], double eu[3]);
void rve_ori_bunge2kocks(const double eu[3], double k[3]);
void rve_ori_roe2bunge(const double r[3], double eu[3]);
void rve_ori_bunge2roe(const double eu[3], double r[3]);

/* --------------------------------------------------------- quaternion ops */
void rve_ori_qmul(const double a[4], const double b[4], double out[4]);
void rve_ori_qconj(const double q[4], double out[4]);
/* Rotation angle of q in [0, pi]. */
double rve_ori_qangle(const double q[4]);
/* Normalise and put w >= 0; returns the norm found (0: out set to identity). */
double rve_ori_qnormalize(const double q[4], double out[4]);

/* ---------------------------------------------------------- crystal symmetry */
/* Laue groups, as their proper rotations.  Axes: cubic along the cube edges;
 * hexagonal and trigonal c along z, a1 along x (2-fold axes of 6/mmm every 30
 * degrees, of -3m at 0, 60, 120 degrees from x); tetragonal c along z;
 * monoclinic 2-fold along y (b unique). */
typedef enum {
    RVE_LAUE_TRICLINIC = 0, /* -1: 1 rotation */
    RVE_LAUE_MONOCLINIC,    /* 2/m: 2 */
    RVE_LAUE_ORTHORHOMBIC,  /* mmm: 4 */
    RVE_LAUE_TRIGONAL,      /* -3m: 6 */
    RVE_LAUE_TETRAGONAL,    /* 4/mmm: 8 */
    RVE_LAUE_HEXAGONAL,     /* 6/mmm: 12 */
    RVE_LAUE_CUBIC          /* m-3m: 24 */
} rve_laue;
#define RVE_LAUE_N 7

int rve_laue_nops(rve_laue g);
/* The group's rotations as quaternions, op[4 * i + c]; op 0 is the identity. */
const double *rve_laue_ops(rve_laue g);
const char *rve_laue_name(rve_laue g); /* "cubic", "hexagonal", ... (Neper's -crysym names) */
/* "cubic"/"m-3m", "hexagonal"/"6/mmm", "tetragonal"/"4/mmm",
 * "orthorhombic"/"mmm", "trigonal"/"-3m", "monoclinic"/"2/m",
 * "triclinic"/"-1" (case-insensitive) -> group; RVE_EUSAGE otherwise. */
rve_status rve_laue_parse(const char *s, rve_laue *g);

/* Symmetric equivalent q * s nearest the identity (the Rodrigues fundamental
 * zone; ties go to the first operator), with w >= 0. */
void rve_ori_fz(const double q[4], rve_laue g, double out[4]);
/* Symmetric equivalent of q nearest ref, signed so that dot(out, ref) >= 0. */
void rve_ori_near(const double q[4], const double ref[4], rve_laue g, double out[4]);
/* Misorientation conj(a) * b (no symmetry). */
void rve_ori_misori(const double a[4], const double b[4], double out[4]);
/* Disorientation angle between a and b: the smallest angle over the
 * symmetric equivalents of both. */
double rve_ori_disori_angle(const double a[4], const double b[4], rve_laue g);
/* Disorientation angle and axis (crystal frame of a).  Among the equivalent
 * axes (both crystal symmetries and the a <-> b exchange) the
 * lexicographically largest is returned: x >= y >= z >= 0 for cubic. */
void rve_ori_disori(const double a[4], const double b[4], rve_laue g, double *angle,
                    double axis[3]);

/* Mean orientation of n quaternions (weights w, NULL: equal) under symmetry
 * g: each is replaced by its equivalent nearest the current mean, the mean is
 * the principal eigenvector of sum w q q^T, until the chosen equivalents stop
 * changing (at most 100 rounds: RVE_ECAP).  RVE_EDATA for n = 0 or a zero or
 * negative total weight. Returned in the fundamental zone. */
rve_status rve_ori_mean(const double *q, const double *w, size_t n, rve_laue g, double mean[4],
                        rve_err *err);
/* Grain orientation spread: mean and largest disorientation angle of the n
 * orientations to `mean`. */
void rve_ori_spread(const double *q, size_t n, rve_laue g, const double mean[4], double *avg,
                    double *max);

/* Uniformly distributed rotation (Haar measure), w >= 0. */
void rve_ori_random(rve_rng *r, double q[4]);

#ifdef __cplusplus
}
#endif
#endif

/* reg_state.h - the state of a regularisation in progress, shared by the
 * files of the regulariser (reg.c: the passes; reg_merge.c: one merge and
 * its checks; reg_periodic.c: mirrored collapses on periodic box complexes;
 * reg_measure.c: edge statistics).  Not installed. */
#ifndef RVE_REG_STATE_H
#define RVE_REG_STATE_H
#include "mesh/reg_internal.h"
#include <stdint.h>
#include <stdlib.h>

#define PI 3.14159265358979323846

/* ------------------------------------------------------------- int lists */
typedef struct {
    int *a;
    int n, cap;
} ilist;

static inline int il_push(ilist *l, int x)
{
    if (l->n == l->cap) {
        int cap = l->cap ? 2 * l->cap : 8;
        int *a = realloc(l->a, (size_t)cap * sizeof(int));
        if (!a)
            return -1;
        l->a = a;
        l->cap = cap;
    }
    l->a[l->n++] = x;
    return 0;
}

static inline int il_has(const ilist *l, int x)
{
    for (int i = 0; i < l->n; i++)
        if (l->a[i] == x)
            return 1;
    return 0;
}


/* ---------------------------------------------------------------- state */
#define RVE_REG_MAXSET 16 /* most vertices merged at once (a small cell's) */
typedef struct {
    rve_cx *c;
    int *flen;         /* current loop length (loop starts at foff[f]) */
    double *plane0;    /* 4 nf: initial plane, normal out of fc[2f] */
    unsigned *mask;    /* nv: domain planes the vertex lies on */
    int *valive;
    ilist *vf;         /* nv: faces around each vertex (may hold dead faces) */
    int *coff, *cfac;  /* cell -> faces (may hold dead faces) */
    double cos_max;
    double threshold;
    /* scratch */
    ilist F, cells, tmp;
    int *newloop;      /* scratch loops for the faces in F, concatenated */
    int *nloff;
    int scratch_cap;
    double *fw;        /* weights of the faces in F (face_weights) */
    int fw_cap;
    int mset[RVE_REG_MAXSET]; /* vertices being merged into mset[0] */
    int mk;
    int dying;         /* cell deleted by the merge, or -1 */
    /* periodic box complexes: the vertices on frozen planes by their exact
     * coordinates (they never move), to find an edge's periodic copies */
    int *plink;        /* 3 nv: the copy of a frozen vertex across each axis, or -1 */
    int allow_frozen;  /* a mirrored collapse: the merged vertex may be frozen too */
    int free_frozen;   /* a frozen kept vertex may move within its planes */
    int force;         /* the position is fpos (a periodic copy's) */
    double fpos[3];
    int dry;           /* check only, do not commit; the position found goes to dry_pos */
    double dry_pos[3];
} reg;

/* reg_merge.c */
void reg_snap_plane(const double *pl, double x[3]);
unsigned reg_frozen_planes(const rve_cx *c);
double reg_elen(const reg *r, int a, int b);
int reg_edge_exists(const reg *r, int a, int b);
void reg_fan_centre(const reg *r, int f, const int *lp, int n, int a, const double p[3],
                    double ctr[3]);
double reg_loop_min_cos(const reg *r, int f, const int *lp, int n, int a, const double p[3],
                        double ctr[3]);
/* Least-squares position of a merged vertex (Eq. 6.6, weighted): reads
 * r->c (dom, fdom), r->F, r->plane0 and r->fw; 0, or -1 on failure. */
int reg_ls_position(const reg *r, unsigned mask, const double mid[3], double p[3]);
int reg_try_merge(reg *r);
int reg_try_collapse(reg *r, int a, int b);
int reg_try_delete_cell(reg *r, int k, int *kept);
/* reg_periodic.c */
int reg_frozen_links(reg *r);
int reg_collapse_any(reg *r, int a, int b, int *copies, int *ncopies);
int reg_delete_piece(reg *r, int k);
int reg_stretch_short(reg *r);
/* reg_measure.c */
void reg_histogram(const rve_cx *c, const int *flen, double thr, size_t *hist, size_t *nedges,
                   size_t *nshort, double *minlen);
int reg_cell_volumes(const rve_cx *c, const int *flen, double *vol);

#endif

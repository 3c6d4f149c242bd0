/* tess_read.h - the .tess reader's shared pieces (internal to the tess
 * module): the lexer and the file content that the section readers
 * (tess_read.c) fill and the builders (tess_build.c) turn into an rve_tess. */
#ifndef RVE_TESS_READ_H
#define RVE_TESS_READ_H
#include "tess/tess_internal.h"
#include <stddef.h>

typedef struct {
    const char *s, *end, *path;
    rve_err *err;
    int bad;
} lexer;

typedef struct {
    char format[16];
    int gen_periodic;             /* **general "3 periodic" */
    int ncell, has_seed;
    int *ids;
    double *seeds;                /* 4 ncell */
    char *ori_des, *crysym;
    double *ori;
    size_t nori;
    int nver, nedge, nface, npoly;
    double *ver;
    int *ver_state, *edge_ver, *edge_state;
    int *fvoff, *fver, *fedge, *fstate, *fpt; /* fedge: signed, 1-based (as in the file) */
    double *fplane, *fptxyz;      /* fplane: {a b c d} as read (d first in the file) */
    int *pfoff, *pfaces;          /* pfaces: signed, 1-based */
    int has_dom;
    double dlo[3], dhi[3];
    int has_per, per[3];
    double perd[3];
    int nsecver, nsecedge, nsecface; /* secondary (periodic copy) vertices, edges, faces */
} tess_file;

/* (Re)allocate count zeroed elements of ptr or fail the lexer (returns -1). */
#define LX_ALLOC(L, ptr, count)                                                        \
    do {                                                                               \
        free(ptr);                                                                     \
        (ptr) = calloc((size_t)(count) > 0 ? (size_t)(count) : 1, sizeof(*(ptr)));      \
        if (!(ptr)) return tess_lx_nomem(L);                                           \
    } while (0)

/* Report a problem at the lexer's position (fmt has one %s: arg); returns -1. */
int tess_lx_fail(lexer *L, rve_status code, const char *fmt, const char *arg);
int tess_lx_nomem(lexer *L);
/* Read every section of the file into F; 0, or -1 with the error set. */
int tess_rd_file(lexer *L, tess_file *F);
void tess_tf_free(tess_file *F);

#endif

/* Included first (after config.h) by the GJK loop's translation units
 * (gjk.c, gjk_avx.c, gjk_sv.c): gcc's straight-line (SLP) vectorizer off
 * for them.  It packs the loop's scalar stores of a support point (w = a -
 * b into the simplex) and the sub-algorithm's scalar loads of the same
 * point into 16-byte moves that do not line up (a store of x, y and one of
 * z, then a load of y, z): the load cannot take its value from the stores
 * still in flight and waits for them.  Without SLP in the three files,
 * 8-vertex pairs 3-7 % faster (lean and full call, posed and bare), 32 and
 * 128 vertices the same or faster (docs/dist.md, stop 39).  The pragma
 * changes no arithmetic: the same operations, the same answers bit for
 * bit.  Not installed; not needed by other compilers. */
#ifndef RVE_DIST_NOSLP_H
#define RVE_DIST_NOSLP_H
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("no-tree-slp-vectorize")
#endif
#endif

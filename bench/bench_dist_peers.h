/* bench_dist_peers.h - C interface of the C++ peer shims (Bullet, FCL). */
#ifndef RVE_BENCH_DIST_PEERS_H
#define RVE_BENCH_DIST_PEERS_H
#ifdef __cplusplus
extern "C" {
#endif
/* Bodies are convex hulls of body-frame vertices; poses are position +
 * unit quaternion (w, x, y, z).  Distances are 0 for intersecting bodies. */
int peer_bullet_available(void);
int peer_bullet_double(void);
void *peer_bullet_make(const double *v, int nv);
void peer_bullet_free(void *b);
double peer_bullet_dist(void *a, const double pa[3], const double qa[4], void *b, const double pb[3],
                        const double qb[4]);

int peer_fcl_available(void);
void *peer_fcl_make(const double *v, int nv, const int *tri, int nt);
void peer_fcl_free(void *b);
double peer_fcl_dist(void *a, const double pa[3], const double qa[4], void *b, const double pb[3],
                     const double qb[4]);
#ifdef __cplusplus
}
#endif
#endif

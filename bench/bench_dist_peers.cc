// bench_dist_peers.cc - C shims around the C++ peers of the distance
// benchmark: Bullet (btGjkPairDetector) and FCL (GJKSolver_indep::shapeDistance).
#include "config.h"
#include "bench_dist_peers.h"
#include <cmath>
#include <memory>
#include <vector>

#ifdef HAVE_BULLET
#include <btBulletCollisionCommon.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkPairDetector.h>
#include <BulletCollision/NarrowPhaseCollision/btPointCollector.h>
#include <BulletCollision/NarrowPhaseCollision/btVoronoiSimplexSolver.h>
#endif
#ifdef HAVE_FCL
#include <fcl/fcl.h>
#include <fcl/narrowphase/detail/gjk_solver_indep.h>
#endif

extern "C" {

#ifdef HAVE_BULLET
struct bullet_body {
    btConvexHullShape shape;
};

int peer_bullet_available(void) { return 1; }
int peer_bullet_double(void)
{
#ifdef BT_USE_DOUBLE_PRECISION
    return 1;
#else
    return 0;
#endif
}

void *peer_bullet_make(const double *v, int nv)
{
    bullet_body *b = new bullet_body;
    for (int i = 0; i < nv; i++)
        b->shape.addPoint(btVector3(btScalar(v[3 * i]), btScalar(v[3 * i + 1]), btScalar(v[3 * i + 2])), false);
    b->shape.recalcLocalAabb();
    b->shape.setMargin(0);
    return b;
}

void peer_bullet_free(void *b) { delete static_cast<bullet_body *>(b); }

static btTransform bt_tf(const double p[3], const double q[4])
{
    return btTransform(btQuaternion(btScalar(q[1]), btScalar(q[2]), btScalar(q[3]), btScalar(q[0])),
                       btVector3(btScalar(p[0]), btScalar(p[1]), btScalar(p[2])));
}

double peer_bullet_dist(void *a, const double pa[3], const double qa[4], void *b, const double pb[3],
                        const double qb[4])
{
    bullet_body *A = static_cast<bullet_body *>(a), *B = static_cast<bullet_body *>(b);
    btVoronoiSimplexSolver simplex;
    btGjkPairDetector det(&A->shape, &B->shape, &simplex, nullptr);
    btGjkPairDetector::ClosestPointInput in;
    in.m_transformA = bt_tf(pa, qa);
    in.m_transformB = bt_tf(pb, qb);
    btPointCollector out;
    det.getClosestPoints(in, out, nullptr);
    if (!out.m_hasResult)
        return 0.0;
    return out.m_distance > 0 ? double(out.m_distance) : 0.0;
}
#else
int peer_bullet_available(void) { return 0; }
int peer_bullet_double(void) { return 0; }
void *peer_bullet_make(const double *, int) { return nullptr; }
void peer_bullet_free(void *) {}
double peer_bullet_dist(void *, const double *, const double *, void *, const double *, const double *) { return NAN; }
#endif

#ifdef HAVE_FCL
struct fcl_body {
    std::unique_ptr<fcl::Convexd> shape;
};

int peer_fcl_available(void) { return 1; }

void *peer_fcl_make(const double *v, int nv, const int *tri, int nt)
{
    auto verts = std::make_shared<std::vector<fcl::Vector3d>>();
    for (int i = 0; i < nv; i++)
        verts->emplace_back(v[3 * i], v[3 * i + 1], v[3 * i + 2]);
    auto faces = std::make_shared<std::vector<int>>();
    for (int k = 0; k < nt; k++) {
        faces->push_back(3);
        faces->push_back(tri[3 * k]);
        faces->push_back(tri[3 * k + 1]);
        faces->push_back(tri[3 * k + 2]);
    }
    fcl_body *b = new fcl_body;
    b->shape.reset(new fcl::Convexd(verts, nt, faces));
    return b;
}

void peer_fcl_free(void *b) { delete static_cast<fcl_body *>(b); }

static fcl::Transform3d fcl_tf(const double p[3], const double q[4])
{
    fcl::Transform3d t = fcl::Transform3d::Identity();
    t.linear() = fcl::Quaterniond(q[0], q[1], q[2], q[3]).toRotationMatrix();
    t.translation() = fcl::Vector3d(p[0], p[1], p[2]);
    return t;
}

double peer_fcl_dist(void *a, const double pa[3], const double qa[4], void *b, const double pb[3], const double qb[4])
{
    static thread_local fcl::detail::GJKSolver_indep<double> solver;
    fcl_body *A = static_cast<fcl_body *>(a), *B = static_cast<fcl_body *>(b);
    double d = -1;
    fcl::Vector3d p1, p2;
    bool sep = solver.shapeDistance(*A->shape, fcl_tf(pa, qa), *B->shape, fcl_tf(pb, qb), &d, &p1, &p2);
    return sep ? d : 0.0;
}
#else
int peer_fcl_available(void) { return 0; }
void *peer_fcl_make(const double *, int, const int *, int) { return nullptr; }
void peer_fcl_free(void *) {}
double peer_fcl_dist(void *, const double *, const double *, void *, const double *, const double *) { return NAN; }
#endif

} // extern "C"

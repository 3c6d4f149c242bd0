// bench_contact_bullet.cc - C shim around Bullet's btGjkEpaSolver2::Penetration for
// bench_contact (Bullet as packaged by Debian: single precision btScalar).
#include <BulletCollision/CollisionShapes/btConvexHullShape.h>
#include <BulletCollision/NarrowPhaseCollision/btGjkEpa2.h>
#include <LinearMath/btTransform.h>


extern "C" {
void *bench_bullet_hull(const double *pts, int n);
void bench_bullet_free(void *h);
int bench_bullet_penetration(void *a, void *b, double *depth, double n[3], double p[3], double q[3]);
}

void *bench_bullet_hull(const double *pts, int n)
{
    btConvexHullShape *s = new btConvexHullShape();
    if (!s)
        return 0;
    for (int i = 0; i < n; i++)
        s->addPoint(btVector3((btScalar)pts[3 * i], (btScalar)pts[3 * i + 1], (btScalar)pts[3 * i + 2]), false);
    s->recalcLocalAabb();
    s->setMargin(0);
    return s;
}

void bench_bullet_free(void *h) { delete static_cast<btConvexHullShape *>(h); }

// Returns 1 when penetrating (depth > 0, normal from A to B), 0 otherwise.
int bench_bullet_penetration(void *a, void *b, double *depth, double n[3], double p[3], double q[3])
{
    btTransform id;
    id.setIdentity();
    btGjkEpaSolver2::sResults r;
    bool pen = btGjkEpaSolver2::Penetration(static_cast<btConvexHullShape *>(a), id,
                                            static_cast<btConvexHullShape *>(b), id, btVector3(1, 0, 0), r, false);
    *depth = -(double)r.distance;
    for (int i = 0; i < 3; i++) {
        n[i] = (double)r.normal[i];
        p[i] = (double)r.witnesses[0][i];
        q[i] = (double)r.witnesses[1][i];
    }
    return pen ? 1 : 0;
}

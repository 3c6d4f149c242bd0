// voro_wrap.cc - the only C++ file of librve: voro++ behind a plain C API.
//
// A container_poly (radical Voronoi, per-axis periodicity) computes single
// cells on demand.  voro++'s radical tessellation uses the power distance
// |x - s|^2 - r^2 with r the particle radius, which is our weight (checked by
// the tests against brute-force power distances).
#include "config.h"
#include "tess/voro_wrap.h"
#include <voro++/voro++.hh>
#include <cmath>
#include <new>
#include <vector>

namespace {

// Exposes the protected block lookup of voro++'s container to move particles.
class rve_container : public voro::container_poly {
  public:
    rve_container(double ax, double bx, double ay, double by, double az, double bz, int nx, int ny,
                  int nz, bool px, bool py, bool pz, int mem)
        : voro::container_poly(ax, bx, ay, by, az, bz, nx, ny, nz, px, py, pz, mem) {}
    bool locate(int &ijk, double &x, double &y, double &z) { return put_locate_block(ijk, x, y, z); }
};

} // namespace

struct tv_con {
    rve_container *con;
    double hi[3];
    bool per[3];
    std::vector<int> ijk, q; // location of each seed in the container
    int n;
};

struct tv_cell {
    voro::voronoicell_neighbor c;
    std::vector<double> v;
    std::vector<int> nbr, fv;
};

static void block_counts(const double lo[3], const double hi[3], int n, int nb[3])
{
    // about 5 particles per block, blocks roughly cubic
    double L[3] = {hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]};
    double vol = L[0] * L[1] * L[2];
    double side = std::cbrt(vol / (n / 5.0 + 1.0));
    for (int a = 0; a < 3; a++) {
        double k = std::floor(L[a] / side + 0.5);
        if (k < 1) k = 1;
        if (k > 1024) k = 1024;
        nb[a] = (int)k;
    }
}

// voro++ puts a particle at x = hi outside its blocks: move it inside by one ulp.
static void inside(const tv_con *c, const double *s, double x[3])
{
    for (int a = 0; a < 3; a++) {
        x[a] = s[a];
        if (!c->per[a] && x[a] >= c->hi[a]) x[a] = std::nextafter(c->hi[a], -HUGE_VAL);
    }
}

extern "C" tv_con *tv_con_new(const double lo[3], const double hi[3], const int periodic[3], int n,
                              const double *seeds)
{
    tv_con *c = nullptr;
    try {
        c = new tv_con;
        c->con = nullptr;
        c->n = n;
        int nb[3];
        block_counts(lo, hi, n, nb);
        for (int a = 0; a < 3; a++) {
            c->hi[a] = hi[a];
            c->per[a] = periodic && periodic[a];
        }
        c->con = new rve_container(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], nb[0], nb[1], nb[2],
                                   periodic && periodic[0], periodic && periodic[1],
                                   periodic && periodic[2], 8);
        for (int i = 0; i < n; i++) {
            double x[3];
            inside(c, seeds + 4 * i, x);
            c->con->put(i, x[0], x[1], x[2], seeds[4 * i + 3]);
        }
        c->ijk.assign(n, -1);
        c->q.assign(n, -1);
        rve_container &k = *c->con;
        for (int b = 0; b < k.nxyz; b++)
            for (int j = 0; j < k.co[b]; j++) {
                int id = k.id[b][j];
                c->ijk[id] = b;
                c->q[id] = j;
            }
        for (int i = 0; i < n; i++)
            if (c->ijk[i] < 0) { // not stored (outside a non-periodic box)
                delete c->con;
                delete c;
                return nullptr;
            }
        return c;
    } catch (...) {
        if (c) {
            delete c->con;
            delete c;
        }
        return nullptr;
    }
}

extern "C" void tv_con_free(tv_con *c)
{
    if (!c) return;
    delete c->con;
    delete c;
}

extern "C" void tv_con_order(const tv_con *c, int *order)
{
    const rve_container &k = *c->con;
    int m = 0;
    for (int b = 0; b < k.nxyz; b++)
        for (int j = 0; j < k.co[b]; j++) order[m++] = k.id[b][j];
}

extern "C" void tv_con_pos(const tv_con *c, int i, double p[4])
{
    const double *pp = c->con->p[c->ijk[i]] + 4 * c->q[i];
    p[0] = pp[0];
    p[1] = pp[1];
    p[2] = pp[2];
    p[3] = pp[3];
}

extern "C" void tv_con_prefetch(const tv_con *c, int i)
{
#if defined(__GNUC__)
    __builtin_prefetch(c->ijk.data() + i);
    __builtin_prefetch(c->q.data() + i);
#else
    (void)c;
    (void)i;
#endif
}

extern "C" int tv_con_move(tv_con *c, int i, const double s[4])
{
    try {
        rve_container &k = *c->con;
        // remove: move the last particle of the block into the hole
        int b = c->ijk[i], q = c->q[i], last = k.co[b] - 1;
        if (q != last) {
            int idl = k.id[b][last];
            k.id[b][q] = idl;
            for (int a = 0; a < 4; a++) k.p[b][4 * q + a] = k.p[b][4 * last + a];
            c->q[idl] = q;
        }
        k.co[b]--;
        // insert
        double xs[3];
        inside(c, s, xs);
        double x = xs[0], y = xs[1], z = xs[2];
        int nb;
        if (!k.locate(nb, x, y, z)) return -1;
        int nq = k.co[nb]++;
        k.id[nb][nq] = i;
        double *pp = k.p[nb] + 4 * nq;
        pp[0] = x;
        pp[1] = y;
        pp[2] = z;
        pp[3] = s[3];
        if (s[3] > k.max_radius) k.max_radius = s[3];
        c->ijk[i] = nb;
        c->q[i] = nq;
        return 0;
    } catch (...) {
        return -1;
    }
}

extern "C" tv_cell *tv_cell_new(void)
{
    try {
        return new tv_cell;
    } catch (...) {
        return nullptr;
    }
}

extern "C" void tv_cell_free(tv_cell *b) { delete b; }

// The cell's vertices, neighbours and face vertex lists, as voro++'s
// vertices(), neighbors() and face_vertices() give them (same faces, same
// order), in one walk over the faces instead of two: each of those walks
// marks the edges it follows by flipping them to -1 - k and then resets them.
// The layout (pts holding doubled coordinates relative to the particle) is
// that of voro++ 0.4.6, the version this file is built against.
static void extract(tv_cell *b, double x, double y, double z)
{
    voro::voronoicell_neighbor &c = b->c;
    int p = c.p;
    b->v.resize(3 * (size_t)p);
    double *v = b->v.data();
    for (int i = 0; i < p; i++) {
        v[3 * i] = x + 0.5 * c.pts[3 * i];
        v[3 * i + 1] = y + 0.5 * c.pts[3 * i + 1];
        v[3 * i + 2] = z + 0.5 * c.pts[3 * i + 2];
    }
    b->nbr.clear();
    b->fv.clear();
    for (int i = 1; i < p; i++)
        for (int j = 0; j < c.nu[i]; j++) {
            int k = c.ed[i][j];
            if (k < 0) continue;
            b->nbr.push_back(c.ne[i][j]);
            size_t head = b->fv.size();
            b->fv.push_back(0);
            b->fv.push_back(i);
            c.ed[i][j] = -1 - k;
            int l = c.cycle_up(c.ed[i][c.nu[i] + j], k);
            int guard = 0; // a face has at most p vertices
            do {
                b->fv.push_back(k);
                int m = c.ed[k][l];
                c.ed[k][l] = -1 - m;
                l = c.cycle_up(c.ed[k][c.nu[k] + l], m);
                k = m;
            } while (k != i && ++guard <= p);
            b->fv[head] = (int)(b->fv.size() - head - 1);
        }
    for (int i = 0; i < p; i++)
        for (int j = 0; j < c.nu[i]; j++)
            if (c.ed[i][j] < 0) c.ed[i][j] = -1 - c.ed[i][j];
}

extern "C" int tv_compute(tv_con *c, int i, tv_cell *b)
{
    try {
        rve_container &k = *c->con;
        int ijk = c->ijk[i], q = c->q[i];
        if (!k.compute_cell(b->c, ijk, q)) {
            b->v.clear();
            b->nbr.clear();
            b->fv.clear();
            return 0;
        }
        const double *pp = k.p[ijk] + 4 * q;
        extract(b, pp[0], pp[1], pp[2]);
        return 1;
    } catch (...) {
        return -1;
    }
}

extern "C" int tv_cell_nv(const tv_cell *b) { return (int)(b->v.size() / 3); }
extern "C" const double *tv_cell_v(const tv_cell *b) { return b->v.data(); }
extern "C" int tv_cell_nf(const tv_cell *b) { return (int)b->nbr.size(); }
extern "C" const int *tv_cell_nbr(const tv_cell *b) { return b->nbr.data(); }
extern "C" const int *tv_cell_fv(const tv_cell *b) { return b->fv.data(); }
extern "C" int tv_cell_fvlen(const tv_cell *b) { return (int)b->fv.size(); }

extern "C" double tv_plain_all(const double lo[3], const double hi[3], const int periodic[3], int n,
                               const double *seeds, int full)
{
    try {
        int nb[3];
        block_counts(lo, hi, n, nb);
        voro::container_poly con(lo[0], hi[0], lo[1], hi[1], lo[2], hi[2], nb[0], nb[1], nb[2],
                                 periodic && periodic[0], periodic && periodic[1],
                                 periodic && periodic[2], 8);
        for (int i = 0; i < n; i++)
            con.put(i, seeds[4 * i], seeds[4 * i + 1], seeds[4 * i + 2], seeds[4 * i + 3]);
        voro::c_loop_all vl(con);
        double vol = 0;
        if (!full) {
            voro::voronoicell cell;
            if (vl.start()) do
                    if (con.compute_cell(cell, vl)) vol += cell.volume();
                while (vl.inc());
            return vol;
        }
        voro::voronoicell_neighbor cell;
        std::vector<double> v;
        std::vector<int> nbr, fv;
        size_t sink = 0; // keeps the extraction from being optimised away
        if (vl.start()) do
                if (con.compute_cell(cell, vl)) {
                    double x, y, z;
                    vl.pos(x, y, z);
                    cell.vertices(x, y, z, v);
                    cell.neighbors(nbr);
                    cell.face_vertices(fv);
                    vol += cell.volume();
                    sink += v.size() + nbr.size() + fv.size();
                }
            while (vl.inc());
        return sink > 0 ? vol : -1;
    } catch (...) {
        return -1;
    }
}

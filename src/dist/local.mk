# Module dist: sources, public header, tests and benchmarks.
# RVE_DIST_SOURCES: the kernels, in librve and in the kernel-only librve-dist.
RVE_DIST_SOURCES = src/dist/shape.c src/dist/gjk.c src/dist/gjk_query.h src/dist/gjk_avx.c src/dist/gjk_loop.h src/dist/gjk_point.c src/dist/gjk_point_query.h src/dist/gjk_point_avx.c src/dist/gjk_pair.c src/dist/gjk_sv.c src/dist/gjk_internal.h src/dist/graph.c src/dist/dist_scan.c src/dist/dist_exact.c src/dist/dist_scale.c src/dist/dist_internal.h src/dist/dist_noslp.h

UNIT_TESTS += tests/test_dist
tests_test_dist_SOURCES = tests/test_dist.c tests/dist_oracle.h tests/dist_rng.h
tests_test_dist_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_LDADD = $(TEST_LIBS) $(QHULL_LIBS)

UNIT_TESTS += tests/test_dist_pairs
tests_test_dist_pairs_SOURCES = tests/test_dist_pairs.c tests/dist_oracle.h tests/dist_rng.h
tests_test_dist_pairs_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_pairs_LDADD = $(TEST_LIBS) $(QHULL_LIBS)

# Benchmark: ours vs Bullet, FCL and libccd (peers optional; double-precision Bullet preferred).
BENCH_PROGS += bench/bench_dist
bench_bench_dist_SOURCES = bench/bench_dist.c bench/bench_dist_peers.cc bench/bench_dist_peers.h
bench_bench_dist_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_dist_CXXFLAGS = $(AM_CXXFLAGS) -O2
bench_bench_dist_LDADD = librve.la $(QHULL_LIBS) -lm
if HAVE_CCD
bench_bench_dist_CFLAGS += $(CCD_CFLAGS)
bench_bench_dist_LDADD += $(CCD_LIBS)
endif
if HAVE_BULLET64
bench_bench_dist_CXXFLAGS += $(patsubst -I%,-isystem %,$(BULLET64_CFLAGS))
bench_bench_dist_LDADD += $(BULLET64_LIBS)
else
if HAVE_BULLET
bench_bench_dist_CXXFLAGS += $(patsubst -I%,-isystem %,$(BULLET_CFLAGS))
bench_bench_dist_LDADD += $(BULLET_LIBS)
endif
endif
if HAVE_FCL
bench_bench_dist_CXXFLAGS += $(patsubst -I%,-isystem %,$(FCL_CFLAGS))
bench_bench_dist_LDADD += $(FCL_LIBS)
endif

# contact kernels
RVE_DIST_SOURCES += src/dist/contact_internal.h src/dist/contact_poly.c src/dist/contact_cp.c \
	src/dist/contact_epa.c src/dist/contact_cvi.c src/dist/contact_sq.c
UNIT_TESTS += tests/test_contact
tests_test_contact_SOURCES = tests/test_contact.c tests/contact_oracle.c tests/contact_oracle.h tests/ph_oracle.h
tests_test_contact_CFLAGS = $(TEST_CFLAGS)
tests_test_contact_LDADD = $(TEST_LIBS) $(QHULL_LIBS)
dist_check_SCRIPTS += tests/test_contact.sh

BENCH_PROGS += bench/bench_contact
bench_bench_contact_SOURCES = bench/bench_contact.c tests/contact_oracle.c tests/contact_oracle.h tests/contact_pairs.h
bench_bench_contact_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests $(CCD_CFLAGS) $(BULLET_CFLAGS)
bench_bench_contact_LDADD = librve.la $(QHULL_LIBS) -lm
if HAVE_CCD
bench_bench_contact_LDADD += $(CCD_LIBS)
endif
if HAVE_BULLET
bench_bench_contact_SOURCES += bench/bench_contact_bullet.cc
bench_bench_contact_LDADD += $(BULLET_LIBS)
endif

UNIT_TESTS += tests/test_dist_robust
tests_test_dist_robust_SOURCES = tests/test_dist_robust.c tests/dist_flat.h tests/dist_oracle.h tests/dist_rng.h
tests_test_dist_robust_CFLAGS = $(TEST_CFLAGS)
# dist_exact_* are internal (dist_internal.h): linked from the convenience library
tests_test_dist_robust_LDADD = $(CORE_LIBS)

# the polyhedra's own hill-climbing graph (rve_polyhedron.graph)
UNIT_TESTS += tests/test_dist_graph
tests_test_dist_graph_SOURCES = tests/test_dist_graph.c tests/contact_oracle.c tests/contact_oracle.h tests/dist_rng.h
tests_test_dist_graph_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_graph_LDADD = $(CORE_LIBS)

# the near-tied faces family (flat tetrahedra, near-coplanar caps) and the support scan
UNIT_TESTS += tests/test_dist_tied
tests_test_dist_tied_SOURCES = tests/test_dist_tied.c tests/dist_avx.c tests/dist_avx.h tests/dist_tied.h tests/dist_flat.h tests/dist_oracle.h tests/dist_rng.h
tests_test_dist_tied_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_tied_LDADD = $(CORE_LIBS)

# the flat families of the robustness tests (nearly flat bodies far from the origin): `bench_dist_stress N` runs N queries per family
# (10^7 for the issue; `make bench` runs the default 10^5)
BENCH_PROGS += bench/bench_dist_stress
bench_bench_dist_stress_SOURCES = bench/bench_dist_stress.c tests/dist_tied.h tests/dist_flat.h tests/dist_oracle.h tests/dist_rng.h
bench_bench_dist_stress_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/tests
bench_bench_dist_stress_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_dist_stress_LDADD = librve.la $(QHULL_LIBS) -lm

UNIT_TESTS += tests/test_dist_smooth
tests_test_dist_smooth_SOURCES = tests/test_dist_smooth.c tests/dist_oracle.h tests/dist_rng.h
tests_test_dist_smooth_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_smooth_LDADD = $(TEST_LIBS) $(QHULL_LIBS)
dist_check_SCRIPTS += tests/test_dist_cli.sh

# compound bodies: the intrinsic hierarchy
RVE_DIST_SOURCES += src/dist/compound.c
UNIT_TESTS += tests/test_compound
tests_test_compound_SOURCES = tests/test_compound.c
tests_test_compound_CFLAGS = $(TEST_CFLAGS)
tests_test_compound_LDADD = $(TEST_LIBS)
BENCH_PROGS += bench/bench_compound
bench_bench_compound_SOURCES = bench/bench_compound.c
bench_bench_compound_CFLAGS = $(AM_CFLAGS) -O2
bench_bench_compound_LDADD = librve.la -lm

librve_core_la_SOURCES += $(RVE_DIST_SOURCES)

# librve-dist: the kernels alone (GJK, contact, compound bodies) with the
# error and atomic-file basics they use; needs only qhull and libm.  Exports
# what rve/dist.h declares and the util.h functions of err.c and afile.c.
lib_LTLIBRARIES += librve-dist.la
librve_dist_la_SOURCES = src/util/err.c src/util/afile.c $(RVE_DIST_SOURCES)
librve_dist_la_LIBADD = $(QHULL_LIBS) -lm
librve_dist_la_LDFLAGS = -version-info 0:0:0 -no-undefined -export-symbols librve-dist.sym
EXTRA_librve_dist_la_DEPENDENCIES = librve-dist.sym
RVE_DIST_UTIL = '^rve_(status_|err_|afile_|write_file_atomic$$|path_same_file$$)'
librve-dist.sym: $(top_srcdir)/scripts/api-symbols $(top_srcdir)/include/rve/dist.h $(top_srcdir)/include/rve/util.h
	$(AM_V_GEN){ $(SHELL) $(top_srcdir)/scripts/api-symbols $(top_srcdir)/include/rve/dist.h; \
	  $(SHELL) $(top_srcdir)/scripts/api-symbols $(top_srcdir)/include/rve/util.h | grep -E $(RVE_DIST_UTIL); } \
	  | LC_ALL=C sort -u >$@.tmp && mv $@.tmp $@
CLEANFILES += librve-dist.sym
pkgconfig_DATA += rve-dist.pc

# The issue's stress size: 10^7 queries of the flat families (8*10^6 point
# draws, each checked through rve_gjk_dist and rve_dist_point_polytope, and
# 2*10^6 pairs), seed of the issue's runs; about 20 CPU minutes on an idle core.
bench-dist-stress-long: bench/bench_dist_stress$(EXEEXT)
	bench/bench_dist_stress 8000000 2000000 20261124
.PHONY: bench-dist-stress-long

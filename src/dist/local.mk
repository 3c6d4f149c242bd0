# Module dist: sources, public header, tests and benchmarks.
librve_la_SOURCES += src/dist/shape.c src/dist/gjk.c src/dist/graph.c src/dist/dist_internal.h

check_PROGRAMS += tests/test_dist
tests_test_dist_SOURCES = tests/test_dist.c tests/dist_oracle.h
tests_test_dist_CFLAGS = $(TEST_CFLAGS)
tests_test_dist_LDADD = $(TEST_LIBS) $(QHULL_LIBS) -lquadmath

# contact kernels (issue 4)
librve_la_SOURCES += src/dist/contact_internal.h src/dist/contact_poly.c src/dist/contact_cp.c \
	src/dist/contact_epa.c src/dist/contact_cvi.c
check_PROGRAMS += tests/test_contact
tests_test_contact_SOURCES = tests/test_contact.c tests/contact_oracle.c tests/contact_oracle.h
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

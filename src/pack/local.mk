# Module pack: sources, public header, tests and benchmarks.
librve_core_la_SOURCES += src/pack/pack_internal.h src/pack/body.c src/pack/set.c \
	src/pack/grid.c src/pack/narrow.c src/pack/gjk.c src/pack/pack.c \
	src/pack/rsa.c src/pack/soft.c src/pack/mc.c src/pack/compress.c src/pack/grains.c \
	src/pack/contact.c src/pack/lid.c src/pack/ori.c

UNIT_TESTS += tests/test_pack
tests_test_pack_SOURCES = tests/test_pack.c
tests_test_pack_CFLAGS = $(TEST_CFLAGS)
tests_test_pack_LDADD = $(TEST_LIBS)
tests_test_pack_SOURCES += tests/pack_oracle.h tests/pack_sq_oracle.h

UNIT_TESTS += tests/test_pack_grains
tests_test_pack_grains_SOURCES = tests/test_pack_grains.c tests/pack_oracle.h tests/pack_dist_oracle.h
tests_test_pack_grains_CFLAGS = $(TEST_CFLAGS)
tests_test_pack_grains_LDADD = $(TEST_LIBS)

BENCH_PROGS += bench/bench_pack
bench_bench_pack_SOURCES = bench/bench_pack.c tests/pack_dist_oracle.h
bench_bench_pack_LDADD = librve.la $(GSL_LIBS) $(QHULL_LIBS) -lm

dist_check_SCRIPTS += tests/test_pack.sh tests/test_pack_dem.sh tests/test_pack_ori.sh

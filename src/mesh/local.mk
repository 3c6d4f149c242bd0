# Module mesh: sources, public header, tests and benchmarks.
librve_core_la_SOURCES += src/mesh/cx.h src/mesh/cx.c src/mesh/mesh_internal.h src/mesh/gmsh.c \
	src/mesh/quality.c src/mesh/reg.c src/mesh/reg_merge.c src/mesh/reg_periodic.c src/mesh/reg_measure.c src/mesh/reg_state.h src/mesh/polish.c src/mesh/polish_geom.c src/mesh/polish_voxels.c src/mesh/polish_state.h src/mesh/reg_internal.h src/mesh/api.c src/mesh/write.c src/mesh/raster.c \
	src/mesh/periodic.c src/mesh/write_solver.c src/mesh/write_fepx.c src/mesh/cx_tess.c src/mesh/reg_box.c src/mesh/periodic_detect.c src/mesh/periodic_pairs.c \
	src/mesh/periodic_internal.h src/mesh/periodic_vmerge.c src/mesh/periodic_snap.c src/mesh/periodic_clip.c src/mesh/periodic_shift.c \
	src/mesh/fold.c src/mesh/fold_meet.c

UNIT_TESTS += tests/test_mesh
tests_test_mesh_SOURCES = tests/test_mesh.c
tests_test_mesh_CFLAGS = $(TEST_CFLAGS)
tests_test_mesh_LDADD = $(TEST_LIBS)
dist_check_SCRIPTS += tests/test_mesh.sh tests/test_periodic.sh tests/test_periodic_ori.sh tests/test_periodic_cap.sh tests/test_periodic_rve.sh
EXTRA_DIST += tests/periodic_oracle.py tests/tess_fan_volume.py tests/periodic_short_edges.py
UNIT_TESTS += tests/test_mesh_data
tests_test_mesh_data_SOURCES = tests/test_mesh_data.c
tests_test_mesh_data_CFLAGS = $(TEST_CFLAGS)
tests_test_mesh_data_LDADD = $(TEST_LIBS)
BENCH_SHELL += bench/bench_mesh.sh
BENCH_SHELL += bench/bench_periodic.sh
EXTRA_DIST += bench/bench_mesh.sh bench/bench_periodic.sh
# Eq. 6.6: the merged vertex's least-squares placement against an independent long-double solve
UNIT_TESTS += tests/test_reg_eq66
tests_test_reg_eq66_SOURCES = tests/test_reg_eq66.c
tests_test_reg_eq66_CFLAGS = $(TEST_CFLAGS)
tests_test_reg_eq66_LDADD = $(CORE_LIBS)
librve_core_la_SOURCES += src/mesh/gmsh_dl.c
# the fold's intersection and angle tests against an independent oracle
UNIT_TESTS += tests/test_mesh_fold
tests_test_mesh_fold_SOURCES = tests/test_mesh_fold.c tests/dist_rng.h
tests_test_mesh_fold_CFLAGS = $(TEST_CFLAGS)
tests_test_mesh_fold_LDADD = $(CORE_LIBS)

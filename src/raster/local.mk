# Module raster: grain maps (voxel labels, orientations, phases), their file
# formats, statistics and synthetic maps.  Public header include/rve/raster.h.

# grain maps
librve_core_la_SOURCES += src/raster/map_core.c src/raster/map_io.c src/raster/map_tesr.c src/raster/map_tiff.c \
	src/raster/map_boundary.c src/raster/map_stats.c src/raster/map_synth.c src/raster/map_hdf5.c \
	src/raster/map_hdf5_write.c src/raster/map_hdf5_layouts.c src/raster/map_hdf5_internal.h \
	src/raster/map_internal.h src/raster/map_ori.c src/raster/map_vti.c src/raster/map_part.c
UNIT_TESTS += tests/test_raster
tests_test_raster_SOURCES = tests/test_raster.c
tests_test_raster_CFLAGS = $(TEST_CFLAGS)
tests_test_raster_LDADD = $(TEST_LIBS) $(TIFF_LIBS)
dist_check_SCRIPTS += tests/test_raster_cli.sh tests/test_vti.sh tests/test_map_layouts.sh
EXTRA_DIST += tests/map_layouts.py
EXTRA_DIST += src/cli/cli_map.h
BENCH_PROGS += bench/bench_raster
bench_bench_raster_SOURCES = bench/bench_raster.c
bench_bench_raster_LDADD = librve.la $(TIFF_LIBS) -lm
# end grain maps

# Module mesh: sources, public header, tests and benchmarks.
librve_la_SOURCES += src/mesh/cx.h src/mesh/cx.c src/mesh/mesh_internal.h src/mesh/gmsh.c \
	src/mesh/quality.c src/mesh/reg.c src/mesh/reg_internal.h src/mesh/api.c

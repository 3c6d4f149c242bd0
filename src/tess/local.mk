# Module tess: sources, public header, tests and benchmarks.

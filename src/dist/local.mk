# Module dist: sources, public header, tests and benchmarks.

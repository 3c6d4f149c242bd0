# Module optim: sources, public header, tests and benchmarks.

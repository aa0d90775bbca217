"""The parts of Benchmarks/run."""

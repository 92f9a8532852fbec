"""Benchmark adapters for ``scenebench run`` (one module per benchmark)."""

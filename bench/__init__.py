"""Benchmarks and hardening scripts (run as ``python bench/<script>.py``); importable so
the tests can run the same code at small counts."""

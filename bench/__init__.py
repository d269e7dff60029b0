"""Benchmarks and hardening scripts, run from the repository root as
``python -m bench.<script>``; the tests run the same code at small counts. What the
benchmarks share with the tests (the detector doubles, the server and its client) is
the ``support`` package."""

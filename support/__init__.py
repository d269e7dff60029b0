"""What the tests and the benchmarks share, and neither owns: the detector doubles
(``support.fakes``) and the server subprocess and HTTP client (``support.servers``).
Product code never imports it; it imports the product, as any caller does."""

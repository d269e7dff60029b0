"""Which CPUs keep onnxruntime's fast int8 products (scorer.vision.cpu)."""

import pytest

from scorer.vision.cpu import fast_int8_is_exact, flags_of, precise_int8_needed

CPUINFO = """processor\t: 0
vendor_id\t: GenuineIntel
flags\t\t: fpu sse2 avx2 avx512f avx512bw avx512_vnni avx_vnni
bugs\t\t: spectre_v1

processor\t: 1
flags\t\t: fpu sse2
"""


def test_the_flags_are_read_from_the_first_flags_line():
    flags = flags_of(CPUINFO)
    assert "avx512_vnni" in flags and "avx2" in flags and "spectre_v1" not in flags
    assert flags_of("processor : 0\nvendor_id : x\n") == frozenset()


@pytest.mark.parametrize("flags, exact", [
    ({"avx2", "avx512bw", "avx512_vnni"}, True),    # Ice Lake, Zen 4: AVX512-VNNI
    ({"avx2", "avx_vnni"}, True),                   # Alder Lake: AVX-VNNI, no AVX-512
    ({"avx2", "avx512bw"}, False),                  # Skylake-X: AVX-512 without VNNI
    ({"avx2", "avx512bw", "avx_vnni"}, False),      # its AVX-512 kernel, not AVX-VNNI's
    ({"avx2", "fma"}, False),                       # Haswell to Coffee Lake, Zen 1-3
    (set(), False),                                 # unknown: the precise products
])
def test_the_fast_products_are_kept_only_where_vnni_makes_them_exact(flags, exact):
    assert fast_int8_is_exact(flags) is exact


@pytest.mark.parametrize("flags", [{"avx2", "fma"}, {"avx2", "avx512bw"}, set(),
                                   {"avx2", "avx_vnni"}])
def test_weights_that_cannot_saturate_never_need_the_precise_products(flags):
    """7-bit weights, or 8-bit ones whose pairs fit, cannot saturate the fast products'
    16-bit pair sums (255 x 128 = 32640); other 8-bit ones need the precise products
    wherever the fast ones are not exact."""
    assert precise_int8_needed(flags, True) is False
    assert precise_int8_needed(flags, False) is not fast_int8_is_exact(flags)
    assert precise_int8_needed(flags) is precise_int8_needed(flags, False)


@pytest.mark.parametrize("bits,pairs_fit,exact", [(8, False, False), (7, False, True),
                                                  (8, True, True), (7, True, True)])
def test_a_models_settings_say_whether_its_weights_cannot_saturate(bits, pairs_fit, exact):
    from scorer.vision.settings import DetectionSettings

    s = DetectionSettings.from_metadata({"int8_weight_bits": bits, "int8_pairs_fit": pairs_fit})
    assert s.fast_int8_exact is exact

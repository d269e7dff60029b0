"""Whether onnxruntime's fast int8 products are exact on this CPU.

onnxruntime multiplies int8 layers as unsigned-by-signed bytes (u8s8). On x86 CPUs with
VNNI (AVX512-VNNI, or AVX-VNNI on those without AVX-512) it sums the products in 32
bits, exactly. Without VNNI it first adds pairs of products in 16 bits, which saturate,
and the localiser then misses cards; there the session option ``PRECISE_INT8``
(``scorer.vision.stages``) has it multiply unsigned by unsigned, exactly, at about 1.5x
the localiser's time and 3x the classifier's on a VNNI CPU (where both give the same
numbers, so that option is only worth its cost where VNNI is missing). The choice
follows onnxruntime's own dispatch (``mlas/lib/platform.cpp``, 1.32): with AVX-512BW its
u8s8 kernel is the AVX-512 one, exact only with AVX512-VNNI; without, the AVX2 one,
exact only with AVX-VNNI.

A model can make the fast products exact everywhere. With 7-bit weights (|w| <= 64,
onnxruntime's ``reduce_range``) a pair of u8 x s8 products reaches at most 2 x 255 x 64 =
32640, within the 16 bits, on every x86 kernel (AVX2, AVX-512 without VNNI, SSE4.1). At 8
bits it is enough that every pair the kernels add together (neighbouring input channels;
``training.ship.fast_int8`` says which) has opposite signs or at most 128 together
(255 x 128 = 32640). Its settings declare either (``int8_weight_bits`` 7,
``int8_pairs_fit``: ``DetectionSettings.fast_int8_exact``) and ``precise_int8_needed``
then never asks for the precise ones (``tests/test_int8_range.py`` checks the shipped
files' weights). onnxruntime's precise option is itself per layer: it turns to u8u8 only
the layers whose weights leave [-64, 64] (its ``Avx2WeightS8ToU8Transformer``).
"""

from __future__ import annotations

import platform
from collections.abc import Collection
from pathlib import Path


def fast_int8_is_exact(flags: Collection[str]) -> bool:
    """Whether the u8s8 products are exact on a CPU with these feature ``flags`` (as Linux
    names them in /proc/cpuinfo). An empty set (flags unknown) is not."""
    if "avx512bw" in flags:
        return "avx512_vnni" in flags
    return "avx_vnni" in flags


def precise_int8_needed(flags: Collection[str], model_exact: bool = False) -> bool:
    """Whether a model needs the precise products on a CPU with these ``flags``: never
    where its weights cannot saturate the fast ones (``model_exact``:
    ``DetectionSettings.fast_int8_exact``), else where the fast products are not exact
    (``fast_int8_is_exact``)."""
    return not model_exact and not fast_int8_is_exact(flags)


def flags_of(cpuinfo: str) -> frozenset[str]:
    """The feature flags in the text of /proc/cpuinfo (its first ``flags`` line)."""
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return frozenset(value.split())
    return frozenset()


def cpu_flags() -> frozenset[str]:
    """This CPU's feature flags on x86 Linux; empty elsewhere (then the precise products
    are used: always right, slower)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return frozenset()
    try:
        return flags_of(Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return frozenset()

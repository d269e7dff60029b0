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

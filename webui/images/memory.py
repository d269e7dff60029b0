"""Memory a heavy job freed, given back to the system at once (glibc ``malloc_trim``).

A heavy job (a large image's decode) frees tens of megabytes, and the request threads
that carried its body a few more; glibc keeps what a thread frees in that thread's arena
for its next allocation, so the server's memory stayed at its highest. Trimming after
each heavy job, on the heavy thread (background priority), hands the free pages of every
arena back (issue 49: beside two cameras, two senders of 12 MP progressive JPEGs peaked
at 328 and 332 MiB, 324 and 325 with it, and the server's memory at the end was 273
MiB, 253 and 265 with it; the cameras' p99 no worse). It walks the
arenas' free lists, about a millisecond beside a decode's hundreds. Where the C library
is not glibc it does nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from typing import Any

_libc: Any = None


def trim() -> bool:
    """Give the free memory of every malloc arena back to the system; False where that
    cannot be done (not glibc)."""
    global _libc
    if _libc is None:
        try:
            _libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _libc.malloc_trim.argtypes = [ctypes.c_size_t]
        except (OSError, AttributeError):
            _libc = False
    if not _libc:
        return False
    return bool(_libc.malloc_trim(0))

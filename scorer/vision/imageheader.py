"""Tell an image's format and size from its header, before anything decodes it.

This keeps a decompression bomb (a tiny file that claims 100000 x 100000 pixels) and
non-images away from the decoder. Only the formats the page sends or a user uploads
are accepted: JPEG, PNG, WebP, BMP.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

from scorer.errors import InputError


class ImageTooLarge(InputError):
    """The image's dimensions exceed the cap (answered with 413)."""


@dataclass(frozen=True)
class ImageInfo:
    """An image's format and size; for a progressive (or lossless, arithmetic-coded)
    JPEG, ``coefficients``: how many DCT coefficients its decoder holds at once (the
    whole image's: such a JPEG cannot be decoded in strips, nor cheaply at a smaller
    scale; 0 for other images)."""

    format: str
    width: int
    height: int
    coefficients: int = 0

    @property
    def progressive(self) -> bool:
        return self.coefficients > 0


def sniff(data: bytes) -> ImageInfo:
    """Format and size from the header; InputError if it is not a supported image."""
    if not data:
        raise InputError("empty upload: send a JPEG, PNG, WebP or BMP image")
    try:
        if data[:3] == b"\xff\xd8\xff":
            return _jpeg(data)
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            w, h = struct.unpack(">II", data[16:24])
            return ImageInfo("png", w, h)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return _webp(data)
        if data[:2] == b"BM" and len(data) >= 26:
            w, h = struct.unpack("<ii", data[18:26])
            return ImageInfo("bmp", abs(w), abs(h))
    except (struct.error, IndexError):
        raise InputError("corrupt image: its header is truncated") from None
    raise InputError("not an image: send a JPEG, PNG, WebP or BMP image")


def check(data: bytes, max_pixels: int, max_side: int) -> ImageInfo:
    info = sniff(data)
    if info.width <= 0 or info.height <= 0:
        raise InputError(f"corrupt image: it claims {info.width}x{info.height} pixels")
    if info.width > max_side or info.height > max_side or info.width * info.height > max_pixels:
        raise ImageTooLarge(f"image too large: {info.width}x{info.height} pixels is over the cap "
                            f"({max_pixels // 1_000_000} megapixels, {max_side} px a side)")
    return info


_SOF = {0xC0, 0xC1, 0xC2, 0xC3, 0xC5, 0xC6, 0xC7, 0xC9, 0xCA, 0xCB, 0xCD, 0xCE, 0xCF}
_SEQUENTIAL = {0xC0, 0xC1}      # baseline and extended Huffman: decoded strip by strip


def _coefficients(data: bytes, i: int, w: int, h: int) -> int:
    """The coefficients of every component of a frame whose SOF segment starts at
    ``i`` (each component at its sampling factors)."""
    count = data[i + 7]
    comps = [data[i + 9 + 3 * c] for c in range(count)]
    hmax = max((f >> 4 for f in comps), default=1) or 1
    vmax = max((f & 15 for f in comps), default=1) or 1
    total = 0
    for f in comps:
        cw = -(-w * max(1, f >> 4) // hmax)
        ch = -(-h * max(1, f & 15) // vmax)
        total += (-(-cw // 8) * 8) * (-(-ch // 8) * 8)
    return max(total, 1)


def _jpeg(data: bytes) -> ImageInfo:
    i = 2
    n = len(data)
    while i < n:
        while i < n and data[i] == 0xFF:     # fill bytes
            i += 1
        if i >= n:
            break
        marker = data[i]
        i += 1
        if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
            continue
        if marker == 0xD9 or marker == 0xDA:  # end of image / start of scan before SOF
            break
        (length,) = struct.unpack(">H", data[i:i + 2])
        if marker in _SOF:
            h, w = struct.unpack(">HH", data[i + 3:i + 7])
            if marker in _SEQUENTIAL:
                return ImageInfo("jpeg", w, h)
            return ImageInfo("jpeg", w, h, _coefficients(data, i, w, h))
        if length < 2:
            break
        i += length
    raise InputError("corrupt image: a JPEG without a frame header")


class FrameHeaderScan:
    """A JPEG's frame header found as its bytes arrive, however far in (after a 140 kB
    comment, say), keeping none of the segments before it: fed the image's bytes in
    order, each segment's length says where the next marker is, and the bytes between
    are never kept. ``found``: the image's start and its frame header (what ``sniff``
    needs), once seen; ``failed``: not a JPEG's segments, a scan before any frame
    header, or the frame header past ``limit`` bytes."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.found: bytes | None = None
        self.failed = False
        self._seen = 0                  # bytes fed
        self._next = 0                  # offset of the next marker (0: the image's start)
        self._window = bytearray()      # the bytes from _next on, as far as fed

    def feed(self, data: bytes | memoryview) -> None:
        begin, self._seen = self._seen, self._seen + len(data)
        if self.found is not None or self.failed or self._seen <= self._next:
            return
        w = self._window
        w += data[self._next - begin:] if not w and self._next > begin else data
        if self._next == 0:
            if len(w) < 3:
                return
            if w[:3] != b"\xff\xd8\xff":
                self.failed = True
                return
            del w[:2]
            self._next = 2
        while len(w) >= 2:
            if w[0] != 0xFF:
                self.failed = True
                return
            marker = w[1]
            if marker == 0xFF:                  # a fill byte
                del w[0]
                self._next += 1
                continue
            if marker in (0xD8, 0x01) or 0xD0 <= marker <= 0xD7:
                del w[:2]
                self._next += 2
                continue
            if marker in (0xD9, 0xDA) or len(w) >= 4 and w[2] << 8 | w[3] < 2:
                self.failed = True              # no frame header before the image data
                return
            if len(w) < 4:
                return
            size = 2 + (w[2] << 8 | w[3])
            if marker in _SOF:
                if len(w) >= size:
                    self.found = b"\xff\xd8" + bytes(w[:size])
                    w.clear()
                return
            self._next += size
            if self._next > self.limit:
                self.failed = True
                return
            del w[:size]


def _webp(data: bytes) -> ImageInfo:
    chunk = data[12:16]
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return ImageInfo("webp", w & 0x3FFF, h & 0x3FFF)
    if chunk == b"VP8L":
        b = data[21:25]
        w = 1 + (((b[1] & 0x3F) << 8) | b[0])
        h = 1 + (((b[3] & 0xF) << 10) | (b[2] << 2) | ((b[1] & 0xC0) >> 6))
        return ImageInfo("webp", w, h)
    if chunk == b"VP8X":
        w = 1 + int.from_bytes(data[24:27], "little")
        h = 1 + int.from_bytes(data[27:30], "little")
        return ImageInfo("webp", w, h)
    raise InputError("corrupt image: unknown WebP chunk")

"""The one image gate: every image that comes in (a camera frame, a photo, a deck's scan
or crop, a learned crop) is checked here once and decoded here once.

    upload = check(data, limits)              # the header, read once: format, size, cost
    frame = decode(upload, useful_side=1920)  # pixels, at most what the reader can use

``check`` reads the header before any pixel is decoded, so a decompression bomb (a tiny
file that claims 100000 x 100000 pixels) or a non-image never reaches the decoder.
``Upload.cost`` is the number of pixels the decode will produce: the work and the memory
of an image grow with it, and the web's scheduler budgets by it.

A JPEG larger than its reader can use is decoded at 1/2, 1/4 or 1/8 of its size
directly (libjpeg scales while it decodes); ``Frame.scale`` maps the smaller image's
pixels back to the stored image's. Other formats cannot be decoded smaller, so they
cost their full size.

What a decode really costs (measured with OpenCV 4.14 on one core: a 960x540 frame
7 ms, a 40 MP baseline JPEG at 1/8 59 ms, the same as a progressive JPEG 431 ms):

* a baseline JPEG decoded smaller still reads every coefficient of the file: its cost
  is the decoded pixels plus a tenth of the stored ones (``ENTROPY_SHARE``);
* a progressive JPEG is decoded whole, whatever the scale: its decoder holds every
  coefficient of the image (2 bytes each, 1.5 a pixel at 4:2:0) and decodes each once
  per scan, so it costs its coefficients at 3 bytes a pixel, plus the decoded pixels.

So a progressive JPEG's memory cannot be bounded by decoding it smaller: a 40 MP one
holds about 120 MB while it decodes, whatever the scale. ``ImageLimits.max_progressive``
caps its pixels apart (the web server: 12 MP, 36 MB; phones and browsers write baseline
JPEGs, which decode strip by strip); a larger one is refused from its header (413,
saying to save it as a baseline JPEG), like any image over the caps.

OpenCV's own limits (``OPENCV_IO_MAX_IMAGE_PIXELS``, ``_WIDTH``, ``_HEIGHT``) are read
once, as it loads, so a process sets them before importing cv2: the web server does
(``webui.images.decoder_limits``), at the same caps; the header check stays first, for its
clear 413 before any decode.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.errors import InputError
from scorer.vision import imageheader
from scorer.vision.imageheader import ImageInfo, ImageTooLarge

MAX_PIXELS = 40_000_000
MAX_SIDE = 12_000
MAX_BYTES = 64 * 1024 * 1024
MIN_SIDE = 16
ENTROPY_SHARE = 10      # a reduced baseline decode: 1/10 of a full decode's work a pixel
# libjpeg's direct scales and OpenCV's flags for them, largest reduction first
_REDUCED = ((8, cv2.IMREAD_REDUCED_COLOR_8), (4, cv2.IMREAD_REDUCED_COLOR_4),
            (2, cv2.IMREAD_REDUCED_COLOR_2))

__all__ = ["ImageLimits", "ImageTooLarge", "Upload", "Frame", "check", "decode",
           "read_frame", "decode_image", "MAX_PIXELS", "MAX_SIDE", "MAX_BYTES"]


@dataclass(frozen=True)
class ImageLimits:
    """The largest image accepted. The decoder never reads more than MAX_PIXELS and
    MAX_SIDE, so a limit may only be lower: a higher one is refused (ValueError) rather
    than silently capped."""

    max_pixels: int = MAX_PIXELS
    max_side: int = MAX_SIDE
    max_progressive: int = MAX_PIXELS       # a progressive JPEG's pixels (see the module)

    def __post_init__(self) -> None:
        if not 0 < self.max_pixels <= MAX_PIXELS or not 0 < self.max_side <= MAX_SIDE:
            raise ValueError(f"image limits {self.max_pixels} pixels, {self.max_side} px a "
                             f"side: the decoder reads at most {MAX_PIXELS} pixels and "
                             f"{MAX_SIDE} px a side")

    def check(self, info: ImageInfo) -> None:
        """ImageTooLarge for a progressive JPEG over ``max_progressive``, or any image
        other than a JPEG over it: a PNG or WebP is decoded whole too (issue 68, N19: a
        116 kB PNG of 40 MP took 120 MB a decode), so its pixels are capped from its
        header alike. The header's other caps are ``imageheader.check``'s."""
        pixels = info.width * info.height
        if info.format != "jpeg" and pixels > self.max_progressive:
            raise ImageTooLarge(
                f"{info.format.upper()} image too large: {info.width}x{info.height} pixels "
                f"is over the cap for images decoded whole ({self.max_progressive / 1e6:.0f} "
                "megapixels): save it as a baseline JPEG, or smaller")
        if info.progressive and pixels > self.max_progressive:
            raise ImageTooLarge(
                f"progressive JPEG too large: {info.width}x{info.height} pixels is over the "
                f"cap for progressive JPEGs ({self.max_progressive / 1e6:.0f} megapixels; its "
                "decoder holds the whole image): save it as a baseline JPEG, or smaller")


@dataclass(frozen=True)
class Upload:
    """Image bytes whose header passed ``check``: decode them with ``decode``."""

    data: bytes
    info: ImageInfo

    @property
    def format(self) -> str:
        return self.info.format

    def reduction(self, useful_side: int | None) -> int:
        """The factor (1, 2, 4 or 8) a JPEG is decoded smaller by: the largest that keeps
        the long side at least ``useful_side`` (None: the full size)."""
        if not useful_side or self.info.format != "jpeg":
            return 1
        side = max(self.info.width, self.info.height)
        return next((f for f, _ in _REDUCED if side // f >= useful_side), 1)

    def cost(self, useful_side: int | None = None) -> int:
        """What the decode costs in decoded pixels' worth of time and memory: the pixels
        it produces, plus for a JPEG decoded smaller the reading of all its coefficients,
        and for a progressive JPEG the coefficients it holds (see the module)."""
        f = self.reduction(useful_side)
        w, h = self.info.width, self.info.height
        out = -(-w // f) * -(-h // f)
        if self.info.progressive:
            return out + max(w * h, self.info.coefficients * 2 // 3)
        if f > 1:
            return out + w * h // ENTROPY_SHARE
        return out


@dataclass(frozen=True)
class Frame:
    """A decoded image (BGR, EXIF orientation applied), its format, its decode time, and
    ``scale``: stored-image pixels per decoded pixel (1.0 unless decoded smaller)."""

    image: np.ndarray
    format: str
    decode_ms: float
    scale: float = 1.0

    @property
    def width(self) -> int:
        """The stored image's width (EXIF orientation applied)."""
        return int(round(self.image.shape[1] * self.scale))

    @property
    def height(self) -> int:
        return int(round(self.image.shape[0] * self.scale))


def check(data: bytes, limits: ImageLimits = ImageLimits()) -> Upload:
    """The image's format and size from its header, before any pixel is decoded:
    InputError (ImageTooLarge over the limits) for what will not be decoded."""
    if data is None or len(data) == 0:
        raise InputError("empty image data")
    if len(data) > MAX_BYTES:
        raise InputError(f"image file too large ({len(data) / 1e6:.0f} MB; limit "
                         f"{MAX_BYTES // (1024 * 1024)} MiB)")
    info = imageheader.check(data, limits.max_pixels, limits.max_side)
    limits.check(info)
    if info.format == "jpeg" and data.rfind(b"\xff\xd9") < 0:
        # every complete JPEG ends with an EOI marker; libjpeg would pad a cut-off file
        raise InputError("corrupt image: truncated JPEG data")
    return Upload(bytes(data), info)


def decode(upload: Upload, useful_side: int | None = None) -> Frame:
    """Decode checked bytes once, timed, at most ``useful_side`` on the long side where
    the format allows (see the module). Untrusted bytes that break the decoder anyhow are
    the sender's error (InputError), never a crash."""
    start = time.perf_counter()
    factor = upload.reduction(useful_side)
    flag = dict(_REDUCED).get(factor, cv2.IMREAD_COLOR)   # both apply EXIF orientation
    try:
        img = cv2.imdecode(np.frombuffer(upload.data, np.uint8), flag)
    except cv2.error:
        img = None
    except Exception as exc:  # untrusted bytes may break a decoder anyhow
        raise InputError(f"corrupt image: it cannot be decoded ({type(exc).__name__})") \
            from None
    if img is None or img.size == 0 or img.ndim != 3:
        raise InputError("not an image, or a corrupt image (could not decode)")
    h, w = img.shape[:2]
    if h * w * factor * factor > MAX_PIXELS + 2 * (h + w) * factor * factor:
        raise InputError(f"image too large: {w * factor}x{h * factor} pixels "
                         f"(limit {MAX_PIXELS // 1_000_000} megapixels)")
    full = max(upload.info.width, upload.info.height)
    scale = full / max(w, h) if factor > 1 else 1.0
    if h * scale < MIN_SIDE or w * scale < MIN_SIDE:
        raise InputError(f"image too small: {w}x{h} pixels")
    return Frame(img, upload.info.format, round((time.perf_counter() - start) * 1e3, 2),
                 scale)


def read_frame(data: bytes, limits: ImageLimits = ImageLimits(),
               useful_side: int | None = None) -> Frame:
    """``check`` then ``decode``."""
    return decode(check(data, limits), useful_side)


def decode_image(data: bytes) -> np.ndarray:
    """Image bytes (JPEG, PNG, WebP, BMP) -> a BGR uint8 array at full size, EXIF
    orientation applied; InputError for empty, oversized, non-image or corrupt data."""
    return read_frame(data).image

"""Enrolled decks for the web API, the transport side of ``scorer.enrolled``: the *Your
decks* page's list, enrolment (preview, then save what the player confirmed), export and
delete, with the uploads' limits and the HTTP refusals.

Enrolment runs the command's code (``scorer.vision.enrol.enrol_images``, then
``EnrolledDecks.enrol``): the preview finds and names the crops, the page sends the
confirmed crops back to be embedded and saved. Nothing is saved for bad input.
"""

from __future__ import annotations

import base64
import binascii
import re
import time
from typing import Any

import cv2
import numpy as np
from scorer.cards import CODES, card
from scorer.errors import InputError
from scorer.store.decks import DeckCard, DeckNotFound, DeckRecord, check_name, png_url
from scorer.vision.enrol import check_once, enrol_images, scan_code
from scorer.vision.imageheader import ImageTooLarge
from scorer.vision.profile import require_embedding
from scorer.vision.report import check_header, decode_frame
from webui.context import detection, enrolled_decks
from webui.detection import DetectorUnavailable
from webui.errors import Refused

MAX_IMAGES = 60                 # 48 single-card images and a few layout photos
TOTAL_CAPS = 2                  # the images of one preview together: this many image caps
DATA_URL = re.compile(r"^data:image/(?:png|jpeg|webp|bmp);base64,([A-Za-z0-9+/=\s]+)$")


def detector_if_any() -> Any:
    """The app's detector (loaded now if need be), or None when there is none."""
    try:
        return detection().detector()
    except DetectorUnavailable:
        return None


def listing() -> list[dict[str, Any]]:
    """The enrolled decks: name, cards, crops, created_at, updated_at."""
    return enrolled_decks().store.list()


def record(name: str) -> DeckRecord:
    """Deck ``name`` with its crops; 404 when there is none."""
    check_name(name)
    try:
        return enrolled_decks().store.get(name)
    except DeckNotFound as exc:
        raise Refused(404, str(exc)) from None


def delete(name: str) -> None:
    check_name(name)
    try:
        enrolled_decks().store.delete(name)
    except DeckNotFound as exc:
        raise Refused(404, str(exc)) from None


def _label(name: str | None, i: int) -> str:
    """An upload's file name as shown and stored (no folders, printable, short)."""
    base = re.sub(r"[^\w .()+-]", "_", (name or "").replace("\\", "/").rsplit("/", 1)[-1])
    return base.strip()[:60] or f"image {i + 1}"


def _decode(name: str, data: bytes, info: Any) -> np.ndarray:
    try:
        return decode_frame(data, info).image
    except InputError as exc:
        raise type(exc)(f"{name}: {exc}") from None


def _checked(name: str, data: bytes) -> Any:
    """The image's header checked against /api/detect's limits; the message names it."""
    try:
        return check_header(data, detection().limits)
    except InputError as exc:
        raise type(exc)(f"{name}: {exc}") from None


def read_uploads(files: list[tuple[str | None, bytes]]) -> tuple[list, list]:
    """Uploaded images (file name, bytes) -> (scans, photos), each (name, image): images
    named by a card code (``08-1.png``) are single-card images, the others layout photos
    in the order sent. Every header is checked before any image is decoded."""
    if not files:
        raise InputError("send layout photos or single-card images (multipart field "
                         "'images')")
    if len(files) > MAX_IMAGES:
        raise InputError(f"{len(files)} images: send at most {MAX_IMAGES} at once")
    limits = detection().limits
    named = [(_label(name, i), data) for i, (name, data) in enumerate(files)]
    infos = [_checked(name, data) for name, data in named]
    total = sum(info.width * info.height for info in infos)
    if total > TOTAL_CAPS * limits.max_pixels:
        raise ImageTooLarge(f"the images together are {total / 1e6:.0f} megapixels, over the "
                            f"cap of {TOTAL_CAPS * limits.max_pixels / 1e6:.0f}: send "
                            "smaller photos")
    scans, photos = [], []
    for (name, data), info in zip(named, infos):
        (scans if scan_code(name) else photos).append((name, _decode(name, data, info)))
    return scans, photos


def _detector() -> Any:
    det = detection().detector()
    require_embedding(det)              # a deck is saved with its embeddings
    return det


def preview(files: list[tuple[str | None, bytes]]) -> dict[str, Any]:
    """The crops the enrolment finds in the uploads, each named by the layout (or its
    file name), for the player to confirm or fix; nothing is saved."""
    scans, photos = read_uploads(files)
    det = _detector()
    start = time.perf_counter()
    with detection().slot():
        cards = enrol_images(det, scans, photos)
    have = {c.code for c in cards}
    return {"cards": [{"code": c.code, "name": card(c.code).name, "source": c.source,
                       "read_as": c.read_as, "crop": png_url(c.crop)} for c in cards],
            "missing": [c for c in CODES if c not in have],
            "photos": len(photos), "scans": len(scans),
            "seconds": round(time.perf_counter() - start, 2)}


def _crop(i: int, url: Any, det: Any) -> np.ndarray:
    """A crop sent back by the page (an image data URL), at the classifier's crop size."""
    found = DATA_URL.match(url) if isinstance(url, str) else None
    if not found:
        raise InputError(f"card {i + 1}: 'crop' must be an image data URL "
                         "(data:image/png;base64,...)")
    try:
        data = base64.b64decode(found.group(1), validate=False)
    except (binascii.Error, ValueError):
        raise InputError(f"card {i + 1}: its crop is not valid base64") from None
    name = f"card {i + 1}"
    img = _decode(name, data, _checked(name, data))
    if img.shape[:2] != (det.crop_h, det.crop_w):
        img = cv2.resize(img, (det.crop_w, det.crop_h), interpolation=cv2.INTER_AREA)
    return img


def _cards(body: Any, det: Any) -> list[DeckCard]:
    items = body.get("cards") if isinstance(body, dict) else None
    if not isinstance(items, list) or not items:
        raise InputError('send the deck\'s cards: {"cards": [{"code": "01-1", "crop": '
                         '"data:image/png;base64,...", "source": "..."}]}')
    if len(items) > len(CODES):
        raise InputError(f"{len(items)} cards: a deck has {len(CODES)}, each once")
    out = []
    for i, item in enumerate(items):
        if not isinstance(item, dict) or not isinstance(item.get("code"), str):
            raise InputError(f"card {i + 1}: give its 'code' (MM-K) and 'crop'")
        source = item.get("source")
        source = source[:200] if isinstance(source, str) and source else "page"
        out.append(DeckCard(card(item["code"]).code, _crop(i, item.get("crop"), det), source))
    check_once(out)
    return out


def save(name: Any, body: Any, create: bool = False) -> DeckRecord:
    """Store the confirmed cards as deck ``name`` (replacing its cards); ``create``: only
    as a new deck (409 if the name is taken). Embedded and saved as the command does."""
    check_name(name)
    det = _detector()
    cards = _cards(body, det)
    if create and name in enrolled_decks().store.names():
        raise Refused(409, f"a deck named {name!r} exists: replace it or choose another name")
    with detection().slot():
        return enrolled_decks().enrol(name, cards, det)

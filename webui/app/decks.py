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
from types import SimpleNamespace
from typing import Any, Iterable

import cv2
import numpy as np
from scorer.cards import CODES, card
from scorer.errors import InputError
from scorer.store.decks import (DeckCard, DeckNotFound, DeckRecord, check_name, clean_name,
                                png_url)
from scorer.vision.detector import CardDetector
from scorer.vision.enrol import check_once, enrol_images, scan_code
from scorer.vision.image import ImageLimits, ImageTooLarge, Upload, decode
from scorer.vision.profile import require_embedding
from webui.app.services import client, detection, enrolled_decks
from webui.app.errors import Refused

MAX_IMAGES = 60                 # 48 single-card images and a few layout photos
TOTAL_CAPS = 2                  # the images of one preview together: this many image caps
# a crop the page sends back is one card (the preview's are 72x112); a scan-sized one is fine
CROP_LIMITS = ImageLimits(max_pixels=4_000_000, max_side=4_000)
DATA_URL = re.compile(r"data:image/(?:png|jpeg|webp|bmp);base64,([A-Za-z0-9+/=\s]+)")


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


def read_uploads(files: list[tuple[str | None, bytes]]) -> list[tuple[str, Upload]]:
    """Uploaded images (file name, bytes) -> (name, checked upload): every header checked
    by the image gate before any image is decoded, and the images together within
    TOTAL_CAPS image caps."""
    if not files:
        raise InputError("send layout photos or single-card images (multipart field "
                         "'images')")
    if len(files) > MAX_IMAGES:
        raise InputError(f"{len(files)} images: send at most {MAX_IMAGES} at once")
    named = [(_label(name, i), data) for i, (name, data) in enumerate(files)]
    uploads = [(name, detection().check(data, name)) for name, data in named]
    _within_caps(u for _, u in uploads)
    return uploads


def _within_caps(uploads: Iterable[Upload]) -> None:
    limits = detection().limits
    total = sum(u.info.width * u.info.height for u in uploads)
    if total > TOTAL_CAPS * limits.max_pixels:
        raise ImageTooLarge(f"the images together are {total / 1e6:.0f} megapixels, over the "
                            f"cap of {TOTAL_CAPS * limits.max_pixels / 1e6:.0f}: send "
                            "smaller photos")


def _decoded(name: str, upload: Upload, useful_side: int | None) -> np.ndarray:
    try:
        return decode(upload, useful_side).image
    except InputError as exc:
        raise type(exc)(f"{name}: {exc}") from None


def _crop_side(det: CardDetector) -> int:
    """The longest side worth decoding of an image that becomes one crop (a scan, a crop
    sent back): twice the classifier's crop."""
    return 2 * max(det.crop_w, det.crop_h)


def _detector() -> CardDetector:
    det = detection().detector_on_workers()     # its inference on the workers (a heavy job)
    require_embedding(det)              # a deck is saved with its embeddings
    return det


def preview(files: list[tuple[str | None, bytes]], retake: bool = False) -> dict[str, Any]:
    """The crops the enrolment finds in the uploads, each named by the layout (or its
    file name) and read back by the network (its ``reading``, ``confidence`` and why it
    is ``unclear``: ``scorer.vision.enrol.unclear``), for the player to confirm, fix or
    retake; nothing is saved. ``retake``: each image named by code is a photo of that one
    card (the page's retake from the camera or a file), found in it
    (``scorer.vision.enrol.one_card``)."""
    uploads = read_uploads(files)
    det = _detector()
    start = time.perf_counter()
    scans = [(n, u) for n, u in uploads if scan_code(n)]
    photos = [(n, u) for n, u in uploads if not scan_code(n)]
    # a scan becomes one crop; a retake's card is found in its photo first
    scan_side = det.useful_side if retake else _crop_side(det)

    def job() -> list:
        return enrol_images(det, [(n, _decoded(n, u, scan_side)) for n, u in scans],
                            [(n, _decoded(n, u, det.useful_side)) for n, u in photos],
                            find=retake)

    cards = detection().run(client(), [u for _, u in uploads], job, det.useful_side,
                            heavy=True)
    have = {c.code for c in cards}
    return {"cards": [{"code": c.code, "name": card(c.code).name, "source": c.source,
                       "read_as": c.read_as, "reading": c.reading,
                       "reading_name": card(c.reading).name if c.reading else None,
                       "confidence": round(c.confidence, 3), "unclear": list(c.unclear),
                       "crop": png_url(c.crop)} for c in cards],
            "missing": [c for c in CODES if c not in have],
            "photos": len(photos), "scans": len(scans),
            "seconds": round(time.perf_counter() - start, 2)}


def _crop(i: int, url: Any) -> tuple[str, Upload]:
    """A crop sent back by the page (an image data URL), checked by the image gate."""
    found = DATA_URL.fullmatch(url) if isinstance(url, str) else None
    if not found:
        raise InputError(f"card {i + 1}: 'crop' must be an image data URL "
                         "(data:image/png;base64,...)")
    try:
        data = base64.b64decode(found.group(1), validate=False)
    except (binascii.Error, ValueError):
        raise InputError(f"card {i + 1}: its crop is not valid base64") from None
    name = f"card {i + 1}"
    return name, detection().check(data, name, CROP_LIMITS)


def _resized(name: str, upload: Upload, det: CardDetector) -> np.ndarray:
    """A crop at the classifier's crop size."""
    img = _decoded(name, upload, _crop_side(det))
    if img.shape[:2] != (det.crop_h, det.crop_w):
        img = cv2.resize(img, (det.crop_w, det.crop_h), interpolation=cv2.INTER_AREA)
    return img


def _cards(body: Any) -> list[tuple[str, str, tuple[str, Upload]]]:
    """The confirmed cards a save sends: (code, source, checked crop) each."""
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
        out.append((card(item["code"]).code, source, _crop(i, item.get("crop"))))
    check_once([SimpleNamespace(code=code, source=source) for code, source, _ in out])
    _within_caps(u for _, _, (_, u) in out)
    return out


def save(name: Any, body: Any, create: bool = False) -> DeckRecord:
    """Store the confirmed cards as deck ``name`` (replacing its cards); ``create``: only
    as a new deck (409 if the name is taken). Embedded and saved as the command does."""
    name = clean_name(name) if create else check_name(name)
    det = _detector()
    sent = _cards(body)
    if create and name in enrolled_decks().store.names():
        raise Refused(409, f"a deck named {name!r} exists: replace it or choose another name")

    decks = enrolled_decks()                 # the job runs on a worker, outside the request

    def job() -> DeckRecord:
        cards = [DeckCard(code, _resized(n, u, det), source) for code, source, (n, u) in sent]
        return decks.enrol(name, cards, det)

    return detection().run(client(), [u for _, _, (_, u) in sent], job,
                           _crop_side(det))

"""Enrolment: the named crops of a player's deck, from layout photos or card scans.

* Layout photos: the 48 cards laid out month by month in rows (January's four cards,
  then February's...; e.g. four photos of 12 cards, or one month per row). The
  localiser finds the cards; each photo's cards are sorted into rows by height, each
  row left to right, and the photos are taken in the order given, so the n-th card
  found is the n-th card of the deck (``scorer.cards.CODES``).
* A folder of single-card images named by code (``MM-K.png``, e.g. scans): each image
  is the card's face.

Every failure is an InputError with one line saying what to fix; nothing is returned
(so nothing is saved) for bad input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from scorer.cards import CODES, card, equivalent
from scorer.errors import InputError
from scorer.vision.geometry import rect_long_sides
from scorer.vision.image import decode_image

IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")
CODE_NAME = re.compile(r"(\d{1,2})-(\d)")
# the layout order and the network must agree on at least this share of each photo's
# cards (cards shifted by a place, or photos out of order, agree on almost none)
MIN_AGREEMENT = 0.5
# the localiser threshold for layout photos that miss cards at the detector's own: the
# cards lie apart on a plain table, and boxes between cards, on the table or counted
# wrong are dropped or refused, so a card that peaks under the frame's threshold is
# still enrolled (only then: on real tables a lower threshold finds more phantoms)
LAYOUT_THRESHOLD = 0.2


@dataclass
class EnrolledCard:
    code: str
    crop: np.ndarray        # (H,W,3) uint8 BGR, upright
    source: str             # the file it came from
    read_as: str | None = None   # what the network reads it as, where it differs


def _read_image(path: Path) -> np.ndarray:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    try:
        return decode_image(data)
    except InputError as exc:
        raise InputError(f"{path}: {exc}") from None


def scan_crop(img: np.ndarray, crop_w: int, crop_h: int) -> np.ndarray:
    """A single-card image -> the classifier's upright crop (a landscape image is
    turned to portrait)."""
    if img.shape[1] > img.shape[0]:
        img = cv2.rotate(img, cv2.ROTATE_90_CLOCKWISE)
    return cv2.resize(img, (crop_w, crop_h), interpolation=cv2.INTER_AREA)


def scan_code(name: str) -> str | None:
    """The card a single-card image's file name gives (``08-1.png`` -> ``08-1``), or None
    for a name that is not a code (e.g. a layout photo's). InputError for a name shaped
    like a code that names no card (``13-1.png``)."""
    path = Path(name)
    if path.suffix.lower() not in IMAGE_SUFFIXES or not CODE_NAME.fullmatch(path.stem):
        return None
    try:
        return card(path.stem).code
    except InputError:
        raise InputError(f"{name}: {path.stem} is not a card code (MM-K, month 01..12, "
                         "K 1..4)") from None


def enrol_scans(scans: list[tuple[str, np.ndarray]], crop_w: int,
                crop_h: int) -> list[EnrolledCard]:
    """The cards of single-card images (name, image), each named by its code (``MM-K``),
    in deck order."""
    cards = []
    for name, img in scans:
        code = scan_code(name)
        if code is None:
            raise InputError(f"{name}: name a card image by its code, e.g. 08-1.png")
        cards.append(EnrolledCard(code, scan_crop(img, crop_w, crop_h), name))
    check_once(cards)
    return sorted(cards, key=lambda c: CODES.index(c.code))


def _folder_scans(folder: Path) -> list[tuple[str, np.ndarray]]:
    """The ``MM-K`` images of a folder (name, image); other files are ignored."""
    paths = [p for p in sorted(Path(folder).iterdir()) if scan_code(str(p))]
    if not paths:
        raise InputError(f"no card images in {folder}: name them by code, e.g. 08-1.png")
    return [(str(p), _read_image(p)) for p in paths]


def enrol_folder(folder: Path, crop_w: int, crop_h: int) -> list[EnrolledCard]:
    """The cards of a folder of ``MM-K`` images; other files are ignored."""
    return enrol_scans(_folder_scans(folder), crop_w, crop_h)


def layout_plan(per_photo: int = 12) -> list[list[list[str]]]:
    """The layout ``enrol_layouts`` reads: photos of ``per_photo`` cards (a multiple of 4),
    each photo's rows one month's four cards left to right, months in deck order, rows
    top to bottom. ``[photo][row][card code]``."""
    if per_photo % 4 or not 0 < per_photo <= 48 or 48 % per_photo:
        raise ValueError(f"a layout photo holds whole months: 4, 8, 12, 16, 24 or 48 cards, "
                         f"not {per_photo}")
    return [[list(CODES[r:r + 4]) for r in range(p, p + per_photo, 4)]
            for p in range(0, 48, per_photo)]


def layout_order(rects: np.ndarray) -> np.ndarray:
    """Indices of the card rectangles (cx,cy,w,h,theta) in reading order: rows by
    height (a new row where a centre lies over half a card below the row's), each row
    left to right."""
    if not len(rects):
        return np.zeros(0, np.int64)
    size = float(np.median(rect_long_sides(rects)))
    order = np.argsort(rects[:, 1], kind="stable")
    rows: list[list[int]] = []
    for i in order:
        if rows and rects[i, 1] - np.mean(rects[rows[-1], 1]) < 0.5 * size:
            rows[-1].append(int(i))
        else:
            rows.append([int(i)])
    return np.array([i for row in rows for i in sorted(row, key=lambda k: rects[k, 0])],
                    np.int64)


def _apart(rects: np.ndarray, scores: np.ndarray, share: float = 0.3) -> np.ndarray:
    """Indices of the boxes to keep: laid-out cards do not overlap, so a box lying over
    ``share`` of its area on stronger boxes (a box between two cards) is dropped."""
    from scorer.vision.geometry import rect_to_quad

    quads = np.stack([rect_to_quad(*r) for r in rects])
    lo, hi = quads.min(1), quads.max(1)
    area = np.prod(hi - lo, 1)
    keep: list[int] = []
    for i in np.argsort(-scores):
        inter = np.clip(np.minimum(hi[i], hi[keep]) - np.maximum(lo[i], lo[keep]), 0, None)
        if not keep or inter.prod(1).sum() <= share * area[i]:
            keep.append(int(i))
    return np.array(sorted(keep), np.int64)


def _layout_cards(detector, photos: list[tuple[str, np.ndarray]],
                  threshold: float | None) -> list[tuple[str, np.ndarray, int]]:
    """(photo name, crop, class read) of each card in the layout photos, in layout order,
    localised at ``threshold`` (None: the detector's own thresholds)."""
    found = []
    for name, img in photos:
        rects, scores = detector.localise(img, threshold=threshold)
        if len(rects):
            rects = rects[_apart(rects, scores)]
            probs = detector.classify(detector.cut(img, rects)[1])
            # boxes the classifier calls "not a card" are table, not layout
            keep = probs.argmax(1) < 48
            rects, probs = rects[keep], probs[keep]
        if not len(rects):
            continue
        idx = layout_order(rects)
        crops = detector.cut(img, rects[idx])[1]
        found += [(name, crop, int(p.argmax())) for crop, p in zip(crops, probs[idx])]
    return found


def enrol_layouts(detector, photos: list[tuple[str, np.ndarray]],
                  first: int = 0) -> list[EnrolledCard]:
    """The cards of layout photos (name, image) holding cards ``CODES[first:]`` in
    order: all 48 together unless ``first`` says where they start. Read at the
    detector's thresholds, and again at ``LAYOUT_THRESHOLD`` when cards are missing."""
    want = 48 - first
    found = _layout_cards(detector, photos, None)
    if len(found) < want:
        found = _layout_cards(detector, photos, LAYOUT_THRESHOLD)
    for name, _ in photos:
        if not any(f[0] == name for f in found):
            raise InputError(f"no cards found in {name}: lay the cards out face up, apart, "
                             "on a plain table, and fill the photo with them")
    if len(found) != want:
        counts = ", ".join(f"{n}: {sum(1 for f in found if f[0] == n)}" for n, _ in photos)
        raise InputError(f"{'too few' if len(found) < want else 'too many'} cards: found "
                         f"{len(found)} in the layout photos ({counts}), a layout needs "
                         f"{want}, month by month in rows")
    out = []
    for code, (name, crop, read) in zip(CODES[first:], found):
        read_code = CODES[read]
        out.append(EnrolledCard(code, crop, name,
                                None if equivalent(read_code, code) else read_code))
    for name, _ in photos:
        mine = [c for c in out if c.source == name]
        agree = sum(c.read_as is None for c in mine)
        if agree < MIN_AGREEMENT * len(mine):
            raise InputError(f"{name}: the layout order does not match the cards (only "
                             f"{agree} of {len(mine)} look like the card their place names, "
                             f"{mine[0].code} to {mine[-1].code}): lay them out month by "
                             "month, January first, in rows, and give the photos in order")
    return out


def check_once(cards: list) -> None:
    """InputError naming the first card (``code``, ``source``) given twice."""
    seen: dict[str, str] = {}
    for c in cards:
        if c.code in seen:
            raise InputError(f"card {c.code} is given twice: {seen[c.code]} and {c.source}")
        seen[c.code] = c.source


def enrol_images(detector, scans: list[tuple[str, np.ndarray]],
                 photos: list[tuple[str, np.ndarray]]) -> list[EnrolledCard]:
    """Enrol from single-card images named by code and/or layout photos (in deck order;
    together 48 cards), each (name, image): the one path of ``hanafuda enrol`` and the
    page. A card given twice is an error."""
    if not scans and not photos:
        raise InputError("give layout photos or single-card images named by code "
                         "(MM-K.png)")
    cards = enrol_scans(scans, detector.crop_w, detector.crop_h) if scans else []
    if photos:
        cards += enrol_layouts(detector, photos)
    check_once(cards)
    return cards


def enrol_paths(detector, paths: list[str]) -> list[EnrolledCard]:
    """Enrol from folders of ``MM-K`` images and/or layout photos (given in deck order;
    together 48 cards). A card given twice is an error."""
    if not paths:
        raise InputError("give layout photos or a folder of MM-K.png card images")
    scans: list[tuple[str, np.ndarray]] = []
    photos = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            scans += _folder_scans(p)
        elif p.is_file():
            photos.append((raw, _read_image(p)))
        else:
            raise InputError(f"no such file or folder: {raw}")
    return enrol_images(detector, scans, photos)

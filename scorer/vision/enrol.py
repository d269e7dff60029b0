"""Enrolment: the named crops of a player's deck, from layout photos or card scans.

* Layout photos: the 48 cards laid out month by month in rows (January's four cards,
  then February's...; e.g. four photos of 12 cards, or one month per row). The
  localiser finds the cards; each photo's cards are sorted into rows by height, each
  row left to right, and the photos are taken in the order given, so the n-th card
  found is the n-th card of the deck (``scorer.cards.CODES``).
* A folder of single-card images named by code (``MM-K.png``, e.g. scans): each image
  is the card's face.

Every card comes back with the network's own reading of its crop (``read_back``) and
why the player should look at it again, if anything (``unclear``): the page shows both
and offers a retake of one card (``one_card``: the card found in a photo of it). Each crop
goes through the classifier once: a layout photo's cards keep the reading their layout
was checked with (``EnrolledCard.probs``).

Every failure is an InputError with one line saying what to fix; nothing is returned
(so nothing is saved) for bad input.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
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
# Why an enrolled card is *unclear* (``unclear``), the words the page translates:
OTHER = "other card"        # the network's likeliest reading is another card, or no card
UNSURE = "unsure"           # ... is the place's card, at under UNSURE_BELOW
BLURRED = "blurred"         # the crop's sharpness is under BLURRED_BELOW
SMALL = "small"             # the card is under SMALL_BELOW of the crop's height in its image
# A reading under one chance in two is the network's guess, not its reading. (Measured
# on rendered layouts of a deck: every card read right, at 0.58 to 0.98; the detector
# keeps a box as a card from its cls_threshold of 0.3, a looser bar than a reference
# picture of the player's card deserves.)
UNSURE_BELOW = 0.5
# Sharpness: the variance of the grey crop's Laplacian over the crop's own variance (so
# plain and busy art compare). Measured on the 48 faces of an art set at the classifier's
# crop: sharp 0.20-2.6; blurred by sigma 1.3 crop px 0.006-0.15; by 1.8 px under 0.07.
BLURRED_BELOW = 0.1
# A card under 3/4 of the classifier's crop height in its photo is enlarged into its crop:
# the deck's picture of it is then poorer than what a game's frames show.
SMALL_BELOW = 0.75
# A photo of one card whose largest box covers at least this share of the image is a
# scan: the image is the card (``one_card``).
FILLS = 0.7


@dataclass
class EnrolledCard:
    code: str
    crop: np.ndarray        # (H,W,3) uint8 BGR, upright
    source: str             # the file it came from
    read_as: str | None = None   # what the network reads it as, where it differs
    size: int | None = None      # the card's long side in its image, pixels
    reading: str | None = None   # ``read_back``: the network's likeliest card (None: no card)
    confidence: float = 0.0      # ... its probability
    unclear: tuple[str, ...] = ()   # ... why to look again: OTHER, UNSURE, BLURRED, SMALL
    # the classifier's (49,) probabilities of ``crop`` once read (a layout photo's cards are
    # read when found): ``read_back`` classifies only the crops without them
    probs: np.ndarray | None = field(default=None, repr=False)


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
        cards.append(EnrolledCard(code, scan_crop(img, crop_w, crop_h), name,
                                  size=max(img.shape[:2])))
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


def _layout_cards(detector, photos: list[tuple[str, np.ndarray]], threshold: float | None
                  ) -> list[tuple[str, np.ndarray, np.ndarray, int]]:
    """(photo name, crop, the classifier's (49,) probabilities of it, long side in pixels)
    of each card in the layout photos, in layout order, localised at ``threshold`` (None:
    the detector's own thresholds). Each box is cut and classified once."""
    found = []
    for name, img in photos:
        rects, scores = detector.localise(img, threshold=threshold)
        if not len(rects):
            continue
        rects = rects[_apart(rects, scores)]
        crops = detector.cut(img, rects)[1]
        probs = detector.classify(crops)
        # boxes the classifier calls "not a card" are table, not layout
        keep = probs.argmax(1) < 48
        rects, crops, probs = rects[keep], crops[keep], probs[keep]
        if not len(rects):
            continue
        idx = layout_order(rects)
        sides = np.ceil(rect_long_sides(rects[idx])).astype(int)
        found += [(name, crop, p, int(side))
                  for crop, p, side in zip(crops[idx], probs[idx], sides)]
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
    for code, (name, crop, probs, side) in zip(CODES[first:], found):
        read, _ = reading(probs, code)
        # ``reading`` names the place's card where the network reads an equivalent one
        out.append(EnrolledCard(code, crop, name, None if read == code else read, side,
                                probs=probs))
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
                 photos: list[tuple[str, np.ndarray]],
                 find: bool = False) -> list[EnrolledCard]:
    """Enrol from single-card images named by code and/or layout photos (in deck order;
    together 48 cards), each (name, image): the one path of ``hanafuda enrol`` and the
    page. ``find``: each single-card image is a photo of its card (a retake), which is
    found in it (``one_card``). Each card is read back (``read_back``). A card given twice
    is an error."""
    if not scans and not photos:
        raise InputError("give layout photos or single-card images named by code "
                         "(MM-K.png)")
    if find:
        cards = sorted((one_card(detector, name, img) for name, img in scans),
                       key=lambda c: CODES.index(c.code))
    else:
        cards = enrol_scans(scans, detector.crop_w, detector.crop_h) if scans else []
    if photos:
        cards += enrol_layouts(detector, photos)
    check_once(cards)
    return read_back(detector, cards)


def one_card(detector, name: str, img: np.ndarray) -> EnrolledCard:
    """The card of a photo of one card named by its code (``MM-K.jpg``): the largest box
    the localiser finds (at its thresholds, else at ``LAYOUT_THRESHOLD``), cut upright;
    where that box covers ``FILLS`` of the image or none is found, the image is the card
    (a scan), as ``enrol_scans`` reads it."""
    code = scan_code(name)
    if code is None:
        raise InputError(f"{name}: name a card image by its code, e.g. 08-1.png")
    rects, _ = detector.localise(img)
    if not len(rects):
        rects, _ = detector.localise(img, threshold=LAYOUT_THRESHOLD)
    if len(rects):
        rect = rects[int(np.argmax(rects[:, 2] * rects[:, 3]))]
        if rect[2] * rect[3] < FILLS * img.shape[0] * img.shape[1]:
            crop = detector.cut(img, rect[None])[1][0]
            return EnrolledCard(code, crop, name, size=int(np.ceil(max(rect[2], rect[3]))))
    return EnrolledCard(code, scan_crop(img, detector.crop_w, detector.crop_h), name,
                        size=max(img.shape[:2]))


def sharpness(crop: np.ndarray) -> float:
    """The variance of the grey crop's Laplacian over the crop's own variance: how much
    fine detail it keeps whatever its contrast (see ``BLURRED_BELOW``). The variance is
    counted as at least 100 (grey levels squared): in a crop of almost one grey the 8-bit
    steps are all its Laplacian sees, and no card's face is one grey."""
    grey = cv2.cvtColor(crop, cv2.COLOR_BGR2GRAY).astype(np.float64)
    return float(cv2.Laplacian(grey, cv2.CV_64F).var() / max(grey.var(), 100.0))


def reading(probs: np.ndarray, code: str) -> tuple[str | None, float]:
    """The network's likeliest card of a crop's (49,) probabilities and its probability,
    the plain chaff a month shares counted as one card (they are the same art); (None,
    p) when the likeliest is not a card. ``code`` names the card among equivalent ones."""
    best = int(np.argmax(probs))
    if best >= len(CODES):
        return None, float(probs[best])
    read = CODES[best]
    same = [i for i, c in enumerate(CODES) if equivalent(c, read)]
    if equivalent(read, code):
        read = code
    return read, float(probs[same].sum())


def unclear(code: str, read: str | None, confidence: float, crop: np.ndarray,
            size: int | None, crop_h: int) -> tuple[str, ...]:
    """Why the player should look at the card enrolled as ``code`` again, in order, or ():
    the network reads another card or none there (``OTHER``), the place's card at under
    ``UNSURE_BELOW`` (``UNSURE``: either way the deck would learn art the network does not
    recognise as that card, which is the very thing a retake fixes), the crop is blurred
    (``BLURRED``) or the card was small in its image (``SMALL``: both cheap to check, and
    a blurred or enlarged crop is a poor picture of the player's card)."""
    why = []
    if read is None or not equivalent(read, code):
        why.append(OTHER)
    elif confidence < UNSURE_BELOW:
        why.append(UNSURE)
    if sharpness(crop) < BLURRED_BELOW:
        why.append(BLURRED)
    if size is not None and size < SMALL_BELOW * crop_h:
        why.append(SMALL)
    return tuple(why)


def read_back(detector, cards: list[EnrolledCard]) -> list[EnrolledCard]:
    """``cards`` with the network's reading of each crop and why each is unclear
    (``unclear``). The crops not read yet (``probs`` None: scans, retakes) go through the
    classifier in one run; a layout photo's cards keep the reading their layout was
    checked with, so no crop is classified twice."""
    if not cards:
        return cards
    unread = [c.crop for c in cards if c.probs is None]
    fresh = iter(detector.classify(np.stack(unread)) if unread else ())
    for c in cards:
        probs = next(fresh) if c.probs is None else c.probs   # fresh: in the cards' order
        c.probs = probs
        c.reading, c.confidence = reading(probs, c.code)
        c.unclear = unclear(c.code, c.reading, c.confidence, c.crop, c.size,
                            detector.crop_h)
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

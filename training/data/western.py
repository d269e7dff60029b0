"""Western playing cards, drawn procedurally: the negatives a hanafuda recogniser meets
on real tables (issue 48). On real photographs the networks read a king of clubs as
04-1 at 0.82 and a box around a pile of white playing cards as 07-4 at 0.95; nothing
in training showed them such a card. Here they are:

- faces: white, cream or (like the real photos' black deck) black with gold pips; the
  corner indices (rank and a small suit), the number cards' pips in their usual places,
  an ace's one large pip, and court cards as a framed, point-symmetric figure cut from
  a picture (a real photo, noise or colour blocks);
- shape: a playing card's aspect (88 x 63 mm, 1.40, not hanafuda's 1.66) with rounded
  corners, a soft shadow and a thin edge;
- layouts: the realistic scenes' piles (fans, stacks, spreads, staggered stacks,
  heaps), a close-up of one to three cards or of a whole pile filling the frame.

``western_scene(lib, seed, kind)`` renders one scene: Western cards alone, or beside
(and under) a pile of hanafuda cards. Only the hanafuda cards are returned as cards:
every box on a Western card is "not a card".
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from training.data.realistic import (FRAMING_WEIGHTS, FRAMINGS, add_real_clutter, pile_layout,
                                     pile_positions)
from training.data.scenes import ArtLibrary, SceneCard, compose_scene, make_background

WESTERN_W, WESTERN_H = 126, 176  # a face raster at the playing card's 63 x 88 mm
WESTERN_ASPECT = WESTERN_H / WESTERN_W
SUITS = ("hearts", "diamonds", "clubs", "spades")
RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
WESTERN_KINDS = ("western_pile", "western_closeup", "mixed")
SEED_OFFSET = 200_000  # a kind's scenes start here in a split's seeds (then 4,000 a kind)
# where a number card's pips sit: (x, y) as shares of the face, top half mirrored below
_COLS = (0.3, 0.5, 0.7)
_PIPS = {
    2: [(1, 0.2), (1, 0.8)], 3: [(1, 0.2), (1, 0.5), (1, 0.8)],
    4: [(0, 0.2), (2, 0.2), (0, 0.8), (2, 0.8)],
    5: [(0, 0.2), (2, 0.2), (1, 0.5), (0, 0.8), (2, 0.8)],
    6: [(0, 0.2), (2, 0.2), (0, 0.5), (2, 0.5), (0, 0.8), (2, 0.8)],
    7: [(0, 0.2), (2, 0.2), (1, 0.35), (0, 0.5), (2, 0.5), (0, 0.8), (2, 0.8)],
    8: [(0, 0.2), (2, 0.2), (1, 0.35), (0, 0.5), (2, 0.5), (1, 0.65), (0, 0.8), (2, 0.8)],
    9: [(0, 0.2), (2, 0.2), (0, 0.4), (2, 0.4), (1, 0.5), (0, 0.6), (2, 0.6), (0, 0.8),
        (2, 0.8)],
    10: [(0, 0.2), (2, 0.2), (1, 0.3), (0, 0.4), (2, 0.4), (0, 0.6), (2, 0.6), (1, 0.7),
         (0, 0.8), (2, 0.8)],
}
_FONTS = (cv2.FONT_HERSHEY_SIMPLEX, cv2.FONT_HERSHEY_DUPLEX, cv2.FONT_HERSHEY_TRIPLEX,
          cv2.FONT_HERSHEY_COMPLEX)


@dataclass(frozen=True)
class FaceStyle:
    """A deck's look: its paper, its two inks and its index font."""
    paper: tuple[int, int, int]
    red: tuple[int, int, int]
    black: tuple[int, int, int]
    font: int
    frame: bool  # a thin line framing the pips, as some decks print


def draw_style(rng: np.random.Generator) -> FaceStyle:
    """A random deck: mostly white or cream paper with red and black ink; one in five a
    black face with gold (or silver) ink for both suits' colours."""
    font = _FONTS[int(rng.integers(len(_FONTS)))]
    if rng.random() < 0.2:
        gold = (int(rng.uniform(30, 90)), int(rng.uniform(140, 200)), int(rng.uniform(190, 240)))
        other = gold if rng.random() < 0.6 else (200, 200, 200)
        return FaceStyle((int(rng.uniform(5, 35)),) * 3, gold, other, font, rng.random() < 0.5)
    base = rng.uniform(228, 255)
    paper = tuple(int(min(base + t, 255)) for t in (rng.uniform(-14, 0), rng.uniform(-6, 0),
                                                    rng.uniform(-2, 0)))
    red = (int(rng.uniform(20, 60)), int(rng.uniform(10, 50)), int(rng.uniform(160, 230)))
    black = (int(rng.uniform(0, 40)),) * 3
    return FaceStyle(paper, red, black, font, rng.random() < 0.2)  # type: ignore[arg-type]


def draw_suit(img: np.ndarray, suit: str, cx: float, cy: float, size: float,
              colour: tuple[int, int, int], flip: bool = False) -> None:
    """A suit's pip of height ``size`` centred at (cx, cy) (``flip``: upside down)."""
    s = size / 2
    sign = -1.0 if flip else 1.0

    def pt(x: float, y: float) -> tuple[int, int]:
        return int(round(cx + x * s)), int(round(cy + sign * y * s))

    def disc(x: float, y: float, r: float) -> None:
        cv2.circle(img, pt(x, y), max(int(round(r * s)), 1), colour, -1, cv2.LINE_AA)

    def poly(points: list[tuple[float, float]]) -> None:
        cv2.fillPoly(img, [np.array([pt(x, y) for x, y in points], np.int32)], colour,
                     cv2.LINE_AA)
    if suit == "diamonds":
        poly([(0, -1), (0.72, 0), (0, 1), (-0.72, 0)])
    elif suit == "hearts":
        disc(-0.42, -0.4, 0.5)
        disc(0.42, -0.4, 0.5)
        poly([(-0.9, -0.25), (0.9, -0.25), (0, 1)])
    elif suit == "spades":
        disc(-0.42, 0.2, 0.48)
        disc(0.42, 0.2, 0.48)
        poly([(-0.88, 0.05), (0.88, 0.05), (0, -1)])
        poly([(0, 0.2), (0.35, 1), (-0.35, 1)])
    else:  # clubs
        disc(0, -0.5, 0.42)
        disc(-0.48, 0.12, 0.42)
        disc(0.48, 0.12, 0.42)
        poly([(0, -0.1), (0.35, 1), (-0.35, 1)])


def _court_figure(rng: np.random.Generator, w: int, h: int, picture) -> np.ndarray:
    """A court card's figure, ``w`` x ``h``: the top half from a picture (a real photo's
    crop when ``picture`` gives one, else colour blocks), the bottom half the top turned
    half round, as court cards are printed."""
    half = h // 2
    top = picture(rng, w, half) if picture is not None else None
    if top is None:
        top = np.full((half, w, 3), rng.integers(150, 255, 3), np.uint8)
        inks = [(30, 30, 200), (160, 60, 20), (40, 180, 230), (20, 20, 20), (240, 240, 240)]
        for _ in range(int(rng.integers(6, 16))):
            col = inks[int(rng.integers(len(inks)))]
            x0, y0 = int(rng.integers(0, w)), int(rng.integers(0, half))
            if rng.random() < 0.5:
                cv2.rectangle(top, (x0, y0), (x0 + int(rng.integers(4, w // 2)),
                                              y0 + int(rng.integers(4, half // 2))), col, -1)
            else:
                cv2.circle(top, (x0, y0), int(rng.integers(3, max(w // 5, 4))), col, -1,
                           cv2.LINE_AA)
    out = np.concatenate([top, np.rot90(top, 2)], axis=0)
    return cv2.resize(out, (w, h), interpolation=cv2.INTER_AREA)


def western_face(rng: np.random.Generator, style: FaceStyle | None = None,
                 rank: str | None = None, suit: str | None = None,
                 picture=None) -> tuple[np.ndarray, np.ndarray]:
    """One playing card's face (WESTERN_H x WESTERN_W BGR) and its alpha (rounded
    corners). ``picture(rng, w, h)``: where a court card's figure comes from (None:
    colour blocks)."""
    style = style or draw_style(rng)
    rank = rank or RANKS[int(rng.integers(len(RANKS)))]
    suit = suit or SUITS[int(rng.integers(len(SUITS)))]
    w, h = WESTERN_W, WESTERN_H
    face = np.empty((h, w, 3), np.uint8)
    face[:] = style.paper
    ink = style.red if suit in ("hearts", "diamonds") else style.black
    if style.frame:
        cv2.rectangle(face, (int(w * 0.16), int(h * 0.1)), (int(w * 0.84), int(h * 0.9)), ink,
                      1, cv2.LINE_AA)
    if rank in ("J", "Q", "K"):
        fw, fh = int(w * 0.62), int(h * 0.72)
        x0, y0 = (w - fw) // 2, (h - fh) // 2
        face[y0:y0 + fh, x0:x0 + fw] = _court_figure(rng, fw, fh, picture)
        cv2.rectangle(face, (x0, y0), (x0 + fw, y0 + fh), ink, 2, cv2.LINE_AA)
        draw_suit(face, suit, x0 + fw * 0.2, y0 + fh * 0.12, h * 0.08, ink)
    elif rank == "A":
        draw_suit(face, suit, w / 2, h / 2, h * rng.uniform(0.25, 0.45), ink)
    else:
        size = h * (0.13 if int(rank) < 9 else 0.11)
        for col, y in _PIPS[int(rank)]:
            draw_suit(face, suit, w * _COLS[col], h * y, size, ink, flip=y > 0.5)
    scale = 0.55 if len(rank) == 1 else 0.45
    for turned in (False, True):  # the corner index, and the same turned half round
        corner = face if not turned else np.ascontiguousarray(np.rot90(face, 2))
        cv2.putText(corner, rank, (3 if len(rank) == 2 else 6, 20), style.font, scale, ink, 2,
                    cv2.LINE_AA)
        draw_suit(corner, suit, 13, 32, 14, ink)
        if turned:
            face[:] = np.rot90(corner, 2)
    alpha = np.zeros((h, w), np.float32)
    r = int(w * rng.uniform(0.05, 0.1))
    cv2.rectangle(alpha, (r, 0), (w - 1 - r, h - 1), 1.0, -1)
    cv2.rectangle(alpha, (0, r), (w - 1, h - 1 - r), 1.0, -1)
    for cx, cy in ((r, r), (w - 1 - r, r), (r, h - 1 - r), (w - 1 - r, h - 1 - r)):
        cv2.circle(alpha, (cx, cy), r, 1.0, -1, cv2.LINE_AA)
    return face, alpha


def western_quad(cx: float, cy: float, hgt: float, angle_deg: float) -> np.ndarray:
    """A playing card's corners (TL, TR, BR, BL) at its own aspect."""
    wid = hgt / WESTERN_ASPECT
    a = math.radians(angle_deg)
    rot = np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]], np.float32)
    pts = np.array([[-wid / 2, -hgt / 2], [wid / 2, -hgt / 2], [wid / 2, hgt / 2],
                    [-wid / 2, hgt / 2]], np.float32)
    return (pts @ rot.T + np.array([cx, cy], np.float32)).astype(np.float32)


def paste_card(img: np.ndarray, face: np.ndarray, alpha: np.ndarray, quad: np.ndarray,
               rng: np.random.Generator) -> None:
    """``face`` warped onto ``quad`` of ``img`` in place, with a soft shadow and a thin
    edge, as a card lying on the table."""
    h, w = img.shape[:2]
    x0, y0 = np.maximum(np.floor(quad.min(0)).astype(int) - 8, 0)
    x1, y1 = np.minimum(np.ceil(quad.max(0)).astype(int) + 8, (w, h))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return
    fh, fw = face.shape[:2]
    src = np.array([[0, 0], [fw, 0], [fw, fh], [0, fh]], np.float32)
    m = cv2.getPerspectiveTransform(src, (quad - np.array([x0, y0], np.float32)))
    size = (int(x1 - x0), int(y1 - y0))
    hgt = float(np.linalg.norm(quad[3] - quad[0]))
    warped = cv2.warpPerspective(face, m, size, flags=cv2.INTER_AREA if hgt < fh / 2
                                 else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
    a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR,
                            borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    k = max(int(hgt * 0.05), 1) * 2 + 1
    shadow = np.roll(cv2.GaussianBlur(a, (k, k), 0), (max(int(hgt * 0.02), 1),) * 2, (0, 1))
    roi *= (1 - rng.uniform(0.2, 0.45) * shadow)[..., None]
    edge = np.clip(cv2.dilate(a, np.ones((3, 3), np.uint8)) - a, 0, 1)
    roi = roi * (1 - edge[..., None]) + rng.uniform(150, 230) * edge[..., None]
    roi = roi * (1 - a[..., None]) + warped.astype(np.float32) * a[..., None]
    img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def lay_western_cards(img: np.ndarray, rng: np.random.Generator, n: int, card_h: float,
                      picture=None, closeup: bool = False) -> list[np.ndarray]:
    """``n`` playing cards of one deck laid on ``img`` in place, as the realistic scenes
    lay piles (or, ``closeup``, one to three cards or a whole pile filling the frame);
    their quads, bottom to top."""
    h, w = img.shape[:2]
    style = draw_style(rng)
    if closeup:
        hgt = h * rng.uniform(0.5, 1.1)
        ang = rng.normal(0, 6) if rng.random() < 0.8 else rng.uniform(0, 360)
        step = hgt / WESTERN_ASPECT * rng.uniform(0.15, 0.7)
        cx0 = w / 2 - step * (n - 1) / 2 + rng.uniform(-0.15, 0.15) * w
        positions = [(cx0 + i * step, h / 2 + rng.normal(0, 0.05) * h, hgt,
                      ang + rng.normal(0, 3)) for i in range(n)]
    else:
        positions = pile_positions(rng, n, w, h, card_h)
    quads = []
    for cx, cy, hgt, ang in positions:
        q = western_quad(cx, cy, hgt * WESTERN_ASPECT / 1.66 * rng.uniform(0.95, 1.15), ang)
        face, alpha = western_face(rng, style, picture=picture)
        paste_card(img, face, alpha, q, rng)
        quads.append(q)
    return quads


@dataclass
class WesternScene:
    """A rendered scene: the image, its hanafuda cards (the only cards to find) and the
    playing cards' quads (every box on them is "not a card")."""
    image: np.ndarray
    cards: list[SceneCard]
    western: list[np.ndarray] = field(default_factory=list)
    kind: str = ""


def western_scene(lib: ArtLibrary, seed: int, kind: str, sets=None, picture=None,
                  table=None) -> WesternScene:
    """One scene of ``kind`` (``WESTERN_KINDS``) for ``seed``: a pile of playing cards
    (``western_pile``), a close-up of them (``western_closeup``), or playing cards with
    a hanafuda pile laid over and beside them (``mixed``). ``picture(rng, w, h)``: the
    court cards' figures; ``table(rng, w, h)``: a real table (default procedural)."""
    if kind not in WESTERN_KINDS:
        raise ValueError(f"unknown scene kind {kind!r}; one of {', '.join(WESTERN_KINDS)}")
    rng = np.random.default_rng(seed)
    w, h = FRAMINGS[rng.choice(len(FRAMINGS), p=FRAMING_WEIGHTS)]
    bg = table(rng, w, h) if table is not None and rng.random() < 0.5 \
        else make_background(rng, w, h)
    card_h = float(h * math.exp(rng.uniform(math.log(0.12), math.log(0.4))))
    if rng.random() < 0.4:
        add_real_clutter(bg, rng, lib, card_h, int(rng.integers(1, 3)),
                         kinds=("ring", "phone", "hand", "coins", "sheet"))
    closeup = kind == "western_closeup"
    n_western = int(rng.integers(1, 4)) if closeup and rng.random() < 0.6 else \
        int(rng.integers(3, 16))
    western = lay_western_cards(bg, rng, n_western, card_h, picture, closeup=closeup)
    items, positions = [], None
    if kind == "mixed":
        sets = list(sets) if sets else list(lib.sets)
        art = sets[int(rng.integers(len(sets)))]
        cids, positions, card_h = pile_layout(rng, "pile", int(rng.integers(2, 12)), w, h)
        items = [(art, c) for c in cids]
    # the realistic scenes' light and camera over everything (with no hanafuda card too)
    img, cards, _ = compose_scene(lib, rng, items, w, h, card_h=card_h,
                                  positions=positions if items else [],
                                  physical=rng.random() < 0.6, background=bg,
                                  perspective=0.0)
    return WesternScene(img, cards, western, kind)


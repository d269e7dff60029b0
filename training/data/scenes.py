"""Synthetic webcam scenes of hanafuda cards, made from the drawn card art.

Everything is driven by one integer seed, so a scene can be rebuilt exactly: the train,
validation and test sets are disjoint seed ranges (see ``SEED_RANGES``).

Public entry point for other parts of the project (the web page's browser test uses it
to make a fake-camera video)::

    from training.data.scenes import render_scene
    image, cards = render_scene(["01-1", "08-1", "12-2"], art_dir=None, seed=0)
    # image: HxWx3 uint8 BGR; cards: list[SceneCard] with .code, .box (x0,y0,x1,y1),
    # .quad (4x2 TL,TR,BR,BL of the card face), .visible (0..1), .upside_down

The art is read from ``art_dir`` (default ``../shared/card-art``); it is never copied.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Callable, Sequence

import cv2
import numpy as np

from scorer.cards import CODES, card
from training import DEFAULT_ART_DIR

ART_SETS: tuple[str, ...] = ("louie-mantia", "hwatu-commons", "freegostop-color",
                             "freegostop-pencil")
FACE_W, FACE_H = 160, 256  # canonical face raster (real cards are 32.5 x 54 mm, ~1.66)
CARD_ASPECT = FACE_H / FACE_W

# Disjoint seed ranges: never tune on test.
SEED_RANGES = {
    "train": (0, 1_000_000),
    "val": (1_000_000, 1_100_000),
    "test": (2_000_000, 2_100_000),
    "lodo_test": (3_000_000, 3_100_000),
    "shift_test": (4_000_000, 4_100_000),  # the domain-shift slice (training.data.shift)
    "shift_val": (4_100_000, 4_200_000),  # the same slice's seeds for choosing thresholds
}


@dataclass
class SceneCard:
    code: str
    class_id: int
    art_set: str
    quad: np.ndarray  # (4, 2) float32, face corners TL, TR, BR, BL in image pixels
    visible: float = 1.0  # share of the card's face that is visible in the frame
    upside_down: bool = False
    height: float = 0.0  # card height in pixels (mean of the two long edges)
    # the point of the card that shows most, (x, y, depth): where its face is visible
    # deepest from any edge or card over it, nearest its centre; depth in pixels
    seen_at: tuple[float, float, float] | None = None
    decoy: bool = False  # its face is not hanafuda art (a localiser-only sample)

    @property
    def box(self) -> tuple[float, float, float, float]:
        x0, y0 = self.quad.min(0)
        x1, y1 = self.quad.max(0)
        return float(x0), float(y0), float(x1), float(y1)

    def to_dict(self) -> dict:
        return {"code": self.code, "art_set": self.art_set,
                "quad": self.quad.round(2).tolist(), "box": [round(v, 2) for v in self.box],
                "visible": round(self.visible, 4), "upside_down": self.upside_down,
                "height": round(self.height, 2)}


@dataclass
class SceneInfo:
    blurred: bool = False
    sets: list[str] = field(default_factory=list)
    kind: str = "random"  # the generator's scene kind (realistic scenes: pile, closeup...)
    physical: bool = False  # cards drawn as a physical deck (dark border, gloss, edges)
    portrait: bool = False


# ----------------------------------------------------------------------------- art

class ArtLibrary:
    """All card faces of the chosen art sets, resized to FACE_W x FACE_H, BGR + alpha."""

    def __init__(self, art_dir: str | Path | None = None, sets: Sequence[str] | None = None):
        self.art_dir = Path(art_dir) if art_dir else DEFAULT_ART_DIR
        self.sets = tuple(sets) if sets else ART_SETS
        if not self.art_dir.is_dir():
            raise FileNotFoundError(
                f"card art directory not found: {self.art_dir} (pass --art-dir; the art "
                "lives in ../shared/card-art and is never copied into the repo)")
        self.faces: dict[str, list[tuple[np.ndarray, np.ndarray]]] = {}
        for s in self.sets:
            faces = []
            for code in CODES:
                path = self.art_dir / s / f"{code}.png"
                im = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
                if im is None:
                    raise FileNotFoundError(f"missing card art: {path}")
                faces.append(_prepare_face(im, s))
            self.faces[s] = faces

    def face(self, art_set: str, class_id: int) -> tuple[np.ndarray, np.ndarray]:
        return self.faces[art_set][class_id]


def _prepare_face(im: np.ndarray, art_set: str) -> tuple[np.ndarray, np.ndarray]:
    if im.ndim == 2:
        im = cv2.cvtColor(im, cv2.COLOR_GRAY2BGRA)
    if im.shape[2] == 3:
        alpha = np.full(im.shape[:2], 255, np.uint8)
        bgr = im
    else:
        alpha = im[:, :, 3]
        bgr = im[:, :, :3].copy()
        # transparent pixels -> white so resizing does not bleed black into the edge
        bgr[alpha < 128] = 255
    if art_set == "freegostop-color":
        bgr = _mask_korean_number(bgr)
    bgr = cv2.resize(bgr, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    alpha = cv2.resize(alpha, (FACE_W, FACE_H), interpolation=cv2.INTER_AREA)
    return bgr, alpha.astype(np.float32) / 255.0


def _mask_korean_number(bgr: np.ndarray) -> np.ndarray:
    """freegostop-color prints the KOREAN month number in the top-right corner (11 and
    12 swapped relative to our codes): inpaint it so the model cannot learn it."""
    h, w = bgr.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    x0, x1 = int(0.70 * w), int(0.965 * w)
    y0, y1 = int(0.025 * h), int(0.185 * h)
    mask[y0:y1, x0:x1] = 255
    return cv2.inpaint(bgr, mask, 5, cv2.INPAINT_TELEA)


@lru_cache(maxsize=4)
def _library(art_dir: str, sets: tuple[str, ...]) -> ArtLibrary:
    return ArtLibrary(art_dir, sets)


def get_library(art_dir=None, sets=None) -> ArtLibrary:
    return _library(str(Path(art_dir) if art_dir else DEFAULT_ART_DIR),
                    tuple(sets) if sets else ART_SETS)


# ------------------------------------------------------------------ deck variation

_DARK_INKS = np.array([[0.05, 0.05, 0.05], [0.10, 0.25, 0.08], [0.25, 0.12, 0.05],
                       [0.08, 0.08, 0.22], [0.02, 0.02, 0.02], [0.15, 0.15, 0.15]],
                      np.float32)  # BGR
_BORDERS = np.array([[20, 20, 20], [10, 10, 60], [25, 35, 70], [40, 40, 40],
                     [30, 20, 110], [230, 230, 230], [60, 60, 60], [15, 15, 30]], np.uint8)
_NUMBERS = ("20", "10", "5", "1", "2", "12", "8", "50", "3")


@lru_cache(maxsize=64)
def _rounded_mask(radius: int) -> np.ndarray:
    m = np.zeros((FACE_H, FACE_W), np.uint8)
    r = max(radius, 1)
    cv2.rectangle(m, (r, 0), (FACE_W - 1 - r, FACE_H - 1), 255, -1)
    cv2.rectangle(m, (0, r), (FACE_W - 1, FACE_H - 1 - r), 255, -1)
    for cx, cy in ((r, r), (FACE_W - 1 - r, r), (r, FACE_H - 1 - r),
                   (FACE_W - 1 - r, FACE_H - 1 - r)):
        cv2.circle(m, (cx, cy), r, 255, -1, lineType=cv2.LINE_AA)
    return m.astype(np.float32) / 255.0


def vary_card(bgr: np.ndarray, alpha: np.ndarray, rng: np.random.Generator,
              strength: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Make the printed face look like another physical deck: ink colour, saturation,
    greyscale, paper tone, line weight, border, printed numbers, rounded corners."""
    if strength <= 0:
        return bgr, alpha * _rounded_mask(6)
    img = bgr
    if rng.random() < 0.3 * strength:  # line weight
        k = int(rng.integers(2, 4))
        kernel = np.ones((k, k), np.uint8)
        img = cv2.erode(img, kernel) if rng.random() < 0.6 else cv2.dilate(img, kernel)
    f = img.astype(np.float32) * (1.0 / 255.0)
    if rng.random() < 0.5 * strength:  # dark ink -> black / green / brown / navy
        v = f.max(axis=2)
        w = np.clip((0.5 - v) / 0.35, 0.0, 1.0)[..., None] * rng.uniform(0.6, 1.0)
        ink = _DARK_INKS[rng.integers(len(_DARK_INKS))] * rng.uniform(0.7, 1.3)
        f = f * (1 - w) + ink[None, None, :] * w
    if rng.random() < 0.5 * strength:  # saturation / hue shift
        hsv = cv2.cvtColor(f, cv2.COLOR_BGR2HSV)
        hsv[..., 0] = (hsv[..., 0] + rng.uniform(-18, 18)) % 360.0
        hsv[..., 1] = np.clip(hsv[..., 1] * rng.uniform(0.45, 1.3), 0, 1)
        f = cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)
    if rng.random() < 0.12 * strength:  # greyscale print
        g = cv2.cvtColor(f, cv2.COLOR_BGR2GRAY)
        f = np.repeat(g[..., None], 3, axis=2)
    if rng.random() < 0.6 * strength:  # paper tone on the light areas
        m = np.clip((f.min(axis=2) - 0.65) / 0.3, 0, 1)[..., None]
        tone = np.array([rng.uniform(0.78, 1.0), rng.uniform(0.85, 1.0),
                         rng.uniform(0.9, 1.03)], np.float32)
        f = f * (1 + m * (tone - 1))
    out = np.clip(f * 255.0, 0, 255).astype(np.uint8)
    if rng.random() < 0.55 * strength:  # thick border like real decks
        b = int(round(rng.uniform(0.02, 0.09) * FACE_W))
        col = tuple(int(c) for c in _BORDERS[rng.integers(len(_BORDERS))])
        cv2.rectangle(out, (0, 0), (FACE_W - 1, FACE_H - 1), col, thickness=2 * b)
    if rng.random() < 0.3 * strength:  # printed point value / number (Hawaiian decks)
        txt = _NUMBERS[rng.integers(len(_NUMBERS))]
        scale = rng.uniform(0.5, 1.0)
        x = int(rng.uniform(0.05, 0.15) * FACE_W) if rng.random() < 0.5 else int(0.65 * FACE_W)
        y = int(rng.uniform(0.12, 0.2) * FACE_H) if rng.random() < 0.5 else int(0.95 * FACE_H)
        col = (20, 20, 20) if rng.random() < 0.6 else (30, 30, 190)
        cv2.putText(out, txt, (x, y), cv2.FONT_HERSHEY_SIMPLEX, scale, col,
                    int(rng.integers(1, 3)), cv2.LINE_AA)
    radius = int(rng.uniform(0.02, 0.09) * FACE_W)
    return out, alpha * _rounded_mask(radius)


_PHYSICAL_BORDERS = np.array([[12, 12, 12], [25, 22, 20], [35, 20, 15], [20, 15, 45],
                              [30, 30, 30]], np.uint8)


def physical_face(bgr: np.ndarray, alpha: np.ndarray,
                  rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """A printed card of a physical deck: the face varied as another deck, then the
    dark border 5-8% of the card's width that real decks fold over the face, near-black
    ink, rounded corners and, on glossy cards, a broad highlight."""
    out, _ = vary_card(bgr, alpha, rng, 0.6)
    if rng.random() < 0.6:  # inks that print near-black
        f = out.astype(np.float32)
        v = f.max(axis=2, keepdims=True)
        w = np.clip((110 - v) / 80, 0, 1)
        out = np.clip(f * (1 - 0.8 * w), 0, 255).astype(np.uint8)
    b = int(round(rng.uniform(0.05, 0.08) * FACE_W))
    col = tuple(int(c) for c in _PHYSICAL_BORDERS[rng.integers(len(_PHYSICAL_BORDERS))])
    cv2.rectangle(out, (0, 0), (FACE_W - 1, FACE_H - 1), col, thickness=2 * b)
    if rng.random() < 0.5:
        out = add_gloss(out, rng)
    radius = int(rng.uniform(0.04, 0.09) * FACE_W)
    return out, alpha * _rounded_mask(radius)


def add_gloss(face: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A glossy card's highlight: a soft band across the face, sometimes washing out
    most of it."""
    yy, xx = np.mgrid[0:FACE_H, 0:FACE_W].astype(np.float32)
    a = rng.uniform(0, math.pi)
    d = (xx - rng.uniform(0, FACE_W)) * math.cos(a) + (yy - rng.uniform(0, FACE_H)) * math.sin(a)
    width = rng.uniform(0.08, 0.6) * FACE_H
    m = np.exp(-0.5 * (d / width) ** 2) * rng.uniform(0.35, 0.9)
    f = face.astype(np.float32)
    return np.clip(f + (255 - f) * m[..., None], 0, 255).astype(np.uint8)


# --------------------------------------------------------------------- backgrounds

def _smooth_noise(rng, w, h, cells_x, cells_y) -> np.ndarray:
    n = rng.random((max(cells_y, 1), max(cells_x, 1))).astype(np.float32)
    return cv2.resize(n, (w, h), interpolation=cv2.INTER_CUBIC)


def make_background(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
    kind = rng.choice(["wood", "cloth", "paper", "mat", "plain"], p=[0.3, 0.2, 0.15, 0.2, 0.15])
    if kind == "wood":
        base = np.array([rng.uniform(30, 110), rng.uniform(60, 150), rng.uniform(100, 200)],
                        np.float32)
        warp = _smooth_noise(rng, w, h, 3, 6) * rng.uniform(10, 40)
        yy = np.arange(h, dtype=np.float32)[:, None] + warp
        grain = 0.5 + 0.5 * np.sin(yy * rng.uniform(0.15, 0.6))
        grain = grain * 0.6 + _smooth_noise(rng, w, h, 80, 6) * 0.4
        img = base[None, None, :] * (0.7 + 0.45 * grain[..., None])
        if rng.random() < 0.5:
            img = np.ascontiguousarray(np.transpose(cv2.resize(img, (h, w)), (1, 0, 2)))
    elif kind in ("cloth", "mat"):
        palette = np.array([[40, 110, 40], [30, 60, 20], [120, 60, 20], [30, 30, 130],
                            [40, 40, 40], [90, 90, 90], [20, 20, 20], [60, 100, 140],
                            [110, 50, 90]], np.float32)
        base = palette[rng.integers(len(palette))] * rng.uniform(0.6, 1.4)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
        img *= (0.85 + 0.3 * _smooth_noise(rng, w, h, 6, 5))[..., None]
        if kind == "cloth":
            f = rng.uniform(0.5, 1.5)
            xx = np.arange(w, dtype=np.float32)[None, :]
            yy = np.arange(h, dtype=np.float32)[:, None]
            weave = 0.5 + 0.25 * (np.sin(xx * f) + np.sin(yy * f))
            img *= (0.85 + 0.3 * weave)[..., None]
    elif kind == "paper":
        base = np.array([rng.uniform(180, 245)] * 3, np.float32) * \
            np.array([rng.uniform(0.85, 1.0), rng.uniform(0.92, 1.0), 1.0], np.float32)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
        img *= (0.92 + 0.1 * _smooth_noise(rng, w, h, 4, 3))[..., None]
    else:
        base = rng.uniform(20, 230, 3).astype(np.float32)
        img = np.broadcast_to(base, (h, w, 3)).astype(np.float32).copy()
        img *= (0.8 + 0.4 * _smooth_noise(rng, w, h, 2, 2))[..., None]
    img += rng.normal(0, rng.uniform(1, 6), (h, w, 1)).astype(np.float32)
    return np.clip(img, 0, 255).astype(np.uint8)


def add_clutter(img: np.ndarray, rng: np.random.Generator, lib: ArtLibrary | None,
                card_h: float) -> None:
    """Distractors: card backs / plain rectangles of card size, phones, pens, paper,
    text and a card box with part of some card art printed on it."""
    h, w = img.shape[:2]
    for _ in range(int(rng.integers(1, 6))):
        kind = rng.random()
        col = tuple(int(c) for c in rng.integers(0, 256, 3))
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        ang = rng.uniform(0, 180)
        if kind < 0.35:  # card-sized rectangle (card back, business card, phone)
            s = card_h * rng.uniform(0.6, 2.2)
            aspect = rng.uniform(1.2, 2.2)
            box = cv2.boxPoints(((cx, cy), (s / aspect, s), ang)).astype(np.int32)
            if rng.random() < 0.5:
                col = tuple(int(c) for c in (rng.integers(0, 60, 3) if rng.random() < 0.6
                                             else (20, 20, rng.integers(100, 200))))
            cv2.fillConvexPoly(img, box, col, cv2.LINE_AA)
            if rng.random() < 0.5:
                cv2.polylines(img, [box], True, tuple(int(c) for c in rng.integers(0, 256, 3)),
                              int(rng.integers(1, 4)), cv2.LINE_AA)
        elif kind < 0.5:
            cv2.ellipse(img, (int(cx), int(cy)),
                        (int(rng.uniform(5, 0.15 * w)), int(rng.uniform(5, 0.15 * h))),
                        ang, 0, 360, col, -1, cv2.LINE_AA)
        elif kind < 0.7:
            p2 = (int(cx + rng.uniform(-0.4, 0.4) * w), int(cy + rng.uniform(-0.4, 0.4) * h))
            cv2.line(img, (int(cx), int(cy)), p2, col, int(rng.integers(2, 12)), cv2.LINE_AA)
        elif kind < 0.85:
            cv2.putText(img, "".join(chr(int(c)) for c in rng.integers(65, 91, 5)),
                        (int(cx), int(cy)), cv2.FONT_HERSHEY_SIMPLEX, rng.uniform(0.5, 2.0),
                        col, int(rng.integers(1, 4)), cv2.LINE_AA)
        elif lib is not None:  # card box: a big box with a fragment of card art on it
            bw = int(card_h * rng.uniform(1.2, 2.5))
            bh = int(bw * rng.uniform(0.5, 0.9))
            x0, y0 = int(cx - bw / 2), int(cy - bh / 2)
            xa, ya, xb, yb = max(x0, 0), max(y0, 0), min(x0 + bw, w), min(y0 + bh, h)
            if xb - xa < 8 or yb - ya < 8:
                continue
            img[ya:yb, xa:xb] = col
            s = lib.sets[rng.integers(len(lib.sets))]
            face, _ = lib.face(s, int(rng.integers(48)))
            frag = face[int(0.15 * FACE_H):int(0.7 * FACE_H), int(0.1 * FACE_W):int(0.9 * FACE_W)]
            fw = max((xb - xa) // 2, 4)
            fh = max(min(int(fw * frag.shape[0] / frag.shape[1]), (yb - ya) - 4), 4)
            frag = cv2.resize(frag, (fw, fh))
            ox, oy = xa + (xb - xa - fw) // 2, ya + (yb - ya - fh) // 2
            img[oy:oy + fh, ox:ox + fw] = frag


# ------------------------------------------------------------------------ layout

def _card_quad(cx, cy, hgt, angle_deg) -> np.ndarray:
    wid = hgt / CARD_ASPECT
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    pts = np.array([[-wid / 2, -hgt / 2], [wid / 2, -hgt / 2], [wid / 2, hgt / 2],
                    [-wid / 2, hgt / 2]], np.float32)
    rot = np.array([[ca, -sa], [sa, ca]], np.float32)
    return pts @ rot.T + np.array([cx, cy], np.float32)


def pile_angle(rng, upright: float = 0.38, upside_down: float = 0.34) -> float:
    """A pile's angle in degrees: near 0 (share ``upright``), near 180 (share
    ``upside_down``: the far side's cards), else anywhere."""
    r = rng.random()
    if r < upright:
        return rng.normal(0, 6)
    if r < upright + upside_down:
        return 180 + rng.normal(0, 6)
    return rng.uniform(0, 360)


def _layout(rng, n: int, w: int, h: int, card_h: float) -> list[tuple[float, float, float, float]]:
    """Positions (cx, cy, height, angle) of n cards in bottom-to-top drawing order."""
    out: list[tuple[float, float, float, float]] = []
    n_piles = int(rng.integers(1, min(4, n) + 1))
    cuts = np.sort(rng.choice(np.arange(1, n), n_piles - 1, replace=False)) if n_piles > 1 else []
    sizes = np.diff(np.concatenate([[0], cuts, [n]])).astype(int)
    for m in sizes:
        ang = pile_angle(rng)
        kind = rng.choice(["fan", "scatter", "grid"], p=[0.6, 0.2, 0.2])
        cx, cy = rng.uniform(0.1, 0.9) * w, rng.uniform(0.1, 0.9) * h
        hh = card_h * rng.uniform(0.9, 1.1)
        ww = hh / CARD_ASPECT
        a = math.radians(ang)
        ux, uy = math.cos(a), math.sin(a)  # card's width direction
        vx, vy = -math.sin(a), math.cos(a)  # card's height direction
        pile = []
        if kind == "fan":
            along_width = rng.random() < 0.75
            step = (rng.uniform(0.5, 0.68) * ww) if along_width else (rng.uniform(0.4, 0.7) * hh)
            dx, dy = (ux, uy) if along_width else (vx, vy)
            rows = 1 if m < 6 or rng.random() < 0.6 else 2
            per_row = int(math.ceil(m / rows))
            for i in range(m):
                r, j = divmod(i, per_row)
                off = (j - (per_row - 1) / 2) * step
                roff = (r - (rows - 1) / 2) * hh * rng.uniform(0.6, 1.1) if along_width else \
                    (r - (rows - 1) / 2) * ww * 1.1
                ox = cx + dx * off + (vx if along_width else ux) * roff
                oy = cy + dy * off + (vy if along_width else uy) * roff
                pile.append((ox + rng.normal(0, 0.02 * ww), oy + rng.normal(0, 0.02 * hh),
                             hh * rng.uniform(0.98, 1.02), ang + rng.normal(0, 3)))
            if rng.random() < 0.3:
                pile.reverse()
        elif kind == "grid":
            cols = int(math.ceil(math.sqrt(m * 1.5)))
            gx, gy = ww * rng.uniform(1.03, 1.3), hh * rng.uniform(1.03, 1.2)
            nrows = int(math.ceil(m / cols))
            for i in range(m):
                r, j = divmod(i, cols)
                offx, offy = (j - (cols - 1) / 2) * gx, (r - (nrows - 1) / 2) * gy
                pile.append((cx + ux * offx + vx * offy, cy + uy * offx + vy * offy,
                             hh * rng.uniform(0.98, 1.02), ang + rng.normal(0, 2)))
        else:
            rad = hh * rng.uniform(0.5, 1.5) * math.sqrt(m)
            for _ in range(m):
                pile.append((cx + rng.uniform(-rad, rad), cy + rng.uniform(-rad, rad) * 0.75,
                             hh * rng.uniform(0.95, 1.05), ang + rng.normal(0, 25)))
        out.extend(pile)
    return out


def _random_homography(rng, w, h, amount) -> np.ndarray:
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], np.float32)
    dst = src + rng.uniform(-amount, amount, (4, 2)).astype(np.float32) * np.array([w, h],
                                                                                     np.float32)
    return cv2.getPerspectiveTransform(src, dst)


# ---------------------------------------------------------------------- photometric

@lru_cache(maxsize=1)
def _albu():
    import albumentations as A

    photometric = A.Compose([
        A.RandomBrightnessContrast(brightness_limit=0.25, contrast_limit=0.3, p=0.6),
        A.HueSaturationValue(hue_shift_limit=8, sat_shift_limit=25, val_shift_limit=15, p=0.4),
        A.RandomGamma(gamma_limit=(70, 140), p=0.3),
        A.OneOf([A.GaussNoise(std_range=(0.01, 0.06)), A.ISONoise()], p=0.5),
        A.Downscale(scale_range=(0.35, 0.85), p=0.2),
        A.ImageCompression(quality_range=(25, 95), p=0.6),
    ])
    blur = A.Compose([A.OneOf([
        A.MotionBlur(blur_limit=(3, 11)),
        A.Defocus(radius=(2, 4), alias_blur=(0.1, 0.3)),
        A.GaussianBlur(blur_limit=(5, 9)),
    ], p=1.0)])
    return photometric, blur


def _lighting(img: np.ndarray, rng, cards: list[SceneCard]) -> np.ndarray:
    h, w = img.shape[:2]
    f = img.astype(np.float32)
    gain = rng.uniform(0.55, 1.0) + rng.uniform(0.0, 0.6) * _smooth_noise(rng, w, h, 3, 3)
    f *= gain[..., None]
    if rng.random() < 0.6:  # warm / cold light
        t = rng.uniform(-1, 1)
        f *= np.array([1 - 0.18 * t, 1.0, 1 + 0.15 * t], np.float32)
    if rng.random() < 0.3:  # cast shadow
        pts = np.stack([rng.uniform(-0.2, 1.2, 5) * w, rng.uniform(-0.2, 1.2, 5) * h], 1)
        hull = cv2.convexHull(pts.astype(np.float32)).astype(np.int32)
        m = np.zeros((h, w), np.float32)
        cv2.fillConvexPoly(m, hull, 1.0)
        k = int(rng.integers(5, 40)) * 2 + 1
        m = cv2.GaussianBlur(m, (k, k), 0)
        f *= (1 - rng.uniform(0.25, 0.55) * m)[..., None]
    if rng.random() < 0.35 and cards:  # specular glare on glossy cards
        c = cards[rng.integers(len(cards))]
        cx, cy = c.quad.mean(0) + rng.normal(0, 0.3 * max(c.height, 1), 2)
        m = np.zeros((h, w), np.float32)
        ax = max(int(c.height * rng.uniform(0.1, 0.5)), 2)
        cv2.ellipse(m, (int(cx), int(cy)), (ax, max(int(ax * rng.uniform(0.3, 1)), 1)),
                    rng.uniform(0, 180), 0, 360, 1.0, -1)
        k = max(int(ax * 0.6), 1) * 2 + 1
        m = cv2.GaussianBlur(m, (k, k), 0)
        f += (m * rng.uniform(80, 230))[..., None]
    return np.clip(f, 0, 255).astype(np.uint8)


# -------------------------------------------------------------------------- scenes

def compose_scene(lib: ArtLibrary, rng: np.random.Generator, items: list[tuple[str, int]],
                  width: int = 640, height: int = 480, *, card_h: float | None = None,
                  positions=None, variation: float = 1.0, clutter: bool | None = None,
                  photometric: bool = True, perspective: float | None = None,
                  blur: bool | None = None, physical: bool = False,
                  background: np.ndarray | None = None, decoys: Sequence[bool] = (),
                  decoy_face: Callable[[np.random.Generator], np.ndarray] | None = None
                  ) -> tuple[np.ndarray, list[SceneCard], SceneInfo]:
    """Render cards ``items`` = [(art_set, class_id), ...] (bottom to top) into a scene.

    ``physical``: cards look like a printed deck (``physical_face``), each casts a soft
    shadow and shows its thickness as a thin edge. ``background``: the table (with any
    clutter) to draw on, else a random one. ``decoys[i]``: item ``i`` gets the picture
    ``decoy_face(rng)`` (FACE_H x FACE_W BGR) inside its card's outline instead of its
    art, so a localiser learns the card from its outline, border, edge and shadow."""
    w, h = width, height
    n = len(items)
    if card_h is None:
        lo, hi = 0.05 * h, 0.6 * h
        hi = min(hi, math.sqrt(1.6 * w * h * CARD_ASPECT / (0.65 * max(n, 1))))
        card_h = float(math.exp(rng.uniform(math.log(lo), math.log(max(hi, lo * 1.01)))))
    if background is not None:
        img = background.copy()
    else:
        img = make_background(rng, w, h)
        if clutter is None:
            clutter = rng.random() < 0.5
        if clutter:
            add_clutter(img, rng, lib, card_h)
    pos = positions if positions is not None else _layout(rng, n, w, h, card_h)
    quads = [_card_quad(*p) for p in pos]
    if perspective is None:
        perspective = rng.uniform(0.0, 0.12) if rng.random() < 0.7 else 0.0
    if perspective > 0:
        hm = _random_homography(rng, w, h, perspective)
        quads = [cv2.perspectiveTransform(q[None], hm)[0] for q in quads]
    labels = np.full((h, w), -1, np.int32)
    shadow = physical or rng.random() < 0.5
    if physical:  # drawn only for physical decks, so the older scenes stay as they were
        edge_col = rng.uniform(200, 250) if rng.random() < 0.6 else rng.uniform(10, 60)
        edge_dir = rng.normal(0, 1, 2)
        edge_dir /= max(float(np.hypot(*edge_dir)), 1e-6)
    src = np.array([[0, 0], [FACE_W, 0], [FACE_W, FACE_H], [0, FACE_H]], np.float32)
    cards: list[SceneCard] = []
    areas = []
    rois: list[tuple[int, int, int, int] | None] = []
    for i, ((s, cid), q) in enumerate(zip(items, quads)):
        bgr, alpha = lib.face(s, cid)
        decoy = i < len(decoys) and bool(decoys[i]) and decoy_face is not None
        if decoy:
            bgr = decoy_face(rng)
        bgr, alpha = physical_face(bgr, alpha, rng) if physical else \
            vary_card(bgr, alpha, rng, variation)
        ang = math.degrees(math.atan2(q[1, 1] - q[0, 1], q[1, 0] - q[0, 0]))
        hgt = 0.5 * (np.linalg.norm(q[3] - q[0]) + np.linalg.norm(q[2] - q[1]))
        cards.append(SceneCard(CODES[cid], cid, s, q.astype(np.float32),
                               upside_down=bool(math.cos(math.radians(ang)) < 0),
                               height=float(hgt), decoy=decoy))
        areas.append(abs(cv2.contourArea(q.astype(np.float32))))
        pad = 6
        x0, y0 = np.floor(q.min(0)).astype(int) - pad
        x1, y1 = np.ceil(q.max(0)).astype(int) + pad
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 2 or y1 - y0 < 2:
            rois.append(None)
            continue
        rois.append((x0, y0, x1, y1))
        m = cv2.getPerspectiveTransform(src, (q - np.array([x0, y0], np.float32)).astype(np.float32))
        size = (x1 - x0, y1 - y0)
        face = cv2.warpPerspective(bgr, m, size, flags=cv2.INTER_AREA if hgt < FACE_H / 2
                                   else cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)
        a = cv2.warpPerspective(alpha, m, size, flags=cv2.INTER_LINEAR,
                                borderMode=cv2.BORDER_CONSTANT, borderValue=0)
        roi = img[y0:y1, x0:x1].astype(np.float32)
        if shadow:
            k = max(int(hgt * (0.06 if physical else 0.04)), 1) * 2 + 1
            sh = cv2.GaussianBlur(a, (k, k), 0)
            sh = np.roll(sh, (max(int(hgt * 0.02), 1), max(int(hgt * 0.02), 1)), (0, 1))
            roi *= (1 - (0.45 if physical else 0.35) * sh)[..., None]
        if physical:  # the card's thickness: a thin light or dark edge on one side
            t = max(hgt * 0.008, 1.0)
            shift = np.float32([[1, 0, edge_dir[0] * t], [0, 1, edge_dir[1] * t]])
            e = cv2.warpAffine(a, shift, (a.shape[1], a.shape[0])) * (1 - a)
            roi = roi * (1 - e[..., None]) + edge_col * e[..., None]
        roi = roi * (1 - a[..., None]) + face.astype(np.float32) * a[..., None]
        img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)
        lab = labels[y0:y1, x0:x1]
        lab[a > 0.5] = i
    counts = np.bincount(labels.ravel() + 1, minlength=n + 1)[1:]
    for i, (c, cnt, area, roi) in enumerate(zip(cards, counts, areas, rois)):
        c.visible = float(min(cnt / max(area, 1.0), 1.0))
        if cnt and roi is not None:
            x0, y0, x1, y1 = roi
            px, py, depth = seen_point(labels[y0:y1, x0:x1] == i, c.quad - (x0, y0))
            c.seen_at = (px + x0, py + y0, depth)
    info = SceneInfo(sets=sorted({s for s, _ in items}), physical=physical)
    if photometric:
        img = _lighting(img, rng, cards)
        tf, blur_tf = _albu()
        if blur is None:
            blur = rng.random() < 0.3
        if blur:
            blur_tf.set_random_seed(int(rng.integers(2**31)))
            img = blur_tf(image=img)["image"]
            info.blurred = True
        tf.set_random_seed(int(rng.integers(2**31)))
        img = tf(image=img)["image"]
    return img, cards, info


def seen_point(mask: np.ndarray, quad: np.ndarray) -> tuple[float, float, float]:
    """(x, y, depth) of the visible pixel of ``mask`` deepest inside it (its distance to
    the nearest hidden or outside pixel), less a quarter of its distance to the card's
    centre: a fully visible card's centre, a stacked card's most exposed point."""
    ys, xs = np.nonzero(mask)
    x0, y0, x1, y1 = xs.min(), ys.min(), xs.max() + 1, ys.max() + 1
    roi = np.zeros((y1 - y0 + 2, x1 - x0 + 2), np.uint8)
    roi[1:-1, 1:-1] = mask[y0:y1, x0:x1]
    dist = cv2.distanceTransform(roi, cv2.DIST_L2, 3)[1:-1, 1:-1]
    cx, cy = quad.mean(0)
    gy, gx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
    score = dist - 0.25 * np.hypot(gx - cx, gy - cy)
    k = int(np.argmax(score))
    ky, kx = divmod(k, x1 - x0)
    return float(x0 + kx), float(y0 + ky), float(dist[ky, kx])


def random_scene(lib: ArtLibrary, seed: int, width: int = 640, height: int = 480,
                 sets: Sequence[str] | None = None, max_cards: int = 20):
    """The training / evaluation scene for ``seed``: 1..max_cards random cards, mostly
    from one art set, random layout, deck variation and webcam conditions."""
    rng = np.random.default_rng(seed)
    sets = list(sets) if sets else list(lib.sets)
    n = int(min(max_cards, 1 + rng.integers(0, 20) if rng.random() < 0.7
                else rng.integers(1, 6)))
    if rng.random() < 0.8:
        s = sets[rng.integers(len(sets))]
        chosen = [s] * n
    else:
        chosen = [sets[i] for i in rng.integers(0, len(sets), n)]
    cids = rng.choice(48, n, replace=False) if n <= 48 else rng.integers(0, 48, n)
    items = [(s, int(c)) for s, c in zip(chosen, cids)]
    return compose_scene(lib, rng, items, width, height)


def render_scene(codes: Sequence[str], art_dir: str | Path | None = None, seed: int = 0, *,
                 width: int = 640, height: int = 480, art_set: str = "louie-mantia",
                 easy: bool = True, card_height: float | None = None):
    """Render a scene showing exactly ``codes`` (in that order, bottom to top).

    ``easy=True`` (default) lays the cards out upright in a non-overlapping grid on a
    plain table, evenly lit, without blur: a scene a working detector must get exactly
    right. ``easy=False`` uses the full training randomisation (overlap, rotation,
    lighting, blur...). Returns ``(image, cards)``: a ``height x width x 3`` uint8 BGR
    image and one ``SceneCard`` per code (``.code``, ``.box`` xyxy pixels, ``.quad``,
    ``.visible``, ``.upside_down``)."""
    lib = get_library(art_dir)
    if art_set not in lib.sets:
        raise ValueError(f"unknown art set {art_set!r}; one of {', '.join(lib.sets)}")
    items = [(art_set, card(c).class_index) for c in codes]
    rng = np.random.default_rng(seed)
    if not easy:
        return compose_scene(lib, rng, items, width, height, card_h=card_height)[:2]
    n = max(len(items), 1)
    cols = int(math.ceil(math.sqrt(n * width / height / CARD_ASPECT * 1.0)))
    cols = max(1, min(cols, n))
    rows = int(math.ceil(n / cols))
    cell_w, cell_h = width / cols, height / rows
    ch = card_height or min(cell_h * 0.78, cell_w * 0.78 * CARD_ASPECT)
    positions = []
    for i in range(len(items)):
        r, c = divmod(i, cols)
        positions.append(((c + 0.5) * cell_w, (r + 0.5) * cell_h, ch, rng.normal(0, 2)))
    img, cards, _ = compose_scene(lib, rng, items, width, height, card_h=ch,
                                  positions=positions, variation=0.0, clutter=False,
                                  photometric=False, perspective=0.0, blur=False)
    return img, cards

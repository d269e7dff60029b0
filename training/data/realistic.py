"""Realistic scenes: point piles as players lay them, framed as players frame them.

``random_scene`` (training.data.scenes) spreads 1-20 cards of any size, down to a few pixels,
over the frame. Real point piles look different (issue 14, measured on real photos): a
physical deck (dark border, rounded corners, near-black ink, gloss, the card's edge and
a soft shadow where cards stack), fanned rows, loose stacks with the top card fully
visible, rows grouped by month, several piles per frame; webcams at 640x480 or
1280x720, portrait phone photos; close-ups of one or two cards filling the frame; and
clutter: rings, knitted things, the deck's own box printed with card art, phones,
hands, coins, dice, a score sheet.

``realistic_scene(lib, seed, kind)`` renders one such scene. The kinds are the
evaluation's slices (``KINDS``); a seed picks its kind when none is given.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

import cv2
import numpy as np

from training.data.scenes import (CARD_ASPECT, FACE_H, FACE_W, ArtLibrary, SceneCard, SceneInfo,
                             compose_scene, make_background, pile_angle)

KINDS: tuple[str, ...] = ("pile", "physical", "closeup", "clutter", "upside_down")
KIND_WEIGHTS = (0.35, 0.25, 0.15, 0.12, 0.13)
# (width, height) of the frames players send: webcams and (downscaled) phone photos
FRAMINGS = ((640, 480), (1280, 720), (540, 720), (720, 960))
FRAMING_WEIGHTS = (0.35, 0.35, 0.15, 0.15)
# realistic seeds live at this offset inside each split's range (training.data.scenes.SEED_RANGES)
SEED_OFFSET = 60_000


def realistic_seed(split_start: int, kind: str, k: int) -> int:
    """The ``k``-th seed of slice ``kind`` in the split starting at ``split_start``."""
    return split_start + SEED_OFFSET + KINDS.index(kind) * 4_000 + k


# ------------------------------------------------------------------------ clutter

def _fill_rect(img, cx, cy, w, h, angle_deg, colour) -> None:
    """A filled rectangle of size w x h centred at (cx, cy), turned by ``angle_deg``."""
    box = cv2.boxPoints(((cx, cy), (w, h), angle_deg)).astype(np.int32)
    cv2.fillConvexPoly(img, box, colour, cv2.LINE_AA)


def _draw_ring(img, rng, cx, cy, r):
    """A knitted or braided ring: a thick textured torus."""
    col = rng.integers(40, 240, 3).astype(np.float32)
    thick = max(int(r * rng.uniform(0.25, 0.5)), 3)
    m = np.zeros(img.shape[:2], np.float32)
    cv2.circle(m, (int(cx), int(cy)), int(r), 1.0, thick, cv2.LINE_AA)
    yy, xx = np.mgrid[0:img.shape[0], 0:img.shape[1]].astype(np.float32)
    ang = np.arctan2(yy - cy, xx - cx)
    knit = 0.75 + 0.25 * np.sin(ang * rng.uniform(20, 60)) * \
        np.sin(np.hypot(yy - cy, xx - cx) * rng.uniform(0.5, 1.5))
    f = img.astype(np.float32)
    f = f * (1 - m[..., None]) + (col[None, None, :] * knit[..., None]) * m[..., None]
    img[:] = np.clip(f, 0, 255).astype(np.uint8)


def _draw_deck_box(img, rng, lib: ArtLibrary, cx, cy, card_h):
    """The deck's box: a coloured box about a card's size or larger, printed with one
    or two card faces and a title - not a card."""
    bw = card_h * rng.uniform(0.8, 1.6)
    bh = bw * rng.uniform(0.6, 1.5)
    ang = rng.uniform(0, 180)
    _fill_rect(img, cx, cy, bw, bh, ang, tuple(int(c) for c in rng.integers(0, 200, 3)))
    s = lib.sets[rng.integers(len(lib.sets))]
    face, _ = lib.face(s, int(rng.integers(48)))
    fh = min(bh, bw * CARD_ASPECT) * rng.uniform(0.5, 0.8)
    fw = fh / CARD_ASPECT
    off = rng.uniform(-0.15, 0.15, 2) * np.array([bw, bh])
    inner = cv2.boxPoints(((cx + off[0], cy + off[1]), (fw, fh), ang)).astype(np.float32)
    # boxPoints starts at the lowest point; any consistent order paints a face on it
    src = np.array([[0, FACE_H], [0, 0], [FACE_W, 0], [FACE_W, FACE_H]], np.float32)
    m = cv2.getPerspectiveTransform(src, inner)
    h, w = img.shape[:2]
    warped = cv2.warpPerspective(face, m, (w, h))
    mask = cv2.warpPerspective(np.ones((FACE_H, FACE_W), np.float32), m, (w, h))
    f = img.astype(np.float32)
    img[:] = np.clip(f * (1 - mask[..., None]) + warped * mask[..., None], 0, 255).astype(
        np.uint8)
    if rng.random() < 0.7:
        cv2.putText(img, "HANAFUDA" if rng.random() < 0.5 else "HWATU",
                    (int(cx - bw * 0.4), int(cy + bh * 0.42)), cv2.FONT_HERSHEY_SIMPLEX,
                    max(bw / 250, 0.3), (240, 240, 240), 1, cv2.LINE_AA)


def _draw_phone(img, rng, cx, cy, card_h):
    ph = card_h * rng.uniform(1.3, 2.0)
    pw = ph * rng.uniform(0.45, 0.52)
    ang = rng.uniform(0, 180)
    _fill_rect(img, cx, cy, pw, ph, ang, tuple(int(c) for c in rng.integers(0, 50, 3)))
    _fill_rect(img, cx, cy, pw * 0.9, ph * 0.9, ang,  # the screen
               tuple(int(c) for c in (rng.integers(0, 40, 3) if rng.random() < 0.5
                                      else rng.integers(60, 255, 3))))


def _draw_hand(img, rng, cx, cy, card_h):
    skin = np.array([rng.uniform(60, 150), rng.uniform(100, 180), rng.uniform(150, 235)])
    col = tuple(int(c) for c in skin)
    r = card_h * rng.uniform(0.35, 0.6)
    ang = rng.uniform(0, 2 * math.pi)
    cv2.ellipse(img, (int(cx), int(cy)), (int(r), int(r * 0.8)), math.degrees(ang), 0, 360,
                col, -1, cv2.LINE_AA)
    for k in range(4):
        a = ang + (k - 1.5) * 0.35
        x1, y1 = cx + math.cos(a) * r * 2.0, cy + math.sin(a) * r * 2.0
        cv2.line(img, (int(cx), int(cy)), (int(x1), int(y1)), col, max(int(r * 0.32), 2),
                 cv2.LINE_AA)


def _draw_coins_dice(img, rng, cx, cy, card_h):
    for _ in range(int(rng.integers(1, 5))):
        x, y = cx + rng.normal(0, card_h * 0.4), cy + rng.normal(0, card_h * 0.4)
        if rng.random() < 0.5:  # coin
            r = int(card_h * rng.uniform(0.1, 0.2))
            base = np.array([rng.uniform(30, 90), rng.uniform(90, 170), rng.uniform(140, 210)])
            cv2.circle(img, (int(x), int(y)), max(r, 2), tuple(int(c) for c in base), -1,
                       cv2.LINE_AA)
            cv2.circle(img, (int(x), int(y)), max(int(r * 0.8), 1),
                       tuple(int(c * 0.8) for c in base), 1, cv2.LINE_AA)
        else:  # die
            s = card_h * rng.uniform(0.1, 0.18)
            _fill_rect(img, x, y, s, s, rng.uniform(0, 90), (235, 235, 235))
            for _ in range(int(rng.integers(1, 7))):
                px, py = x + rng.uniform(-0.3, 0.3) * s, y + rng.uniform(-0.3, 0.3) * s
                cv2.circle(img, (int(px), int(py)), max(int(s * 0.08), 1), (20, 20, 20), -1)


def _draw_score_sheet(img, rng, cx, cy, card_h):
    sh = card_h * rng.uniform(1.5, 3.0)
    sw = sh * rng.uniform(0.6, 0.8)
    ang = rng.uniform(0, 180)
    _fill_rect(img, cx, cy, sw, sh, ang, tuple(int(c) for c in rng.integers(215, 250, 3)))
    a = math.radians(ang)
    ux, uy = math.cos(a), math.sin(a)
    vx, vy = -uy, ux
    for k in range(1, int(rng.integers(6, 14))):
        t = -sh / 2 + k * sh / 14
        p0 = (cx + vx * t - ux * sw * 0.45, cy + vy * t - uy * sw * 0.45)
        p1 = (cx + vx * t + ux * sw * 0.45, cy + vy * t + uy * sw * 0.45)
        cv2.line(img, tuple(int(v) for v in p0), tuple(int(v) for v in p1), (170, 150, 120),
                 1, cv2.LINE_AA)
        if rng.random() < 0.7:
            txt = "".join(str(int(d)) for d in rng.integers(0, 10, int(rng.integers(2, 4))))
            cv2.putText(img, txt, (int(p0[0] + ux * sw * 0.2), int(p0[1] + uy * sw * 0.2)),
                        cv2.FONT_HERSHEY_SCRIPT_SIMPLEX, max(card_h / 300, 0.3),
                        (120, 60, 30), 1, cv2.LINE_AA)


CLUTTER = {"ring": 0.2, "box": 0.25, "phone": 0.15, "hand": 0.15, "coins": 0.15, "sheet": 0.1}


def add_real_clutter(img: np.ndarray, rng: np.random.Generator, lib: ArtLibrary,
                     card_h: float, n: int, kinds: Sequence[str] | None = None) -> None:
    """``n`` everyday objects on the table (drawn under the cards), of ``kinds`` (default:
    every kind in ``CLUTTER``, at its weight)."""
    h, w = img.shape[:2]
    names = list(kinds or CLUTTER)
    weights = np.array([CLUTTER[k] for k in names])
    for _ in range(n):
        cx, cy = rng.uniform(0, w), rng.uniform(0, h)
        kind = names[rng.choice(len(names), p=weights / weights.sum())]
        if kind == "ring":
            _draw_ring(img, rng, cx, cy, card_h * rng.uniform(0.3, 0.8))
        elif kind == "box":
            _draw_deck_box(img, rng, lib, cx, cy, card_h)
        elif kind == "phone":
            _draw_phone(img, rng, cx, cy, card_h)
        elif kind == "hand":
            _draw_hand(img, rng, cx, cy, card_h)
        elif kind == "coins":
            _draw_coins_dice(img, rng, cx, cy, card_h)
        else:
            _draw_score_sheet(img, rng, cx, cy, card_h)


# ------------------------------------------------------------------------ layouts

def _pile_angle(rng, upside_down: bool) -> float:
    return 180 + rng.normal(0, 8) if upside_down else pile_angle(rng, 0.5, 0.2)


def _place(cx, cy, ang_deg, offsets, hh, jitter_deg, rng):
    """Card positions (cx, cy, height, angle) from offsets in the pile's own frame
    (x along the cards' width, y along their height)."""
    a = math.radians(ang_deg)
    ca, sa = math.cos(a), math.sin(a)
    out = []
    for ox, oy in offsets:
        out.append((cx + ox * ca - oy * sa, cy + ox * sa + oy * ca,
                    hh * rng.uniform(0.985, 1.015), ang_deg + rng.normal(0, jitter_deg)))
    return out


def _fan(rng, m: int, hh: float) -> list[tuple[float, float]]:
    """A fanned row (or two): each card shifted 25-60% of a card width."""
    ww = hh / CARD_ASPECT
    step = rng.uniform(0.25, 0.6) * ww
    rows = 1 if m < 7 or rng.random() < 0.5 else 2
    per = int(math.ceil(m / rows))
    row_gap = hh * rng.uniform(0.45, 1.05)
    offs = []
    for i in range(m):
        r, j = divmod(i, per)
        offs.append(((j - (per - 1) / 2) * step, (r - (rows - 1) / 2) * row_gap))
    return offs


def _stack(rng, m: int, hh: float) -> list[tuple[float, float]]:
    """A loose stack: small random offsets; the last (top) card fully visible."""
    ww = hh / CARD_ASPECT
    return [(rng.normal(0, 0.3) * ww, rng.normal(0, 0.2) * hh) for _ in range(m)]


def _month_rows(rng, m: int, hh: float) -> list[tuple[float, float]]:
    """Rows grouped by month: small fans of 1-4 cards side by side, a gap between."""
    ww = hh / CARD_ASPECT
    groups, left = [], m
    while left:
        g = int(min(left, rng.integers(1, 5)))
        groups.append(g)
        left -= g
    per_row = int(rng.integers(2, 5))
    step = rng.uniform(0.3, 0.5) * ww
    offs = []
    x = 0.0
    row = 0
    for k, g in enumerate(groups):
        if k and k % per_row == 0:
            row += 1
            x = 0.0
        for j in range(g):
            offs.append((x + j * step, row * hh * rng.uniform(1.02, 1.15)))
        x += (g - 1) * step + ww * rng.uniform(1.0, 1.25)
    xs = np.array([o[0] for o in offs])
    ys = np.array([o[1] for o in offs])
    return list(zip(xs - (xs.min() + xs.max()) / 2, ys - (ys.min() + ys.max()) / 2))


def _spread(rng, m: int, hh: float) -> list[tuple[float, float]]:
    """Separated cards in a grid, some touching edge to edge."""
    ww = hh / CARD_ASPECT
    cols = int(math.ceil(math.sqrt(m * 1.3)))
    gap = rng.uniform(1.0, 1.2)
    rows = int(math.ceil(m / cols))
    return [((j - (cols - 1) / 2) * ww * gap, (r - (rows - 1) / 2) * hh * gap)
            for r, j in (divmod(i, cols) for i in range(m))]


def _staggered(rng, m: int, hh: float) -> list[tuple[float, float]]:
    """A stack laid as players lay one: each card moved along and a little down from
    the last, so every card under the top one shows 40-75% of its face (an L or a
    strip), the band real photographs miss most."""
    ww = hh / CARD_ASPECT
    sx, sy = rng.uniform(0.4, 0.65) * ww, rng.uniform(0.0, 0.25) * hh
    sx *= 1 if rng.random() < 0.5 else -1
    sy *= 1 if rng.random() < 0.5 else -1
    offs = [(j * sx + rng.normal(0, 0.03) * ww, j * sy + rng.normal(0, 0.02) * hh)
            for j in range(m)]
    xs, ys = np.array(offs).reshape(-1, 2).T
    return list(zip(xs - (xs.min() + xs.max()) / 2, ys - (ys.min() + ys.max()) / 2))


def _heap(rng, m: int, hh: float) -> list[tuple[float, float]]:
    """A heap as cards are dropped onto a pile: each card lands around the pile's centre,
    up to 1.5 card widths across and 1.5 card heights along from it, in its own
    direction (and, in ``pile_positions``, at its own angle), so the cards under the top
    ones show irregular parts of their faces at varied angles, not the staggered stack's
    regular strips."""
    ww = hh / CARD_ASPECT
    r = ww * np.sqrt(rng.uniform(0.0, 1.0, m)) * rng.uniform(0.8, 1.5)
    a = rng.uniform(0, 2 * math.pi, m)
    return list(zip(r * np.cos(a), r * np.sin(a) * CARD_ASPECT))


LAYOUTS = {"fan": _fan, "stack": _stack, "months": _month_rows, "spread": _spread,
           "staggered": _staggered, "heap": _heap}
# each card's angle spread (degrees) about its pile's angle
_JITTER_DEG = {"stack": 6.0, "staggered": 3.0, "heap": 25.0}
# how the test's piles are laid (the staggered stack and the heap are training's extras)
LAYOUT_WEIGHTS = {"fan": 0.45, "stack": 0.2, "months": 0.2, "spread": 0.15}


def layout_weights(staggered: float = 0.0, heaps: float = 0.0) -> tuple[tuple[str, float], ...]:
    """The test's pile layouts (``LAYOUT_WEIGHTS``) with training's staggered stacks and
    heaps given these shares, the test's layouts sharing the rest in their proportions."""
    extras = {k: v for k, v in (("staggered", staggered), ("heap", heaps)) if v}
    rest = 1 - sum(extras.values())
    return tuple(({k: v * rest for k, v in LAYOUT_WEIGHTS.items()} | extras).items())


def pile_positions(rng, n: int, w: int, h: int, card_h: float, upside_down: bool = False,
                   layouts: Sequence[str] | None = None,
                   weights: dict[str, float] | None = None) -> list[tuple]:
    """Positions (cx, cy, height, angle), bottom to top, of ``n`` cards in 1-3 piles laid
    in their own regions of the frame, each pile's layout drawn by ``weights`` (default
    ``LAYOUT_WEIGHTS``) among ``layouts`` (default: all of them)."""
    if n == 0:
        return []
    n_piles = int(rng.integers(1, min(3, n) + 1))
    cuts = np.sort(rng.choice(np.arange(1, n), n_piles - 1, replace=False)) if n_piles > 1 \
        else []
    sizes = np.diff(np.concatenate([[0], cuts, [n]])).astype(int)
    horizontal = w >= h
    out = []
    weights = weights or LAYOUT_WEIGHTS
    names = list(layouts or weights)
    probs = np.array([weights[k] for k in names])
    for k, m in enumerate(sizes):
        kind = names[rng.choice(len(names), p=probs / probs.sum())]
        offs = LAYOUTS[kind](rng, int(m), card_h)
        frac = (k + 0.5) / n_piles + rng.normal(0, 0.04)
        cx = frac * w if horizontal else w / 2 + rng.normal(0, 0.08) * w
        cy = h / 2 + rng.normal(0, 0.08) * h if horizontal else frac * h
        pile = _place(cx, cy, _pile_angle(rng, upside_down), offs, card_h,
                      _JITTER_DEG.get(kind, 2.0), rng)
        if kind == "fan" and rng.random() < 0.3:
            pile.reverse()
        out.extend(pile)
    return out


def _card_height(rng, w: int, h: int, n: int) -> float:
    """Mostly 60-260 px at 1280x720 (8-36% of the frame's height), smaller when many
    cards must fit."""
    lo, hi = 0.09 * h, 0.36 * h
    fit = math.sqrt(1.2 * w * h * CARD_ASPECT / max(n, 1))
    hi = max(min(hi, fit), lo * 1.05)
    return float(math.exp(rng.uniform(math.log(lo), math.log(hi))))


def closeup_positions(rng, n: int, w: int, h: int) -> tuple[list[tuple], float]:
    """One or two cards filling 50-110% of the frame's height, partly cut off."""
    hh = h * rng.uniform(0.5, 1.1)
    if w < h:  # portrait: the card may fill the width instead
        hh = min(hh, w * CARD_ASPECT * rng.uniform(0.7, 1.3))
    ww = hh / CARD_ASPECT
    ang = 180 + rng.normal(0, 5) if rng.random() < 0.2 else \
        (rng.normal(0, 5) if rng.random() < 0.85 else rng.uniform(0, 360))
    cx = w / 2 + rng.uniform(-0.2, 0.2) * w
    cy = h / 2 + rng.uniform(-0.15, 0.15) * h
    if n == 1:
        offs = [(0.0, 0.0)]
    else:
        step = ww * rng.uniform(0.5, 1.1)
        offs = [(-step / 2, 0.0), (step / 2, rng.normal(0, 0.05) * hh)]
    return _place(cx, cy, ang, offs, hh, 3.0, rng), hh


# -------------------------------------------------------------------------- scenes

def pile_layout(rng, kind: str, n: int, w: int, h: int,
                layout_weights: dict[str, float] | None = None
                ) -> tuple[list[int], list, float]:
    """``n`` distinct cards, whole months first as piles are captured by month, and
    where they lie: (class ids bottom to top, positions, card height)."""
    cids: list[int] = []
    for mth in rng.permutation(12):
        take = rng.permutation(4)[: int(rng.integers(1, 5))]
        cids += [int(mth) * 4 + int(t) for t in take]
    cids = cids[:n]
    if kind == "closeup":
        positions, card_h = closeup_positions(rng, n, w, h)
    else:
        card_h = _card_height(rng, w, h, n)
        positions = pile_positions(rng, n, w, h, card_h, upside_down=kind == "upside_down",
                                   weights=layout_weights)
    return cids, positions, card_h


def card_count(rng, kind: str) -> int:
    """How many cards a scene of ``kind`` shows (the realistic test's and the shift
    slice's one source): 1-2 in a close-up, none in 40% of clutter scenes."""
    if kind == "closeup":
        return 1 if rng.random() < 0.6 else 2
    if kind == "clutter":
        return 0 if rng.random() < 0.4 else int(rng.integers(1, 8))
    return int(rng.integers(3, 21))


def clutter_count(rng, kind: str) -> int:
    """How many everyday objects lie on the table: 2-5 in a clutter scene, none in a
    close-up, 0-2 otherwise."""
    if kind == "clutter":
        return int(rng.integers(2, 6))
    return 0 if kind == "closeup" else int(rng.integers(0, 3))


@dataclass(frozen=True)
class SceneVariation:
    """What training adds to realistic scenes; the test's scenes use none of it.

    ``photo_tables``: the share of scenes laid on a real photograph (the train part of
    ``photos_dir``, training.data.real_photos) instead of a procedural table.
    ``decoy_faces``: the share of cards whose face is a photograph, noise or a piece of
    other art (for the localiser: a card is its outline, border, edge and shadow).
    ``layout_weights``: how piles are laid (default the test's ``LAYOUT_WEIGHTS``).
    ``closeups``: the share of scenes that are close-ups, the other kinds keeping their
    proportions (0: the test's ``KIND_WEIGHTS``)."""
    photos_dir: str = ""
    photo_tables: float = 0.0
    decoy_faces: float = 0.0
    layout_weights: tuple[tuple[str, float], ...] = ()
    closeups: float = 0.0


def kind_weights(closeups: float = 0.0) -> tuple[float, ...]:
    """``KIND_WEIGHTS`` with close-ups given the share ``closeups`` (0: unchanged)."""
    if not closeups:
        return KIND_WEIGHTS
    i = KINDS.index("closeup")
    rest = 1.0 - KIND_WEIGHTS[i]
    return tuple(closeups if k == i else w * (1.0 - closeups) / rest
                 for k, w in enumerate(KIND_WEIGHTS))


def decoy_face(rng, lib: ArtLibrary, photos_dir: str = "") -> np.ndarray:
    """A FACE_H x FACE_W picture that is no hanafuda card: a piece of a real photograph
    (when ``photos_dir`` is given), coloured noise, or an enlarged piece of some card's
    art."""
    r = rng.random()
    if photos_dir and r < 0.4:
        from training.data.real_photos import crop_to, draw_photo
        return crop_to(draw_photo(rng, photos_dir), rng, FACE_W, FACE_H, (0.15, 0.6))
    if r < 0.7:
        cells = [int(rng.integers(2, 12)) for _ in range(2)]
        noise = rng.integers(0, 256, (cells[1], cells[0], 3)).astype(np.uint8)
        out = cv2.resize(noise, (FACE_W, FACE_H), interpolation=cv2.INTER_CUBIC)
        fine = rng.normal(0, rng.uniform(0, 40), out.shape)
        return np.clip(out + fine, 0, 255).astype(np.uint8)
    bgr, _ = lib.face(lib.sets[int(rng.integers(len(lib.sets)))], int(rng.integers(48)))
    s = rng.uniform(0.3, 0.6)
    cw, ch = int(FACE_W * s), int(FACE_H * s)
    x0, y0 = int(rng.integers(0, FACE_W - cw + 1)), int(rng.integers(0, FACE_H - ch + 1))
    piece = bgr[y0:y0 + ch, x0:x0 + cw]
    if rng.random() < 0.5:
        piece = np.ascontiguousarray(np.rot90(piece, 2))
    return cv2.resize(piece, (FACE_W, FACE_H), interpolation=cv2.INTER_LINEAR)


def realistic_scene(lib: ArtLibrary, seed: int, kind: str | None = None,
                    sets: Sequence[str] | None = None, variation: SceneVariation | None = None
                    ) -> tuple[np.ndarray, list[SceneCard], SceneInfo]:
    """One realistic scene for ``seed`` (``kind``: one of ``KINDS``; default: drawn
    from the seed). Cards are distinct (one deck) and of one art set. ``variation``:
    training's additions (``SceneVariation``), drawn from their own random stream."""
    rng = np.random.default_rng(seed)
    var = variation or SceneVariation()
    if kind is None:
        kind = KINDS[rng.choice(len(KINDS), p=kind_weights(var.closeups))]
    if kind not in KINDS:
        raise ValueError(f"unknown scene kind {kind!r}; one of {', '.join(KINDS)}")
    vrng = np.random.default_rng(seed + 7_777_777)
    sets = list(sets) if sets else list(lib.sets)
    art = sets[rng.integers(len(sets))]
    w, h = FRAMINGS[rng.choice(len(FRAMINGS), p=FRAMING_WEIGHTS)]
    physical = kind == "physical" or (kind != "clutter" and rng.random() < 0.5)
    n = card_count(rng, kind)
    cids, positions, card_h = pile_layout(rng, kind, n, w, h,
                                          dict(var.layout_weights) or None)
    if var.photo_tables and vrng.random() < var.photo_tables:
        from training.data.real_photos import photo_table
        bg = photo_table(vrng, w, h, var.photos_dir)
    else:
        bg = make_background(rng, w, h)
    n_clutter = clutter_count(rng, kind)
    if n_clutter:
        add_real_clutter(bg, rng, lib, card_h, n_clutter)
    items = [(art, c) for c in cids]
    decoys = [bool(vrng.random() < var.decoy_faces) for _ in items] if var.decoy_faces else []
    img, cards, info = compose_scene(lib, rng, items, w, h, card_h=card_h,
                                     positions=positions, physical=physical, background=bg,
                                     perspective=rng.uniform(0.0, 0.08) if rng.random() < 0.6
                                     else 0.0, decoys=decoys,
                                     decoy_face=lambda r: decoy_face(r, lib, var.photos_dir))
    info.kind, info.portrait = kind, h > w
    return img, cards, info

"""A classical repair of card boxes from the card's edges (issue 43, "geometry first").

Why: given each card's true outline the classifier reads nearly every card; what loses
cards is where the boxes sit. Measured on the realistic validation scenes, the boxes that
miss their card (IoU under 0.8) are mostly of the wrong *aspect*: one side runs off the
card (past the frame's edge, onto the table or under the card on top) or stops short of
it, while the other three sides sit on the card's edges. A card is a rectangle of a known
aspect (``CARD_ASPECT``) with straight, high-contrast edges, so such a box is repaired by
moving its one side that lies on no edge until the box has a card's aspect.

A free fit of all four sides to the strongest nearby edges (scoring hypotheses of shifted,
scaled and turned boxes by the edge strength along their sides) measured much worse than
the refiner's boxes (box quality 0.88 -> 0.67 on validation): a card's strongest straight
edge is often its border's inner edge or a line of its art, not its outline. So the
repair moves only a side that has (almost) no edge under it, and leaves every other box
exactly as the refiner made it.

How: each box whose aspect is off by more than ``tol`` (log ratio) is warped upright into
a patch of fixed size with a wide margin (``rectify``). For each side, a profile of the
edge strength across it (the largest colour step between the pixels just outside and
just inside, averaged over ``SIDE_POINTS`` points along its middle 80%) for every shift of
the side in or out. A side is *unsupported* when its strength where it is is at most
``unsupported`` times the patch's strongest profile value; of those, the one whose move
to a card's aspect lands on the most edge (relative to where it was) is moved. Boxes on a
featureless patch are left unchanged.

Measured (realistic validation scenes, 80 a kind, against the refiner's boxes): boxes on
their card (IoU >= 0.8) 0.883 -> 0.892 of required cards, partly hidden 0.729 -> 0.752,
top cards 0.916 -> 0.913 (one card); F1 0.943 -> 0.944, no kind down by more than 0.004;
about 1.5 ms a 20-card frame. So the detector runs it only when asked (``edge_fit``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import cv2
import numpy as np

from scorer.vision.geometry import align_rect, quad_to_rect, rect_to_quad, rectify

CARD_ASPECT = 1.6   # height / width of a card face (training.data.scenes.CARD_ASPECT)
SIDE_POINTS = 16    # samples along each side
CARD_W, CARD_H = 48, 78   # a box's size in its patch (portrait), pixels
PAD = 40            # patch margin around the box, pixels: how far a side may move out
PATCH_W, PATCH_H = CARD_W + 2 * PAD, CARD_H + 2 * PAD


@dataclass(frozen=True)
class EdgeFitParams:
    """``tol``: the |log(aspect / CARD_ASPECT)| a box may have untouched; ``unsupported``:
    a side whose edge strength is at most this share of the patch's strongest is on no
    edge; ``window``: patch pixels either side of a position that count as on it;
    ``min_edge``: patches whose strongest edge is weaker (colour levels) are left alone;
    ``max_share``: boxes longer than this share of the image's height are left alone
    (a close-up card, cut by the frame on more than one side, has no aspect to trust)."""

    tol: float = 0.08
    unsupported: float = 0.1
    window: int = 1
    min_edge: float = 4.0
    max_share: float = 0.4


def _portrait(rect) -> tuple[float, float, float, float, float]:
    """The same rectangle written with its longer side as the height."""
    cx, cy, w, h, th = (float(v) for v in rect)
    return (cx, cy, h, w, th + math.pi / 2) if w > h else (cx, cy, w, h, th)


def _patch_quad(port) -> np.ndarray:
    """The image quad that maps to the whole patch of a (portrait) box."""
    cx, cy, w, h, th = port
    return rect_to_quad(cx, cy, w * PATCH_W / CARD_W, h * PATCH_H / CARD_H, th)


def _steps(image: np.ndarray, port) -> tuple[np.ndarray, np.ndarray]:
    """The (portrait) box's patch, upright, CARD_W x CARD_H with PAD pixels of its
    surroundings on every side, as its horizontal and vertical steps: (PATCH_H, PATCH_W)
    float32 maps of the largest colour difference between the pixels either side."""
    patch = rectify(image, _patch_quad(port), PATCH_W, PATCH_H)
    chans = cv2.split(patch) if patch.ndim == 3 else [patch]
    gx = np.zeros((PATCH_H, PATCH_W), np.uint8)
    gy = np.zeros((PATCH_H, PATCH_W), np.uint8)
    for c in chans:
        gx[:, 1:-1] = cv2.max(gx[:, 1:-1], cv2.absdiff(c[:, 2:], c[:, :-2]))
        gy[1:-1] = cv2.max(gy[1:-1], cv2.absdiff(c[2:], c[:-2]))
    return gx.astype(np.float32), gy.astype(np.float32)


def _sample_grid() -> np.ndarray:
    """(4, O, S, 2) patch coordinates (x, y) of the points sampled for each side (left,
    right, top, bottom), outward shift of the side (-PAD+1 .. PAD-1) and point along it."""
    reach = PAD - 1
    o = np.arange(-reach, reach + 1, dtype=np.float64)[:, None]
    frac = ((np.arange(SIDE_POINTS) + 0.5) / SIDE_POINTS * 0.8 + 0.1)[None]
    xs, ys = PAD + frac * CARD_W, PAD + frac * CARD_H
    return np.stack([np.stack(np.broadcast_arrays(PAD - o, ys), -1),
                     np.stack(np.broadcast_arrays(PAD + CARD_W + o, ys), -1),
                     np.stack(np.broadcast_arrays(xs, PAD - o), -1),
                     np.stack(np.broadcast_arrays(xs, PAD + CARD_H + o), -1)]).astype(np.float32)


_GRID = _sample_grid()


def side_profiles(image: np.ndarray, ports: np.ndarray) -> np.ndarray:
    """(N, 4, O) edge strength across each side of each (portrait) box, for each outward
    shift of the side in patch pixels (index PAD - 1: the side where it is): the largest
    colour step between the pixels one outside and one inside, averaged along the side."""
    n = len(ports)
    steps = [_steps(image, r) for r in ports]
    # both steps of every patch side by side in one image, read by one remap
    tall = np.concatenate([np.concatenate([g[0] for g in steps]),
                           np.concatenate([g[1] for g in steps])], 1)
    _, o, s, _ = _GRID.shape
    mx = np.repeat(_GRID[None, ..., 0], n, 0)
    mx[:, 2:] += PATCH_W   # top and bottom read the vertical steps
    my = _GRID[None, ..., 1] + (np.arange(n, dtype=np.float32) * PATCH_H)[:, None, None, None]
    vals = cv2.remap(tall, mx.reshape(-1, o * s), my.reshape(-1, o * s), cv2.INTER_LINEAR)
    return vals.reshape(n, 4, o, s).mean(-1) * 0.5


def _moved_side(port, side: int, shift: float) -> tuple[float, float, float, float, float]:
    """The (portrait) box with one side moved out by ``shift`` image pixels."""
    cx, cy, w, h, th = port
    c, s = math.cos(th), math.sin(th)
    sign = (-1.0, 1.0, -1.0, 1.0)[side]
    if side < 2:
        d = sign * shift / 2
        return cx + d * c, cy + d * s, w + shift, h, th
    d = sign * shift / 2
    return cx - d * s, cy + d * c, w, h + shift, th


def fit_edges(image: np.ndarray, rects: np.ndarray,
              params: EdgeFitParams | None = None) -> np.ndarray:
    """``rects`` (N,5: cx, cy, w, h, theta in ``image`` pixels, as the refiner gives
    them), each box of an aspect unlike a card's repaired by moving its one side that
    lies on no edge (see the module's docstring); every other box is returned as it was,
    and a repaired box keeps its axis convention (a card's upright stays upright)."""
    p = params or EdgeFitParams()
    rects = np.asarray(rects, np.float32).reshape(-1, 5)
    out = rects.copy()
    ports = np.array([_portrait(r) for r in rects], np.float64).reshape(-1, 5)
    off = np.abs(np.log(ports[:, 3] / np.maximum(ports[:, 2], 1e-6) / CARD_ASPECT)) > p.tol
    small = ports[:, 3] <= p.max_share * image.shape[0]
    todo = np.nonzero(off & small & (ports[:, 2] > 2) & (ports[:, 3] > 2))[0]
    if not len(todo):
        return out
    prof = side_profiles(image, ports[todo])
    here, win = PAD - 1, p.window
    n_off = prof.shape[2]
    for i, pr in zip(todo, prof, strict=True):
        strongest = float(pr.max())
        if strongest < p.min_edge:
            continue
        e = pr / strongest
        cx, cy, w, h, th = ports[i]
        best: tuple[float, int, float] | None = None
        for side in range(4):
            support = float(e[side, here - win:here + win + 1].max())
            if support > p.unsupported:
                continue
            # the outward shift (image pixels) that gives the box a card's aspect
            shift = h / CARD_ASPECT - w if side < 2 else w * CARD_ASPECT - h
            k = here + int(round(shift * (CARD_W / w if side < 2 else CARD_H / h)))
            if not 0 <= k < n_off:
                continue
            gain = float(e[side, max(k - win, 0):k + win + 1].max()) - support
            if best is None or gain > best[0]:
                best = (gain, side, shift)
        if best is not None:
            moved = _moved_side(ports[i], best[1], best[2])
            out[i] = align_rect(tuple(float(v) for v in rects[i]),
                                quad_to_rect(rect_to_quad(*moved)))
    return out

"""The localiser's training targets: centre heat maps with box regression at stride 4
(CenterNet-style), and the half-hidden band's weight mask (the loss that reads them is
``training.stages.loss``)."""

from __future__ import annotations
import math
import numpy as np


STRIDE = 4


def loc_targets(cards: np.ndarray, b: int, h: int, w: int):
    """cards rows: (batch_idx, cx, cy, w, h, theta, visible[, px, py, depth]) at input
    scale.

    With the last three columns, a card's heatmap peak sits at (px, py), the point of
    the card that shows most (``training.data.scenes.seen_point``), its spread at most the
    exposed depth, and the offset maps point from that cell to the card's true centre:
    a stacked card is found where it is seen, not at a centre hidden under the card
    above (where two stacked cards' peaks would merge). The detector decodes both alike
    (centre = cell + offset)."""
    oh, ow = h // STRIDE, w // STRIDE
    hm = np.zeros((b, oh, ow), np.float32)
    ign = np.zeros((b, oh, ow), np.float32)
    reg = np.zeros((b, 6, oh, ow), np.float32)
    regm = np.zeros((b, oh, ow), np.float32)
    ys, xs = np.mgrid[0:oh, 0:ow].astype(np.float32)
    for row in cards:
        bi, cx, cy, cw, ch, th, vis = row[:7]
        if vis < 0.25 or cw < 2 or ch < 2:
            continue
        bi = int(bi)
        x, y = cx / STRIDE - 0.5, cy / STRIDE - 0.5  # the true centre, in cells
        wo, ho = cw / STRIDE, ch / STRIDE
        spread = min(wo, ho)
        if len(row) >= 10 and row[9] > 0:  # the most exposed point and its depth
            px, py = row[7] / STRIDE - 0.5, row[8] / STRIDE - 0.5
            spread = min(spread, 2 * row[9] / STRIDE)
        else:
            px, py = x, y
        sig = max(0.6, spread / 6.0)
        r = int(3 * sig) + 1
        x0, x1 = max(int(px) - r, 0), min(int(px) + r + 2, ow)
        y0, y1 = max(int(py) - r, 0), min(int(py) + r + 2, oh)
        if x1 <= x0 or y1 <= y0:
            continue
        g = np.exp(-((xs[y0:y1, x0:x1] - px) ** 2 + (ys[y0:y1, x0:x1] - py) ** 2)
                   / (2 * sig * sig))
        if vis < 0.5:
            ign[bi, y0:y1, x0:x1] = np.maximum(ign[bi, y0:y1, x0:x1], (g > 0.05))
            continue
        hm[bi, y0:y1, x0:x1] = np.maximum(hm[bi, y0:y1, x0:x1], g)
        ix, iy = int(round(px)), int(round(py))
        for dy in (-1, 0, 1):
            for dx in (-1, 0, 1):
                jx, jy = ix + dx, iy + dy
                if 0 <= jx < ow and 0 <= jy < oh:
                    wgt = 1.0 if dx == 0 and dy == 0 else 0.5
                    if regm[bi, jy, jx] >= wgt and not (dx == 0 and dy == 0):
                        continue
                    reg[bi, :, jy, jx] = (math.log(wo), math.log(ho), math.cos(2 * th),
                                          math.sin(2 * th), x - jx, y - jy)
                    regm[bi, jy, jx] = wgt
        if 0 <= ix < ow and 0 <= iy < oh:
            hm[bi, iy, ix] = 1.0 if abs(px - ix) < 0.5 and abs(py - iy) < 0.5 else hm[bi, iy, ix]
    ign[hm > 0.05] = 0
    return hm, ign, reg, regm


def band_mask(cards: np.ndarray, b: int, h: int, w: int,
              band: tuple[float, float] = (0.5, 0.8)) -> np.ndarray:
    """(b, h/STRIDE, w/STRIDE): 1 on the 3x3 cells about the peak of each card whose
    visible share is in ``band`` (half-hidden cards, the ones real piles lose), 0
    elsewhere; a trainer weights the localiser's losses there."""
    oh, ow = h // STRIDE, w // STRIDE
    out = np.zeros((b, oh, ow), np.float32)
    for row in cards:
        vis = row[6]
        if not band[0] <= vis < band[1]:
            continue
        px, py = (row[7], row[8]) if len(row) >= 10 and row[9] > 0 else (row[1], row[2])
        ix, iy = int(round(px / STRIDE - 0.5)), int(round(py / STRIDE - 0.5))
        bi = int(row[0])
        out[bi, max(iy - 1, 0):iy + 2, max(ix - 1, 0):ix + 2] = 1.0
    return out

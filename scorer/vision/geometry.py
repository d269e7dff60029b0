"""Card geometry shared by training and inference: rotated card rectangles and the
rectification of a card into the classifier's upright crop."""

from __future__ import annotations

import math

import cv2
import numpy as np

CROP_W, CROP_H = 72, 112  # classifier input (width, height): a card face, upright


def quad_to_rect(quad: np.ndarray) -> tuple[float, float, float, float, float]:
    """(cx, cy, w, h, theta) of a card quad TL,TR,BR,BL; theta = angle (radians) of the
    card's width direction (TL->TR), so a card upside down has theta ~ pi."""
    q = np.asarray(quad, np.float64)
    cx, cy = q.mean(0)
    top = q[1] - q[0]
    bot = q[2] - q[3]
    w = 0.5 * (np.hypot(*top) + np.hypot(*bot))
    h = 0.5 * (np.hypot(*(q[3] - q[0])) + np.hypot(*(q[2] - q[1])))
    d = top + bot
    theta = math.atan2(d[1], d[0])
    return float(cx), float(cy), float(w), float(h), float(theta)


def quad_iou(a: np.ndarray, b: np.ndarray) -> float:
    """Intersection over union of two convex quads (4x2)."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    inter, _ = cv2.intersectConvexConvex(a, b)
    union = abs(cv2.contourArea(a)) + abs(cv2.contourArea(b)) - inter
    return float(inter / union) if union > 0 else 0.0


def long_sides(quads: np.ndarray) -> np.ndarray:
    """(N,) each quad's (N,4,2) long side in pixels."""
    q = np.asarray(quads, np.float32).reshape(-1, 4, 2)
    return np.maximum(np.linalg.norm(q[:, 3] - q[:, 0], axis=1),
                      np.linalg.norm(q[:, 1] - q[:, 0], axis=1)).astype(np.float32)


def rect_long_sides(rects: np.ndarray) -> np.ndarray:
    """(N,) each rectangle's (N,5: cx, cy, w, h, theta) long side in pixels."""
    return np.maximum(rects[:, 2], rects[:, 3])


def rect_to_quad(cx, cy, w, h, theta) -> np.ndarray:
    c, s = math.cos(theta), math.sin(theta)
    ux, uy = c * w / 2, s * w / 2  # half width vector
    vx, vy = -s * h / 2, c * h / 2  # half height vector
    return np.array([[cx - ux - vx, cy - uy - vy], [cx + ux - vx, cy + uy - vy],
                     [cx + ux + vx, cy + uy + vy], [cx - ux + vx, cy - uy + vy]], np.float32)


def rectify(image: np.ndarray, quad: np.ndarray, out_w: int = CROP_W,
            out_h: int = CROP_H) -> np.ndarray:
    """Warp the card quad (TL,TR,BR,BL) of ``image`` to an ``out_h x out_w`` crop."""
    src = np.asarray(quad, np.float32)[:3]
    dst = np.array([[0, 0], [out_w, 0], [out_w, out_h]], np.float32)
    m = cv2.getAffineTransform(src, dst)
    # area-average when shrinking a lot: pre-blur proportional to the scale
    scale = math.hypot(*(src[1] - src[0])) / out_w
    flags = cv2.INTER_LINEAR
    if scale > 2.0:
        k = int(scale) | 1
        x0, y0 = np.floor(np.asarray(quad).min(0)).astype(int)
        x1, y1 = np.ceil(np.asarray(quad).max(0)).astype(int)
        h, w = image.shape[:2]
        x0, y0, x1, y1 = max(x0 - k, 0), max(y0 - k, 0), min(x1 + k, w), min(y1 + k, h)
        if x1 > x0 and y1 > y0:
            sub = cv2.blur(image[y0:y1, x0:x1], (k, k))
            m[:, 2] += m[:, 0] * x0 + m[:, 1] * y0
            return cv2.warpAffine(sub, m, (out_w, out_h), flags=flags,
                                  borderMode=cv2.BORDER_REPLICATE)
    return cv2.warpAffine(image, m, (out_w, out_h), flags=flags,
                          borderMode=cv2.BORDER_REPLICATE)


def edge_orientation_field(image: np.ndarray):
    """Per-pixel edge orientation as the 4-fold vector field (gradient angle x4, so edges
    at 90 degrees agree), weighted by gradient magnitude: (re, im, mag) float32 maps."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    gx = cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=3)
    gy = cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=3)
    mag, ang = cv2.cartToPolar(gx, gy)
    re, im = cv2.polarToCart(mag, ang * 4.0)
    return re, im, mag


def refine_angles(field, rects: np.ndarray, max_change_deg: float = 20.0,
                  min_coherence: float = 0.15) -> np.ndarray:
    """Snap each card rectangle's angle to the dominant edge direction along its outline
    (the card's own border and the parallel borders of its neighbours in a fan)."""
    re, im, mag = field
    h, w = mag.shape
    out = rects.copy()
    lim = math.radians(max_change_deg)
    for i, (cx, cy, cw, ch, th) in enumerate(rects):
        q = rect_to_quad(cx, cy, cw, ch, th)
        t = max(int(0.12 * min(cw, ch)), 2)
        x0, y0 = np.floor(q.min(0)).astype(int) - t
        x1, y1 = np.ceil(q.max(0)).astype(int) + t
        x0, y0, x1, y1 = max(x0, 0), max(y0, 0), min(x1, w), min(y1, h)
        if x1 - x0 < 4 or y1 - y0 < 4:
            continue
        mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.polylines(mask, [(q - [x0, y0]).astype(np.int32)], True, 1, thickness=t)
        m = mask.astype(bool)
        sr = float(re[y0:y1, x0:x1][m].sum())
        si = float(im[y0:y1, x0:x1][m].sum())
        sm = float(mag[y0:y1, x0:x1][m].sum())
        if sm <= 0 or math.hypot(sr, si) / sm < min_coherence:
            continue
        phi = math.atan2(si, sr) / 4.0  # gradient direction mod 90 deg = edge direction
        k = round((th - phi) / (math.pi / 2))
        new = phi + k * math.pi / 2
        if abs(new - th) <= lim:
            out[i, 4] = new
    return out


# ------------------------------------------------------------ box refinement
# The refiner sees a card's box grown by REF_CONTEXT on each axis, rectified to
# REF_W x REF_H, and predicts the true rectangle as a delta in the box's own frame.
REF_W, REF_H = 64, 96
REF_CONTEXT = 1.5


def _wrap(a: float) -> float:
    return (a + math.pi) % (2 * math.pi) - math.pi


def align_rect(ref, rect) -> tuple[float, float, float, float, float]:
    """``rect`` written with the axis nearest ``ref``'s: a rectangle is the same with its
    angle turned by 180 degrees, or by 90 degrees with width and height swapped."""
    cx, cy, w, h, th = rect
    # the quarter turn k nearest ref's angle (the first of equals)
    d, k = min(((_wrap(th + k * math.pi / 2 - ref[4]), k) for k in range(4)),
               key=lambda turn: abs(turn[0]))
    if k % 2:
        w, h = h, w
    return float(cx), float(cy), float(w), float(h), float(ref[4] + d)


def box_delta(box, true) -> np.ndarray:
    """(u, v, log w ratio, log h ratio, angle) taking ``box`` to ``true``: the centre
    shift in units of the box's width and height along its own axes."""
    cx, cy, w, h, th = box
    tx, ty, tw, thh, tth = align_rect(box, true)
    c, s = math.cos(th), math.sin(th)
    dx, dy = tx - cx, ty - cy
    return np.array([(dx * c + dy * s) / w, (-dx * s + dy * c) / h, math.log(tw / w),
                     math.log(thh / h), tth - th], np.float32)


def apply_deltas(boxes: np.ndarray, deltas: np.ndarray) -> np.ndarray:
    """(N,5) rectangles: each of ``boxes`` moved by its row of ``deltas`` (the inverse
    of ``box_delta``)."""
    b = np.asarray(boxes, np.float64).reshape(-1, 5)
    d = np.asarray(deltas, np.float64).reshape(-1, 5)
    cx, cy, w, h, th = b.T
    u, v, lw, lh, dth = d.T
    c, s = np.cos(th), np.sin(th)
    return np.stack([cx + u * w * c - v * h * s, cy + u * w * s + v * h * c,
                     w * np.exp(lw), h * np.exp(lh), th + dth], 1)


def apply_delta(box, delta) -> tuple[float, float, float, float, float]:
    """The rectangle ``box_delta(box, ·)`` maps to ``delta``."""
    cx, cy, w, h, th = (float(x) for x in apply_deltas(box, delta)[0])
    return cx, cy, w, h, th


def context_crop(image: np.ndarray, box) -> np.ndarray:
    """The refiner's input for one box: the box grown by REF_CONTEXT, upright."""
    cx, cy, w, h, th = box
    return rectify(image, rect_to_quad(cx, cy, w * REF_CONTEXT, h * REF_CONTEXT, th),
                   REF_W, REF_H)

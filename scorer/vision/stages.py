"""The detector's three networks, one onnxruntime session each: the ``Localiser`` finds
every card's rectangle (CenterNet-style: centre, size and axis), the ``Refiner`` corrects
each rectangle from a crop around it, and the ``Classifier`` reads each rectified,
upright crop as one of the 48 cards (or "not a card"), with its embedding for deck
profiles. ``scorer.vision.detector.Detector`` composes them."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from scorer.errors import InputError
from scorer.vision.geometry import (apply_deltas, context_crop,
                                    edge_orientation_field, rect_long_sides,
                                    refine_angles)
from scorer.vision.settings import MAX_CARDS, DetectionSettings
from scorer.vision.zoom import ZoomOut

# the largest correction the box refiner may make in one pass: u, v (box widths and
# heights), log width, log height, angle (radians)
DELTA_LIMIT = np.array([0.4, 0.3, 0.4, 0.4, 0.4], np.float32)

# onnxruntime's session option for exact int8 matrix products on x86 CPUs without VNNI
PRECISE_INT8 = "session.x64quantprecision"


def session(path: Path, threads: int, precise: bool) -> Any:
    """One onnxruntime session on ``path``'s network (InputError if it cannot load).
    ``precise``: int8 products through ``PRECISE_INT8`` (needed where this CPU's fast ones
    are not exact, ``scorer.vision.cpu``)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.intra_op_num_threads = max(int(threads), 1)
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # three sessions run one after another: a pool left spinning after its run would take
    # the cores from the next one
    so.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # int8 layers: on x86 CPUs without VNNI (most laptops before 2020, AMD before Zen 4)
    # onnxruntime's fast u8s8 products saturate at 16 bits and the localiser misses
    # cards; u8u8 computes them exactly, as VNNI CPUs do with the fast ones
    so.add_session_config_entry(PRECISE_INT8, "1" if precise else "0")
    try:
        return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise InputError(f"cannot load model {path}: {exc}".splitlines()[0]) from exc


def as_input(crops: np.ndarray) -> np.ndarray:
    """(N,H,W,3) uint8 BGR crops -> the networks' (N,3,H,W) float RGB input."""
    return crops[..., ::-1].transpose(0, 3, 1, 2).astype(np.float32)


def metadata(sess: Any) -> dict[str, Any]:
    """The detection settings' object a network file's ONNX metadata holds (``hanafuda``,
    ``scorer.vision.settings``), as it is stored."""
    return dict(json.loads(sess.get_modelmeta().custom_metadata_map.get("hanafuda", "{}")))


class Localiser:
    """Card rectangles in an image: the localiser network's peaks, thresholded, NMS'd,
    parts of a stronger card dropped, and each angle snapped to the card's edges."""

    def __init__(self, path: Path, sess: Any, settings: DetectionSettings) -> None:
        self.path, self.session, self.settings = path, sess, settings
        shape = self.session.get_inputs()[0].shape
        self.in_h, self.in_w = int(shape[2]), int(shape[3])

    def find(self, img: np.ndarray,
             threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rects (N,5) cx,cy,w,h,theta in image pixels; scores (N,)). ``threshold``, when
        given, lowers every box's threshold to it for this call only (a caller that
        checks the boxes itself, such as enrolment, sees weaker cards)."""
        return self.decode(img, self.heatmap(img), threshold)

    def heatmap(self, img: np.ndarray) -> tuple[np.ndarray, float]:
        """The network's output maps for ``img`` and the image's scale into its input:
        what ``decode`` reads boxes from (once per image, at any threshold)."""
        h, w = img.shape[:2]
        s = min(self.in_w / w, self.in_h / h)
        nw, nh = max(int(round(w * s)), 1), max(int(round(h * s)), 1)
        small = cv2.resize(img, (nw, nh), interpolation=cv2.INTER_AREA)
        canvas = np.zeros((self.in_h, self.in_w, 3), np.uint8)
        canvas[:nh, :nw] = small
        if nw < self.in_w:
            canvas[:, nw:] = canvas[:, nw - 1:nw]
        if nh < self.in_h:
            canvas[nh:] = canvas[nh - 1:nh]
        x = canvas[..., ::-1].transpose(2, 0, 1)[None].astype(np.float32)
        return self.session.run(None, {self.session.get_inputs()[0].name: x})[0][0], s

    def decode(self, img: np.ndarray, maps: tuple[np.ndarray, float],
               threshold: float | None = None,
               frame_h: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``find``'s boxes from ``heatmap``'s maps of ``img``; ``frame_h``: the height
        that tells close-ups (default: ``img``'s)."""
        h = img.shape[0] if frame_h is None else frame_h
        out, s = maps
        heat = 1.0 / (1.0 + np.exp(-out[0]))
        cfg = self.settings
        cap = np.inf if threshold is None else threshold  # on every box's threshold
        lowest = min(cfg.loc_threshold, cfg.large_loc, cap)
        peaks = (heat >= cv2.dilate(heat, np.ones((3, 3), np.uint8))) & (heat >= lowest)
        ys, xs = np.nonzero(peaks)
        scores = heat[ys, xs]
        order = np.argsort(-scores)[:MAX_CARDS]
        ys, xs, scores = ys[order], xs[order], scores[order]
        st = cfg.stride
        cx = (xs + out[5, ys, xs] + 0.5) * st / s
        cy = (ys + out[6, ys, xs] + 0.5) * st / s
        cw = np.exp(np.clip(out[1, ys, xs], -3, 6)) * st / s
        ch = np.exp(np.clip(out[2, ys, xs], -3, 6)) * st / s
        th = 0.5 * np.arctan2(out[4, ys, xs], out[3, ys, xs])
        rects = np.stack([cx, cy, cw, ch, th], 1).astype(np.float32)
        valid = (cw > 2) & (ch > 2)
        valid &= scores >= np.minimum(cfg.box_thresholds(np.maximum(cw, ch), h), cap)
        rects, scores = rects[valid], scores[valid]
        if len(rects) > 1:
            rr = [((float(r[0]), float(r[1])), (float(r[2]), float(r[3])),
                   float(math.degrees(r[4]))) for r in rects]
            kept = cv2.dnn.NMSBoxesRotated(rr, scores.astype(np.float32).tolist(),
                                           lowest, cfg.nms_iou)
            keep = np.array(kept, int).reshape(-1)
            rects, scores = rects[keep], scores[keep]
        if len(rects) > 1:
            keep = drop_contained(rects, scores)
            rects, scores = rects[keep], scores[keep]
        if len(rects):
            rects = self._snap_angles(img, rects)
        return rects, scores

    def zoomed_out(self, img: np.ndarray, zoom: ZoomOut,
                   threshold: float | None = None) -> tuple[np.ndarray, np.ndarray]:
        """The close-up boxes of ``img`` seen with ``zoom``'s border around it
        (``scorer.vision.zoom``), in ``img``'s pixels: (rects (N,5); scores (N,))."""
        big, (px, py) = zoom.bordered(img)
        rects, scores = self.decode(big, self.heatmap(big), threshold, frame_h=img.shape[0])
        rects[:, 0] -= px
        rects[:, 1] -= py
        close = self.settings.close_ups(rect_long_sides(rects), img.shape[0])
        return rects[close], scores[close]

    @staticmethod
    def _snap_angles(img: np.ndarray, rects: np.ndarray) -> np.ndarray:
        """Snap each card's angle to the edges along its outline (the network's angle is
        the least precise of its outputs), on an image of at most ~0.5 megapixels."""
        h, w = img.shape[:2]
        f = min(1.0, math.sqrt(520_000 / (h * w)))
        small = img if f >= 1.0 else cv2.resize(img, (int(w * f), int(h * f)),
                                                  interpolation=cv2.INTER_AREA)
        r = rects.copy()
        r[:, :4] *= f
        r = refine_angles(edge_orientation_field(small), r)
        out = rects.copy()
        out[:, 4] = r[:, 4]
        return out


class Refiner:
    """The box refiner: each rectangle corrected by the network's delta, ``passes`` times."""

    def __init__(self, path: Path, sess: Any, passes: int) -> None:
        self.path, self.session, self.passes = path, sess, int(passes)

    def refine_once(self, img: np.ndarray, rects: np.ndarray) -> np.ndarray:
        x = as_input(np.stack([context_crop(img, r) for r in rects]))
        d = self.session.run(None, {self.session.get_inputs()[0].name:
                                    np.ascontiguousarray(x)})[0]
        d = np.clip(d, -DELTA_LIMIT, DELTA_LIMIT)
        out = apply_deltas(rects, d).astype(np.float32)
        ok = (out[:, 2] > 2) & (out[:, 3] > 2)
        return np.where(ok[:, None], out, rects)

    def refine(self, img: np.ndarray, rects: np.ndarray) -> np.ndarray:
        for _ in range(self.passes):
            rects = self.refine_once(img, rects)
        return rects


class Classifier:
    """The 48-card classifier on upright (or upside-down) crops, plus "not a card"; its
    ``embedding`` output, when it has one, is what deck profiles compare.

    ``tta``: also classify each crop turned 180 degrees and average, for the crops whose
    likeliest class has at most ``tta_below`` probability (1.0: every crop), so the extra
    work goes where the classifier is unsure."""

    def __init__(self, path: Path, sess: Any, settings: DetectionSettings) -> None:
        self.path, self.session = path, sess
        self.tta, self.tta_below = settings.tta, settings.tta_below
        self.crop_w, self.crop_h = settings.crop_w, settings.crop_h
        outputs = {o.name for o in self.session.get_outputs()}
        self.has_embedding = "embedding" in outputs
        # the head's map before pooling, which deck profiles match cell by cell
        # (``scorer.vision.cells``); classifiers exported before it have none
        self.has_cells = self.has_embedding and "cells" in outputs

    def _run(self, outputs: list[str], x: np.ndarray) -> list[np.ndarray]:
        return self.session.run(outputs, {self.session.get_inputs()[0].name:
                                          np.ascontiguousarray(x)})

    def probs(self, x: np.ndarray) -> np.ndarray:
        """(N,49) probabilities of the network's input ``x`` (``as_input``), as it is."""
        return self._run(["probs"], x)[0]

    def classify_embed(self, crops: np.ndarray,
                       embed: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
        """(N,49) probabilities and, from the same run, the crops' embeddings (None when
        not asked for or when the classifier has none)."""
        p, emb, _ = self.read(crops, embed)
        return p, emb

    def read(self, crops: np.ndarray, embed: bool = True, cells: bool = False
             ) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
        """``classify_embed``'s probabilities and embeddings and, with ``cells``, the
        crops' cell maps (N,C,H,W; None when the classifier has none), from one run."""
        x = as_input(crops)
        emb = maps = None
        if cells and self.has_cells:
            p, emb, maps = self._run(["probs", "embedding", "cells"], x)
        elif embed and self.has_embedding:
            p, emb = self._run(["probs", "embedding"], x)
        else:
            p = self.probs(x)
        if self.tta:
            unsure = np.nonzero(p.max(1) <= self.tta_below)[0]
            if len(unsure):
                p[unsure] = 0.5 * (p[unsure] + self.probs(x[unsure][:, :, ::-1, ::-1]))
        return p, emb, maps

    def embed(self, crops: np.ndarray) -> np.ndarray | None:
        """(N,D) L2-normalised embeddings of upright crops; None without an embedding
        output."""
        if not self.has_embedding:
            return None
        return self._run(["embedding"], as_input(crops))[0]

    def cells(self, crops: np.ndarray) -> np.ndarray | None:
        """(N,C,H,W) cell maps of upright crops; None without a ``cells`` output."""
        if not self.has_cells:
            return None
        return self._run(["cells"], as_input(crops))[0]


def drop_contained(rects: np.ndarray, scores: np.ndarray, area_ratio: float = 0.6):
    """Indices to keep: a weaker detection whose centre lies inside a stronger one and
    whose area is much smaller is a part of that card (cards of one deck, seen from one
    camera, are about the same size)."""
    order = np.argsort(-scores)
    areas = rects[:, 2] * rects[:, 3]
    keep: list[int] = []
    for i in order:
        inside = False
        for j in keep:
            if areas[i] >= area_ratio * areas[j]:
                continue
            cx, cy, w, h, th = rects[j]
            dx, dy = rects[i, 0] - cx, rects[i, 1] - cy
            u = dx * math.cos(th) + dy * math.sin(th)
            v = -dx * math.sin(th) + dy * math.cos(th)
            if abs(u) <= w / 2 and abs(v) <= h / 2:
                inside = True
                break
        if not inside:
            keep.append(i)
    return np.array(sorted(keep, key=lambda k: -scores[k]), int)

"""Draw detections (card outline, code and name) onto an image."""

from __future__ import annotations

import cv2
import numpy as np

from scorer.cards import card_from_class


def annotate(img: np.ndarray, det) -> np.ndarray:
    out = img.copy()
    scale = max(out.shape[0], out.shape[1]) / 1000.0
    th = max(int(round(2 * scale)), 1)
    for i in range(len(det)):
        c = card_from_class(int(det.class_id[i]))
        q = det.quads[i].astype(np.int32) if len(det.quads) else None
        if q is not None:
            cv2.polylines(out, [q], True, (0, 255, 0), th, cv2.LINE_AA)
        else:
            x0, y0, x1, y1 = det.boxes[i].astype(int)
            cv2.rectangle(out, (x0, y0), (x1, y1), (0, 255, 0), th)
        x0, y0 = int(det.boxes[i][0]), int(det.boxes[i][1])
        label = f"{c.code} {c.month_info.english}: {c.english} {det.confidence[i]:.2f}"
        fs = 0.45 * max(scale, 0.6)
        (tw, tht), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, fs, 1)
        y = max(y0, tht + 4)
        cv2.rectangle(out, (x0, y - tht - 4), (x0 + tw + 4, y), (0, 0, 0), -1)
        cv2.putText(out, label, (x0 + 2, y - 3), cv2.FONT_HERSHEY_SIMPLEX, fs,
                    (255, 255, 255), 1, cv2.LINE_AA)
    return out

"""scorer.vision.report: the one detection path of the CLI and the web."""

import cv2
import numpy as np
import pytest

from scorer.errors import InputError
from scorer.vision.image import MAX_PIXELS
from scorer.vision.imageheader import ImageTooLarge
from scorer.vision.report import ImageLimits, detect_report, read_frame
from support.fakes import FakeDetector


def _jpeg(width: int, height: int) -> bytes:
    ok, buf = cv2.imencode(".jpg", np.full((height, width, 3), 128, np.uint8))
    assert ok
    return buf.tobytes()


def test_read_detect_and_report_once():
    frame = read_frame(_jpeg(64, 48))
    assert (frame.width, frame.height, frame.format) == (64, 48, "jpeg")
    detector = FakeDetector(["08-1", "01-1"])
    report = detect_report(detector, frame)
    assert detector.calls == 1
    doc = report.to_dict("fake-detector", image="a.jpg")
    assert list(doc)[:3] == ["image", "width", "height"]
    assert [c["code"] for c in doc["cards"]] == ["08-1", "01-1"]
    assert doc["ms"]["decode"] == round(frame.decode_ms, 2) and doc["hints"] == []


def test_limits_are_checked_before_decoding_and_never_above_the_decoder():
    with pytest.raises(ImageTooLarge):
        read_frame(_jpeg(64, 48), ImageLimits(max_pixels=1000))
    with pytest.raises(ValueError, match="at most"):
        ImageLimits(max_pixels=MAX_PIXELS + 1)
    with pytest.raises(InputError):
        read_frame(b"not an image at all")

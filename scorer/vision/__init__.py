"""Card recognition: decode a frame, localise every card, classify each rectified crop.

    from scorer.vision import Detector, Detections, decode_image, default_model_path
    det = Detector(threads=2)            # onnxruntime sessions created once
    d = det.detect(decode_image(data))   # Detections: boxes, confidence, class_id, codes
"""

from scorer.vision.annotate import annotate
from scorer.vision.detections import Detections
from scorer.vision.detector import CardDetector, Detector, default_model_path
from scorer.vision.image import decode_image

__all__ = ["CardDetector", "Detector", "Detections", "decode_image", "default_model_path",
           "annotate"]

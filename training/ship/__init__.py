"""Export to ONNX (with its metadata; the lineage recorded at export) and the one copier
into models/."""

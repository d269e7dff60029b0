"""Export to ONNX (with its metadata and lineage) and the one copier into models/."""

"""hanafuda-scorer: recognise hanafuda cards from a camera and score them."""

__version__ = "0.1.0"

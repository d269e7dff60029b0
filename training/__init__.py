"""Training pipeline for the hanafuda card recogniser.

``python -m training all`` goes from the card art (``--art-dir``, default
``../shared/card-art`` relative to the repository root) to the shipped ONNX models, as
the recipe ``training/recipe.toml`` says: localiser stages -> classifier -> box refiner
-> classifier rounds -> all three together on realistic scenes -> thresholds tuned on
realistic validation scenes -> evaluation.

Public helpers other parts use:
``training.data.scenes.render_scene(codes, art_dir, seed, ...) -> (image, cards)``.
"""

from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parent.parent
DEFAULT_ART_DIR = (REPO_ROOT / ".." / "shared" / "card-art").resolve()

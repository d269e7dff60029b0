"""What a lent machine needs to train without ``../shared``: the card art and the real
photographs' train part, copied into one folder inside the repository to carry there.

The photos' test part goes as empty files of the same names: ``split_photos`` splits by
name, so the bundle's train part is the same photos, and the test's images never leave
this machine (a lent machine is for training; the test stays where it is judged)."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from training.data.real_photos import split_photos
from training.recipe import RecipeError


@dataclass(frozen=True)
class Bundle:
    art_dir: Path
    photos_dir: Path
    bytes: int


def bundle(art_dir: str | Path, photos_dir: str | Path, out: str | Path) -> Bundle:
    """``out/card-art`` (every art set) and ``out/real-photos/images`` (the train part,
    and the test part's names as empty files). ``out`` must not hold anything yet."""
    art_dir, out = Path(art_dir), Path(out)
    if not art_dir.is_dir():
        raise RecipeError(f"no card art at {art_dir} (--art-dir)")
    if out.exists() and any(out.iterdir()):
        raise RecipeError(f"{out} is not empty: give a new folder")
    parts = split_photos(photos_dir)  # PhotosUnavailable, with where to get them
    art = out / "card-art"
    shutil.copytree(art_dir, art)
    images = out / "real-photos" / "images"
    images.mkdir(parents=True)
    for p in parts["train"]:
        shutil.copyfile(p, images / p.name)
    for p in parts["test"]:
        (images / p.name).touch()
    size = sum(f.stat().st_size for f in out.rglob("*") if f.is_file())
    return Bundle(art, images.parent, size)

"""What a lent machine is given to train on: the art and the photos' train part only."""

from __future__ import annotations

import pytest

from training.__main__ import main
from training.data.real_photos import split_photos
from training.pipeline.bundle import bundle
from training.recipe import RecipeError


@pytest.fixture
def shared(tmp_path):
    art = tmp_path / "card-art" / "some-set"
    art.mkdir(parents=True)
    (art / "01-1.png").write_bytes(b"art")
    photos = tmp_path / "photos" / "images"
    photos.mkdir(parents=True)
    for name in [f"IMG_77{k:02d}.jpg" for k in range(6)] + ["WIN_20240101_1.jpg",
                                                             "WIN_20240101_2.jpg"]:
        (photos / name).write_bytes(b"jpeg " + name.encode())
    return tmp_path / "card-art", tmp_path / "photos"


def test_the_bundle_keeps_the_split_and_leaves_the_test_images_behind(shared, tmp_path):
    art, photos = shared
    b = bundle(art, photos, tmp_path / "out")
    here, there = split_photos(photos), split_photos(b.photos_dir)
    assert [p.name for p in there["train"]] == [p.name for p in here["train"]]
    assert [p.name for p in there["test"]] == [p.name for p in here["test"]]
    assert all(p.read_bytes() == (photos / "images" / p.name).read_bytes()
               for p in there["train"])
    assert there["test"] and all(p.stat().st_size == 0 for p in there["test"])
    assert (b.art_dir / "some-set" / "01-1.png").read_bytes() == b"art"
    assert b.bytes == 3 + sum(p.stat().st_size for p in there["train"])


def test_the_bundle_refuses_a_folder_in_use_and_missing_art(shared, tmp_path):
    art, photos = shared
    (tmp_path / "used").mkdir()
    (tmp_path / "used" / "keep.txt").write_text("mine")
    with pytest.raises(RecipeError, match="not empty"):
        bundle(art, photos, tmp_path / "used")
    assert (tmp_path / "used" / "keep.txt").read_text() == "mine"
    with pytest.raises(RecipeError, match="no card art"):
        bundle(tmp_path / "nowhere", photos, tmp_path / "new")


def test_the_bundle_command_says_how_to_run_there(shared, tmp_path, capsys):
    art, photos = shared
    out = tmp_path / "carry"
    rc = main(["bundle", "--out", str(out), "--art-dir", str(art), "--photos-dir",
               str(photos), "--run-dir", str(tmp_path / "run")])
    assert rc == 0 and (out / "card-art" / "some-set" / "01-1.png").is_file()
    assert "--photos-dir" in (tmp_path / "run" / "log.txt").read_text()
    assert main(["bundle", "--out", str(out), "--art-dir", str(art), "--photos-dir",
                 str(photos), "--run-dir", str(tmp_path / "run")]) == 2
    assert "not empty" in capsys.readouterr().err

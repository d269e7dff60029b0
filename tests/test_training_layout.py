"""The training package reads by job: no module reaches into another's private names,
each room holds what its name says, the rooms stand in one order that no import runs
back up, and the command lists every stage. Read from the source (no torch needed)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TRAINING = ROOT / "training"


def _imports(path: Path):
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("training"):
            yield node.module, [a.name for a in node.names]


def test_no_private_name_of_training_is_imported_anywhere():
    files = [p for d in ("training", "tests", "bench", "scorer", "webui")
             for p in (ROOT / d).rglob("*.py")]
    crossing = [f"{p.relative_to(ROOT)}: {mod}.{name}"
                for p in files for mod, names in _imports(p)
                for name in names if name.startswith("_")]
    assert crossing == []


def test_the_rooms_hold_scenes_networks_stages_measures_and_shipping():
    rooms = {p.name for p in TRAINING.iterdir() if (p / "__init__.py").is_file()}
    assert {"data", "nets", "stages", "measure", "ship", "pipeline"} <= rooms
    assert not [p.name for p in TRAINING.glob("*.py")
                if p.name not in ("__init__.py", "__main__.py", "recipe.py")]
    for room, module in (("data", "scenes.py"), ("nets", "networks.py"),
                         ("nets", "checkpoint.py"), ("stages", "loop.py"),
                         ("measure", "slices.py"), ("ship", "export.py")):
        assert (TRAINING / room / module).is_file()


# the rooms from the bottom up: a module imports its own room and the rooms below it,
# never one beside it or above it. Scenes and networks need nothing of training's; a
# model is judged on scenes alone; the stages train networks on scenes (and choose
# thresholds by measuring); ship exports what the stages trained and hands over what
# passes the rule; pipeline strings them into the commands.
ROOM_ORDER = (("data", "nets"), ("measure",), ("stages",), ("ship",), ("pipeline",))
BELOW_EVERY_ROOM = ("training", "training.recipe")  # the repository's paths, the recipe
ABOVE_EVERY_ROOM = ("training.__main__",)


def _rank(module: str) -> tuple[str, int]:
    """A training module's room and the room's place in ``ROOM_ORDER`` (-1: below every
    room, len(ROOM_ORDER): above them)."""
    if module in BELOW_EVERY_ROOM:
        return module, -1
    if module in ABOVE_EVERY_ROOM:
        return module, len(ROOM_ORDER)
    room = module.split(".")[1]
    ranks = {r: i for i, level in enumerate(ROOM_ORDER) for r in level}
    assert room in ranks, f"{module}: room {room} is not in ROOM_ORDER"
    return room, ranks[room]


def _module_of(path: Path, root: Path = ROOT) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _training_imports(path: Path, root: Path = ROOT):
    """Every training module ``path`` imports, at the top or inside a function (a lazy
    import is an import), relative ones resolved; ``from training import nets`` names
    the room."""
    package = _module_of(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            yield from (a.name for a in node.names if a.name.split(".")[0] == "training")
        elif isinstance(node, ast.ImportFrom):
            base = package[:len(package) - node.level + 1] if node.level else []
            module = ".".join(base + ([node.module] if node.module else []))
            if module.split(".")[0] != "training":
                continue
            rooms = [n.name for n in node.names if module == "training"
                     and (root / "training" / n.name / "__init__.py").is_file()]
            yield from ([f"training.{r}" for r in rooms] if rooms else [module])


def test_no_import_runs_back_up_between_rooms():
    rooms = {p.name for p in TRAINING.iterdir() if (p / "__init__.py").is_file()}
    assert rooms == {r for level in ROOM_ORDER for r in level}
    back_up = []
    for path in sorted(TRAINING.rglob("*.py")):
        room, rank = _rank(_module_of(path))
        for target in _training_imports(path):
            other, other_rank = _rank(target)
            if other != room and other_rank >= rank:
                back_up.append(f"{path.relative_to(ROOT)}: {target}")
    assert back_up == []


def test_the_rooms_check_reads_relative_and_lazy_imports(tmp_path):
    for room in ("data", "nets"):
        (tmp_path / "training" / room).mkdir(parents=True)
        (tmp_path / "training" / room / "__init__.py").write_text("")
    stream = tmp_path / "training" / "data" / "stream.py"
    stream.write_text("from . import scenes\nfrom ..stages.targets import loc_targets\n"
                      "import numpy\n\n\ndef f():\n    import training.ship.export\n"
                      "    from training import nets, REPO_ROOT\n")
    assert sorted(_training_imports(stream, tmp_path)) == [
        "training.data", "training.nets", "training.ship.export", "training.stages.targets"]
    assert [_rank(m)[1] for m in ("training.data.stream", "training.measure.slices",
                                  "training.stages.tuning", "training.ship.export",
                                  "training.pipeline.judge")] == [0, 1, 2, 3, 4]


def test_one_checkpoint_format_every_torch_save_goes_through_it():
    savers = [p.relative_to(ROOT) for p in TRAINING.rglob("*.py")
              if "torch.save(" in p.read_text()]
    assert savers == [Path("training/nets/checkpoint.py")]


def test_one_exporter_every_onnx_export_is_written_in_ship():
    exporters = [p.relative_to(ROOT) for p in TRAINING.rglob("*.py")
                 if "torch.onnx.export(" in p.read_text()]
    assert exporters == [Path("training/ship/export.py")]
    writers = {p.relative_to(ROOT).parts[1] for p in TRAINING.rglob("*.py")
               if "onnx.save(" in p.read_text()}
    assert writers == {"ship"}  # the files and their metadata (settings, lineage)

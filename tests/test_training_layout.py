"""The training package reads by job: no module reaches into another's private names,
each room holds what its name says, and the command lists every stage. Read from the
source (no torch needed)."""

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


def test_one_checkpoint_format_every_torch_save_goes_through_it():
    savers = [p.relative_to(ROOT) for p in TRAINING.rglob("*.py")
              if "torch.save(" in p.read_text()]
    assert savers == [Path("training/nets/checkpoint.py")]

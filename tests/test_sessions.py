"""Every onnxruntime session the project opens goes through the product's own factory,
``scorer.vision.stages.session``: it sets the int8 products this CPU computes exactly
(``scorer.vision.cpu``), so a test, a measurement or a bench reads a network as the
detector does. A session opened beside it (onnxruntime's defaults: the fast int8
products, which saturate on x86 CPUs without VNNI) reads the same crops differently."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FACTORY = ROOT / "scorer" / "vision" / "stages.py"
SKIP = {"runs", "build", "dist", "node_modules", "__pycache__"}


def python_files() -> list[Path]:
    """The project's Python files: every folder but hidden ones and build outputs."""
    return sorted(p for p in ROOT.rglob("*.py")
                  if not any(part.startswith(".") or part in SKIP
                             for part in p.relative_to(ROOT).parts[:-1]))


def opens_a_session(tree: ast.AST) -> list[int]:
    """The lines that name onnxruntime's ``InferenceSession`` (a call, an attribute read or
    an import of it), however onnxruntime was imported."""
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == "InferenceSession" or \
                isinstance(node, ast.Name) and node.id == "InferenceSession":
            lines.append(node.lineno)
        elif isinstance(node, ast.ImportFrom) and any(
                a.name == "InferenceSession" for a in node.names):
            lines.append(node.lineno)
    return lines


def test_the_scan_sees_the_factory_and_every_room():
    files = python_files()
    rooms = {p.relative_to(ROOT).parts[0] for p in files}
    assert {"scorer", "training", "bench", "tests", "webui"} <= rooms
    assert opens_a_session(ast.parse(FACTORY.read_text(encoding="utf-8")))  # the one place
    assert opens_a_session(ast.parse("import onnxruntime as o\ns = o.InferenceSession('m')"))
    assert opens_a_session(ast.parse("from onnxruntime import InferenceSession"))


def test_no_module_but_the_factory_opens_an_onnxruntime_session():
    found = []
    for path in python_files():
        if path == FACTORY:
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        found += [f"{path.relative_to(ROOT)}:{line}" for line in opens_a_session(tree)]
    assert not found, ("open sessions through scorer.vision.stages.session (tests: "
                       "tests/sessions.py), not onnxruntime.InferenceSession: " + ", ".join(found))

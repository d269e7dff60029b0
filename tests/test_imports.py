"""The import graph, read from the source (nothing is imported): no module of the product
(scorer/, webui/, training/), the benchmarks (bench/) or their shared doubles (support/)
takes part in an import loop; the core imports no edge; the store imports no vision;
neither the product nor the benchmarks import the tests, and the product imports neither
the benchmarks nor the doubles; scorer/ and webui/ import neither the training package nor
the train extra's packages (torch, onnx, ...); nothing edits ``sys.path``; the web keeps no
game flow. Every import counts, also one inside a function or under ``if TYPE_CHECKING``."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Sequence

import pytest

from gate import TRAIN_PACKAGES

ROOT = Path(__file__).resolve().parent.parent
PRODUCT = ("scorer", "webui", "training")
PACKAGES = PRODUCT + ("bench", "support")
CORE = ("scorer.cards", "scorer.errors", "scorer.rules", "scorer.game", "scorer.session",
        "scorer.tracking")
EDGES = ("scorer.vision", "scorer.store", "scorer.commands", "scorer.cli", "webui", "flask",
         "cv2", "numpy", "onnxruntime", "granian", "waitress", "sqlite3")


def _modules() -> dict[str, Path]:
    found = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


MODULES = _modules()


def _imports(name: str, path: Path) -> set[str]:
    """Every module ``name`` imports (a ``from package import submodule`` counts as an
    import of the submodule)."""
    is_package = path.name == "__init__.py"
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = name.split(".")
                anchor = anchor if is_package else anchor[:-1]
                anchor = anchor[:len(anchor) - (node.level - 1)]
                base = ".".join(anchor + ([base] if base else []))
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                out.add(sub if sub in MODULES else base)
    return out


GRAPH = {name: {m for m in _imports(name, path) if m in MODULES and m != name}
         for name, path in MODULES.items()}


def _loops(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    loops: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                loops.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return loops


def test_the_walker_sees_imports():
    assert "scorer.rules.registry" in GRAPH["scorer.rules.presets"]
    assert "webui.app.bodies" in GRAPH["webui.app.api"]                       # from pkg import mod
    assert "scorer.rules.gostop" in GRAPH["scorer.rules.registry"]    # the registry's variants
    assert _loops({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]


def test_no_import_loop():
    assert _loops(GRAPH) == []


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith(CORE)))
def test_core_imports_no_edge(name):
    bad = sorted(m for m in _imports(name, MODULES[name])
                 if any(m == e or m.startswith(e + ".") for e in EDGES))
    assert bad == [], f"{name} imports {bad}"


#: What the tests hold: the package, and the helpers pytest lets tests import by file name.
TEST_MODULES = {"tests"} | {p.stem for p in (ROOT / "tests").rglob("*.py")}


def _is(module: str, prefixes: Sequence[str]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


@pytest.mark.parametrize("name", sorted(MODULES))
def test_no_product_or_bench_module_imports_the_tests(name):
    bad = sorted(m for m in _imports(name, MODULES[name]) if _is(m, sorted(TEST_MODULES)))
    assert bad == [], f"{name} imports {bad}"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if _is(m, PRODUCT)))
def test_the_product_imports_no_bench_and_no_doubles(name):
    bad = sorted(m for m in _imports(name, MODULES[name]) if _is(m, ("bench", "support")))
    assert bad == [], f"{name} imports {bad}"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if _is(m, ("scorer", "webui"))))
def test_scorer_and_the_web_import_no_training(name):
    """The app runs from ``pip install .`` without the train extra (pyproject.toml)."""
    bad = sorted(m for m in _imports(name, MODULES[name]) if _is(m, ("training",) + TRAIN_PACKAGES))
    assert bad == [], f"{name} imports {bad}"


def _python_files() -> list[Path]:
    return sorted(p for package in PACKAGES + ("tests",) for p in (ROOT / package).rglob("*.py"))


@pytest.mark.parametrize("path", _python_files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_nothing_edits_sys_path(path):
    """Imports resolve from the repository root (pytest's ``pythonpath``, ``python -m``)."""
    uses = [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute) and node.attr == "path"
            and isinstance(node.value, ast.Name) and node.value.id == "sys"]
    assert uses == [], f"sys.path at line {uses}"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if _is(m, ("scorer.store",))))
def test_the_store_imports_no_vision(name):
    bad = sorted(m for m in _imports(name, MODULES[name]) if _is(m, ("scorer.vision",)))
    assert bad == [], f"{name} imports {bad}"


#: A game's flow is the core's (scorer.session): the web defines none of it.
GAME_FLOW = {"current_round", "dealer_for", "standings", "ruleset", "score", "_scorer",
             "check_open", "open_round"}


@pytest.mark.parametrize("name", sorted(m for m in MODULES if _is(m, ("webui",))))
def test_the_web_defines_no_game_flow(name):
    tree = ast.parse(MODULES[name].read_text(encoding="utf-8"))
    defined = sorted(node.name for node in ast.walk(tree)
                     if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                     and node.name in GAME_FLOW)
    scoring = sorted(alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
                     for alias in node.names
                     if alias.name in {"score_round", "standings", "RoundInput"})
    assert defined == [] and scoring == [], f"{name} defines {defined}, imports {scoring}"


def test_hanafuda_yaku_loads_no_edge():
    """`hanafuda yaku` (and building the parser of every command) imports no web, vision
    or numeric library: the commands import their edges when they run."""
    import subprocess
    import sys

    code = ("import sys, contextlib, io\n"
            "from scorer.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['yaku', '--json', '01-2', '02-2', '03-2'])\n"
            "heavy = ('flask', 'cv2', 'numpy', 'onnxruntime', 'granian', 'waitress', 'webui',\n"
            "         'scorer.vision', 'scorer.store')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
            "             or m.startswith(heavy)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


@pytest.mark.parametrize("name", sorted(m for m in MODULES if _is(m, ("scorer",))))
def test_the_core_package_imports_no_web(name):
    """`hanafuda serve` is the web package's command (an entry point): scorer never
    imports webui."""
    bad = sorted(m for m in _imports(name, MODULES[name]) if _is(m, ("webui",)))
    assert bad == [], f"{name} imports {bad}"


def test_commands_of_other_packages_come_from_entry_points(monkeypatch):
    """scorer.cli lists a command an entry point adds, and loads its module only when
    that command is asked for."""
    import types

    from scorer import cli
    loaded: list[str] = []
    module = types.ModuleType("fake_plugin")

    def register(subparsers):
        loaded.append("fake")
        p = subparsers.add_parser("fake", help="a plugin's command")
        p.set_defaults(func=lambda args: 7)

    module.register = register
    monkeypatch.setitem(__import__("sys").modules, "fake_plugin", module)
    monkeypatch.setattr(cli, "plugin_commands", lambda: {"fake": "fake_plugin"})
    assert cli.main(["fake"]) == 7 and loaded == ["fake"]
    cli.build_parser(["cards"])
    assert loaded == ["fake"]                       # another command: not loaded


def test_the_web_declares_serve_as_an_entry_point():
    import tomllib
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["entry-points"]["hanafuda.commands"] == {"serve": "webui.command"}

"""The import graph, read from the source (nothing is imported): no module of scorer/ or
webui/ takes part in an import loop, and the core imports no edge. Every import counts,
also one inside a function or under ``if TYPE_CHECKING``."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("scorer", "webui")
CORE = ("scorer.cards", "scorer.errors", "scorer.rules", "scorer.game", "scorer.session")
EDGES = ("scorer.vision", "scorer.store", "scorer.commands", "scorer.cli", "webui", "flask",
         "cv2", "numpy", "onnxruntime", "waitress", "sqlite3")


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
    assert "scorer.rules.koikoi" in GRAPH["scorer.rules.registry"]   # from pkg import mod
    assert _loops({"a": {"b"}, "b": {"a"}, "c": set()}) == [["a", "b"]]


def test_no_import_loop():
    assert _loops(GRAPH) == []


@pytest.mark.parametrize("name", sorted(m for m in MODULES if m.startswith(CORE)))
def test_core_imports_no_edge(name):
    bad = sorted(m for m in _imports(name, MODULES[name])
                 if any(m == e or m.startswith(e + ".") for e in EDGES))
    assert bad == [], f"{name} imports {bad}"


def test_hanafuda_yaku_loads_no_edge():
    """`hanafuda yaku` (and building the parser of every command) imports no web, vision
    or numeric library: the commands import their edges when they run."""
    import subprocess
    import sys

    code = ("import sys, contextlib, io\n"
            "from scorer.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            "    main(['yaku', '--json', '01-2', '02-2', '03-2'])\n"
            "heavy = ('flask', 'cv2', 'numpy', 'onnxruntime', 'waitress', 'webui',\n"
            "         'scorer.vision', 'scorer.store')\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy\n"
            "             or m.startswith(heavy)))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=ROOT, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"

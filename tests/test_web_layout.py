"""The web package's rooms (issue 49), read from the source: the Flask app
(``webui/app``), the server (``webui/net``: granian and our thin layers) and the image work
(``webui/images``), with the arrows between them pointing one way. The app may use the
image work; the server reaches the app only through its WSGI entry and
``webui.app.edge``; the image work uses neither; only the command (``webui/command.py``)
and the package's ``__init__`` put them together."""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WEBUI = ROOT / "webui"
ROOMS = {
    "app": {"api", "bodies", "connect", "decks", "edge", "errors", "export", "pages",
            "security", "services"},
    "net": {"early", "guard", "server", "shares", "tls"},
    "images": {"decoder_limits", "detection", "heavy", "jobs", "light", "memory",
               "priority", "scheduler", "shares"},
}


def _room(path: Path) -> str:
    rel = path.relative_to(WEBUI).parts
    return rel[0] if len(rel) > 1 else "top"


def _imports(path: Path) -> set[str]:
    """Every module ``path`` imports (at its top or inside a function), ``from a import
    b`` read as ``a.b`` when ``b`` is a module of ``webui``."""
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            for a in node.names:
                sub = WEBUI.parent / (node.module.replace(".", "/") + "/" + a.name)
                if sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file():
                    out.add(f"{node.module}.{a.name}")
    return out


def _webui_imports() -> dict[str, set[str]]:
    return {str(p.relative_to(ROOT)): {m for m in _imports(p) if m.split(".")[0] == "webui"}
            for p in sorted(WEBUI.rglob("*.py"))}


def test_each_room_holds_its_job_and_nothing_is_left_at_the_top() -> None:
    for room, modules in ROOMS.items():
        found = {p.stem for p in (WEBUI / room).glob("*.py")} - {"__init__"}
        assert modules <= found, (room, modules - found)
    assert {p.name for p in WEBUI.glob("*.py")} == {"__init__.py", "__main__.py", "command.py"}


def test_the_arrows_point_one_way() -> None:
    wrong = []
    for path, modules in _webui_imports().items():
        room = _room(ROOT / path)
        for m in modules:
            parts = m.split(".")
            target = parts[1] if len(parts) > 1 else "top"
            if room == "images" and target not in ("images",):
                wrong.append(f"{path}: the image work imports {m}")
            elif room == "app" and target not in ("app", "images"):
                wrong.append(f"{path}: the app imports {m}")
            elif room == "net" and target not in ("net", "images") \
                    and m not in ("webui.app", "webui.app.edge"):
                wrong.append(f"{path}: the server imports {m}")
            elif room == "net" and m == "webui.app" and "webui.app.edge" not in modules:
                wrong.append(f"{path}: the server imports the app's package")
    assert wrong == []


def test_the_image_work_and_the_server_know_no_web_framework() -> None:
    """The image work imports neither Flask nor the server; the server not Flask."""
    heavy = {"images": ("flask", "werkzeug", "granian"), "net": ("flask",)}
    wrong = [f"{p.relative_to(ROOT)}: {m}" for room, banned in heavy.items()
             for p in (WEBUI / room).rglob("*.py") for m in _imports(p)
             if m.split(".")[0] in banned]
    assert wrong == []


def test_no_class_of_the_web_package_is_one_very_long_room() -> None:
    """The scheduler, once one class of 280 lines, is the scheduler and its two queues."""
    long = [f"{p.relative_to(ROOT)}:{n.name} {n.end_lineno - n.lineno + 1} lines"
            for p in WEBUI.rglob("*.py") for n in ast.walk(ast.parse(p.read_text()))
            if isinstance(n, ast.ClassDef) and (n.end_lineno or 0) - n.lineno >= 200]
    assert long == []


def test_the_command_and_the_page_files_are_still_found(tmp_path: Path) -> None:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert meta["project"]["entry-points"]["hanafuda.commands"]["serve"] == "webui.command"
    data = meta["tool"]["setuptools"]["package-data"]["webui"]
    assert {"templates/*", "static/*", "static/**/*"} <= set(data)
    assert (WEBUI / "templates" / "index.html").is_file()
    assert (WEBUI / "static" / "js").is_dir()
    from webui import create_app
    assert Path(create_app({"DB_PATH": tmp_path / "g.db"}).template_folder or "").name == "templates"

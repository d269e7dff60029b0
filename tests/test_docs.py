"""The documents a newcomer reads: the README's first screen (what it is, the two
commands, where to read next), CI running exactly the README's test command, the model
card's length and attribution, the model history split by ship with an index, and every
relative link in them pointing at a file (and a heading) that exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
CARD = ROOT / "models" / "MODEL_CARD.md"
HISTORY = ROOT / "docs" / "history"
FIRST_SCREEN = 40  # lines
CPU_TORCH = "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu"


def readme_test_command(text: str) -> str:
    """The README's test command: its one line that runs pytest from a fresh venv."""
    lines = [line for line in text.splitlines()
             if line.startswith("python3 -m venv") and "-m pytest" in line]
    assert len(lines) == 1, f"one test command in the README, not {len(lines)}"
    return lines[0]


def test_the_readme_first_screen_says_what_it_is_how_to_run_and_test_it_and_where_next():
    text = README.read_text(encoding="utf-8")
    first = "\n".join(text.splitlines()[:FIRST_SCREEN])
    assert "hanafuda" in first.splitlines()[0] and "webcam scorekeeper" in first
    assert "hanafuda serve" in first
    command = readme_test_command(text)
    assert command in first
    # CPU torch is installed before the project's train extra, so a fresh clone never
    # fetches the CUDA build
    assert CPU_TORCH in command
    assert command.index(CPU_TORCH) < command.index('".[test,train]"') < command.index("pytest")
    for target in ("models/MODEL_CARD.md", "docs/history/README.md", "#layout"):
        assert f"]({target})" in first, target


def test_ci_runs_exactly_the_readme_test_command_and_never_installs_cuda_torch():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    command = readme_test_command(README.read_text(encoding="utf-8"))
    assert command in ci
    for line in ci:
        if "train]" in line and "pip install" in line:  # an install of the train extra
            assert CPU_TORCH in line and line.index(CPU_TORCH) < line.index("train]"), line


def test_the_model_card_is_short_and_keeps_what_it_must():
    text = CARD.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    for words in ("CC BY-SA 4.0", "Louie Mantia", "Spenĉjo", "Marcus Richert", "sunduk/freegostop",
                  "cadyzedevelopmenthub, CC BY 4.0", "baseline", "## Limits", "train", "validation",
                  "test", "enters the repository only when it ships", "135 MiB"):
        assert words in text, words


def test_the_history_is_split_by_ship_with_an_index_of_every_part():
    index = (HISTORY / "README.md").read_text(encoding="utf-8")
    parts = sorted(p.name for p in HISTORY.glob("*.md") if p.name != "README.md")
    assert len(parts) >= 10
    for name in parts:
        assert f"]({name})" in index, f"docs/history/README.md does not list {name}"
        assert "](README.md)" in (HISTORY / name).read_text(encoding="utf-8"), name
    # newest ship first
    listed = re.findall(r"\]\((v[\d-]+[^)]*\.md)\)", index)
    ships = [int(n[3]) for n in listed if re.match(r"v6-\d", n)]
    assert ships == sorted(ships, reverse=True)


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    return {_slug(m.group(1)) for m in re.finditer(r"^#{1,6} (.+)$", text, flags=re.M)}


def _documents() -> list[Path]:
    return [README, CARD, *sorted((ROOT / "docs").rglob("*.md"))]


def test_every_relative_link_in_the_documents_points_at_something_that_exists():
    broken = []
    for doc in _documents():
        text = re.sub(r"```.*?```", "", doc.read_text(encoding="utf-8"), flags=re.S)
        for target in re.findall(r"\]\(([^)\s]+)\)", text):
            if re.match(r"[a-z]+:", target):  # http:, https:, mailto:
                continue
            path, _, anchor = target.partition("#")
            dest = (doc.parent / path).resolve() if path else doc
            if not dest.exists():
                broken.append(f"{doc.relative_to(ROOT)}: {target}")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{doc.relative_to(ROOT)}: {target} (no such heading)")
    assert not broken, "broken links: " + "; ".join(broken)


def test_the_anchor_rule_matches_githubs():
    assert _slug("Card art for training") == "card-art-for-training"
    assert _slug("Playing a game on the page") == "playing-a-game-on-the-page"
    assert _slug("Campaign notes from the model card (v4, pieces 1–15)") == \
        "campaign-notes-from-the-model-card-v4-pieces-115"

"""The HTML pages: the games list with the new-game form, one game's page, and the
enrolled decks with the *Enrol your deck* flow."""

from __future__ import annotations

from typing import Any

from flask import Blueprint, render_template

from scorer.cards import card
from scorer.hwatu import is_hwatu
from scorer.session import GameSession
from scorer.vision.enrol import layout_plan
from webui.app.i18n import prefer, say
from webui.app.services import store

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html")


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    """One game's page, its words for a round as the game calls one (Hachi-Hachi: month)."""
    session = GameSession(store().get_game(game_id))       # 404 page for an unknown game
    prefer("ko" if is_hwatu(session.ruleset.game) else None)  # a Korean game starts in Korean
    return render_template("game.html", game_id=game_id, round_word=session.variant.round_word)


CALENDAR = ("January", "February", "March", "April", "May", "June", "July", "August",
            "September", "October", "November", "December")


def layout_photos() -> list[dict[str, Any]]:
    """The enrolment layout as the page draws it (``layout_plan``: 4 photos of 12 cards,
    one month a row): each photo's title and its rows of cards."""
    out = []
    for n, rows in enumerate(layout_plan(12), start=1):
        months = [card(row[0]).month_info for row in rows]
        title = (say("Photo %(n)s", n=n) + ": " + ", ".join(f"{say(CALENDAR[m.number - 1])} ×{len(row)}"
                                                            for m, row in zip(months, rows))
                 + " — " + say("%(rows)s rows of %(cards)s", rows=len(rows), cards=len(rows[0])))
        out.append({"number": n, "title": title, "rows": [
            {"month": m, "calendar": CALENDAR[m.number - 1],
             "cards": [{"code": c, "name": card(c).english, "full": card(c).name} for c in row]}
            for m, row in zip(months, rows)]})
    return out


@bp.get("/decks")
def decks() -> str:
    return render_template("decks.html", photos=layout_photos())

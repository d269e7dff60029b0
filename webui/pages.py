"""The HTML pages: the games list with the new-game form, and one game's page."""

from __future__ import annotations

from flask import Blueprint, render_template

from webui.context import store

bp = Blueprint("pages", __name__)


@bp.get("/")
def index() -> str:
    return render_template("index.html")


@bp.get("/games/<int:game_id>")
def game(game_id: int) -> str:
    store().get_game(game_id)          # 404 page for an unknown game
    return render_template("game.html", game_id=game_id)

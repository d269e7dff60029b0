"""The JSON API behind the page (documented in docs/API.md)."""

from __future__ import annotations

import json
import re
from typing import Any

from flask import Blueprint, Response, jsonify, request

from scorer import hwatu
from scorer.cards import DECK, MONTHS
from scorer.errors import InputError
from scorer.field_accuracy import field_accuracy
from scorer.rules import get_ruleset, option_rows
from scorer.table import GameView
from scorer.vision.follow import parse_follow
from webui.app import bodies, decks, export
from webui.app.services import detection, enrolled_decks, store, table
from webui.app.errors import Refused

bp = Blueprint("api", __name__)


def _parse_json() -> Any:
    """The request's JSON, or None when there is none or it does not parse. JSON nested
    deeper than the parser's recursion limit is bad input too (400), not a crash."""
    try:
        return request.get_json(silent=True)
    except RecursionError:
        raise InputError("JSON body nested too deeply") from None


def _json_body() -> Any:
    data = _parse_json()
    if data is None:
        raise InputError("send a JSON body (Content-Type: application/json)")
    return data


@bp.get("/health")
def health() -> Response:
    svc = detection()
    return jsonify({"ok": True, "detector_loaded": svc.loaded, "model": svc.model_name,
                    "models": svc.models()})


@bp.get("/cards")
def cards() -> Response:
    return jsonify({
        "months": [{"number": m.number, "english": m.english, "japanese": m.japanese,
                    "colour": m.colour} for m in MONTHS],
        "cards": [{"code": c.code, "name": c.name, "japanese": c.japanese, "month": c.month,
                   "kind": c.kind.value} for c in DECK],
        "hwatu": hwatu.to_dict(),
    })


@bp.get("/presets")
def presets() -> Response:
    return jsonify({"presets": bodies.presets(), "default": "sakura"})


@bp.get("/presets/<name>/options")
def preset_options(name: str) -> Response:
    """One preset's options as the new-game form folds them (``hanafuda rules PRESET``'s
    rows: value here, default, help, source, allowed values, group)."""
    return jsonify({"preset": name, "options": option_rows(get_ruleset(name))})


@bp.post("/detect")
def detect() -> Response:
    upload = request.files.get("image")
    data = upload.read() if upload is not None else request.get_data(cache=False)
    deck = request.args.get("deck") or None
    follow = request.args.get("follow")
    report = table().detect(detection().check(data), deck, request.args.get("crops") == "1",
                            weak=request.args.get("weak") == "1",
                            follow=None if follow is None else parse_follow(follow))
    body = report.to_dict(detection().model_name)
    return jsonify({**body, "deck": deck} if deck else body)


@bp.get("/accuracy")
def accuracy() -> Response:
    """The camera's accuracy in the confirmed rounds so far (``hanafuda accuracy``)."""
    return jsonify(field_accuracy(store().scored_piles()).to_dict())


@bp.get("/games")
def list_games() -> Response:
    return jsonify({"games": [g.to_dict() for g in store().list_games()]})


@bp.post("/games")
def create_game() -> tuple[Response, int]:
    setup = bodies.new_game(enrolled_decks().store, _json_body())
    return jsonify(table().create(**setup).to_dict()), 201


@bp.get("/games/<int:game_id>")
def get_game(game_id: int) -> Response:
    return jsonify(table().view(game_id).to_dict())


@bp.patch("/games/<int:game_id>")
def update_game(game_id: int) -> Response:
    changes = bodies.game_changes(enrolled_decks().store, _json_body())
    return jsonify(table().update(game_id, changes).to_dict())


@bp.delete("/games/<int:game_id>")
def delete_game(game_id: int) -> Response:
    table().delete(game_id)
    return jsonify({"deleted": game_id})


def _version(body: Any) -> int:
    """The version of the pile a write replaces: ``If-Match: "N"`` or the body's
    ``version`` (0: a pile not saved yet). A write that names none is refused (428)."""
    raw: Any = request.headers.get("If-Match")
    if raw is not None:
        raw = raw.strip().removeprefix("W/").strip('"')
    elif isinstance(body, dict):
        raw = body.get("version")
    if raw is None:
        raise Refused(428, "name the version of the pile this write replaces (the pile's "
                           "'version', 0 for a pile not saved yet, or If-Match)")
    if isinstance(raw, bool) or not (isinstance(raw, int) or
                                     (isinstance(raw, str) and raw.isascii() and raw.isdigit()
                                      and len(raw) < 12)):
        raise InputError("version must be a whole number (the pile's 'version')")
    return int(raw)


def _pile_answer(view: GameView, status: int = 200) -> tuple[Response, int]:
    resp = jsonify(view.answer())
    if view.pile is not None:
        resp.headers["ETag"] = f'"{view.pile.version}"'
    return resp, status


@bp.put("/games/<int:game_id>/rounds/<int:number>/piles")
def save_pile(game_id: int, number: int) -> tuple[Response, int]:
    body = _json_body()
    version = _version(body)            # 428 before a body's fields are read
    return _pile_answer(table().save_pile(game_id, number, **bodies.pile(body),
                                          version=version))


@bp.post("/games/<int:game_id>/rounds/<int:number>/corrections")
def correct(game_id: int, number: int) -> tuple[Response, int]:
    body = _json_body()
    version = _version(body)
    return _pile_answer(table().correct(game_id, number, **bodies.correction(body),
                                        version=version), 201)


@bp.post("/games/<int:game_id>/rounds/<int:number>/confirm")
def confirm(game_id: int, number: int) -> Response:
    context = bodies.context(_parse_json())
    return jsonify(table().confirm(game_id, number, context).answer())


@bp.post("/games/<int:game_id>/rounds/<int:number>/reopen")
def reopen_round(game_id: int, number: int) -> Response:
    """Reopen a confirmed round for fixes: confirming it again scores it and the later
    rounds anew."""
    return jsonify(table().reopen_round(game_id, number).answer())


@bp.get("/games/<int:game_id>/export.<fmt>")
def export_game(game_id: int, fmt: str) -> Response:
    if fmt not in export.FORMATS:
        raise InputError(f"export format must be csv or json, not {fmt[:10]!r}")
    view = table().view(game_id).to_dict(crops=False)
    body = export.to_csv(view) if fmt == "csv" else json.dumps(view, ensure_ascii=False,
                                                                 indent=2)
    resp = Response(body, mimetype=export.FORMATS[fmt])
    resp.headers["Content-Disposition"] = \
        f'attachment; filename="{export.filename(game_id, fmt)}"'
    return resp


# ------------------------------------------------------------------ enrolled decks
@bp.get("/decks")
def list_decks() -> Response:
    return jsonify({"decks": decks.listing()})


@bp.post("/decks/preview")
def preview_deck() -> Response:
    """Layout photos and/or single-card images (multipart ``images``, in deck order) ->
    the crops found, each named and read back, to confirm; nothing is saved.
    ``?retake=1``: each image named by code is a photo of that card, found in it."""
    files = [(f.filename, f.read()) for f in request.files.getlist("images")]
    return jsonify(decks.preview(files, retake=request.args.get("retake") == "1"))


@bp.post("/decks")
def create_deck() -> tuple[Response, int]:
    body = _json_body()
    name = body.get("name") if isinstance(body, dict) else None
    return jsonify(decks.save(name, body, create=True).summary()), 201


@bp.put("/decks/<name>")
def replace_deck(name: str) -> Response:
    return jsonify(decks.save(name, _json_body()).summary())


@bp.get("/decks/<name>")
def get_deck(name: str) -> Response:
    return jsonify(decks.record(name).to_json())


@bp.get("/decks/<name>/export.json")
def export_deck(name: str) -> Response:
    body = json.dumps(decks.record(name).to_json(), ensure_ascii=False)
    resp = Response(body, mimetype="application/json")
    safe = re.sub(r"[^A-Za-z0-9._-]", "_", name)       # names are checked; belt and braces
    resp.headers["Content-Disposition"] = f'attachment; filename="hanafuda-deck-{safe}.json"'
    return resp


@bp.delete("/decks/<name>")
def delete_deck(name: str) -> Response:
    decks.delete(name)
    return jsonify({"deleted": name})

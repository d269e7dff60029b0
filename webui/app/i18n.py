"""The page's language (``scorer.i18n`` keeps the catalogues): chosen once a request.

The language is, first to last: ``?lang=`` (the page's switcher; kept in a cookie), the
cookie, the game's own (a Korean game, Go-Stop or Matgo, starts in Korean: ``prefer``),
the browser's ``Accept-Language``, English. The templates say ``{{ _("...") }}``; the
page's scripts get the language's catalogue as JSON in the page (``#i18n``, read by
``static/js/i18n.js``) and say ``t("...")``; a JSON error's ``error`` is translated
where the catalogue has it (``say``).
"""

from __future__ import annotations

from typing import Any

from flask import Flask, Response, g, request

from scorer import i18n

COOKIE = "lang"
YEAR = 365 * 24 * 3600


def current() -> str:
    """This request's language (English outside a request)."""
    try:
        return str(g.get("lang") or i18n.SOURCE)
    except RuntimeError:                      # no app context
        return i18n.SOURCE


def say(text: str, **values: object) -> str:
    """``text`` in this request's language."""
    return i18n.gettext(current(), text, **values)


def chosen() -> str | None:
    """The language the player chose (the switcher, or its cookie), if any."""
    for value in (request.args.get(COOKIE), request.cookies.get(COOKIE)):
        if value and value in i18n.languages():
            return value
    return None


def prefer(lang: str | None) -> None:
    """A page's own language where the player chose none (a Korean game: Korean)."""
    if lang in i18n.languages() and chosen() is None:
        g.lang = lang


def _choose() -> None:
    g.lang = chosen() or i18n.best_language(request.accept_languages.values())


def _keep(response: Response) -> Response:
    wanted = request.args.get(COOKIE)
    if wanted and wanted in i18n.languages() and request.cookies.get(COOKIE) != wanted:
        response.set_cookie(COOKIE, wanted, max_age=YEAR, samesite="Lax", httponly=True)
    response.vary.add("Accept-Language")
    response.vary.add("Cookie")
    return response


def _context() -> dict[str, Any]:
    lang = current()
    return {"lang": lang, "languages": [(code, i18n.language_name(code)) for code in i18n.languages()],
            "i18n_catalogue": i18n.catalogue(lang)}


def init_app(app: Flask) -> None:
    app.jinja_env.add_extension("jinja2.ext.i18n")
    app.jinja_env.install_gettext_callables(  # type: ignore[attr-defined]
        lambda text, **values: say(text, **values),
        lambda one, many, n: i18n.translations(current()).ngettext(one, many, n),
        newstyle=True)
    app.before_request(_choose)
    app.after_request(_keep)
    app.context_processor(_context)

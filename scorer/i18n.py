"""The words the page, the server and the ``hanafuda`` command say, in the players' language.

English is the source text; each other language is one gettext catalogue,
``scorer/locales/<lang>/LC_MESSAGES/messages.po`` (Babel's format), started from the
template ``scorer/locales/messages.pot`` (``pybabel init``): every word of the code
(``babel.cfg`` says where: ``pybabel extract``) and the server's sentences as the page
translates them by shape and term. A new language is a new catalogue file, no code.
The ``.po`` is read as it is (compiled in memory on first use), so a fresh clone needs no
build step; a ``messages.mo`` beside it, newer than it, is read instead.

``gettext(lang, text)`` translates one message; ``catalogue(lang)`` is every translated
message of a language (what the page's scripts get); ``best_language(wanted)`` picks from
the languages the catalogues offer; ``command_language()`` is the command line's, from
``HANAFUDA_LANG`` or the usual locale variables.
"""

from __future__ import annotations

import gettext as _gettext
import os
import re
from functools import lru_cache
from io import BytesIO
from pathlib import Path
from typing import Iterable

from babel import Locale, UnknownLocaleError
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po
from babel.support import Translations

LOCALES = Path(__file__).resolve().parent / "locales"
SOURCE = "en"           # the language the code is written in


def _po(lang: str) -> Path:
    return LOCALES / lang / "LC_MESSAGES" / "messages.po"


@lru_cache(maxsize=1)
def languages() -> tuple[str, ...]:
    """English, then each language with a catalogue, by code."""
    found = sorted(d.name for d in LOCALES.iterdir() if _po(d.name).is_file()) if LOCALES.is_dir() else []
    return (SOURCE, *[lang for lang in found if lang != SOURCE])


def language_name(lang: str) -> str:
    """The language's name in itself: "English", "日本語", "한국어"."""
    try:
        name = Locale.parse(lang).get_display_name(lang) or lang
    except (ValueError, UnknownLocaleError):
        return lang
    return name[:1].upper() + name[1:]


@lru_cache(maxsize=None)
def translations(lang: str) -> _gettext.NullTranslations:
    """The language's catalogue (English: none, the text as written)."""
    po = _po(lang)
    if lang == SOURCE or not po.is_file():
        return _gettext.NullTranslations()
    mo = po.with_suffix(".mo")
    if mo.is_file() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as f:
            return Translations(f)
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang)
    buf = BytesIO()
    write_mo(buf, catalog)
    buf.seek(0)
    return Translations(buf)


def gettext(lang: str, text: str, **values: object) -> str:
    """``text`` in ``lang`` (as written where the catalogue lacks it), its ``%(name)s``
    places filled from ``values``."""
    out = translations(lang).gettext(text)
    return out % values if values else out


@lru_cache(maxsize=None)
def catalogue(lang: str) -> dict[str, str]:
    """Every message the language translates: English text -> its translation."""
    po = _po(lang)
    if lang == SOURCE or not po.is_file():
        return {}
    with po.open("rb") as f:
        catalog = read_po(f, locale=lang)
    return {str(m.id): str(m.string) for m in catalog
            if m.id and isinstance(m.id, str) and m.string and not m.fuzzy}


def best_language(wanted: Iterable[str], default: str = SOURCE) -> str:
    """The first of ``wanted`` (language tags, best first: "ko-KR", "ja") that a catalogue
    offers, by its language part; else ``default``."""
    have = languages()
    for tag in wanted:
        lang = tag.replace("_", "-").split("-")[0].lower()
        if lang in have:
            return lang
    return default


def command_language() -> str:
    """The command line's language: ``HANAFUDA_LANG``, else ``LANGUAGE``, ``LC_ALL``,
    ``LC_MESSAGES`` or ``LANG`` ("ko_KR.UTF-8" is Korean); English where none names one
    with a catalogue."""
    wanted: list[str] = []
    for var in ("HANAFUDA_LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = os.environ.get(var, "")
        wanted += [part.split(".")[0] for part in value.split(":") if part and part not in ("C", "POSIX")]
    return best_language(wanted)


_PLACE = re.compile(r"\{(\w+)\}")


@lru_cache(maxsize=None)
def _shapes(lang: str) -> tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...]:
    """The catalogue's "shape:" entries (``shape:{p} wins the round``) as patterns, the
    most words of their own first (as ``static/js/i18n.js`` orders them)."""
    out = []
    for key in catalogue(lang):
        if not key.startswith("shape:"):
            continue
        keys: list[str] = []
        parts: list[str] = []
        for part in re.split(r"(\{\w+\})", key[len("shape:"):]):
            m = _PLACE.fullmatch(part)
            if m:
                keys.append(m.group(1))
                parts.append("(.+?)")
            else:
                parts.append(re.escape(part))
        out.append((key, tuple(keys), re.compile("^" + "".join(parts) + "$", re.S)))
    out.sort(key=lambda s: -len(_PLACE.sub("", s[0])))
    return tuple(out)


def sentence(lang: str, text: str) -> str:
    """A sentence the engine wrote ("Ann wins the round"), in ``lang``, as the page says it
    (``static/js/i18n.js`` ``tr``): the catalogue's entry, else the first shape that fits
    ("shape:{p} wins the round", its places said in turn, a ``{raw...}`` place as it is;
    a "; "-joined line only by a shape with "; " in it), else such a line's parts (the
    longest runs the catalogue has first), else its terms one by one ("word:samgwang");
    else as written."""
    if lang == SOURCE or not text:
        return text
    cat = catalogue(lang)
    if text in cat:
        return cat[text]
    joined = "; " in text               # parts said one by one, unless a shape holds them all
    for key, keys, pattern in _shapes(lang):
        if joined and "; " not in key:
            continue
        m = pattern.match(text)
        if m:
            return _fill(cat[key], {k: v if k.startswith("raw") else sentence(lang, v)
                                    for k, v in zip(keys, m.groups())})
    if joined:                  # the longest run of parts the catalogue has, then the rest
        parts, said = text.split("; "), []
        while parts:
            k = next((k for k in range(len(parts), 1, -1) if "; ".join(parts[:k]) in cat), 1)
            said.append(sentence(lang, "; ".join(parts[:k])))
            parts = parts[k:]
        return "; ".join(said)
    return re.sub(r"[A-Za-z][A-Za-z-]*[A-Za-z]", lambda w: cat.get(f"word:{w.group(0)}", w.group(0)), text)


def _fill(text: str, values: dict[str, str]) -> str:
    """``text``'s ``{places}`` filled from ``values`` (a place not given stays)."""
    return _PLACE.sub(lambda p: values.get(p.group(1), p.group(0)), text)

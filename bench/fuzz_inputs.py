"""Fuzz every input the scorer takes from outside with hypothesis: images through
``POST /api/detect`` and ``hanafuda detect``, and every JSON endpoint; count 500s and
crashes (the goal is zero of each).

    .venv/bin/python -m bench.fuzz_inputs [--examples 10000] [--model auto|fake|PATH] [--seed 0]

Images: empty, truncated, mutated (byte flips), huge claimed dimensions (a PNG, JPEG, BMP
or WebP header claiming up to 2^32 px a side), wrong types (text, JSON, HTML, PDF, ZIP,
ELF, GIF, TIFF, random bytes), polyglots (an image with HTML/ZIP/script appended,
prepended or inside a comment chunk), sent raw or as multipart with odd content types
and file names; and the same bytes as files to ``hanafuda detect --json`` in-process
(``scorer.cli.main``). JSON: each endpoint's body built from plausible values mixed with
wrong types, missing fields, huge strings, unknown and duplicate codes, duplicate names,
out-of-range numbers, deep nesting, invalid JSON/UTF-8, wrong content types, odd ids in
the URL, wrong methods, and requests without the cross-site header.

Every response must be under 500, JSON on /api/, carry the security headers, a
state-changing request without the custom header must be 403, an export's file name
must be ``hanafuda-game-<id>.<csv|json>``; the CLI must return 0 (with JSON lines) or 2
(one-line error) and never raise. After the run no round may hold a card in two piles.
The detector is the shipped model when ``models/`` has it (``--model auto``), else a fake.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import re
import struct
import sys
import tempfile
import time
import zlib
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from support.servers import CSRF, SECURITY_HEADERS, make_detector

from hypothesis import HealthCheck, Phase, given, seed as hyp_seed, settings
from hypothesis import strategies as st

# share of the examples per target
SHARES = {"detect_api": 0.25, "detect_cli": 0.15, "create_game": 0.14, "save_pile": 0.16,
          "correct": 0.10, "confirm": 0.10, "reads": 0.10}
UNSAFE = ("POST", "PUT", "PATCH", "DELETE")
EXPORT_NAME = re.compile(r'attachment; filename="hanafuda-game-\d+\.(csv|json)"')


def crash_line(exc: BaseException) -> str:
    """An unexpected exception as one line of at most 300 characters, its type named."""
    return f"{type(exc).__module__}.{type(exc).__qualname__}: {exc}"[:300]


@dataclass
class Tally:
    inputs: Counter = field(default_factory=Counter)
    statuses: Counter = field(default_factory=Counter)
    by_target: dict = field(default_factory=lambda: defaultdict(Counter))
    server_errors: list = field(default_factory=list)   # (target, what, status, body)
    crashes: list = field(default_factory=list)         # (target, what, exception)
    violations: list = field(default_factory=list)      # other broken promises

    @property
    def total(self) -> int:
        return sum(self.inputs.values())

    def ok(self) -> bool:
        return not (self.server_errors or self.crashes or self.violations)

    def report(self, out: Callable[[str], None] = print) -> None:
        for target, n in self.inputs.items():
            seen = self.by_target[target]
            out(f"  {target:<12} {n:>6} inputs  ("
                + ", ".join(f"{k}: {v}" for k, v in sorted(seen.items(), key=lambda kv: str(kv[0])))
                + ")")
        out(f"inputs: {self.total}")
        out("statuses: " + ", ".join(f"{k}: {v}" for k, v in sorted(self.statuses.items(),
                                                                  key=lambda kv: str(kv[0]))))
        out(f"500s: {len(self.server_errors)}")
        out(f"crashes: {len(self.crashes)}")
        out(f"other violations: {len(self.violations)}")
        kinds = Counter(f"{item[0]}: {str(item[-1]).splitlines()[0][:110]}"
                        for item in self.server_errors + self.crashes + self.violations)
        for kind, count in kinds.most_common():
            out(f"  {count} x {kind}")
        for item in (self.server_errors + self.crashes + self.violations)[:5]:
            out("  e.g. " + repr(item)[:400])


# ------------------------------------------------------------------- image material
def _encode(ext: str, w: int, h: int, **kw: Any) -> bytes:
    import cv2
    import numpy as np
    rng = np.random.default_rng(w * 7 + h)
    img = rng.integers(0, 255, (h, w, 3), dtype=np.uint8)
    ok, buf = cv2.imencode(ext, img)
    assert ok, ext
    return buf.tobytes()


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def png_header(w: int, h: int, tail: bytes = b"") -> bytes:
    ihdr = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    idat = _png_chunk(b"IDAT", zlib.compress(b"\x00" * 64))
    return b"\x89PNG\r\n\x1a\n" + _png_chunk(b"IHDR", ihdr) + idat + tail + \
        _png_chunk(b"IEND", b"")


def jpeg_header(w: int, h: int, tail: bytes = b"") -> bytes:
    w, h = min(w, 65_535), min(h, 65_535)
    sof = b"\xff\xc0" + struct.pack(">HBHHB", 11, 8, h, w, 1) + b"\x01\x11\x00"
    return b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00" + sof + \
        tail + b"\xff\xd9"


def bmp_header(w: int, h: int, tail: bytes = b"") -> bytes:
    w = max(min(w, 2**31 - 1), -2**31)
    h = max(min(h, 2**31 - 1), -2**31)
    return b"BM" + struct.pack("<IHHI", 54 + len(tail), 0, 0, 54) + \
        struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, 0, 2835, 2835, 0, 0) + tail


def webp_header(w: int, h: int, tail: bytes = b"") -> bytes:
    w1, h1 = max(w - 1, 0) & 0xFFFFFF, max(h - 1, 0) & 0xFFFFFF
    body = b"VP8X" + struct.pack("<I", 10) + b"\x00\x00\x00\x00" + w1.to_bytes(3, "little") + \
        h1.to_bytes(3, "little") + tail
    return b"RIFF" + struct.pack("<I", 4 + len(body)) + b"WEBP" + body


HEADERS = {"png": png_header, "jpeg": jpeg_header, "bmp": bmp_header, "webp": webp_header}

WRONG_TYPES = [
    b"%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF",
    b"PK\x03\x04\x14\x00\x00\x00\x08\x00" + b"\x00" * 20 + b"PK\x05\x06" + b"\x00" * 18,
    b"<!doctype html><html><body><script>alert(1)</script></body></html>",
    b'{"players": ["Ann", "Bob"]}',
    b"GIF89a\x01\x00\x01\x00\x80\x00\x00\xff\xff\xff\x00\x00\x00!\xf9\x04\x01\x00\x00\x00\x00"
    b",\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;",
    b"II*\x00\x08\x00\x00\x00\x01\x00\x00\x01\x03\x00\x01\x00\x00\x00\xff\xff\x00\x00",
    b"\x7fELF\x02\x01\x01" + b"\x00" * 60,
    b"<svg xmlns='http://www.w3.org/2000/svg' onload='alert(1)'/>",
    "カードの写真ではありません".encode(),
    b"\x00" * 4096,
    b"BM", b"RIFF\x00\x00\x00\x00WEBPVP8 ", b"\x89PNG\r\n\x1a\n", b"\xff\xd8\xff",
    b"\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR",
]
PAYLOADS = [b"<html><script>alert(document.cookie)</script></html>",
            WRONG_TYPES[1], WRONG_TYPES[0], b"\x00" * 512, b"#!/bin/sh\nrm -rf /\n"]


def image_material(size: int = 48) -> list[bytes]:
    """A few small valid images in every supported format, plus one at camera size."""
    out = [_encode(".jpg", size + 16, size), _encode(".png", size, size),
           _encode(".bmp", size, size + 8), _encode(".jpg", 640, 480)]
    try:
        out.append(_encode(".webp", size, size))
    except Exception:   # an OpenCV without WebP
        pass
    return out


def one_of_bytes(items: list[bytes]) -> st.SearchStrategy[bytes]:
    """Like sampled_from, without putting megabytes into hypothesis's reprs."""
    def pick(i: int) -> bytes:
        return items[i]
    return st.integers(0, len(items) - 1).map(pick)


def image_bytes(bases: list[bytes]) -> st.SearchStrategy[bytes]:
    base = one_of_bytes(bases)
    dims = st.integers(0, 2**32 - 1) | st.sampled_from([0, 1, 15, 16, 12_000, 12_001,
                                                         65_535, 100_000, 2**31, 2**32 - 1])
    truncated = st.tuples(base, st.floats(0, 1)).map(lambda t: t[0][: int(len(t[0]) * t[1])])
    mutated = st.tuples(base, st.lists(st.tuples(st.floats(0, 0.999), st.integers(0, 255)),
                                       min_size=1, max_size=12)).map(_mutate)
    huge = st.tuples(st.sampled_from(sorted(HEADERS)), dims, dims).map(
        lambda t: HEADERS[t[0]](t[1], t[2]))
    wrong = one_of_bytes(WRONG_TYPES) | st.binary(max_size=4096) | \
        st.text(max_size=300).map(lambda s: s.encode("utf-8", "surrogatepass"))
    polyglot = st.tuples(base | huge, one_of_bytes(PAYLOADS),
                         st.sampled_from(["append", "prepend", "inside"])).map(_polyglot)
    return st.one_of(st.just(b""), truncated, mutated, huge, wrong, polyglot, base)


def _mutate(t: tuple[bytes, list[tuple[float, int]]]) -> bytes:
    data = bytearray(t[0])
    for pos, value in t[1]:
        data[int(pos * len(data))] = value
    return bytes(data)


def _polyglot(t: tuple[bytes, bytes, str]) -> bytes:
    image, payload, where = t
    if where == "append":
        return image + payload
    if where == "prepend":
        return payload + image
    if image[:3] == b"\xff\xd8\xff":      # a JPEG comment segment holding the payload
        com = payload[:65000]
        return image[:2] + b"\xff\xfe" + struct.pack(">H", len(com) + 2) + com + image[2:]
    if image[:8] == b"\x89PNG\r\n\x1a\n":  # a PNG text chunk after IHDR
        return image[:33] + _png_chunk(b"tEXt", b"x\x00" + payload) + image[33:]
    return image + payload


# ------------------------------------------------------------------- JSON material
def json_values(huge: bool = True) -> st.SearchStrategy[Any]:
    scalars = (st.none() | st.booleans() | st.integers() | st.integers(-2**80, 2**80)
               | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=40))
    if huge:
        scalars = scalars | huge_strings()
    return st.recursive(scalars, lambda kids: st.lists(kids, max_size=5)
                        | st.dictionaries(st.text(max_size=12), kids, max_size=5),
                        max_leaves=15)


def huge_strings() -> st.SearchStrategy[str]:
    return st.tuples(st.sampled_from(["x", "花", "\u202e", "<script>", "08-1,", "\ud800", "\x00"]),
                     st.integers(100, 300_000)).map(lambda t: t[0] * t[1])


ODD_CODES = ["8-1", "08-01", "8_1", "13-1", "00-1", "12-5", "08-0", "08-", "-1", "08--1",
             "٠٨-١", "０８-１", "08-1\x00", " 08-1 ", "08-1\n", "Susuki: moon", "", "null",
             "1" * 400, "08-" + "9" * 5000]


def codes() -> st.SearchStrategy[Any]:
    from scorer.cards import CODES
    one = st.sampled_from(list(CODES)) | st.sampled_from(ODD_CODES) | \
        st.integers(-5, 2000) | st.none() | st.floats() | st.lists(st.sampled_from(CODES), max_size=2)
    return one


def code_lists() -> st.SearchStrategy[Any]:
    from scorer.cards import CODES
    valid = st.lists(st.sampled_from(list(CODES)), max_size=60)         # duplicates likely
    unique = st.lists(st.sampled_from(list(CODES)), max_size=48, unique=True)
    return st.one_of(unique, valid, st.lists(codes(), max_size=60), json_values(),
                     st.just(list(CODES) * 3))


def names() -> st.SearchStrategy[Any]:
    plain = st.sampled_from(["Ann", "Bob", "Cy", "Dee", "ann", "Ann ", " Ann", "A+B",
                             "Ann+Bob", "x" * 24, "x" * 25, "花子", "\u202eevil", "\t",
                             "<b>Ann</b>", "'; DROP TABLE games;--", "\x00", "\ud800"])
    return st.one_of(plain, st.text(max_size=30), huge_strings(), json_values(huge=False))


def maybe(strategy: st.SearchStrategy[Any], junk: st.SearchStrategy[Any]):
    return st.one_of(strategy, strategy, strategy, junk)


# ------------------------------------------------------------------- the fuzzer
class Fuzzer:
    """A Flask test client on a temporary database with a few games to aim at."""

    def __init__(self, detector: Any, db_dir: Path) -> None:
        from webui import create_app
        self.app = create_app({"DB_PATH": db_dir / "fuzz.db", "DETECTOR": detector,
                               "TESTING": False})
        self.client = self.app.test_client()
        self.tally = Tally()
        self.game_ids: list[int] = []
        self.players: dict[int, list[str]] = {}
        self._kinds: dict[int, int] = {}
        self.ensure_games()

    # setup ---------------------------------------------------------------
    GAMES = [{"players": ["Ann", "Bob"]},
             {"preset": "koikoi", "players": ["Ann", "Bob"], "rounds": 3},
             {"players": ["Ann", "Bob", "Cy", "Dee"], "teams": [["Ann", "Cy"], ["Bob", "Dee"]]},
             {"preset": "hanaawase", "players": ["Ann", "Bob", "Cy"]}]

    def ensure_games(self) -> None:
        """Keep one unfinished game of each kind (the fuzz deletes and finishes games)."""
        live = []
        for gid in self.game_ids:
            r = self.client.get(f"/api/games/{gid}")
            if r.status_code == 200 and not r.json["finished"]:
                live.append(gid)
        kinds = {self._kind(gid) for gid in live}
        for i, body in enumerate(self.GAMES):
            if i not in kinds:
                r = self.client.post("/api/games", json=body, headers=CSRF)
                assert r.status_code == 201, r.get_json()
                gid = r.json["id"]
                live.append(gid)
                self.players[gid] = r.json["owners"]
                self._kinds[gid] = i
        self.game_ids = live

    def _kind(self, gid: int) -> int:
        return self._kinds.get(gid, -1)

    # one request ---------------------------------------------------------
    def request(self, target: str, method: str, url: str, *, json_body: Any = None,
                raw: bytes | None = None, content_type: str | None = None,
                csrf: bool = True, data: Any = None) -> Any:
        self.tally.inputs[target] += 1
        headers = dict(CSRF) if csrf else {}
        kwargs: dict[str, Any] = {"method": method, "headers": headers}
        if data is not None:
            kwargs["data"] = data
            if content_type:
                kwargs["content_type"] = content_type
        elif raw is not None:
            kwargs["data"] = raw
            kwargs["content_type"] = content_type or "application/octet-stream"
        elif json_body is not None:
            try:
                kwargs["data"] = json.dumps(json_body)
            except (ValueError, RecursionError):
                kwargs["data"] = "{}"
            kwargs["content_type"] = content_type or "application/json"
        what = (method, url[:120], repr(json_body)[:200] if json_body is not None else
                repr(raw[:60]) if raw is not None else "")
        try:
            r = self.client.open(url, **kwargs)
        except Exception as exc:   # exactly what we are counting
            self.tally.crashes.append((target, what, crash_line(exc)))
            return None
        self.tally.statuses[r.status_code] += 1
        self.tally.by_target[target][r.status_code] += 1
        if r.status_code >= 500 and r.status_code != 503:
            self.tally.server_errors.append((target, what, r.status_code,
                                             r.get_data(as_text=True)[:200]))
        is_export = r.status_code == 200 and "/export." in url
        if url.startswith("/api/") and method not in ("HEAD", "OPTIONS") and not is_export \
                and not r.is_json:
            self.tally.violations.append((target, what, "not JSON", r.mimetype))
        missing = [h for h in SECURITY_HEADERS if h not in r.headers]
        if missing:
            self.tally.violations.append((target, what, "missing headers", missing))
        if method in UNSAFE and not csrf and r.status_code != 403:
            self.tally.violations.append((target, what, "no CSRF header but", r.status_code))
        if r.status_code == 200 and method == "GET" and "/export." in url:
            if not EXPORT_NAME.fullmatch(r.headers.get("Content-Disposition", "")):
                self.tally.violations.append((target, what, "export name",
                                              r.headers.get("Content-Disposition")))
        return r

    # invariants after the run ---------------------------------------------
    def check_store(self) -> None:
        store = self.app.extensions["hanafuda"]["store"]
        for summary in store.list_games(limit=100_000):
            game = store.get_game(summary.id)
            for rnd in game.rounds:
                seen: dict[str, str] = {}
                for owner, pile in rnd.piles.items():
                    if len(set(pile.codes)) != len(pile.codes):
                        self.tally.violations.append(("store", game.id, rnd.number,
                                                      "card twice in a pile", owner))
                    for code in pile.codes:
                        if code in seen:
                            self.tally.violations.append(("store", game.id, rnd.number,
                                                          f"{code} in two piles", owner,
                                                          seen[code]))
                        seen[code] = owner
            r = self.client.get(f"/api/games/{game.id}/export.csv")
            if r.status_code != 200:
                self.tally.violations.append(("store", game.id, "export", r.status_code))


def mostly(good: st.SearchStrategy[Any], odd: st.SearchStrategy[Any],
           share: int = 85) -> st.SearchStrategy[Any]:
    """``good`` ``share`` per cent of the time, else ``odd`` (one_of would not hold the mix)."""
    return st.tuples(st.integers(0, 99), good, odd).map(lambda t: t[1] if t[0] < share else t[2])


def game_url(fz: Fuzzer) -> st.SearchStrategy[int]:
    """Mostly a live game's id (read when drawn: the fuzz deletes and finishes games)."""
    live = st.integers(0, 10**6).map(lambda i: fz.game_ids[i % len(fz.game_ids)])
    return mostly(live, st.sampled_from([0, 999_999, 2**63 - 1, 2**63, 2**70]))


def round_no() -> st.SearchStrategy[Any]:
    return mostly(st.integers(1, 3), st.sampled_from([0, 49, 2**64, "x", "-1", "1.0", "%00",
                                                      "1;DROP"]))


def body_wrapper(structured: st.SearchStrategy[Any]) -> st.SearchStrategy[tuple]:
    """(kind, value): mostly a structured body, else any JSON, or raw bytes."""
    deep = st.integers(2, 200_000).map(lambda n: ("[" * n + "]" * n).encode())
    raw = st.one_of(st.binary(max_size=200), st.just(b"\xff\xfe{"), st.just(b"{\"a\": "),
                    st.just(b'{"players": ["Ann", "Bob"], "players": 1}'), deep,
                    st.just(b"NaN"), st.just(b"[" + b"1," * 100_000 + b"1]"))
    return mostly(structured.map(lambda v: ("json", v)),
                  st.one_of(json_values().map(lambda v: ("json", v)), raw.map(lambda v: ("raw", v))),
                  70)


CONTENT_TYPES = ["application/json", "text/plain", "application/x-www-form-urlencoded",
                 "multipart/form-data", "application/json; charset=latin-1", ""]


def _send(fz: Fuzzer, target: str, method: str, url: str, body: tuple, ctype: str | None,
          csrf: bool) -> None:
    kind, value = body
    if kind == "json":
        fz.request(target, method, url, json_body=value, content_type=ctype, csrf=csrf)
    else:
        fz.request(target, method, url, raw=value, content_type=ctype or "application/json",
                   csrf=csrf)


def _settings(n: int, seed: int):
    def wrap(fn):
        fn = settings(max_examples=max(1, n), deadline=None, database=None,
                      phases=[Phase.explicit, Phase.generate],
                      suppress_health_check=list(HealthCheck))(fn)
        return hyp_seed(seed)(fn)
    return wrap


def extras() -> st.SearchStrategy[tuple]:
    """(content type override or None, send the cross-site header?)"""
    return st.tuples(mostly(st.none(), st.sampled_from(CONTENT_TYPES), 75),
                     st.sampled_from([True] * 5 + [False]))


# targets -------------------------------------------------------------------
def fuzz_detect_api(fz: Fuzzer, n: int, seed: int) -> None:
    bases = image_material()
    oversize = b"\xff\xd8\xff" + b"\x00" * (9 * 1024 * 1024)

    @_settings(n, seed)
    @given(data=image_bytes(bases) | one_of_bytes([oversize]),
           mode=st.sampled_from(["raw", "raw", "multipart", "multipart-other-field",
                                 "form", "raw-no-type"]),
           ctype=st.sampled_from(["image/jpeg", "image/png", "text/html", "application/json",
                                  "application/octet-stream", "multipart/form-data"]),
           filename=st.sampled_from(["x.jpg", "../../etc/passwd", "a\x00.png", "", "花.jpg",
                                     "x" * 300]),
           csrf=st.sampled_from([True] * 5 + [False]))
    def run(data, mode, ctype, filename, csrf):
        if mode == "raw":
            fz.request("detect_api", "POST", "/api/detect", raw=data, content_type=ctype, csrf=csrf)
        elif mode == "raw-no-type":
            fz.request("detect_api", "POST", "/api/detect", raw=data, content_type="", csrf=csrf)
        elif mode == "form":
            fz.request("detect_api", "POST", "/api/detect", data={"image": data.decode("latin-1")},
                       content_type="application/x-www-form-urlencoded", csrf=csrf)
        else:
            field_name = "image" if mode == "multipart" else "file"
            fz.request("detect_api", "POST", "/api/detect",
                       data={field_name: (io.BytesIO(data), filename, ctype)},
                       content_type="multipart/form-data", csrf=csrf)
    run()


def fuzz_detect_cli(fz: Fuzzer, n: int, seed: int, detector: Any, tmp: Path) -> None:
    import scorer.vision
    from scorer.cli import main

    bases = image_material()
    real = scorer.vision.Detector

    def shared(model_path=None, threads=2, **options):
        return detector

    @_settings(n, seed)
    @given(data=image_bytes(bases),
           suffix=st.sampled_from([".jpg", ".png", ".bmp", ".webp", ".txt", "", ".JPG"]),
           shape=st.sampled_from(["one", "one", "one", "two", "threads0", "missing", "dir",
                                  "annotate"]))
    def run(data, suffix, shape):
        fz.tally.inputs["detect_cli"] += 1
        path = tmp / f"in{suffix}"
        path.write_bytes(data)
        args = {"one": ["detect", str(path), "--json"],
                "two": ["detect", str(path), str(path), "--json"],
                "threads0": ["detect", "--threads", "0", str(path)],
                "missing": ["detect", str(tmp / "missing.jpg"), "--json"],
                "dir": ["detect", str(tmp), "--json"],
                "annotate": ["detect", str(path), "--annotate", str(tmp / "out.png")]}[shape]
        out, err = io.StringIO(), io.StringIO()
        what = (shape, suffix, repr(data[:60]))
        try:
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
                rc = main(args)
        except SystemExit as exc:            # argparse usage error: exit 2 with a message
            rc = exc.code
        except Exception as exc:  # exactly what we are counting
            fz.tally.crashes.append(("detect_cli", what, crash_line(exc)))
            return
        fz.tally.statuses[f"exit {rc}"] += 1
        fz.tally.by_target["detect_cli"][f"exit {rc}"] += 1
        if rc == 0:
            try:
                lines = [json.loads(x) for x in out.getvalue().splitlines()] if "--json" in args \
                    else [None]
            except ValueError:
                fz.tally.violations.append(("detect_cli", what, "stdout is not JSON lines"))
                return
            if "--json" in args and (len(lines) != args.count(str(path)) or
                                     not all({"cards", "width", "height"} <= set(x) for x in lines)):
                fz.tally.violations.append(("detect_cli", what, "bad JSON", out.getvalue()[:200]))
        elif rc == 2:
            msg = err.getvalue().strip()
            if not msg or "Traceback" in msg:
                fz.tally.violations.append(("detect_cli", what, "exit 2 without a message", msg))
        else:
            fz.tally.crashes.append(("detect_cli", what, f"exit {rc}", err.getvalue()[-300:]))

    scorer.vision.Detector = shared
    try:
        run()
    finally:
        scorer.vision.Detector = real


def fuzz_create_game(fz: Fuzzer, n: int, seed: int) -> None:
    from scorer.rules import list_presets
    preset_names = [rs.name for rs in list_presets()]
    option_keys = sorted({k for rs in list_presets() for k in rs.options})
    body = st.fixed_dictionaries({}, optional={
        "preset": maybe(st.sampled_from(preset_names), names()),
        "players": st.one_of(st.lists(st.sampled_from(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay",
                                                       "Gus", "Hal"]), min_size=2, max_size=8,
                                      unique=True),
                             st.lists(names(), max_size=9), json_values()),
        "teams": maybe(st.lists(st.lists(names(), max_size=4), max_size=4), json_values()),
        "first_dealer": maybe(names(), json_values()),
        "rounds": maybe(st.integers(-2, 60), json_values()),
        "options": maybe(st.dictionaries(st.sampled_from(option_keys) | st.text(max_size=70),
                                         st.sampled_from(["0", "1", "true", "x", "-1"])
                                         | json_values(), max_size=45), json_values()),
        "extra": json_values(),
    })

    @st.composite
    def sensible(draw):
        """A game the rules may well accept, so the fuzz also reaches the engine's checks."""
        players = draw(st.lists(st.sampled_from(["Ann", "Bob", "Cy", "Dee", "Eve", "Fay",
                                                 "Gus", "Hal"]), min_size=1, max_size=8,
                                unique=True))
        out: dict[str, Any] = {"players": players,
                               "preset": draw(st.sampled_from(preset_names)),
                               "rounds": draw(st.integers(1, 12))}
        if players and draw(st.booleans()):
            out["first_dealer"] = draw(st.sampled_from(players))
        if len(players) >= 4 and draw(st.booleans()):
            half = len(players) // 2
            out["teams"] = [players[:half], players[half:]]
        return out

    @_settings(n, seed)
    @given(b=body_wrapper(body | sensible() | sensible()), ex=extras())
    def run(b, ex):
        _send(fz, "create_game", "POST", "/api/games", b, ex[0], ex[1])
    run()


def owners_of(fz: Fuzzer, gid: Any) -> st.SearchStrategy[Any]:
    """Mostly one of this game's pile owners, else any name."""
    return mostly(st.sampled_from(fz.players.get(gid) or ["Ann"]), names(), 80)


def fuzz_save_pile(fz: Fuzzer, n: int, seed: int) -> None:
    from scorer.cards import CODES
    crop = st.sampled_from(["data:image/jpeg;base64,/9j/", "data:image/jpeg;base64," + "A" * 20_000,
                            "javascript:alert(1)", "data:text/html,<script>"]) | json_values()

    @_settings(n, seed)
    @given(gid=game_url(fz), number=round_no(), ex=extras(), data=st.data(),
           method=st.sampled_from(["PUT"] * 6 + ["POST"]))
    def run(gid, number, ex, data, method):
        body = st.fixed_dictionaries({"owner": owners_of(fz, gid), "codes": code_lists()},
                                     optional={
            "detected": maybe(code_lists(), json_values()),
            "version": maybe(st.integers(0, 3), json_values()),
            "source": st.sampled_from(["camera", "photo", "manual", "x", ""]) | json_values(),
            "crops": maybe(st.dictionaries(st.sampled_from(list(CODES)) | st.text(max_size=6),
                                           crop, max_size=4), json_values())})
        b = data.draw(body_wrapper(body))
        _send(fz, "save_pile", method, f"/api/games/{gid}/rounds/{number}/piles", b, ex[0], ex[1])
    run()


def _put_pile(fz: Fuzzer, gid: Any, number: Any, owner: str, codes: list,
              game: dict | None = None) -> None:
    """Save a pile as the page does: naming the version it replaces (read from ``game``,
    the game as just fetched, else fetched here)."""
    if game is None:
        game = fz.client.get(f"/api/games/{gid}").json or {}
    rnd = next((r for r in game.get("rounds", []) if r["number"] == number), {})
    pile = rnd.get("piles", {}).get(owner)
    fz.client.put(f"/api/games/{gid}/rounds/{number}/piles", headers=CSRF,
                  json={"owner": owner, "codes": codes, "version": pile["version"] if pile else 0})


def fuzz_correct(fz: Fuzzer, n: int, seed: int) -> None:
    from scorer.cards import CODES

    @_settings(n, seed)
    @given(gid=game_url(fz), number=round_no(), ex=extras(), data=st.data(),
           seed_pile=st.lists(st.sampled_from(list(CODES)), max_size=8, unique=True))
    def run(gid, number, ex, data, seed_pile):
        owner = data.draw(owners_of(fz, gid))
        if isinstance(owner, str) and seed_pile:      # a saved pile to correct, often
            _put_pile(fz, gid, number, owner, seed_pile)
        body = st.fixed_dictionaries({
            "owner": st.just(owner),
            "action": mostly(st.sampled_from(["add", "remove", "replace"]),
                             st.sampled_from(["ADD", "", "drop"]) | json_values()),
            "old_code": mostly(st.sampled_from(seed_pile or ["01-1"]), codes(), 60),
            "new_code": mostly(st.sampled_from(list(CODES)), codes(), 60)},
            optional={"extra": json_values(), "version": maybe(st.integers(0, 3), json_values())})
        b = data.draw(body_wrapper(body))
        _send(fz, "correct", "POST", f"/api/games/{gid}/rounds/{number}/corrections", b,
              ex[0], ex[1])
    run()


def fuzz_confirm(fz: Fuzzer, n: int, seed: int) -> None:
    from scorer.cards import CODES
    owners = st.sampled_from(sorted({o for v in fz.players.values() for o in v}))
    context = st.fixed_dictionaries({}, optional={
        "stopped_by": maybe(owners, names()),
        "koikoi_calls": maybe(st.dictionaries(owners, st.integers(-1, 25)), json_values()),
        "month": maybe(st.integers(0, 13), json_values()),
        "gaji_month": maybe(st.integers(0, 13), json_values()),
        "teyaku": maybe(st.dictionaries(owners, st.sampled_from(["teshi", "kuttsuki", "x"])),
                        json_values()),
        "leftovers": maybe(st.lists(st.sampled_from(list(CODES)), max_size=10), code_lists()),
        "unknown": json_values()})

    @_settings(n, seed)
    @given(gid=game_url(fz), number=round_no(), ex=extras(), fill=st.booleans(),
           b=body_wrapper(st.fixed_dictionaries({}, optional={"context": maybe(context,
                                                                                 json_values())})))
    def run(gid, number, ex, fill, b):
        if fill and gid in fz.players:     # save every pile first so confirming can happen
            fz.ensure_games()
            if gid in fz.game_ids:
                game = fz.client.get(f"/api/games/{gid}").json
                number = game["open_round"] or number
                for i, owner in enumerate(game["owners"]):
                    _put_pile(fz, gid, number, owner, list(CODES[i * 5:i * 5 + 5]), game)
        _send(fz, "confirm", "POST", f"/api/games/{gid}/rounds/{number}/confirm", b, ex[0], ex[1])
    run()


def fuzz_reads(fz: Fuzzer, n: int, seed: int) -> None:
    fmt = st.sampled_from(["csv", "json", "xml", "CSV", "csv.exe", "..", "json/../../x",
                           "csv%00", "csv%2F..%2F..%2Fetc%2Fpasswd", "", "j" * 300])
    query = st.sampled_from(["", "?token=x", "?x=" + "y" * 5000, "?%ff=%fe", "?crops=1&crops=0"])

    @_settings(n, seed)
    @given(gid=game_url(fz) | st.sampled_from(["abc", "-1", "1.5", "01", "%31"]),
           kind=st.sampled_from(["game", "export", "page", "delete", "delete", "list", "other"]),
           f=fmt, q=query, csrf=st.booleans(),
           other=st.sampled_from(["/api/health", "/api/cards", "/api/presets", "/api/nothing",
                                  "/static/../scorer/store/repository.py",
                                  "/static/%2e%2e/%2e%2e/pyproject.toml", "/", "/games/x",
                                  "/api/games/1/rounds/1/piles"]),
           method=st.sampled_from(["GET", "GET", "GET", "HEAD", "OPTIONS", "PATCH", "TRACE"]))
    def run(gid, kind, f, q, csrf, other, method):
        if kind == "delete":
            fz.request("reads", "DELETE", f"/api/games/{gid}", csrf=csrf)
            fz.ensure_games()
            return
        url = {"game": f"/api/games/{gid}", "export": f"/api/games/{gid}/export.{f}",
               "page": f"/games/{gid}", "list": "/api/games", "other": other}[kind] + q
        fz.request("reads", method, url, csrf=csrf)
    run()


def run_fuzz(examples: int = 10_000, model: str = "auto", seed: int = 0,
             out: Callable[[str], None] = print, targets: Any = None) -> Tally:
    """Fuzz the targets (default: all of ``SHARES``) with about ``examples`` inputs in
    all, shared as ``SHARES`` says; return the tally."""
    detector, described = make_detector(model)
    try:
        import cv2
        cv2.setLogLevel(0)         # OpenCV's own complaints about the junk it is fed
    except (ImportError, AttributeError):
        pass
    with tempfile.TemporaryDirectory(dir="/dev/shm" if os.path.isdir("/dev/shm") else None) as t:
        tmp = Path(t)
        fz = Fuzzer(detector, tmp)
        out(f"fuzzing with {described}; {examples} inputs planned")
        chosen = list(targets or SHARES)
        weight = sum(SHARES[k] for k in chosen)
        share = {k: max(1, int(round(examples * SHARES[k] / weight))) for k in chosen}
        t0 = time.perf_counter()
        runners = {"detect_api": lambda n: fuzz_detect_api(fz, n, seed),
                   "detect_cli": lambda n: fuzz_detect_cli(fz, n, seed, detector, tmp),
                   "create_game": lambda n: fuzz_create_game(fz, n, seed),
                   "save_pile": lambda n: fuzz_save_pile(fz, n, seed),
                   "correct": lambda n: fuzz_correct(fz, n, seed),
                   "confirm": lambda n: fuzz_confirm(fz, n, seed),
                   "reads": lambda n: fuzz_reads(fz, n, seed)}
        for name, n in share.items():
            t1 = time.perf_counter()
            runners[name](n)
            fz.ensure_games()
            out(f"  {name}: {fz.tally.inputs[name]} inputs in {time.perf_counter() - t1:.1f} s")
        fz.check_store()
        out(f"fuzzing took {time.perf_counter() - t0:.1f} s")
        return fz.tally


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=10_000, help="inputs in all (default 10000)")
    p.add_argument("--model", default="auto", help="auto (shipped model, else fake), fake, or a "
                                                   "localiser .onnx")
    p.add_argument("--seed", type=int, default=0)
    a = p.parse_args(argv)
    import logging
    logging.getLogger("webui.app.errors").setLevel(logging.CRITICAL)   # 500s are counted instead
    tally = run_fuzz(a.examples, a.model, a.seed)
    tally.report()
    return 0 if tally.ok() else 1


if __name__ == "__main__":
    sys.exit(main())

"""The options of each game's engine: every disputed point of RULES.md section 5 (with its
default marked there), plus the Koi-Koi and Hana-Awase variants of sections 2-3.

An option is data: key, kind, allowed values with their meaning, default, and source.
``parse_value`` turns text (``--set KEY=VALUE``) or a TOML value into the typed value, or
raises InputError naming the key and listing what is allowed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scorer.errors import InputError

GAMES: tuple[str, ...] = ("sakura", "koikoi", "hanaawase")

_TRUE = {"true", "on", "yes", "1"}
_FALSE = {"false", "off", "no", "0"}


@dataclass(frozen=True)
class Option:
    key: str
    kind: str  # "choice" | "int" | "bool"
    default: Any
    help: str
    source: str = ""
    choices: tuple[tuple[Any, str], ...] = ()  # (value, meaning) for "choice"
    minimum: int | None = None
    maximum: int | None = None

    @property
    def allowed(self) -> list[Any]:
        if self.kind == "choice":
            return [v for v, _ in self.choices]
        if self.kind == "bool":
            return [True, False]
        return []

    def allowed_text(self) -> str:
        if self.kind == "choice":
            return ", ".join(str(v) for v in self.allowed)
        if self.kind == "bool":
            return "true, false"
        lo = "" if self.minimum is None else str(self.minimum)
        hi = "" if self.maximum is None else str(self.maximum)
        return f"an integer {lo}..{hi}".rstrip(".") if lo or hi else "an integer"

    def parse_value(self, value: Any) -> Any:
        """The typed value for text or a TOML/JSON value; InputError if not allowed."""
        bad = InputError(f"option {self.key}: bad value {value!r} "
                         f"(allowed: {self.allowed_text()})")
        if self.kind == "bool":
            if isinstance(value, bool):
                return value
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            if isinstance(value, int) and value in (0, 1):
                return bool(value)
            raise bad
        if self.kind == "int":
            number = _as_int(value)
            if number is None:
                raise bad
            if (self.minimum is not None and number < self.minimum) or \
                    (self.maximum is not None and number > self.maximum):
                raise bad
            return number
        # choice: values may be ints or strings
        for allowed in self.allowed:
            if isinstance(allowed, int) and not isinstance(allowed, bool):
                if _as_int(value) == allowed:
                    return allowed
            elif isinstance(value, str) and value.strip().lower() == allowed:
                return allowed
        raise bad

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"key": self.key, "kind": self.kind, "default": self.default,
                               "help": self.help, "source": self.source}
        if self.kind == "choice":
            out["allowed"] = self.allowed
            out["meanings"] = {str(v): m for v, m in self.choices}
        elif self.kind == "bool":
            out["allowed"] = [True, False]
        else:
            out["minimum"], out["maximum"] = self.minimum, self.maximum
        return out


def _as_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        text = value.strip()
        if text.lstrip("+-").isascii() and text.lstrip("+-").isdigit() and len(text) < 12:
            return int(text)
    return None


def _choice(key: str, default: Any, help: str, source: str,
            *choices: tuple[Any, str]) -> Option:
    assert default in [v for v, _ in choices], key
    return Option(key, "choice", default, help, source, tuple(choices))


def _int(key: str, default: int, help: str, source: str, lo: int, hi: int) -> Option:
    return Option(key, "int", default, help, source, minimum=lo, maximum=hi)


def _bool(key: str, default: bool, help: str, source: str) -> Option:
    return Option(key, "bool", default, help, source)


SAKURA_OPTIONS: tuple[Option, ...] = (
    _choice("yellow_paulownia", 10, "card value of the yellow paulownia chaff 12-2",
            "RULES S1",
            (10, "worth 10 (Hanafuda Hawaii, FudaWiki; deck totals 240)"),
            (0, "worth 0 (the 'most common' system of PIPEX; deck totals 230)")),
    _choice("team_piles", "shared", "how partners keep their captures", "RULES S2",
            ("shared", "one common pile per team; yaku may be completed across partners"),
            ("separate", "each partner keeps a pile; yaku per player, penalties only "
                         "from the other teams")),
    _choice("tie_policy", "dealer_wins", "who wins a tied round (and a tied game)",
            "RULES S3",
            ("dealer_wins", "the dealer, else the tied player nearest the dealer's right"),
            ("shared", "the tie stands: no single winner ('tonton', UNVERIFIED)")),
    _choice("game_scoring", "cumulative", "how a game is won", "RULES S4",
            ("cumulative", "sum of round scores; highest total wins (Hanafuda Hawaii)"),
            ("victories", "count round victories with chu/basa (Paradise Factors)")),
    _choice("chu_basa", "combined", "extra victories for a big round margin "
            "(victory counting only)", "RULES S5",
            ("combined", "chu (margin >= chu_margin) = 2 victories, basa "
                         "(>= basa_margin) = 3"),
            ("both_two", "chu and basa both = 2 victories"),
            ("basa", "only basa counts: 2 victories"),
            ("chu", "only chu counts: 2 victories"),
            ("none", "every round victory is 1")),
    _int("chu_margin", 50, "lead over the best other side that makes a chu", "RULES 1.8",
         1, 10000),
    _int("basa_margin", 100, "lead over the best other side that makes a basa",
         "RULES 1.8", 1, 10000),
    _choice("gaji_leftovers", "paired_month", "who gets the cards left on the field "
            "when the lightning (gaji) was played from hand", "RULES S6",
            ("paired_month", "the gaji user takes the leftovers of the month it captured; "
                             "the rest are dead"),
            ("all", "the gaji user takes every leftover card")),
    _choice("next_dealer", "winner", "who deals the next round", "RULES S7",
            ("winner", "the round winner (on a team: the member nearest the dealer)"),
            ("loser", "the lowest scorer")),
    _choice("yaku_scoring", "penalty", "what a yaku does", "RULES 1.5",
            ("penalty", "every other team loses yaku_points per yaku"),
            ("bonus", "its holder gains yaku_points instead ('both players score', "
                      "no documentary source)")),
    _int("yaku_points", 50, "points per yaku (penalty or bonus)", "RULES 1.4", 0, 10000),
    _int("rounds", 4, "rounds in a game", "RULES 1.8", 1, 99),
)

KOIKOI_OPTIONS: tuple[Option, ...] = (
    _choice("point_table", "nintendo", "base points of the yaku", "RULES K1",
            ("nintendo", "goko 10, shiko 8, ame-shiko 7, sanko 5, viewing 5, sets 5"),
            ("fudawiki", "goko 15, shiko 8, ame-shiko 7, sanko 6, viewing 5, sets 5"),
            ("video", "goko 15, shiko 10, ame-shiko 8, sanko 6, viewing 3, sets 5"),
            ("fudawiki_viewing3", "goko 15, shiko 8, ame-shiko 7, sanko 6, viewing 3"),
            ("app", "goko 15, shiko 10, ame-shiko 8, sanko 6, akatan/aotan 6, "
                    "ino-shika-cho 5, viewing 5 (koikoi-modern)")),
    _choice("set_yaku", "exclusive_extras", "ino-shika-cho / akatan / aotan versus the "
            "generic tane and tan", "RULES K2",
            ("exclusive_extras", "sets take +1 per extra animal/ribbon; the generic tane/tan "
                                 "is not counted beside them; akatan+aotan is one 10-point "
                                 "yaku (Nintendo)"),
            ("stack_flat", "sets are flat and stack with tane/tan; akatan and aotan count "
                           "separately"),
            ("stack_extras", "sets take +1 extras and tane/tan count as well")),
    _choice("sake_cup", "both", "what the sake cup 09-1 counts as", "RULES K3",
            ("both", "an animal and a chaff at once (Nintendo)"),
            ("animal", "an animal only"),
            ("either", "an animal or a chaff, whichever scores more")),
    _choice("viewing", "on", "hanami / tsukimi (flower and moon viewing)", "RULES K4",
            ("on", "always count"),
            ("off", "never count"),
            ("with_other", "count only when the pile has another yaku"),
            ("rain_cancels", "cancelled when the pile holds the rain man 11-1")),
    _bool("double_at_seven", True, "double a stopper's score when the base is >= "
          "double_threshold", "RULES K5"),
    _int("double_threshold", 7, "base points from which double_at_seven applies",
         "RULES 2.4", 1, 1000),
    _choice("koikoi_multiplier", "opponent", "what koi-koi calls do to the stopper's score",
            "RULES K6",
            ("opponent", "x2 if the opponent called koi-koi (any number of times)"),
            ("anyone", "x2 if anyone called koi-koi"),
            ("self", "x2 if the stopper called koi-koi"),
            ("per_call", "x(1 + all calls in the round)"),
            ("none", "calls change nothing")),
    _choice("rain_man_three", "ame_shiko", "rain man plus three dry brights", "RULES K7",
            ("ame_shiko", "ame-shiko (rainy four brights)"),
            ("sanko", "sanko (three brights)")),
    _choice("exhaustive_draw", "same_dealer", "a round nobody stops", "RULES K8",
            ("same_dealer", "nobody scores, the dealer deals again"),
            ("dealer_switches", "nobody scores, the other player deals"),
            ("oyaken_6", "the dealer scores 6 and deals again"),
            ("oyaken_1", "the dealer scores 1 and deals again")),
    _choice("teyaku_both_players", "draw", "both players claim a dealt-hand yaku",
            "RULES K9",
            ("draw", "the round is a draw, nobody scores"),
            ("ignore", "both claims are ignored and the round is played")),
    _int("teyaku_points", 6, "points of teshi or kuttsuki (no multipliers)", "RULES 2.2",
         0, 1000),
    _choice("teyaku_both_kinds", 6, "one player holds both teshi and kuttsuki",
            "RULES 2.2", (6, "6 points"), (12, "12 points")),
    _bool("tsukifuda", False, "tsuki-fuda: 4 cards of the round's month score 4 "
          "(needs the round month)", "RULES 2.3"),
    _int("rounds", 12, "rounds in a game (12 a year, 6 half a year)", "RULES 2.1", 1, 99),
)

HANAAWASE_OPTIONS: tuple[Option, ...] = (
    _choice("settlement", "zero_sum", "how a round is settled", "RULES 3",
            ("zero_sum", "(card points - par) + yaku x (players-1) - others' yaku"),
            ("additive", "card points + yaku points")),
    _choice("five_brights", 100, "points of the five brights", "RULES H1",
            (100, "100 (FudaWiki)"), (200, "200 (an unattributed calculator)")),
    _choice("chaff_points", 1, "card value of a chaff", "RULES 3",
            (1, "1 (deck totals 264)"), (0, "0 (deck totals 240)")),
    _bool("paulownia_row", True, "the paulownia row (12-1..12-4) is a yaku", "RULES 3"),
    _choice("willow_row", "normal", "what the willow row does", "RULES 3",
            ("normal", "a 10-point yaku"),
            ("cancels_all", "whoever holds it, every yaku of the round is cancelled"),
            ("only_holder", "only its holder's yaku count")),
    _bool("rain_cancels_viewing", False, "the rain man 11-1 in a pile cancels its viewing "
          "yaku", "RULES 3"),
    _bool("fuke", False, "a player with <= 20 card points voids the round", "RULES 3"),
    _int("rounds", 12, "rounds in a game", "RULES 3", 1, 99),
)

OPTIONS: dict[str, tuple[Option, ...]] = {
    "sakura": SAKURA_OPTIONS, "koikoi": KOIKOI_OPTIONS, "hanaawase": HANAAWASE_OPTIONS}

#: Per-yaku point overrides: ``points.<yaku name>`` (Koi-Koi and Hana-Awase).
POINTS_PREFIX = "points."


def option_for(game: str, key: str, yaku_names: tuple[str, ...] = ()) -> Option:
    """The option ``key`` of ``game``; InputError naming the key and listing the keys."""
    for opt in OPTIONS[game]:
        if opt.key == key:
            return opt
    if key.startswith(POINTS_PREFIX) and yaku_names:
        name = key[len(POINTS_PREFIX):]
        if name in yaku_names:
            return _int(key, 0, f"points of the yaku {name}", "added", 0, 100000)
        raise InputError(f"unknown yaku {name!r} in option {key!r} for {game} "
                         f"(yaku: {', '.join(yaku_names)})")
    known = [o.key for o in OPTIONS[game]]
    if yaku_names:
        known.append(POINTS_PREFIX + "<yaku>")
    raise InputError(f"unknown option {key!r} for {game} (options: {', '.join(known)})")


def defaults(game: str) -> dict[str, Any]:
    return {opt.key: opt.default for opt in OPTIONS[game]}

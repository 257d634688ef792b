"""The council talk's published files: ``council-talk.json`` and ``council-talk-critiques.csv``. Pure.

The integrator fills one :class:`WeekRecord` per week from the sealed lines; :func:`talk_report` and
:func:`critique_rows` turn them into the two files' contents (the publisher writes them). Figures are
rounded to 6 decimals, as ``tools/recount_talk.py`` rounds them when it recomputes F22 and every critique's
resolution from the CSV alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from league.jsonvalue import Json
from league.talk import TalkError
from league.talk.critiques import HORIZON_SESSIONS, Critique, came_true, check_weights, f22
from league.talk.rotation import LETTER_RULE, ROTATION_RULE, letter_commitment
from league.talk.shadow import COUNCIL, critiqued_key, sealed_key, stated_key

TALK_JSON = "council-talk.json"
CRITIQUES_CSV = "council-talk-critiques.csv"
CRITIQUE_COLUMNS = ("week", "chair_letter", "target_letter", "market", "fund", "risk", "weight", "direction",
                    "reference_close", "close_5", "resolution", "chair_line", "reply_line")
PLACES = 6
#: F23's comparisons, each a return difference (fractions: 0.01 is one percentage point).
F23_FIGURES = ("council_vs_sealed_mean", "critiqued_vs_sealed", "stated_vs_sealed", "stated_vs_critiqued")

DEFINITIONS: dict[str, str] = {
    "rotation": ROTATION_RULE,
    "letters": LETTER_RULE,
    "critique": ("Each week's chair writes 2 or 3 critiques, each naming a target letter, a market, a risk, the "
                 "weight in percent it would give that position and the direction (up or down) it expects the "
                 "market's fund to move over the next five sessions; at most one per target and market."),
    "critiqued_weights": ("A seat's sealed weights with the critiques applied: the questioned fund set to the "
                          "critique's weight, the other positions unchanged unless the total would pass 100%, "
                          "then scaled down by one common factor so that it is 100%."),
    "resolution": ("A critique is resolved on its fund's close five sessions after its reference close: the fund "
                   "went up when that close is strictly higher (an equal close is not up); the resolution is "
                   "true when the stated direction matches, false otherwise, unresolved (null) while fewer than "
                   "six closes are known."),
    "f22": ("F22 = hits / n over the resolved critiques (share), with the Wilson score interval at 95% "
            "(z = 1.959963984540054); share and ci95 are null when n = 0."),
    "shadow_returns": ("Each account's simple buy-and-hold return over the week's closes, as a fraction: sum of "
                       "weight/100 x (last close / first close - 1), cash earning 0, no fees or bills. Accounts: "
                       "council, sealed:<letter>, critiqued:<letter>, stated:<letter>."),
    "f23": ("F23 = return differences: council_vs_sealed_mean = council minus the mean of the sealed accounts' "
            "returns; per critiqued letter, critiqued_vs_sealed, stated_vs_sealed and stated_vs_critiqued. The "
            "season figure of each is the mean over every week (and letter) where it exists, with its count."),
    "rounding": "Every figure is rounded to 6 decimals.",
}


def rounded(x: float | None) -> float | None:
    return round(x, PLACES) if x is not None else None


@dataclass(frozen=True)
class CritiqueRecord:
    """One sealed critique with what resolves it: its fund and the fund's closes from the reference session's
    close (``closes[0]``) on, as many as are known so far."""

    critique: Critique
    fund: str
    closes: tuple[float, ...] = ()

    def __post_init__(self) -> None:
        if not self.fund:
            raise TalkError(f"critique of {self.critique.target}'s {self.critique.market} names no fund")
        if any(not math.isfinite(c) or c <= 0 for c in self.closes):
            raise TalkError(f"the closes of {self.fund} are not all positive prices")

    @property
    def reference_close(self) -> float | None:
        return float(self.closes[0]) if self.closes else None

    @property
    def close_5(self) -> float | None:
        return float(self.closes[HORIZON_SESSIONS]) if len(self.closes) > HORIZON_SESSIONS else None

    @property
    def resolution(self) -> bool | None:
        return came_true(self.critique, self.closes)


@dataclass(frozen=True)
class ReplyRecord:
    """A critiqued seat's sealed reply: the portfolio it stated when ``ok``, else the parser's failure."""

    letter: str
    ok: bool
    portfolio: Mapping[str, float] = field(default_factory=dict)
    failure: str = ""
    line: int | None = None

    def __post_init__(self) -> None:
        if self.ok:
            check_weights(self.portfolio, f"the stated portfolio of {self.letter}")
        elif self.portfolio:
            raise TalkError(f"reply of {self.letter} failed yet states a portfolio")


@dataclass(frozen=True)
class WeekRecord:
    """One week of the council talk as sealed: the integrator fills it from the book's lines.

    ``letter_map`` (seat -> letter) and ``salt`` stay None until the week's letters are revealed;
    ``letter_map_sha256`` is the commitment sealed before the chair's ask
    (:func:`league.talk.rotation.letter_commitment`), and a revealed map and salt must give it.
    ``shadow_returns`` holds the accounts' returns keyed as league.talk.shadow names them (None: a held fund
    has no price); ``chair_line`` is the chair's reply's line number in the track's book, each reply's ``line``
    its own. ``portfolios`` (letter -> weights) is what the chair read, ``accounts`` every shadow account's
    weights, ``closes`` each fund's closes over ``sessions`` (the talk session and the five after it),
    ``engine`` what the portfolio engine made of each account under each league's rules."""

    week: str
    chair_seat: str
    chair_letter: str
    letter_map_sha256: str
    council_portfolio: Mapping[str, float]
    critiques: tuple[CritiqueRecord, ...]
    replies: tuple[ReplyRecord, ...] = ()
    shadow_returns: Mapping[str, float | None] = field(default_factory=dict)
    letter_map: Mapping[str, str] | None = None
    chair_line: int | None = None
    salt: str | None = None
    session: str = ""
    chair_failure: str = ""
    portfolios: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    accounts: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    sessions: Sequence[str] = ()
    closes: Mapping[str, Sequence[float | None]] = field(default_factory=dict)
    engine: Mapping[str, Sequence[Mapping[str, Json]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.week or not self.chair_seat or not self.chair_letter:
            raise TalkError("a talk week needs its week, chair seat and chair letter")
        check_weights(self.council_portfolio, f"the council portfolio of {self.week}")
        if self.letter_map is not None:
            if not self.salt or letter_commitment(self.week, self.letter_map, self.salt) != self.letter_map_sha256:
                raise TalkError(f"the revealed letters of {self.week} do not match the sealed commitment")
            if self.letter_map.get(self.chair_seat) != self.chair_letter:
                raise TalkError(f"the chair {self.chair_seat} is not {self.chair_letter} in the revealed letters")
        positions = [(c.critique.target, c.critique.market) for c in self.critiques]
        if len(set(positions)) != len(positions):
            raise TalkError(f"two critiques of {self.week} question the same position")
        targets = {c.critique.target for c in self.critiques}
        letters = [r.letter for r in self.replies]
        if len(set(letters)) != len(letters) or not set(letters) <= targets:
            raise TalkError(f"the replies of {self.week} are not one per critiqued letter")
        if any(r is not None and not math.isfinite(r) for r in self.shadow_returns.values()):
            raise TalkError(f"a shadow return of {self.week} is not finite")

    def reply_of(self, letter: str) -> ReplyRecord | None:
        return next((r for r in self.replies if r.letter == letter), None)


def _diff(returns: Mapping[str, float | None], a: str, b: str) -> float | None:
    x, y = returns.get(a), returns.get(b)
    return x - y if x is not None and y is not None else None


def week_f23(week: WeekRecord) -> dict[str, Json]:
    """The week's F23 differences (None where an account or a return is missing)."""
    r = week.shadow_returns
    sealed = [v for k, v in r.items() if k.startswith("sealed:")]
    whole = bool(sealed) and all(v is not None for v in sealed)
    council_r = r.get(COUNCIL)
    council = (council_r - sum(v for v in sealed if v is not None) / len(sealed)
               if council_r is not None and whole else None)
    seats: list[Json] = []
    for letter in sorted({c.critique.target for c in week.critiques}, key=lambda x: (len(x), x)):
        seats.append({"letter": letter,
                      "critiqued_vs_sealed": rounded(_diff(r, critiqued_key(letter), sealed_key(letter))),
                      "stated_vs_sealed": rounded(_diff(r, stated_key(letter), sealed_key(letter))),
                      "stated_vs_critiqued": rounded(_diff(r, stated_key(letter), critiqued_key(letter)))})
    return {"council_vs_sealed_mean": rounded(council), "seats": seats}


def _f22_json(outcomes: Sequence[bool]) -> dict[str, Json]:
    raw = f22(outcomes)
    interval = raw["ci95"]
    ci95: list[Json] | None = [round(x, PLACES) for x in interval] if interval is not None else None
    return {"n": raw["n"], "hits": raw["hits"], "share": rounded(raw["share"]), "ci95": ci95}


def _week_json(week: WeekRecord) -> dict[str, Json]:
    critiques: list[Json] = []
    for c in week.critiques:
        k = c.critique
        critiques.append({"target": k.target, "market": k.market, "fund": c.fund, "risk": k.risk,
                          "weight": float(k.weight), "direction": k.direction, "reference_close": c.reference_close,
                          "close_5": c.close_5, "resolution": c.resolution})
    replies: list[Json] = [{"letter": r.letter, "ok": r.ok, "failure": r.failure,
                            "portfolio": {f: float(w) for f, w in r.portfolio.items()}, "line": r.line}
                           for r in week.replies]
    revealed = week.letter_map is not None
    engine: dict[str, Json] = {league: [dict(row) for row in rows] for league, rows in sorted(week.engine.items())}
    return {"week": week.week, "session": week.session or None, "chair_letter": week.chair_letter,
            "chair_seat": week.chair_seat if revealed else None,
            "letter_map": dict(week.letter_map) if week.letter_map is not None else None,
            "salt": week.salt if revealed else None,
            "letter_map_sha256": week.letter_map_sha256, "chair_line": week.chair_line,
            "chair_failure": week.chair_failure,
            "portfolios": {k: {f: float(w) for f, w in v.items()} for k, v in sorted(week.portfolios.items())},
            "council_portfolio": {f: float(w) for f, w in week.council_portfolio.items()},
            "critiques": critiques, "replies": replies,
            "f22": _f22_json([r for c in week.critiques if (r := c.resolution) is not None]),
            "sessions": list(week.sessions),
            "closes": {f: [None if c is None else float(c) for c in cs] for f, cs in sorted(week.closes.items())},
            "accounts": {k: {f: float(w) for f, w in v.items()} for k, v in sorted(week.accounts.items())},
            "shadow_returns": {k: rounded(v) for k, v in sorted(week.shadow_returns.items())},
            "engine": engine,
            "f23": week_f23(week)}


def _season_f23(weeks: Sequence[WeekRecord]) -> dict[str, Json]:
    values: dict[str, list[float]] = {name: [] for name in F23_FIGURES}
    for week in weeks:
        figures = week_f23(week)
        council = figures["council_vs_sealed_mean"]
        if isinstance(council, float):
            values["council_vs_sealed_mean"].append(council)
        seats = figures["seats"]
        for seat in seats if isinstance(seats, list) else []:
            if isinstance(seat, dict):
                for name in F23_FIGURES[1:]:
                    v = seat.get(name)
                    if isinstance(v, float):
                        values[name].append(v)
    return {name: {"n": len(xs), "mean": rounded(sum(xs) / len(xs)) if xs else None}
            for name, xs in values.items()}


def talk_report(weeks: Iterable[WeekRecord]) -> dict[str, Json]:
    """``council-talk.json``: {"version": 1, "definitions", "weeks": [...], "season": {"f22", "f23"}}.

    The season's F22 pools every resolved critique of every week; its F23 figures are means of the weeks'
    (rounded) differences."""
    listed = sorted(weeks, key=lambda w: w.week)
    if len({w.week for w in listed}) != len(listed):
        raise TalkError("a talk week is given twice")
    outcomes = [r for w in listed for c in w.critiques if (r := c.resolution) is not None]
    definitions: dict[str, Json] = dict(DEFINITIONS)
    return {"version": 1, "definitions": definitions, "weeks": [_week_json(w) for w in listed],
            "season": {"f22": _f22_json(outcomes), "f23": _season_f23(listed)}}


def _text(x: float | None) -> str:
    """A number as the CSV writes it: the float's shortest round-tripping text (25.0), empty for none."""
    return "" if x is None else repr(float(x))


def _line(n: int | None) -> str:
    return "" if n is None else str(n)


def critique_rows(weeks: Iterable[WeekRecord]) -> list[dict[str, str]]:
    """``council-talk-critiques.csv``: one row per critique (columns :data:`CRITIQUE_COLUMNS`), weeks in order,
    critiques in the chair's order; resolution true, false or unresolved."""
    rows: list[dict[str, str]] = []
    for week in sorted(weeks, key=lambda w: w.week):
        for c in week.critiques:
            k = c.critique
            reply = week.reply_of(k.target)
            resolution = c.resolution
            rows.append({"week": week.week, "chair_letter": week.chair_letter, "target_letter": k.target,
                         "market": k.market, "fund": c.fund, "risk": k.risk, "weight": _text(k.weight),
                         "direction": k.direction, "reference_close": _text(c.reference_close),
                         "close_5": _text(c.close_5),
                         "resolution": "unresolved" if resolution is None else str(resolution).lower(),
                         "chair_line": _line(week.chair_line),
                         "reply_line": _line(reply.line if reply is not None else None)})
    return rows

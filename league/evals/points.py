"""``league eval points``: the council's sealed ``target`` levels scored as point forecasts (MASE).

Everything comes from the council book (``council-book.jsonl`` of a data folder's ``books/`` or of a published
folder), read and chain-checked with :func:`league.book.iter_lines` (once per publish, league/book/shared.py):

- the forecasts are the ``target`` of every counted cell in the ``score`` / ``score_h`` lines (the cells as the
  seat stated them, sealed at the close with their event);
- what happened is the event's sealed ``close``;
- a market's history is the series of its sealed one-day closes (the ``close`` of each session's ``1d`` event),
  and a window's history is the part sealed for sessions BEFORE the forecast's session, so the scale and the
  seasonal naive use only what was known when the seat answered.

A configuration is market × horizon; buckets are short (1d), medium (1w) and long (1m, 6m). A horizon is
``steps`` sessions ahead of the last close (1, 5, 21, 126). Compliance beside the score: the share of asked
cells (counted answers, refused replies, silences) that carry a target, and the share of targets on the side of
the reference that the seat's own ``prob_up`` states (above for more than 50, below for less; any side at 50).
The council's ask states no numeric range, so that side is "the stated range" (docs/evals.md).
"""

from __future__ import annotations

import csv
import io
from bisect import bisect_left
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict

from league.book.shared import book_contents
from league.evals.errors import EvalError
from league.evals.mase import Compliance, RelativeMase, Stated, Window, compliance, relative_mase, seasonal_naive
from league.jsonvalue import Json, JsonObject, items, number, obj, text
from league.seatcore.files import write_atomic, write_json

HORIZON_STEPS = {"1d": 1, "1w": 5, "1m": 21, "6m": 126}
BUCKETS = {"1d": "short", "1w": "medium", "1m": "long", "6m": "long"}
ASKED = frozenset({"counted", "counted_50", "refused_shape", "no_answer"})
ANSWERED = frozenset({"counted", "counted_50"})
NAIVE = "seasonal naive"
BOOK_PLACES = ("council-book.jsonl", "books/council-book.jsonl", "public/council-book.jsonl")
CSV_COLUMNS = ("seat", "market", "horizon", "bucket", "windows", "mase", "mase_naive", "relative")


def find_book(data: Path) -> Path:
    for rel in BOOK_PLACES:
        if (data / rel).is_file():
            return data / rel
    raise EvalError(f"{data}: no council-book.jsonl (looked in {', '.join(BOOK_PLACES)})",
                    fix="pass --data a league data folder or a published folder")


class SeatReport(RelativeMase):
    """A seat's MASE figures, its compliance and what could not be scored."""

    compliance: Compliance
    windows: int
    unscaled: int
    unresolved: int


class NaiveReport(RelativeMase):
    """The seasonal naive's MASE figures on every scored window."""

    windows: int


class PointsReport(TypedDict):
    """``points.json``: the MASE table of every seat of a council book."""

    book: str
    score_lines: int
    season: int
    min_history: int
    horizon_steps: dict[str, int]
    buckets: dict[str, str]
    seats: dict[str, SeatReport]
    naive: NaiveReport


def _number(value: Json | None) -> float | None:
    n = number(value)
    return None if n is None else float(n)


def _events(line: JsonObject) -> list[JsonObject]:
    """A score line's events (objects; the line models seal nothing else there)."""
    return [e for e in items(line.get("markets")) if isinstance(e, dict)]


def daily_closes(score_lines: Sequence[JsonObject]) -> dict[str, list[tuple[str, float]]]:
    """Each market's sealed one-day closes by session (first sealed value of a session wins)."""
    out: dict[str, dict[str, float]] = defaultdict(dict)
    for line in score_lines:
        if line.get("horizon") != "1d":
            continue
        for ev in _events(line):
            close = _number(ev.get("close"))
            if close is not None and not ev.get("late_ref"):
                out[text(ev["market"])].setdefault(text(line["session"]), close)
    return {m: sorted(v.items()) for m, v in out.items()}


def in_range(prob: Json | None, target: float, reference: Json | None) -> bool | None:
    p, ref = _number(prob), _number(reference)
    if p is None or ref is None:
        return None
    return target > ref if p > 50 else target < ref if p < 50 else True


@dataclass
class _Seat:
    windows: list[Window] = field(default_factory=list)
    stated: list[Stated] = field(default_factory=list)
    unscaled: int = 0
    unresolved: int = 0


@dataclass(frozen=True)
class _Series:
    """One market's sealed daily closes in session order, with the running sums of its absolute seasonal
    differences, so a window's history (the closes before its session) is a prefix found by bisection and its
    scale one division.

    Why: the scale used to be recomputed from the whole history for every seat's cell (a list filter and a
    sum over all earlier closes per row): quadratic in the season and linear in the seats (31 CPU s
    at one year × 14 seats, 123 at two years). The running sum adds the same differences in the same order
    as ``sum`` over :func:`~league.evals.mase.seasonal_scale`'s list, so every scale is the same float
    (tests/unit/evals/test_evals_points.py compares them with the pure functions)."""

    sessions: tuple[str, ...]
    closes: tuple[float, ...]
    sums: tuple[float, ...]  # sums[n]: sum of |y_t - y_{t-m}| for t = m .. n-1 (0 while n <= m)

    @classmethod
    def of(cls, closes: Sequence[tuple[str, float]], m: int) -> _Series:
        values = tuple(c for _, c in closes)
        sums: list[float] = [0] * (min(len(values), m) + 1) if m >= 1 else [0]  # int 0, as sum() starts
        for t in range(m, len(values) if m >= 1 else 0):
            sums.append(sums[-1] + abs(values[t] - values[t - m]))
        return cls(tuple(s for s, _ in closes), values, tuple(sums))

    def known_before(self, session: str) -> int:
        """How many closes were sealed for sessions before ``session`` (the window's history length)."""
        return bisect_left(self.sessions, session)

    def scale(self, n: int, m: int) -> float | None:
        """:func:`~league.evals.mase.seasonal_scale` of the first ``n`` closes."""
        if m < 1 or n <= m:
            return None
        scale = self.sums[n] / (n - m)
        return scale if scale > 0 else None


@dataclass
class _Reader:
    closes: dict[str, list[tuple[str, float]]]
    season: int
    min_history: int
    seats: dict[str, _Seat] = field(default_factory=lambda: defaultdict(_Seat))
    naive: dict[tuple[str, str, str], Window] = field(default_factory=dict)
    series: dict[str, _Series] = field(default_factory=dict)
    known: dict[tuple[str, str, str], tuple[float, float] | None] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self.series = {market: _Series.of(closes, self.season) for market, closes in self.closes.items()}

    def _scaled(self, market: str, session: str, horizon: str) -> tuple[float, float] | None:
        """(scale, seasonal naive) of a market's window at a session and horizon, the same for every seat."""
        key = (market, session, horizon)
        if key not in self.known:
            self.known[key] = self._scale_and_naive(market, session, horizon)
        return self.known[key]

    def _scale_and_naive(self, market: str, session: str, horizon: str) -> tuple[float, float] | None:
        series = self.series.get(market) or _Series((), (), (0,))
        n = series.known_before(session)
        if horizon not in HORIZON_STEPS or n - self.season < self.min_history:
            return None
        scale = series.scale(n, self.season)
        if scale is None:
            return None
        return scale, seasonal_naive(series.closes[:n], HORIZON_STEPS[horizon], self.season)

    def window(self, session: str, horizon: str, market: str, target: float, close: float) -> Window | None:
        scaled = self._scaled(market, session, horizon)
        if scaled is None:
            return None
        scale, naive = scaled
        return Window((market, horizon), BUCKETS[horizon], (target,), (close,), (naive,), scale)

    def row(self, line: JsonObject, events: Mapping[str, JsonObject], row: JsonObject) -> None:
        if row.get("status") not in ASKED:
            return
        seat = self.seats[str(row["seat"])]
        target = _number(row.get("target"))
        answered = row["status"] in ANSWERED and target is not None and target > 0
        ev = events.get(str(row.get("event_id_v2", "")), {})
        side = in_range(row.get("prob_up"), target, ev.get("reference")) if answered and target is not None else None
        seat.stated.append(Stated(1 if answered else 0, 1, side))
        if not answered or target is None:
            return
        close = _number(ev.get("close"))
        if close is None:
            seat.unresolved += 1
            return
        session, horizon, market = text(line["session"]), text(line["horizon"]), text(row["market"])
        w = self.window(session, horizon, market, target, close)
        if w is None:
            seat.unscaled += 1
            return
        seat.windows.append(w)
        key = (session, horizon, market)
        self.naive.setdefault(key, Window(w.config, w.bucket, w.naive, w.actual, w.naive, w.scale))


def _seat_report(seat: _Seat) -> SeatReport:
    return {**relative_mase(seat.windows), "compliance": compliance(seat.stated), "windows": len(seat.windows),
            "unscaled": seat.unscaled, "unresolved": seat.unresolved}


#: What the report reads of a score line, of each of its events and of each of its rows.
LINE_FIELDS = ("session", "horizon")
EVENT_FIELDS = ("market", "event_id_v2", "reference", "close", "late_ref")
ROW_FIELDS = ("status", "seat", "market", "event_id_v2", "prob_up", "target")


def score_fields(content: Mapping[str, Json]) -> JsonObject:
    """A score line cut to what :func:`points_report` reads (:data:`LINE_FIELDS`, its events' and rows'
    fields; a field a line lacks stays absent, a value not in the protocol's shape is kept as it is, so the
    report reads the same and fails the same). Why: the rows' other fields (the action, the reasons, the
    sources, the event contracts) are most of a season's score lines, and the report held them all."""
    out: JsonObject = {k: content[k] for k in LINE_FIELDS if k in content}
    for key, fields in (("markets", EVENT_FIELDS), ("seats", ROW_FIELDS)):
        if key in content:
            value = content[key]
            out[key] = [_cut(x, fields) for x in value] if isinstance(value, list) else value
    return out


def _cut(item: Json, fields: tuple[str, ...]) -> Json:
    return {k: item[k] for k in fields if k in item} if isinstance(item, dict) else item


def points_report(data: Path, *, season: int = 1, min_history: int = 5) -> PointsReport:
    """The MASE table of every seat of the council book under ``data``."""
    book = find_book(Path(data))
    cut: list[JsonObject] = book_contents(book, ("score", "score_h"), lambda line: score_fields(line.content))
    # a score line not in the protocol's shape (lists of events and rows) has nothing to score here
    lines = [c for c in cut if isinstance(c.get("markets", []), list) and isinstance(c.get("seats", []), list)]
    reader = _Reader(daily_closes(lines), season, min_history)
    for line in lines:
        events = {str(e.get("event_id_v2")): e for e in _events(line)}
        for row in items(line.get("seats")):
            reader.row(line, events, obj(row))
    seats = {name: _seat_report(s) for name, s in sorted(reader.seats.items())}
    naive = relative_mase(list(reader.naive.values()))
    return {"book": str(book), "score_lines": len(lines), "season": season, "min_history": min_history,
            "horizon_steps": HORIZON_STEPS, "buckets": BUCKETS, "seats": seats,
            "naive": {**naive, "windows": len(reader.naive)}}


def _fmt(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def print_lines(report: PointsReport) -> list[str]:
    out = [f"MASE relative to the seasonal naive (m = {report['season']}; geometric mean over market × horizon; "
           f"lower is better) from {report['book']}",
           f"{'seat':<16} {'overall':>8} {'short':>7} {'medium':>7} {'long':>7} {'windows':>8} "
           f"{'target%':>8} {'in-range%':>9} {'unscaled':>8}"]
    rows: list[tuple[str, RelativeMase, int, Compliance | None, int]] = [
        *((name, s, s["windows"], s["compliance"], s["unscaled"]) for name, s in report["seats"].items()),
        (NAIVE, report["naive"], report["naive"]["windows"], None, 0)]
    for name, s, windows, c, unscaled in rows:
        b = s["buckets"]
        share = c["with_forecast_share"] if c else None
        ranged = c["within_range_share"] if c else None
        out.append(f"{name:<16} {_fmt(s['overall']):>8} {_fmt(b.get('short')):>7} {_fmt(b.get('medium')):>7} "
                   f"{_fmt(b.get('long')):>7} {windows:>8} "
                   f"{'n/a' if share is None else f'{100 * share:.0f}%':>8} "
                   f"{'n/a' if ranged is None else f'{100 * ranged:.0f}%':>9} {unscaled:>8}")
    return out


def write_report(report: PointsReport, out: Path) -> None:
    write_json(out / "points.json", dict(report))
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    tables: list[tuple[str, RelativeMase]] = [*report["seats"].items(), (NAIVE, report["naive"])]
    for name, s in tables:
        for r in s["configs"]:
            writer.writerow([name, r["config"][0], r["config"][1], r["bucket"], r["windows"], r["mase"],
                             r["mase_naive"], "" if r["relative"] is None else r["relative"]])
    write_atomic(out / "points.csv", buf.getvalue().encode("utf-8"))

"""Pure rules that turn bar lists into reference prices, terminal prices, draw bands and outcomes.

No I/O and no clock: every function takes bars and instants and returns a value or ``None``.
``None`` means "unresolved" and is carried through to the score line; nothing here ever invents a
price to fill a gap (design.md, "Errors and bad input").

Fields taken (docs/protocol.md §2):
- daily markets: the OPEN of the first 1-minute bar starting at or after ``reference_at`` (09:30 ET),
  i.e. the first traded price of the session;
- bitcoin: the CLOSE of the first bar starting at or after the answer line's seal second (the
  protocol names the close, so the reference is a price formed entirely after the seal);
- terminal: the CLOSE of the last bar starting at or before ``end_at``.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from league.prices.columns import BarColumns
from league.prices.interface import Bar

ONE_MINUTE = timedelta(minutes=1)
SESSION_MINUTES = 390


@dataclass(frozen=True)
class PricePoint:
    """A price with the bar it came from, so every score line can name its source bar."""

    price: float
    bar_start: datetime
    field: Literal["open", "close"]

    def __post_init__(self) -> None:
        if not (math.isfinite(self.price) and self.price > 0):
            raise ValueError(f"price must be finite and positive, got {self.price}")


@dataclass(frozen=True)
class DrawBand:
    """``k x mean|r_1min| x sqrt(390)`` in percent, with what it was computed from."""

    pct: float
    mean_abs_return_pct: float
    n_returns: int
    n_sessions: int
    excluded_rolls: int
    k: float


@dataclass(frozen=True)
class Resolution:
    """Outcome of one event; all ``None`` when a price is missing (the cell stays unresolved)."""

    change_pct: float | None
    up: bool | None
    draw: bool | None

    @property
    def resolved(self) -> bool:
        return self.up is not None


UNRESOLVED = Resolution(None, None, None)


def _starts(bars: Sequence[Bar]) -> list[datetime]:
    """The bars' starts; read off columns (league.prices.columns) without making their bars."""
    return bars.starts if isinstance(bars, BarColumns) else [b.start for b in bars]


def first_bar_at_or_after(bars: Sequence[Bar], moment: datetime) -> Bar | None:
    """First bar (bars sorted by start) whose start is >= ``moment``."""
    i = bisect.bisect_left(_starts(bars), moment)
    return bars[i] if i < len(bars) else None


def last_bar_at_or_before(bars: Sequence[Bar], moment: datetime) -> Bar | None:
    """Last bar whose start is <= ``moment``."""
    i = bisect.bisect_right(_starts(bars), moment)
    return bars[i - 1] if i > 0 else None


def reference_price(
    bars: Sequence[Bar],
    reference_at: datetime,
    *,
    field: Literal["open", "close"] = "open",
    until: datetime | None = None,
) -> PricePoint | None:
    """The first bar at/after ``reference_at``; ``until`` refuses a bar from a later day."""
    bar = first_bar_at_or_after(bars, reference_at)
    if bar is None or (until is not None and bar.start >= until):
        return None
    return PricePoint(bar.open if field == "open" else bar.close, bar.start, field)


def daily_reference(bars: Sequence[Bar], reference_at: datetime, *, until: datetime | None = None) -> PricePoint | None:
    """Daily markets: OPEN of the first 1-minute bar at or after 09:30 ET."""
    return reference_price(bars, reference_at, field="open", until=until)


def seal_reference(bars: Sequence[Bar], seal_at: datetime, *, until: datetime | None = None) -> PricePoint | None:
    """Bitcoin: CLOSE of the first bar starting at or after the seal (rounded up to the second)."""
    whole = seal_at.replace(microsecond=0)
    start = whole if whole == seal_at else whole + timedelta(seconds=1)
    return reference_price(bars, start, field="close", until=until)


def terminal_price(bars: Sequence[Bar], end_at: datetime, *, since: datetime | None = None) -> PricePoint | None:
    """CLOSE of the last bar starting at or before ``end_at``; ``since`` refuses a stale bar
    (e.g. yesterday's close when the end session has no bars)."""
    bar = last_bar_at_or_before(bars, end_at)
    if bar is None or (since is not None and bar.start < since):
        return None
    return PricePoint(bar.close, bar.start, "close")


def within(bars: Sequence[Bar], start: datetime, end: datetime) -> list[Bar]:
    """Bars with start in ``[start, end)`` (e.g. the regular session out of a futures day)."""
    starts = _starts(bars)
    return list(bars[bisect.bisect_left(starts, start) : bisect.bisect_left(starts, end)])


def _straddles(prev: datetime, cur: datetime, rolls: Sequence[datetime]) -> bool:
    """A return runs from the previous bar's close (its start + 1m) to this bar's close (start + 1m)."""
    lo, hi = prev + ONE_MINUTE, cur + ONE_MINUTE
    return any(lo < r <= hi for r in rolls)


def _session_returns(bars: Sequence[Bar], rolls: Sequence[datetime]) -> tuple[list[float], int]:
    """Absolute close-to-close percent returns of bars exactly one minute apart."""
    starts = _starts(bars)
    closes = bars.closes if isinstance(bars, BarColumns) else [b.close for b in bars]
    if rolls and starts:  # only a roll inside the bars' span can straddle one of their minutes
        first, last = min(starts), max(starts)
        rolls = [r for r in rolls if first + ONE_MINUTE < r <= last + ONE_MINUTE]
    out: list[float] = []
    excluded = 0
    for i in range(1, len(starts)):
        if starts[i] - starts[i - 1] != ONE_MINUTE:
            continue
        if rolls and _straddles(starts[i - 1], starts[i], rolls):
            excluded += 1
            continue
        out.append(abs(closes[i] / closes[i - 1] - 1.0) * 100.0)
    return out, excluded


def draw_band(
    sessions: Sequence[Sequence[Bar]],
    k: float = 0.1,
    *,
    rolls: Sequence[datetime] = (),
    sessions_required: int = 4,
) -> DrawBand | None:
    """The draw band of scoring.md §1 from the regular-session bars of the sessions before the reference.

    Returns are taken within each session only (the overnight gap is not a one-minute return) and
    only between bars exactly one minute apart; minutes straddling a recorded futures roll are
    dropped and counted. Fewer than ``sessions_required`` non-empty sessions -> ``None``.
    """
    filled = [s for s in sessions if len(s) >= 2]
    if len(filled) < sessions_required:
        return None
    returns: list[float] = []
    excluded = 0
    for bars in filled:
        got, dropped = _session_returns(bars, rolls)
        returns.extend(got)
        excluded += dropped
    if not returns:
        return None
    mean_abs = sum(returns) / len(returns)
    pct = k * mean_abs * math.sqrt(SESSION_MINUTES)
    return DrawBand(pct, mean_abs, len(returns), len(filled), excluded, k)


def resolve(reference: PricePoint | None, terminal: PricePoint | None, band: DrawBand | float | None) -> Resolution:
    """Change in percent, ``up`` = strictly positive change, ``draw`` = |change| below the band.

    Any missing input leaves the part that needs it unresolved; a missing band leaves only ``draw``
    as ``None`` because the primary (all-rows) score does not need it.
    """
    if reference is None or terminal is None:
        return UNRESOLVED
    change = (terminal.price / reference.price - 1.0) * 100.0
    width = band.pct if isinstance(band, DrawBand) else band
    draw = None if width is None else abs(change) < width
    return Resolution(change, change > 0.0, draw)

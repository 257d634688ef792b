"""A day of 1-minute bars kept as columns: a :class:`~league.prices.interface.Bar` is made when one is read.

The replay synthesizes each (symbol, day) as arrays. The score job and the demo's oracle hints read a few
bars of a day (the first at or after a reference time, the last at or before a close) and the closes of
four regular sessions (a draw band), yet a whole UTC day of ``Bar`` objects was made for them: 1 440 a
symbol-day, most of the season's price time (docs/costs.md, "A day's bars as columns"). :class:`BarColumns` keeps the
day's columns, checked at once when made (what ``Bar`` checks of each minute), with the bar starts as
datetimes for the searches; slicing it gives a view that shares them. The reference functions
(league.prices.reference) search ``starts`` and read ``closes`` of a view without making its bars; any
other reader sees an ordinary ``Sequence[Bar]``, every bar equal to the one the provider would have made.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from typing import TypeVar, overload

import numpy as np
import numpy.typing as npt

from league.prices.interface import Bar, PriceError

Arr = npt.NDArray[np.float64]
T = TypeVar("T")
_NEW = object.__new__


def slot_setters(cls: type[T], *names: str) -> tuple[Callable[[T, object], None], ...]:
    """The setters of a slotted class's fields (what a frozen dataclass's own ``__init__`` reaches through
    ``object.__setattr__``), to fill objects already known to be valid without calling it."""
    return tuple(getattr(cls, name).__set__ for name in names)


SET_START, SET_OPEN, SET_HIGH, SET_LOW, SET_CLOSE, SET_VOLUME = slot_setters(
    Bar, "start", "open", "high", "low", "close", "volume")


class BarColumns(Sequence[Bar]):
    """Bars ``lo`` to ``hi`` of one set of columns (the whole set when made, a window when sliced)."""

    __slots__ = ("_made", "_rows", "hi", "lo", "starts_all")

    def __init__(self, t: npt.NDArray[np.int64], o: Arr, h: Arr, low: Arr, c: Arr, v: Arr) -> None:
        """``t``: each row's start in epoch seconds, strictly increasing."""
        n = len(t)
        if any(len(x) != n for x in (o, h, low, c, v)):
            raise PriceError("bar columns differ in length")
        if not bar_checks(o, h, low, c, v) or not bool(np.all(t[1:] > t[:-1])):
            raise PriceError("bar columns hold a minute a Bar would refuse, or starts out of order",
                             fix="read these bars one by one (the provider's bars()) to see which")
        self.starts_all = minute_starts(t.tolist())
        self._rows: tuple[list[float], ...] = tuple(x.tolist() for x in (o, h, low, c, v))
        self._made: list[Bar | None] = [None] * n  # each bar made once, shared by every view of the columns
        self.lo, self.hi = 0, n

    @property
    def starts(self) -> list[datetime]:
        """The window's bar starts (a copy of that part of the column)."""
        return self.starts_all[self.lo:self.hi]

    @property
    def closes(self) -> list[float]:
        return self._rows[3][self.lo:self.hi]

    def __len__(self) -> int:
        return self.hi - self.lo

    @overload
    def __getitem__(self, i: int) -> Bar: ...

    @overload
    def __getitem__(self, i: slice) -> BarColumns: ...

    def __getitem__(self, i: int | slice) -> Bar | BarColumns:
        if isinstance(i, slice):
            start, stop, step = i.indices(len(self))
            if step != 1:
                raise ValueError("bar columns slice with step 1 only")
            return self._window(self.lo + start, self.lo + max(start, stop))
        return self._bar(self.lo + range(len(self))[i])  # a negative index counts from the end

    def __eq__(self, other: object) -> bool:
        """Equal to the same bars, as columns or as a list or tuple of ``Bar``."""
        if isinstance(other, BarColumns | list | tuple):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]  # equal to a list, which has none

    def __iter__(self) -> Iterator[Bar]:
        return map(self._bar, range(self.lo, self.hi))  # not the Sequence mixin's index loop

    def _window(self, lo: int, hi: int) -> BarColumns:
        view: BarColumns = _NEW(BarColumns)
        view.starts_all, view._rows, view._made, view.lo, view.hi = self.starts_all, self._rows, self._made, lo, hi
        return view

    def _bar(self, j: int) -> Bar:
        """Row ``j`` as a Bar, made the first time it is read (a reader that lists a window, as the memo's
        ``bars`` does for the snapshot, gets the same objects the next time)."""
        bar = self._made[j]
        if bar is None:
            bar = self._made[j] = self._make(j)
        return bar

    def _make(self, j: int) -> Bar:
        """Its slots set as the frozen dataclass's ``__init__`` sets them: the row was checked with the columns."""
        bar = _NEW(Bar)
        o, h, low, c, v = self._rows
        SET_START(bar, self.starts_all[j])
        SET_OPEN(bar, o[j])
        SET_HIGH(bar, h[j])
        SET_LOW(bar, low[j])
        SET_CLOSE(bar, c[j])
        SET_VOLUME(bar, v[j])
        return bar


def bar_checks(o: Arr, h: Arr, low: Arr, c: Arr, v: Arr) -> bool:
    """``Bar.__post_init__``'s check on every row at once (positive, finite, high and low bracketing open and
    close, volume finite and not negative); NaN fails each comparison, as it fails the chained one."""
    ok = (0.0 < low) & (low <= o) & (o <= h) & (h < np.inf) & (low <= c) & (c <= h) & (0.0 <= v) & (v < np.inf)
    return bool(ok.all())


#: Bar starts already made, by epoch second: every symbol's bar of a minute shares one (equal) datetime,
#: which saves making it again and the memory of the copies. Emptied when it reaches the bound
#: (2**18 minutes: half a year of round-the-clock minutes, ~15 MB).
_STARTS: dict[int, datetime] = {}
_MAX_STARTS = 1 << 18


def minute_starts(seconds: list[int]) -> list[datetime]:
    """The UTC datetimes of these epoch seconds (one shared object per minute)."""
    if len(_STARTS) > _MAX_STARTS:
        _STARTS.clear()
    made = _STARTS
    return [made.get(t) or made.setdefault(t, datetime.fromtimestamp(t, UTC)) for t in seconds]

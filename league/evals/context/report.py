"""The contextual run's results, computed from its sealed lines and its window set alone. Pure.

Per seat, every reply (baselines' included) becomes one :class:`~league.evals.context.scores.CtxAnswer`:

- its window: the sealed history and future, the window's season length and bucket;
- its arm key ``<arm>/<mode>``, so a configuration is arm × mode × bucket and each ``arms`` entry is one
  arm in one mode;
- the stated range (direct mode only; editing states none), given to the scorer in history points;
- the effects the arm was shown, as bounds (league.evals.context.windowset.effect_bounds).

:func:`league.evals.context.scores.score` gives the relative MASE (geometric means overall, per bucket, per arm ×
mode) and the compliance figures. Beside them, the **effect-level breakdown** per seat and arm × mode: the MASE
over the future steps INSIDE the window's Micro intervals (whatever the arm was shown) and OUTSIDE them, and inside
the intervals of each Micro kind, each divided by the seasonal naive's MASE on the same steps. Pooled over steps:
MASE = (Σ |ŷ − x| / scale over the steps) / number of steps, answers in window-set order, then arm, then mode.

Every figure is published in ``context-scores.csv`` as one row (seat, scope, key, figure, value), numbers
rounded to :data:`DIGITS` decimals; ``tools/recount_context.py`` recomputes each with the standard library.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final

from league.evals.context.scores import (
    CtxAnswer,
    CtxCompliance,
    CtxReport,
    CtxWindow,
    Effects,
    fit,
    naive_path,
    points,
    score,
)
from league.evals.mase import seasonal_scale
from league.jsonvalue import Json, JsonObject, items, number, obj, text

#: The arms (what the prompt shows beside the history) and the modes (how the path is made), in the order the
#: answers are scored and published.
ARMS: Final = ("history", "macro", "micro", "both")
MODES: Final = ("direct", "editing")
DIGITS: Final = 6
ROW_COLUMNS: Final = ("seat", "scope", "key", "figure", "value")
COMPLIANCE_FIGURES: Final = ("answers", "exact", "exact_share", "truncated", "padded", "missing", "range_checked",
                             "within_range", "within_range_share", "effects_checked", "effects_met",
                             "effects_met_share")


def cell(value: float | int | None) -> str:
    """A published figure: empty for none, an integer as is, a float rounded to :data:`DIGITS` decimals."""
    if value is None:
        return ""
    if isinstance(value, int):
        return str(value)
    return f"{value:.{DIGITS}f}"


def _floats(value: Json | None) -> tuple[float, ...]:
    return tuple(float(n) for v in items(value) if (n := number(v)) is not None)


@dataclass(frozen=True)
class SealedWindow:
    """A window as the window set publishes it: what the scorer needs."""

    window_id: str
    index: int
    history: tuple[float, ...]
    future: tuple[float, ...]
    season: int
    bucket: str
    stated_range: tuple[float, float]
    macro: tuple[int, int, float, float]
    micro: tuple[tuple[int, int, float, float, str], ...]  # start, end, low, high (points), kind

    def bounds(self, arm: str) -> Effects:
        """The bounds an arm was shown (windowset.effect_bounds, read back from the published set)."""
        out: dict[tuple[int, int], tuple[float, float]] = {}
        if arm in ("macro", "both"):
            out[(self.macro[0], self.macro[1])] = (self.macro[2], self.macro[3])
        if arm in ("micro", "both"):
            for start, end, low, high, _ in self.micro:
                if (start, end) in out:
                    low, high = max(low, out[(start, end)][0]), min(high, out[(start, end)][1])
                out[(start, end)] = (low, high)
        return out


def sealed_windows(window_set: JsonObject) -> dict[str, SealedWindow]:
    """The published window set's windows by id."""
    out: dict[str, SealedWindow] = {}
    for k, raw in enumerate(items(window_set.get("windows"))):
        w = obj(raw)
        rec = obj(w.get("effects"))
        macro = _floats(w.get("macro_bounds"))
        micro = []
        for i, b in enumerate(items(w.get("micro_bounds")), start=1):
            s, e, lo, hi = _floats(b)
            micro.append((int(s), int(e), lo, hi, text(rec.get(f"micro.{i}.kind"))))
        lo, hi = _floats(w.get("stated_range"))
        out[text(w["id"])] = SealedWindow(
            text(w["id"]), k, _floats(w.get("history")), _floats(w.get("future")), int(number(w["season"]) or 1),
            text(w["bucket"]), (lo, hi), (int(macro[0]), int(macro[1]), macro[2], macro[3]), tuple(micro))
    return out


@dataclass
class _Pool:
    steps: int = 0
    err: float = 0.0
    naive: float = 0.0

    def figures(self) -> dict[str, float | int | None]:
        mase = self.err / self.steps if self.steps else None
        naive = self.naive / self.steps if self.steps else None
        rel = mase / naive if mase is not None and naive is not None and naive > 0 else None
        return {"steps": self.steps, "mase": mase, "mase_naive": naive, "relative": rel}


@dataclass
class _Breakdown:
    pools: dict[str, _Pool] = field(default_factory=lambda: defaultdict(_Pool))

    def add(self, path: Sequence[float], w: SealedWindow) -> None:
        scale = seasonal_scale(w.history, w.season)
        if scale is None:
            return
        naive = naive_path(w.history, len(w.future), w.season)
        kind_of: dict[int, str] = {}
        for start, end, _, _, kind in w.micro:
            for step in range(start, end + 1):
                kind_of.setdefault(step, kind)
        for step, (p, x, n) in enumerate(zip(path, w.future, naive, strict=True)):
            keys = ["outside"] if step not in kind_of else ["inside", f"kind={kind_of[step]}"]
            for key in keys:
                pool = self.pools[key]
                pool.steps += 1
                pool.err += abs(p - x) / scale
                pool.naive += abs(n - x) / scale


def _order(reply: JsonObject, windows: Mapping[str, SealedWindow]) -> tuple[str, int, int, int]:
    return (text(reply["seat"]), windows[text(reply["window_id"])].index, ARMS.index(text(reply["arm"])),
            MODES.index(text(reply["mode"])))


def seat_answers(replies: Sequence[JsonObject], windows: Mapping[str, SealedWindow],
                 path_of: Callable[[str], tuple[float, ...]]) -> dict[str, list[tuple[CtxAnswer, SealedWindow]]]:
    """Each seat's answers, in window-set order, then arm, then mode."""
    out: dict[str, list[tuple[CtxAnswer, SealedWindow]]] = defaultdict(list)
    for r in sorted(replies, key=lambda r: _order(r, windows)):
        w = windows[text(r["window_id"])]
        arm, mode = text(r["arm"]), text(r["mode"])
        sha = r.get("path_sha256")
        path = path_of(text(sha)) if isinstance(sha, str) else None
        stated = points(w.stated_range, w.history) if mode == "direct" else None
        answer = CtxAnswer(CtxWindow(w.history, w.future, w.season, w.bucket), f"{arm}/{mode}", path,
                           (stated[0], stated[1]) if stated is not None else None, w.bounds(arm))
        out[text(r["seat"])].append((answer, w))
    return dict(sorted(out.items()))


@dataclass(frozen=True)
class SeatFigures:
    """One seat's scores report and its effect-level breakdown per arm × mode."""

    report: CtxReport
    effects: dict[str, dict[str, dict[str, float | int | None]]]


def seat_figures(answers: Sequence[tuple[CtxAnswer, SealedWindow]]) -> SeatFigures:
    breakdown: dict[str, _Breakdown] = defaultdict(_Breakdown)
    for a, w in answers:
        path, _ = fit(a.path, len(w.future))
        if path is not None:
            breakdown[a.arm].add(path, w)
    effects = {arm: {key: pool.figures() for key, pool in sorted(b.pools.items())}
               for arm, b in sorted(breakdown.items())}
    return SeatFigures(score([a for a, _ in answers]), effects)


def _figure(comp: CtxCompliance, name: str) -> float | int | None:
    value: object = dict(comp)[name]
    return value if value is None or isinstance(value, int | float) else None


def rows(seat: str, f: SeatFigures) -> list[tuple[str, str, str, str, str]]:
    """The seat's published figures, one row each (see the module docstring)."""
    r = f.report
    out: list[tuple[str, str, str, str, str]] = [(seat, "overall", "all", "relative_mase", cell(r["overall"]))]
    out += [(seat, "bucket", b, "relative_mase", cell(v)) for b, v in r["buckets"].items()]
    for c in r["configs"]:
        key = "|".join(c["config"])
        out += [(seat, "config", key, fig, cell(c[fig])) for fig in ("windows", "mase", "mase_naive", "relative")]
    for arm, a in r["arms"].items():
        out.append((seat, "arm", arm, "relative_mase", cell(a["overall"])))
        out += [(seat, "arm", arm, f"relative_mase.{b}", cell(v)) for b, v in a["buckets"].items()]
        out += [(seat, "arm", arm, "windows", cell(a["windows"])), (seat, "arm", arm, "unscaled", cell(a["unscaled"]))]
        comp = a["compliance"]
        out += [(seat, "arm", arm, fig, cell(_figure(comp, fig))) for fig in COMPLIANCE_FIGURES]
    for arm, pools in f.effects.items():
        for key, figs in pools.items():
            out += [(seat, "effects", f"{arm}|{key}", fig, cell(v)) for fig, v in figs.items()]
    return out


def results(replies: Sequence[JsonObject], window_set: JsonObject,
            path_of: Callable[[str], tuple[float, ...]]) -> tuple[JsonObject, list[tuple[str, str, str, str, str]]]:
    """(the per-seat figures as JSON, every published row) of a run's replies."""
    windows = sealed_windows(window_set)
    seats: JsonObject = {}
    table: list[tuple[str, str, str, str, str]] = []
    for seat, answers in seat_answers(replies, windows, path_of).items():
        f = seat_figures(answers)
        table += rows(seat, f)
        seats[seat] = {"overall": _round(f.report["overall"]),
                       "buckets": {b: _round(v) for b, v in f.report["buckets"].items()},
                       "arms": {arm: {"overall": _round(a["overall"]),
                                      "buckets": {b: _round(v) for b, v in a["buckets"].items()},
                                      "windows": a["windows"], "unscaled": a["unscaled"],
                                      "compliance": {k: _round(_figure(a["compliance"], k))
                                                     for k in COMPLIANCE_FIGURES}}
                                for arm, a in f.report["arms"].items()},
                       "effects": {arm: {k: {fig: _round(v) for fig, v in figs.items()} for k, figs in pools.items()}
                                   for arm, pools in f.effects.items()}}
    return seats, table


def _round(value: float | int | None) -> float | int | None:
    if value is None or isinstance(value, int) or not math.isfinite(value):
        return value
    return round(value, DIGITS)

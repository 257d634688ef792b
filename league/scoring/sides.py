"""Sides per run and disagreement tertiles (paper §5.8, F18/F19; §8's first secondary question). Pure: no I/O.

Why per run: a season pooled over every morning can hide a national block that shows on some mornings
and not others, and the paper reads the sides on single counted runs (70 splits of eight seats into four
and four on 20 October, 126 splits of nine into five and four on 21 October). Every figure here is
recounted by the stand-alone ``league/verify/tools/recount_sides.py`` (standard library only), so the
definitions below are the contract both follow (NOTES-sides-tertiles.md says them in words):

* Answers: the council rows of the counted run (``council_answers``), one per seat and event.
* A group is one run and one horizon (cells = its markets), or the run's ``all`` group (cells = every
  market x horizon of the run, as the paper's 48 cells). Seats: those with a side that answered a cell.
* Correlation of two seats: Pearson over the cells both answered; undefined (left out) with fewer than
  3 common cells or a variance <= 1e-12 on either side. Within = mean over same-side pairs, between =
  mean over cross pairs; difference = within - between.
* Splits: every choice (itertools.combinations of the sorted seats) of as many seats as the first side
  (sides sorted by name) holds; when there are more than ``MAX_SPLITS``, ``MAX_SPLITS`` draws of
  ``sorted(random.Random(SEED).sample(range(k), size))`` from one generator. p = share of splits whose
  statistic is >= the observed one - ``TOL`` (the observed split is one of the enumerated ones).
* Cell gap: mean probability of the first side minus the second's over the seats that answered the cell
  (a cell needs one answer on each side); the largest gap is the largest |gap| (ties: the first cell).
* Eigen figures: the seats' correlation matrix over the cells every seat answered, seats without variance
  there left out (at least 2 seats and 3 cells); top share = largest eigenvalue / trace, participation
  ratio = (sum lambda)^2 / sum lambda^2.
* Leave one seat out: each gap (every cell's and the pooled one, in probability and, on resolved cells,
  in Brier score) recomputed without each answering seat in turn (a removal that empties a side is left
  out); its range [min, max]; a gap that changes sign or keeps less than half its size without one seat
  is that seat's (the seat whose removal moves it most toward or past zero; ties: first by name).
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import random
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from operator import itemgetter

import numpy as np
import numpy.typing as npt

from league.jsonvalue import Json, JsonObject

#: The splits enumerated before a seeded sample stands in (C(14, 7) = 3432 stays enumerated).
MAX_SPLITS = 5000
#: The sample's seed (random.Random, so a stdlib recount replays it): the paper's bootstrap seed.
SEED = 20261102
#: A split's statistic counts as "at least as large" when >= the observed one minus this.
TOL = 1e-9
MIN_COMMON = 3
MIN_VARIANCE = 1e-12
#: Spreads are compared for the tertile cuts after rounding to this many decimals (ties then go together).
SPREAD_PLACES = 9
HORIZON_ORDER = ("1d", "1w", "1m", "6m")
ALL = "all"
STATED = frozenset({"elicited", "explicit_50"})
SESSION_RUN = frozenset({"session_run", "counted"})
ISSUE = frozenset({"issue", "answer"})
FALSE_WORDS = frozenset({"0", "false", "no", "n"})
ALPHA = 0.05


@dataclass(frozen=True, slots=True)
class Answer:
    """One counted council answer to one event (probability in points; outcome 1/0, None while open)."""

    run_id: str
    session: str
    seat: str
    asset: str
    horizon: str
    event: str
    p: float
    outcome: float | None


# ------------------------------------------------------------------------------ rows
def _number(text: str | None) -> float | None:
    try:
        value = float((text or "").strip())
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _is_council_row(r: Mapping[str, str]) -> bool:
    """docs/protocol.md §6 rule 1, as tools/recount_consensus.py reads it."""
    reference = (r.get("event_reference_at") or r.get("reference_at") or "").replace("+00:00", "Z")
    return (not r.get("seat", "").startswith("_") and r.get("status") == "counted"
            and r.get("cell_status") in STATED and _number(r.get("prob_up")) is not None and bool(reference)
            and r.get("sealed_at", "").replace("+00:00", "Z") <= reference
            and r.get("line_kind") in ISSUE and r.get("run_role") in SESSION_RUN
            and (r.get("same_event") or "").strip().lower() not in FALSE_WORDS)


def event_key(r: Mapping[str, str]) -> str:
    return r.get("event_id_v2") or r.get("event_id") or f"{r.get('session')}|{r.get('asset')}|{r.get('horizon')}"


def council_answers(rows: Iterable[Mapping[str, str]]) -> list[Answer]:
    """The counted council answers of council-forecasts.csv rows: one per run, event and seat (the
    earliest sealed; ties by seat), the outcome a strict rise of close over ref (None while open).

    Only the fields an answer reads are kept of each row, and a text that repeats (run, event, seat, session,
    asset, horizon, seal time, prices) is held once: the rows themselves, 43 columns each, took more than 12 GB at
    5 years × 100 seats (6 million rows). The rows are ordered and the first of each (run, event, seat) kept as
    before (a stable sort on the same key), and the numbers are read only from the rows kept."""
    texts: dict[str, str] = {}
    one = texts.setdefault
    chosen: list[tuple[tuple[str, str, str, str], str, str, str, str, str | None, str | None]] = []
    for r in rows:
        if _is_council_row(r):
            ref_t, close_t = r.get("ref"), r.get("close")
            chosen.append(((one(r["run_id"], r["run_id"]), one(ev := event_key(r), ev),
                            one(r["sealed_at"], r["sealed_at"]), one(r["seat"], r["seat"])),
                           one(r["session"], r["session"]), one(r["asset"], r["asset"]),
                           one(r["horizon"], r["horizon"]), r["prob_up"],
                           None if ref_t is None else one(ref_t, ref_t),
                           None if close_t is None else one(close_t, close_t)))
    texts.clear()
    chosen.sort(key=itemgetter(0))
    out: list[Answer] = []
    group, seen = ("", ""), set[str]()  # the rows are ordered by run and event: a seat repeats only inside one
    for (run_id, event, _sealed, seat), session, asset, horizon, prob_up, ref_text, close_text in chosen:
        if (run_id, event) != group:
            group, seen = (run_id, event), set()
        if seat in seen:
            continue
        seen.add(seat)
        ref, close = _number(ref_text), _number(close_text)
        out.append(Answer(run_id, session, seat, asset, horizon, event,
                          float(prob_up), None if ref is None or close is None else float(close > ref)))
    return out


# ------------------------------------------------------------------------------ small figures
def pearson(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson correlation (None with fewer than MIN_COMMON values or no variance): the definition, one pair at a
    time; :func:`similarity` computes it for every pair of a group at once (the tests hold the two together)."""
    n = len(xs)
    if n < MIN_COMMON:
        return None
    mx, my = math.fsum(xs) / n, math.fsum(ys) / n
    vx = math.fsum((x - mx) ** 2 for x in xs)
    vy = math.fsum((y - my) ** 2 for y in ys)
    if vx <= MIN_VARIANCE or vy <= MIN_VARIANCE:
        return None
    cov = math.fsum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    return max(-1.0, min(1.0, cov / math.sqrt(vx * vy)))


def _mean(values: Sequence[float]) -> float | None:
    return math.fsum(values) / len(values) if values else None


def side_gap(values: Sequence[tuple[str, float]], side_of: Mapping[str, str], labels: tuple[str, str],
             drop: str | None = None) -> float | None:
    """Mean of the first side's values minus the second's (``drop``: a seat left out); None if a side is empty."""
    a = [v for s, v in values if s != drop and side_of[s] == labels[0]]
    b = [v for s, v in values if s != drop and side_of[s] == labels[1]]
    return math.fsum(a) / len(a) - math.fsum(b) / len(b) if a and b else None


def exact_parts(values: Iterable[float]) -> list[float]:
    """Non-overlapping partials whose exact sum is the exact sum of ``values`` (Shewchuk's algorithm, the one
    ``math.fsum`` documents). Why: ``math.fsum(parts + [-v, ...])`` is then ``math.fsum`` of the values without
    those ``v`` to the last bit, in time independent of how many values there are, which is what lets the
    leave-one-seat-out gaps below be computed once per seat instead of re-summed per seat."""
    parts: list[float] = []
    for value in values:
        x, i = value, 0
        for y in parts:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                parts[i] = lo
                i += 1
            x = hi
        parts[i:] = [x]
    return parts


def loso(values: Sequence[tuple[str, float]], side_of: Mapping[str, str],
         labels: tuple[str, str]) -> JsonObject | None:
    """A side gap with its leave-one-seat-out range and, when one seat carries it, that seat.

    Each side's values are summed once (:func:`exact_parts`); a seat's removal takes its own values off that exact
    sum, so every figure equals :func:`side_gap` with ``drop=seat`` bit for bit (the stdlib recount sums afresh)."""
    gap = side_gap(values, side_of, labels)
    if gap is None:
        return None
    on_side: dict[str, list[float]] = {labels[0]: [], labels[1]: []}
    by_seat: dict[str, list[float]] = defaultdict(list)
    for s, v in values:
        by_seat[s].append(v)
        if side_of[s] in on_side:
            on_side[side_of[s]].append(v)
    parts = {lab: exact_parts(on_side[lab]) for lab in labels}
    means = {lab: math.fsum(on_side[lab]) / len(on_side[lab]) for lab in labels}
    without: dict[str, float] = {}
    for seat in sorted(by_seat):
        lab = side_of[seat]
        if lab not in on_side:
            without[seat] = gap
            continue
        left = len(on_side[lab]) - len(by_seat[seat])
        if not left:
            continue
        mean = math.fsum([*parts[lab], *(-v for v in by_seat[seat])]) / left
        without[seat] = mean - means[labels[1]] if lab == labels[0] else means[labels[0]] - mean
    owner: str | None = None
    if gap != 0 and without:
        sign = 1.0 if gap > 0 else -1.0
        seat, g = min(without.items(), key=lambda kv: (kv[1] * sign, kv[0]))
        if g * sign < 0 or abs(g) < abs(gap) / 2:
            owner = seat
    span: list[Json] = [min(without.values()), max(without.values())] if without else []
    return {"gap": gap, "loso_range": span, "owner": owner}


def eigen_figures(y: Mapping[str, Mapping[str, float]], cells: Sequence[str]) -> JsonObject:
    """Top eigenvalue share and participation ratio of the seats' correlation matrix (complete cells)."""
    complete = [c for c in cells if all(c in row for row in y.values())]
    seats = [s for s in sorted(y) if len(complete) >= MIN_COMMON
             and _variance([y[s][c] for c in complete]) > MIN_VARIANCE]
    if len(seats) < 2 or len(complete) < MIN_COMMON:
        return {"seats": len(seats), "cells": len(complete), "top_share": None, "participation_ratio": None}
    r = similarity(np.array([[y[s][c] for s in seats] for c in complete]))
    np.fill_diagonal(r, 1.0)
    lam = np.linalg.eigvalsh(r)
    trace = float(lam.sum())
    return {"seats": len(seats), "cells": len(complete), "top_share": float(lam.max()) / trace,
            "participation_ratio": trace**2 / float((lam**2).sum())}


def _variance(xs: Sequence[float]) -> float:
    m = math.fsum(xs) / len(xs)
    return math.fsum((x - m) ** 2 for x in xs)


def similarity(y: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Every pair of seats' :func:`pearson` at once: ``y`` is cells x seats (NaN where a seat did not answer), the
    result seats x seats with NaN on the diagonal and where the pair is undefined (fewer than MIN_COMMON common
    cells, a variance <= MIN_VARIANCE on either side). Each pair is centred on its own common cells, as
    :func:`pearson` does; the sums are numpy's, so a figure may differ from :func:`pearson`'s in the last bits.
    Why: 100 seats are 4,950 pairs per group, and summing them one by one was most of a run's time."""
    answered = (~np.isnan(y)).astype(float)
    values = np.nan_to_num(y)
    common = answered[:, :, None] * answered[:, None, :]  # cells x seat a x seat b
    n = common.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean_a = np.einsum("ca,cab->ab", values, common) / n
        mean_b = np.einsum("cb,cab->ab", values, common) / n
        dev_a = (values[:, :, None] - mean_a[None]) * common
        dev_b = (values[:, None, :] - mean_b[None]) * common
        var_a, var_b = (dev_a**2).sum(axis=0), (dev_b**2).sum(axis=0)
        r = np.clip((dev_a * dev_b).sum(axis=0) / np.sqrt(var_a * var_b), -1.0, 1.0)
    r[(n < MIN_COMMON) | (var_a <= MIN_VARIANCE) | (var_b <= MIN_VARIANCE)] = np.nan
    np.fill_diagonal(r, np.nan)
    return np.asarray(r, dtype=float)


# ------------------------------------------------------------------------------ splits
def splits(k: int, size: int) -> tuple[list[tuple[int, ...]], bool]:
    """Every choice of ``size`` of ``k`` seats, or MAX_SPLITS seeded draws (True) when there are more."""
    combos, sampled = _splits(k, size)
    return list(combos), sampled


@functools.lru_cache(maxsize=64)
def _splits(k: int, size: int) -> tuple[tuple[tuple[int, ...], ...], bool]:
    """The splits of one seat count, drawn once: every group of a season with as many seats draws the same ones
    (one generator per group, from SEED), and 5,000 draws of 50 of 100 seats take a third of a second."""
    if math.comb(k, size) <= MAX_SPLITS:
        return tuple(itertools.combinations(range(k), size)), False
    rng = random.Random(SEED)
    return tuple(tuple(sorted(rng.sample(range(k), size))) for _ in range(MAX_SPLITS)), True


@functools.lru_cache(maxsize=64)
def _membership(k: int, size: int) -> tuple[npt.NDArray[np.float64], bool]:
    """The splits as a (splits, k) 0/1 matrix (1: on the first side), read-only because it is shared."""
    combos, sampled = _splits(k, size)
    member = np.zeros((len(combos), k))
    if combos:
        rows = np.repeat(np.arange(len(combos)), size)
        member[rows, np.array(combos, dtype=np.intp).reshape(-1)] = 1.0
    member.setflags(write=False)
    return member, sampled


def _corr_differences(sim: npt.NDArray[np.float64], member: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Within minus between mean correlation for each membership row (NaN where either is undefined).

    As quadratic forms of the membership: with S the defined correlations (0 elsewhere) and F their indicator,
    a split m's same-side sum is (m'Sm + (1-m)'S(1-m)) / 2 and its cross sum m'S(1-m), the counts likewise with
    F. Why: the pairwise form held a (splits x pairs) matrix, 5,000 x 4,950 at 100 seats, per group."""
    defined = np.isfinite(sim)
    s = np.where(defined, sim, 0.0)
    f = defined.astype(float)
    other = 1.0 - member
    ms, mf = member @ s, member @ f  # (1-m)'S is S's column sums minus m'S
    os_, of = s.sum(axis=0) - ms, f.sum(axis=0) - mf
    with np.errstate(invalid="ignore", divide="ignore"):
        within = ((ms * member).sum(axis=1) + (os_ * other).sum(axis=1)) / (
            (mf * member).sum(axis=1) + (of * other).sum(axis=1))
        between = (ms * other).sum(axis=1) / (mf * other).sum(axis=1)
    return np.asarray(within - between, dtype=float)


def _largest_gaps(y: npt.NDArray[np.float64], member: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """Largest |cell gap| for each membership row (NaN when no cell has both sides)."""
    mask = (~np.isnan(y)).astype(float)
    y0 = np.nan_to_num(y)
    with np.errstate(invalid="ignore", divide="ignore"):
        gap = (y0 @ member.T) / (mask @ member.T) - (y0 @ (1 - member).T) / (mask @ (1 - member).T)
    gap = np.abs(gap)
    gap[~np.isfinite(gap)] = -1.0
    best = gap.max(axis=0) if gap.size else np.full(member.shape[0], -1.0)
    return np.where(best < 0, np.nan, best)


def _share_at_least(null: npt.NDArray[np.float64], observed: float | None) -> float | None:
    if observed is None or not null.size:
        return None
    return float(np.mean(np.nan_to_num(null, nan=-np.inf) >= observed - TOL))


# ------------------------------------------------------------------------------ one group
def _group(answers: Sequence[Answer], cell_of: str, side_of: Mapping[str, str],
           labels: tuple[str, str]) -> JsonObject:
    """One run's figures over its cells (``cell_of``: ``asset`` or ``horizon asset``)."""
    y: dict[str, dict[str, float]] = defaultdict(dict)
    brier: dict[str, dict[str, float]] = defaultdict(dict)
    for a in answers:
        cell = a.asset if cell_of == "asset" else f"{a.horizon} {a.asset}"
        y[a.seat][cell] = a.p
        if a.outcome is not None:
            brier[a.seat][cell] = (a.p / 100.0 - a.outcome) ** 2
    seats = sorted(y)
    cells = sorted({c for row in y.values() for c in row})
    members = {lab: [s for s in seats if side_of[s] == lab] for lab in labels}
    head: JsonObject = {"sides": {lab: list(v) for lab, v in members.items()}, "cells": len(cells)}
    short = [f"side {lab} has {len(v)} answering seat{'s' if len(v) != 1 else ''} (2 needed)"
             for lab, v in members.items() if len(v) < 2]
    if short:
        return {**head, "computed": False, "reason": "; ".join(short)}
    k = len(seats)
    y_arr = np.array([[y[s].get(c, np.nan) for s in seats] for c in cells])
    sim = similarity(y_arr)
    member, sampled = _membership(k, len(members[labels[0]]))
    side = np.array([side_of[s] for s in seats])
    a_i, b_i = np.triu_indices(k, 1)
    r_ab = sim[a_i, b_i]
    defined = np.isfinite(r_ab)
    pairs = {lab: r_ab[defined & (side[a_i] == lab) & (side[b_i] == lab)].tolist() for lab in labels}
    within = _mean([v for lab in labels for v in pairs[lab]])
    between = _mean(r_ab[defined & (side[a_i] != side[b_i])].tolist())
    diff = within - between if within is not None and between is not None else None
    cell_gaps = [(c, side_gap([(s, y[s][c]) for s in seats if c in y[s]], side_of, labels)) for c in cells]
    found = [(c, g) for c, g in cell_gaps if g is not None]
    largest = max(found, key=lambda cg: abs(cg[1])) if found else None  # max keeps the first of equals
    t_obs = abs(largest[1]) if largest is not None else None
    return {**head, "computed": True, "seats": k, "splits": int(member.shape[0]), "sampled": sampled,
            "correlation": {"within": within, "between": between, "difference": diff,
                            "within_by_side": {lab: _mean(pairs[lab]) for lab in labels},
                            "p_value": _share_at_least(_corr_differences(sim, member), diff)},
            "largest_gap": None if largest is None else {
                "cell": largest[0], "gap": largest[1],
                "p_value": _share_at_least(_largest_gaps(y_arr, member), t_obs)},
            "eigen": eigen_figures(y, cells),
            "gaps": {"probability": _gaps(y, cells, side_of, labels),
                     "brier": _gaps(brier, cells, side_of, labels)}}


def _gaps(values: Mapping[str, Mapping[str, float]], cells: Sequence[str], side_of: Mapping[str, str],
          labels: tuple[str, str]) -> JsonObject:
    """The pooled gap (every answer of each side) and each cell's, each with its leave-one-out range."""
    pooled = loso([(s, v) for s in sorted(values) for v in values[s].values()], side_of, labels)
    per_cell: list[Json] = []
    for c in cells:
        g = loso([(s, values[s][c]) for s in sorted(values) if c in values[s]], side_of, labels)
        if g is not None:
            per_cell.append({"cell": c, **g})
    return {"pooled": pooled, "cells": per_cell}


# ------------------------------------------------------------------------------ the report
def _horizon_rank(h: str) -> tuple[int, str]:
    return (HORIZON_ORDER.index(h) if h in HORIZON_ORDER else len(HORIZON_ORDER), h)


def run_key(rows: Sequence[Answer], side_of: Mapping[str, str], labels: tuple[str, str]) -> str:
    """The SHA-256 of everything one run's entries are made of: its answers (in order) and its seats' sides."""
    sides = sorted((seat, side_of[seat]) for seat in {a.seat for a in rows})
    return hashlib.sha256(repr((labels, sides, list(rows))).encode("utf-8")).hexdigest()


def sides_report(answers: Sequence[Answer], side_of: Mapping[str, str],
                 memo: MutableMapping[str, list[JsonObject]] | None = None) -> JsonObject:
    """council-sides.json's figures: per counted run and horizon (and the run's ``all`` cells), then the season.
    ``memo`` (:func:`run_key` -> that run's entries, as JSON gives them back) stands for the runs whose answers
    and sides it holds, and is given the entries of the others; a run's entries read nothing but its answers."""
    labels_found = sorted(set(side_of.values()))
    if len(labels_found) != 2:
        return {"computed": False, "reason": f"the roster seals {len(labels_found)} side(s) "
                f"({', '.join(labels_found) or 'none'}); the tests need exactly two", "runs": [], "season": None}
    labels = (labels_found[0], labels_found[1])
    sided = [a for a in answers if a.seat in side_of]
    by_run: dict[str, list[Answer]] = defaultdict(list)
    for a in sided:
        by_run[a.run_id].append(a)
    runs: list[JsonObject] = []
    for run_id in sorted(by_run, key=lambda r: (by_run[r][0].session, r)):
        rows = by_run[run_id]
        key = run_key(rows, side_of, labels) if memo is not None else ""
        entries = memo.get(key) if memo is not None else None
        if entries is None:
            entries = _run_entries(run_id, rows, side_of, labels)
            if memo is not None:
                memo[key] = entries
        runs.extend(entries)
    return {"computed": True, "gap": f"{labels[0]} minus {labels[1]}", "labels": list(labels),
            "max_splits": MAX_SPLITS, "seed": SEED, "runs": [*runs], "season": season_summary(runs)}


def _run_entries(run_id: str, rows: Sequence[Answer], side_of: Mapping[str, str], labels: tuple[str, str]
                 ) -> list[JsonObject]:
    """One run's entries: each horizon's, then the run's ``all`` cells."""
    out: list[JsonObject] = []
    for h in sorted({a.horizon for a in rows}, key=_horizon_rank):
        out.append({"run_id": run_id, "session": rows[0].session, "horizon": h,
                    **_group([a for a in rows if a.horizon == h], "asset", side_of, labels)})
    out.append({"run_id": run_id, "session": rows[0].session, "horizon": ALL,
                **_group(rows, "horizon asset", side_of, labels)})
    return out


def _owners(run: JsonObject) -> list[str]:
    out: list[str] = []
    gaps = run.get("gaps")
    if not isinstance(gaps, dict):
        return out
    for kind in ("probability", "brier"):
        block = gaps.get(kind)
        if not isinstance(block, dict):
            continue
        cells = block.get("cells")
        found = [block.get("pooled"), *(cells if isinstance(cells, list) else [])]
        out += [str(g["owner"]) for g in found if isinstance(g, dict) and g.get("owner")]
    return out


def _p_below(run: JsonObject, block: str) -> bool:
    b = run.get(block)
    p = b.get("p_value") if isinstance(b, dict) else None
    return isinstance(p, float | int) and p < ALPHA


def season_summary(runs: Sequence[JsonObject]) -> JsonObject:
    """Per horizon: runs computed and not, runs with p < 0.05 on each test, the seats most often owners."""
    out: list[Json] = []
    for h in sorted({str(r["horizon"]) for r in runs}, key=_horizon_rank):
        mine = [r for r in runs if r["horizon"] == h]
        done = [r for r in mine if r.get("computed")]
        owners = Counter(o for r in done for o in _owners(r))
        not_computed: list[Json] = [{"run_id": r["run_id"], "reason": r.get("reason")} for r in mine
                                    if not r.get("computed")]
        ranked: list[Json] = [{"seat": s, "gaps": n} for s, n in sorted(owners.items(), key=lambda kv: (-kv[1], kv[0]))]
        out.append({"horizon": h, "runs": len(mine), "computed": len(done),
                    "not_computed": not_computed,
                    "correlation_p_below_0_05": sum(_p_below(r, "correlation") for r in done),
                    "largest_gap_p_below_0_05": sum(_p_below(r, "largest_gap") for r in done),
                    "owners": ranked})
    return {"runs": len({str(r["run_id"]) for r in runs}), "by_horizon": out}


# ------------------------------------------------------------------------------ tertiles
def population_sd(xs: Sequence[float]) -> float:
    m = math.fsum(xs) / len(xs)
    return math.sqrt(math.fsum((x - m) ** 2 for x in xs) / len(xs))


def tertile_cuts(spreads: Sequence[float]) -> tuple[float, float]:
    """The cuts: the ceil(n/3)-th and ceil(2n/3)-th smallest spread (rounded to SPREAD_PLACES)."""
    s = sorted(round(x, SPREAD_PLACES) for x in spreads)
    n = len(s)
    return s[math.ceil(n / 3) - 1], s[math.ceil(2 * n / 3) - 1]


def tertile_of(spread: float, cuts: tuple[float, float]) -> str:
    x = round(spread, SPREAD_PLACES)
    return "low" if x <= cuts[0] else "mid" if x <= cuts[1] else "high"


def tertiles_report(answers: Sequence[Answer], consensus: Mapping[tuple[str, str], tuple[float, float]]) -> JsonObject:
    """council-tertiles.json: per horizon, events split by the seats' spread; the consensus's mean Brier by tertile.

    ``consensus``: (run_id, event) -> (published consensus p in points, outcome) of the resolved events."""
    probs: dict[tuple[str, str], list[float]] = defaultdict(list)
    horizon: dict[tuple[str, str], str] = {}
    for a in answers:
        probs[(a.run_id, a.event)].append(a.p)
        horizon[(a.run_id, a.event)] = a.horizon
    events: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for key, (p, outcome) in sorted(consensus.items()):
        if key in probs and len(probs[key]) >= 2:
            events[horizon[key]].append((population_sd(probs[key]), (p / 100.0 - outcome) ** 2))
    out: list[Json] = []
    for h in sorted(events, key=_horizon_rank):
        ev = events[h]
        if len(ev) < 3:
            out.append({"horizon": h, "events": len(ev), "computed": False, "reason": "fewer than 3 events"})
            continue
        cuts = tertile_cuts([s for s, _ in ev])
        rows: list[Json] = []
        for name in ("low", "mid", "high"):
            part = [(s, b) for s, b in ev if tertile_of(s, cuts) == name]
            rows.append({"tertile": name, "events": len(part),
                         "spread_min": min((s for s, _ in part), default=None),
                         "spread_max": max((s for s, _ in part), default=None),
                         "spread_mean": _mean([s for s, _ in part]),
                         "brier_consensus": _mean([b for _, b in part])})
        out.append({"horizon": h, "events": len(ev), "computed": True, "cuts": list(cuts), "tertiles": rows})
    return {"by_horizon": out}

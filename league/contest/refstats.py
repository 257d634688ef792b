"""The reference implementation's forecast statistics, as a compatibility procedure ("reference"), pure.

A folder in the reference's layout publishes intervals drawn by the reference's own resampler, which is
not the league's (league.contest.stats). To check them to the last digit, a reader must redo exactly
what the reference does (AgentpitBench, ``agentpitbench/forecast.py``, ``metrics``), which is this:

- each forecast's Brier ``½ Σ (p_k − y_k)²`` on the probabilities as sealed (the reference stores them
  already clamped and normalised, and does not clamp again), rounded to 6 decimals; the crowd's on the
  swept prices clamped to [0.01, 0.99] and divided by their sum, rounded to 6 decimals too;
- ONE ``random.Random(20261009)`` shared in turn: for each agent in the contest's configured order, its
  own interval and then its paired differences against the crowd; the crowd's interval last. An agent
  with no resolved forecast draws nothing; a list of one value gives a zero-width interval and draws
  nothing either;
- each of the B = 2,000 resamples draws ``rng.choice(values)`` once per value; the means are sorted and
  the interval is ``[means[int(0.025·B)], means[min(B−1, int(0.975·B))]]``;
- every float sum (a Brier's terms, a mean, a resample's mean) as CPython ≥ 3.12's ``sum()`` computes it:
  Neumaier-compensated, which :func:`compensated_sum` reproduces (Python 3.11's ``sum`` adds left to
  right, and ``math.fsum`` rounds the exact sum once: both differ in the last bit, which moves a
  4-decimal figure when it sits on a rounding boundary);
- the order of the values is the reference database's: an agent's forecasts by market id (its forecasts
  table is keyed ``(agent, market_id)``, and the query reads that index), the crowd's markets in the
  order they were inserted, which the published files give as sweep date, then market id (the order of
  each sealed file's ``markets``);
- ranks by mean Brier, ties in configured order; figures rounded to 4 decimals, the sign test's p too.

No I/O, no clock: the caller hands in the sealed sweep documents and the resolutions.
"""

from __future__ import annotations

import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from league.jsonvalue import Json, JsonObject, items, number, obj, text

PROCEDURE = "reference"
SEED = 20261009
RESAMPLES = 2000
METHOD = ("percentile; one random.Random(seed) shared by the agents in configured order, then the crowd; "
          "rng.choice per resampled value; Neumaier-compensated sums (CPython 3.12 sum)")
METRIC = ("Brier score, ½·Σ(p−y)², lower is better; 95% bootstrap CI; paired vs the Crowd "
          "(market price at sweep time)")
CLAMP_LO, CLAMP_HI = 0.01, 0.99


def compensated_sum(values: Iterable[float]) -> float:
    """``sum(values)`` as CPython 3.12 computes a sum of floats (Neumaier's improved Kahan–Babuška
    summation): the running compensation is added once at the end, and only when it is finite and non-zero
    (an infinite or overflowed sum stays what it is, never NaN). An empty sum is 0.0."""
    it = iter(values)
    first = next(it, None)
    if first is None:
        return 0.0
    total, comp = 0 + float(first), 0.0  # CPython: int 0 + the first float, then the float loop
    for value in it:
        x = float(value)
        t = total + x
        comp += (total - t) + x if abs(total) >= abs(x) else (x - t) + total
        total = t
    if comp and math.isfinite(comp):
        total += comp
    return total


def brier(probs: Mapping[str, float], winner: str, order: Sequence[str]) -> float:
    """The reference's stored Brier: ``½ Σ (p − y)²`` over the outcomes in ``order``, rounded to 6 decimals."""
    return round(0.5 * compensated_sum((probs[k] - (1.0 if k == winner else 0.0)) ** 2 for k in order), 6)


def crowd_probs(outcomes: Sequence[str], prices: Sequence[float]) -> dict[str, float]:
    """The swept prices clamped to [0.01, 0.99] and divided by their sum (1 when the sum is 0)."""
    clamped = [min(CLAMP_HI, max(CLAMP_LO, float(p))) for p in prices]
    total = compensated_sum(clamped) or 1.0
    return {o: p / total for o, p in zip(outcomes, clamped, strict=True)}


def bootstrap_ci(values: Sequence[float], rng: random.Random, resamples: int) -> tuple[float, float]:
    """The percentile interval of the mean, drawn from the shared generator (nothing drawn below 2 values)."""
    if len(values) < 2:
        return (values[0], values[0]) if values else (math.nan, math.nan)
    pool = list(values)
    means = sorted(compensated_sum(rng.choice(pool) for _ in pool) / len(pool) for _ in range(resamples))
    return means[int(0.025 * resamples)], means[min(resamples - 1, int(0.975 * resamples))]


def sign_test_p(diffs: Sequence[float]) -> float:
    """Exact two-sided sign test, ties dropped, rounded to 4 decimals as the reference publishes it."""
    neg = sum(1 for d in diffs if d < 0)
    pos = sum(1 for d in diffs if d > 0)
    if neg + pos == 0:
        return 1.0
    tail = sum(math.comb(neg + pos, i) for i in range(min(neg, pos) + 1)) / (1 << (neg + pos))
    return round(min(1.0, 2 * tail), 4)


@dataclass(frozen=True)
class Swept:
    """A market as first swept: the sweep's date, its outcomes and the prices the crowd is scored on."""
    market_id: str
    date: str
    outcomes: list[str]
    prices: list[float]


def _floats(value: Json | None) -> list[float]:
    return [float(n) for v in items(value) if (n := number(v)) is not None]


def swept_markets(sweeps: Sequence[JsonObject]) -> dict[str, Swept]:
    """Every market of the sweeps, as first swept, in the reference's insertion order (date, market id)."""
    out: dict[str, Swept] = {}
    for doc in sorted(sweeps, key=lambda d: text(d.get("date"))):
        for m in sorted((obj(m) for m in items(doc.get("markets"))), key=lambda m: str(m.get("id"))):
            mid = str(m.get("id"))
            if mid not in out:
                out[mid] = Swept(mid, text(doc.get("date")), [str(o) for o in items(m.get("outcomes"))],
                                 _floats(m.get("prices_at_sweep")))
    return out


def agent_forecasts(sweeps: Sequence[JsonObject], agent: str) -> dict[str, dict[str, float]]:
    """An agent's probabilities per market: the first sweep's (the reference keeps one row per agent and market)."""
    out: dict[str, dict[str, float]] = {}
    for doc in sorted(sweeps, key=lambda d: text(d.get("date"))):
        for f in (obj(f) for f in items(doc.get("forecasts"))):
            mid = str(f.get("market_id"))
            if f.get("agent") == agent and mid not in out:
                out[mid] = {k: float(n) for k, v in obj(f.get("probabilities")).items()
                            if (n := number(v)) is not None}
    return out


def took_part(sweeps: Sequence[JsonObject], agent: str, participation: Mapping[str, Mapping[str, str]] | None
              ) -> set[str]:
    """The sweep dates the agent ran (ok or failed); without a participation record, those it has a forecast in."""
    days = set()
    for doc in sweeps:
        date = text(doc.get("date"))
        if participation is not None and date in participation:
            if participation[date].get(agent) in ("ok", "failed"):
                days.add(date)
        elif any(obj(f).get("agent") == agent for f in items(doc.get("forecasts"))):
            days.add(date)
    return days


def _pair(lo: float, hi: float) -> list[Json]:
    return [round(lo, 4), round(hi, 4)]


def accuracy(sweeps: Sequence[JsonObject], resolutions: Mapping[str, str], agents: Sequence[tuple[str, str]], *,
             seed: int = SEED, resamples: int = RESAMPLES,
             participation: Mapping[str, Mapping[str, str]] | None = None) -> JsonObject:
    """``forecast_accuracy`` in the reference's field layout and order, by the reference procedure, from the
    sealed sweeps handed in (the caller keeps those of the snapshot's date) and the recorded winners."""
    markets = swept_markets(sweeps)
    resolved = {mid: m for mid, m in markets.items() if resolutions.get(mid) in m.outcomes}
    crowd = {mid: brier(crowd_probs(m.outcomes, m.prices), resolutions[mid], m.outcomes)
             for mid, m in resolved.items()}
    rng = random.Random(seed)
    rows: list[JsonObject] = []
    for agent, name in agents:
        given = agent_forecasts(sweeps, agent)
        mine = sorted(mid for mid in given if mid in crowd and set(given[mid]) >= set(resolved[mid].outcomes))
        days = took_part(sweeps, agent, participation)
        offered = sum(1 for m in resolved.values() if m.date in days)
        xs = [brier(given[mid], resolutions[mid], resolved[mid].outcomes) for mid in mine]
        diffs = [x - crowd[mid] for x, mid in zip(xs, mine, strict=True)]
        row: JsonObject = {"agent": agent, "name": name, "n": len(xs), "offered": offered,
                           "coverage": round(len(xs) / offered, 4) if offered else None,
                           "brier": round(compensated_sum(xs) / len(xs), 4) if xs else None, "ci": None,
                           "vs_crowd": None}
        if xs:
            row["ci"] = _pair(*bootstrap_ci(xs, rng, resamples))
            dlo, dhi = bootstrap_ci(diffs, rng, resamples)
            verdict = "better" if dhi < 0 else "worse" if dlo > 0 else "inconclusive"
            row["vs_crowd"] = {"mean_diff": round(compensated_sum(diffs) / len(diffs), 4), "ci": _pair(dlo, dhi),
                               "sign_test_p": sign_test_p(diffs), "verdict": verdict}
        rows.append(row)
    ranked = sorted(rows, key=lambda r: (r["brier"] is None, number(r["brier"]) or 0.0))
    for i, r in enumerate(ranked, 1):
        r["rank"] = i if r["brier"] is not None else None
    cx = list(crowd.values())
    crowd_row: JsonObject = {"name": "The Crowd", "n": len(cx),
                             "brier": round(compensated_sum(cx) / len(cx), 4) if cx else None, "ci": None}
    if cx:
        crowd_row["ci"] = _pair(*bootstrap_ci(cx, rng, resamples))
    agents_json: list[Json] = list(ranked)
    return {"agents": agents_json, "crowd": crowd_row, "markets_resolved": len(resolved),
            "markets_open": len(markets) - len(resolved), "sweeps": len({text(d.get("date")) for d in sweeps}),
            "metric": METRIC}


def named(seed: int = SEED, resamples: int = RESAMPLES) -> JsonObject:
    """The procedure as a league-layout ``bootstrap`` block names it (procedure, method, seed, B, level)."""
    return {"procedure": PROCEDURE, "method": METHOD, "resamples": resamples, "seed": seed, "level": 0.95}

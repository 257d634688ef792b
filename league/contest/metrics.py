"""``metrics.json`` from the published files alone (pure: the publisher and the verifier share it).

Forecast accuracy: the unit is one resolved forecast of a sealed sweep file. An agent's Brier is
computed on its sealed probabilities after the clamp/renormalise rule; the crowd's on the sealed
``prices_at_sweep`` under the same rule. ``offered`` counts the resolved markets of the sweeps the
agent took part in -- a sweep it missed through an infrastructure incident is not held against it
(taken from ``sweeps.json`` when the folder has one; otherwise any sweep where the agent has at
least one forecast counts). Betting record: counted rounds are resolved rounds with no exclusion.
Numbers are rounded as the reference rounds them (4 decimals; P&L 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from league.contest.stats import bootstrap_ci, brier, clamp_normalise, crowd_forecast, mean, versus_crowd
from league.jsonvalue import JsonObject

METRIC = ("Brier score, ½·Σ(p−y)², lower is better; 95% percentile bootstrap CI; paired vs the crowd "
          "(market price at sweep time)")
BOOTSTRAP_METHOD = "percentile; numpy PCG64 seeded [seed, crc32(label)]; quantile inverted_cdf"
EXCLUSION_ORDER = ("pre-season", "high-stakes", "follower-called", "debut")
ParticipationMap = Mapping[str, Mapping[str, str]]  # date -> agent -> status


@dataclass(frozen=True)
class Stats:
    resamples: int
    seed: int
    level: float = 0.95

    def as_json(self) -> JsonObject:
        return {"procedure": "league", "method": BOOTSTRAP_METHOD, "resamples": self.resamples, "seed": self.seed,
                "level": self.level}


def r4(x: float) -> float:
    return round(x, 4)


def _units(sweeps: Sequence[Mapping[str, Any]], resolutions: Mapping[str, str]) -> dict[tuple[str, str], Any]:
    """(date, market id) -> (outcomes, prices, winner) for every resolved swept market."""
    out = {}
    for doc in sweeps:
        for m in doc["markets"]:
            winner = resolutions.get(str(m["id"]))
            if winner is not None and winner in m["outcomes"]:
                out[(doc["date"], str(m["id"]))] = (m["outcomes"], m["prices_at_sweep"], winner)
    return out


def _offered(agent: str, sweeps: Sequence[Mapping[str, Any]], units: Mapping[tuple[str, str], Any],
             participation: ParticipationMap | None) -> int:
    total = 0
    for doc in sweeps:
        date = doc["date"]
        if participation is not None and date in participation:
            took_part = participation[date].get(agent) in ("ok", "failed")
        else:
            took_part = any(f["agent"] == agent for f in doc["forecasts"])
        if took_part:
            total += sum(1 for key in units if key[0] == date)
    return total


def agent_row(agent: str, name: str, sweeps: Sequence[Mapping[str, Any]], units: Mapping[tuple[str, str], Any],
              crowd: Mapping[tuple[str, str], float], participation: ParticipationMap | None,
              stats: Stats) -> dict[str, Any]:
    scores: list[tuple[float, float]] = []
    for doc in sweeps:
        for f in doc["forecasts"]:
            key = (doc["date"], str(f["market_id"]))
            if f["agent"] == agent and key in units:
                scores.append((brier(clamp_normalise(f["probabilities"]), units[key][2]), crowd[key]))
    offered = _offered(agent, sweeps, units, participation)
    row: dict[str, Any] = {"agent": agent, "name": name, "n": len(scores), "offered": offered,
                           "coverage": r4(len(scores) / offered) if offered else None,
                           "brier": None, "ci": None, "vs_crowd": None}
    if scores:
        xs, cs = [s for s, _ in scores], [c for _, c in scores]
        row["brier"] = r4(mean(xs))
        row["ci"] = [r4(v) for v in bootstrap_ci(xs, resamples=stats.resamples, seed=stats.seed, label=agent)]
        vs = versus_crowd(xs, cs, resamples=stats.resamples, seed=stats.seed, label=agent)
        row["vs_crowd"] = {"mean_diff": r4(vs.mean_diff), "ci": [r4(vs.ci[0]), r4(vs.ci[1])],
                           "sign_test_p": r4(vs.sign_test_p), "verdict": vs.verdict}
    return row


def forecast_accuracy(sweeps: Sequence[Mapping[str, Any]], resolutions: Mapping[str, str],
                      agents: Sequence[tuple[str, str]], stats: Stats,
                      participation: ParticipationMap | None = None) -> dict[str, Any]:
    units = _units(sweeps, resolutions)
    crowd = {k: brier(crowd_forecast(o, p), w) for k, (o, p, w) in units.items()}
    rows = [agent_row(a, name, sweeps, units, crowd, participation, stats) for a, name in agents]
    ranked = sorted(rows, key=lambda r: (r["brier"] is None, r["brier"] or 0.0, r["agent"]))
    for i, r in enumerate(ranked, 1):
        r["rank"] = i if r["brier"] is not None else None
    cx = list(crowd.values())
    crowd_row: dict[str, Any] = {"name": "The Crowd", "n": len(cx), "brier": r4(mean(cx)) if cx else None,
                                 "ci": None}
    if cx:
        crowd_row["ci"] = [r4(v) for v in bootstrap_ci(cx, resamples=stats.resamples, seed=stats.seed,
                                                       label="crowd")]
    swept = {(doc["date"], str(m["id"])) for doc in sweeps for m in doc["markets"]}
    return {"agents": ranked, "crowd": crowd_row, "markets_resolved": len(units),
            "markets_open": len(swept) - len(units), "sweeps": len(sweeps), "metric": METRIC,
            "bootstrap": stats.as_json()}


# ----------------------------------------------------------------------------- betting record
def exclusions(flags: Mapping[str, bool]) -> list[str]:
    names = {"pre_season": "pre-season", "high_stakes": "high-stakes", "follower_called": "follower-called",
             "debut": "debut"}
    return [names[k] for k in names if flags.get(k)]


def crowd_pick(outcomes: Sequence[str], prices: Sequence[float], winner: str | None, stake: float) -> JsonObject:
    """The crowd's notional bet: the stake on the unique favourite at start, filled at its price."""
    pick: JsonObject = {"outcome": None, "price": None, "won": None, "pnl": None}
    if not prices or len(prices) != len(outcomes):
        return pick
    top = max(prices)
    if list(prices).count(top) > 1 or not 0 < top < 1:
        return pick
    pick["outcome"], pick["price"] = outcomes[list(prices).index(top)], top
    if winner is not None:
        pick["won"] = pick["outcome"] == winner
        pick["pnl"] = round(stake / top - stake, 2) if pick["won"] else -float(stake)
    return pick


def _agent_record(agent: str, name: str, counted: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    played = wins = losses = no_bets = 0
    net = staked = 0.0
    entries: list[float] = []
    for r in counted:
        e = next((e for e in r["entries"] if e["agent"] == agent), None)
        if e is None:
            continue
        played += 1
        if e["outcome"] is None:
            no_bets += 1
            continue
        wins += e["outcome"] == r["winner"]
        losses += e["outcome"] != r["winner"]
        net += e["pnl"] or 0.0
        staked += e["stake_filled"] or 0.0
        entries.append(e["avg_price"])
    return {"agent": agent, "name": name, "played": played, "wins": wins, "losses": losses, "no_bets": no_bets,
            "win_rate": r4(wins / played) if played else 0.0, "net_pnl": round(net, 2), "staked": round(staked, 2),
            "roi": r4(net / staked) if staked else 0.0, "avg_entry": r4(mean(entries)) if entries else None}


def betting_record(rounds: Sequence[Mapping[str, Any]], voided: Sequence[Mapping[str, Any]],
                   agents: Sequence[tuple[str, str]]) -> dict[str, Any]:
    excluded: dict[str, int] = {}
    for r in rounds:
        if r["excluded"]:
            first = min(r["excluded"], key=EXCLUSION_ORDER.index)
            excluded[first] = excluded.get(first, 0) + 1
    if voided:
        excluded["infra"] = len(voided)
    counted = [r for r in rounds if r["state"] == "resolved" and not r["excluded"]]
    rows = [_agent_record(a, name, counted) for a, name in agents]
    for i, row in enumerate(sorted(rows, key=lambda x: (-x["net_pnl"], x["agent"])), 1):
        row["rank"] = i
    crowd = [r["crowd"] for r in counted if r["crowd"]["outcome"] is not None]
    crowd_wins = sum(1 for c in crowd if c["won"])
    return {
        "rounds_counted": len(counted), "rounds_excluded": dict(sorted(excluded.items())),
        "agents": sorted(rows, key=lambda x: x["rank"]),
        "crowd": {"name": "The Crowd", "played": len(crowd), "wins": crowd_wins, "losses": len(crowd) - crowd_wins,
                  "net_pnl": round(sum(c["pnl"] for c in crowd), 2)},
        "voided": [dict(v) for v in voided],
    }

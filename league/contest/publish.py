"""Publishing the contest's open data from its book (the forecasts files are written at seal time).

Files (docs/contest.md): ``sealed.json`` + ``forecasts/<date>.json`` (sweep job), and here
``sweeps.json`` (who took part, parse reports, refused markets), ``resolutions.json``,
``rounds.json``, ``bets.csv``, ``cards/<round>.json`` (the public per-round cards),
``refusals.json`` (markets refused for rounds, with reasons), ``changelog.json`` and
``metrics.json``. A voided round posts nothing: it appears only as a count and an id in
``metrics.json``'s ``betting_record.voided``.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from league.clock import parse_iso
from league.contest import ledger as L
from league.contest.context import ContestContext
from league.contest.embargo import released_bytes
from league.contest.metrics import Stats, betting_record, crowd_pick, exclusions, forecast_accuracy
from league.contest.verify import BOOK_NAME
from league.seatcore.files import read_json, write_atomic, write_json

BET_COLUMNS = ("round_id", "market_id", "question", "state", "winner", "agent", "outcome", "avg_price",
               "shares_filled", "stake_filled", "confidence", "decided_s", "exit_reason", "model_reported",
               "payout", "pnl", "rationale", "quote")


def sweeps_report(ctx: ContestContext) -> list[dict[str, Any]]:
    replies: dict[str, list[dict[str, Any]]] = {}
    for r in ctx.ledger.contents(L.SWEEP_REPLY):
        replies.setdefault(r["date"], []).append(
            {"agent": r["agent"], "status": r["status"], "detail": r["detail"], "model": r["model"],
             "forecasts": len(r["forecasts"]), "dropped": r["report"]["dropped"], "missing": r["report"]["missing"],
             "ignored": r["report"]["ignored"]})
    out = [{"date": s["date"], "markets": len(s["markets"]), "ask_sha256": s["ask_sha256"],
            "runs": replies.get(s["date"], []), "refused": s["refused"]}
           for s in ctx.ledger.contents(L.SWEEP_OPEN)]
    # a sweep voided by the pre-batch self-check: no ask, nobody offered anything (infra, not a missed forecast)
    out += [{"date": v["date"], "markets": 0, "ask_sha256": None, "runs": [], "refused": [], "void": v["reason"],
             "failed_checks": v["failed_checks"]} for v in ctx.ledger.contents(L.SWEEP_VOID)]
    return sorted(out, key=lambda s: s["date"], reverse=True)


def resolutions(ctx: ContestContext) -> list[dict[str, Any]]:
    return sorted(({"market_id": r["market_id"], "winner": r["winner"]} for r in ctx.ledger.contents(L.RESOLUTION)),
                  key=lambda r: r["market_id"])


def _entry(agent: str, names: Mapping[str, str], bet: Mapping[str, Any] | None, closed: Mapping[str, Any],
           winner: str | None) -> dict[str, Any]:
    e: dict[str, Any] = {"agent": agent, "name": names.get(agent, agent), "outcome": None, "avg_price": None,
                         "shares_filled": None, "stake_filled": None, "confidence": None, "rationale": None,
                         "quote": None, "decided_s": None, "exit_reason": closed.get("state"),
                         "model_reported": closed.get("model"), "payout": None, "pnl": None, "won": None}
    if bet is not None:
        e.update(outcome=bet["outcome"], avg_price=round(bet["avg_price"], 4), shares_filled=round(bet["shares"], 6),
                 stake_filled=round(bet["spent"], 6), confidence=bet["confidence"], rationale=bet["rationale"],
                 quote=bet["quote"], decided_s=bet["decided_s"])
    if winner is not None:
        payout = bet["shares"] if bet is not None and bet["outcome"] == winner else 0.0
        e.update(payout=round(payout, 2), pnl=round(payout - (bet["spent"] if bet else 0.0), 2),
                 won=bet is not None and bet["outcome"] == winner)
    return e


def round_records(ctx: ContestContext) -> list[dict[str, Any]]:
    names = {a.agent: a.name for a in ctx.config.agents}
    winners = {r["market_id"]: r for r in ctx.ledger.contents(L.RESOLUTION)}
    resolved_at = {line.content["market_id"]: line.at for line in ctx.ledger.lines(L.RESOLUTION)}
    void = {r["round_id"] for r in ctx.ledger.contents(L.ROUND_VOID)}
    closed = {r["round_id"]: {e["agent"]: e for e in r["entries"]} for r in ctx.ledger.contents(L.ROUND_CLOSED)}
    bets = {(b["round_id"], b["agent"]): b for b in ctx.ledger.contents(L.BET)}
    out = []
    for r in ctx.ledger.contents(L.ROUND_OPEN):
        rid = r["round_id"]
        if rid in void or rid not in closed:
            continue
        winner = winners[r["market_id"]]["winner"] if r["market_id"] in winners else None
        entries = [_entry(a, names, bets.get((rid, a)), closed[rid].get(a, {}), winner) for a in r["agents"]]
        picks = {e["outcome"] for e in entries if e["outcome"]}
        out.append({
            "round_id": rid, "market_id": r["market_id"], "slug": r["slug"], "question": r["question"],
            "outcomes": r["outcomes"], "prices_at_start": r["prices_at_start"], "end_date": r["closes"],
            "started_at": parse_iso(r["opened_at"]).timestamp(), "category": r["category"],
            "state": "resolved" if winner is not None else "running", "winner": winner,
            "resolved_at": parse_iso(resolved_at[r["market_id"]]).timestamp() if winner is not None else None,
            "excluded": exclusions(r["flags"]), "exhibition": bool(exclusions(r["flags"])),
            "high_stakes": bool(r["flags"].get("high_stakes")), "flags": r["flags"], "split": len(picks) > 1,
            "stake": r["stake"], "entries": entries,
            "crowd": crowd_pick(r["outcomes"], r["prices_at_start"], winner, r["stake"]),
        })
    return sorted(out, key=lambda x: x["round_id"], reverse=True)


def bets_csv(rounds: list[dict[str, Any]]) -> bytes:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(BET_COLUMNS)
    for r in rounds:
        for e in r["entries"]:
            writer.writerow(["" if (v := (e[c] if c in e else r.get(c))) is None else v for c in BET_COLUMNS])
    return buf.getvalue().encode("utf-8")


def card(r: Mapping[str, Any]) -> dict[str, Any]:
    """The public card of one round: per agent, what it did and said, and how it went."""
    return {"round_id": r["round_id"], "market_id": r["market_id"], "question": r["question"], "state": r["state"],
            "winner": r["winner"], "excluded": r["excluded"],
            "cards": [{"agent": e["agent"], "name": e["name"], "model": e["model_reported"], "outcome": e["outcome"],
                       "price": e["avg_price"], "confidence": e["confidence"], "rationale": e["rationale"],
                       "quote": e["quote"], "pnl": e["pnl"]} for e in r["entries"]]}


def voided(ctx: ContestContext) -> list[dict[str, Any]]:
    at = {line.content["round_id"]: line.at for line in ctx.ledger.lines(L.ROUND_VOID)}
    return [{"round_id": v["round_id"], "reason": v["reason"], "at": at[v["round_id"]]}
            for v in ctx.ledger.contents(L.ROUND_VOID)]


def participation(sweeps: list[dict[str, Any]]) -> dict[str, dict[str, str]]:
    """Who took part in each sweep (a voided sweep, which offered nothing, has no say)."""
    return {s["date"]: {run["agent"]: run["status"] for run in s["runs"]} for s in sweeps if "void" not in s}


def publish(ctx: ContestContext) -> dict[str, Any]:
    """Write every derived public file and return ``metrics.json``'s content."""
    public, cfg = ctx.public, ctx.config
    sweeps = sweeps_report(ctx)
    write_json(public / "sweeps.json", sweeps)
    resolved = resolutions(ctx)
    write_json(public / "resolutions.json", resolved)
    rounds = round_records(ctx)
    write_json(public / "rounds.json", rounds)
    write_atomic(public / "bets.csv", bets_csv(rounds))
    for r in rounds:
        write_json(public / "cards" / f"{r['round_id']}.json", card(r))
    write_json(public / "refusals.json", [r for r in ctx.ledger.contents(L.REFUSED) if r["context"] == "rounds"])
    write_json(public / "changelog.json", [e.model_dump(mode="json") for e in cfg.changelog])
    sealed: list[dict[str, Any]] = (read_json(public / "sealed.json", what="contest file")
                                    if (public / "sealed.json").exists() else [])
    docs = [read_json(public / e["file"], what="contest file") for e in sealed]
    agents = [(a.agent, a.name) for a in cfg.agents]
    stats = Stats(cfg.stats.resamples, cfg.stats.seed, cfg.stats.level)
    metrics = {
        "benchmark": cfg.benchmark, "methodology_version": cfg.methodology_version, "season": cfg.season,
        "season_start": cfg.season_start.strftime("%Y-%m-%dT%H:%M:%SZ"), "rules_sha256": cfg.rules_sha256(),
        "generated_at": ctx.clock.now().timestamp(),
        "contestants": {a.agent: {"name": a.name, "model": a.model, "model_id": a.model_id,
                                  "reasoning": a.reasoning} for a in cfg.agents},
        "forecast_accuracy": forecast_accuracy(docs, {r["market_id"]: r["winner"] for r in resolved}, agents,
                                               stats, participation(sweeps)),
        "sealed_forecasts": sealed,
        "betting_record": betting_record(rounds, voided(ctx), agents),
    }
    write_json(public / "metrics.json", metrics)
    if ctx.ledger.path.resolve() != (public / BOOK_NAME).resolve():
        data = ctx.ledger.path.read_bytes()  # the ledger writes whole lines; held lines stay out (embargo.py)
        write_atomic(public / BOOK_NAME, released_bytes(data[: data.rfind(b"\n") + 1]))
    return metrics


def public_dir(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    return path

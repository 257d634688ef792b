"""A small, reproducible data folder for the publishing, API and page tests (and the benchmarks).

Writes a real sealed book (run, answer and score lines through ``league.book.Book``), a real ask
chain, ask texts under their hashes, and in ``public/`` a ``council-forecasts.csv`` with every
column of open-data.md (plus the contract columns the conformance checker reads) and a
``council-league.json`` whose ``models`` figures are computed HERE, independently of the code under
test, with plain arithmetic.
"""

from __future__ import annotations

import csv
import hashlib
import json
import random
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

from league.book import Book
from league.clock import SimulatedClock, iso_seconds

COLUMNS = (
    "run_id session seat model mode line sealed_at status asset horizon action action_word prob_up exp_pct "
    "target invalidation ref close actual_pct draw source_domains source_urls why_missing run_role "
    "seat_versions_in_run line_kind reference_at same_event cell_status attempt event_id event_id_v2 "
    "event_reference_at event_end_at methodology_version rule resolver_version reference_rule price_provider "
    "price_symbol"
).split()
RULE = "close_gt_ref"
REF_RULE = "first_1m_bar_at_or_after_reference_at__last_1m_bar_at_or_before_end_at__v1"
SYMBOLS = {"SPX": "^GSPC", "NDX": "^NDX", "GOLD": "GC=F", "BTC": "BTC-USD", "VIX": "^VIX", "WTI": "CL=F"}
HORIZON_DAYS = {"1d": 1, "1w": 7, "1m": 30, "6m": 182}


@dataclass
class Season:
    data: Path
    public: Path
    book: Path
    sessions: list[str]
    seats: list[str]
    assets: list[str]
    horizons: list[str]
    rows: list[dict[str, str]] = field(default_factory=list)
    models: list[dict[str, Any]] = field(default_factory=list)


def _event_id(contract: dict[str, str], keys: list[str], prefix: str) -> str:
    text = json.dumps({k: contract[k] for k in keys}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return prefix + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _sessions(count: int) -> list[date]:
    day, out = date(2026, 1, 5), []
    while len(out) < count:
        if day.weekday() < 5:
            out.append(day)
        day += timedelta(days=1)
    return out


def write_season(data: Path, *, sessions: int = 12, seats: tuple[str, ...] = ("alpha", "beta", "gamma", "_coin"),
                 assets: tuple[str, ...] = ("SPX", "NDX", "GOLD", "BTC"), horizons: tuple[str, ...] = ("1d", "1w"),
                 seed: int = 7) -> Season:
    rng = random.Random(seed)
    days = _sessions(sessions)
    clock = SimulatedClock(datetime.combine(days[0], datetime.min.time(), tzinfo=UTC))
    season = Season(data, data / "public", data / "books" / "council-book.jsonl", [d.isoformat() for d in days],
                    list(seats), list(assets), list(horizons))
    season.public.mkdir(parents=True, exist_ok=True)
    prices = {a: 100.0 + 10 * i for i, a in enumerate(assets)}
    with Book(season.book, clock) as book, Book(data / "books" / "asks.jsonl", clock) as asks:
        asks.append("counting_rule", {"rule": "the scheduled morning run counts"})
        for day in days:
            _one_session(season, book, asks, clock, rng, day, prices)
    _write_forecasts(season)
    _write_league(season)
    return season


def _one_session(season: Season, book: Book, asks: Book, clock: SimulatedClock, rng: random.Random,
                 day: date, prices: dict[str, float]) -> None:
    session = day.isoformat()
    run_id = f"run-{session}-am"
    ask_text = f"# Ask for {session}\nForecast {', '.join(season.assets)}.\n".encode()
    ask_sha = hashlib.sha256(ask_text).hexdigest()
    (season.data / "asks").mkdir(parents=True, exist_ok=True)
    (season.data / "asks" / f"{ask_sha}.md").write_bytes(ask_text)
    clock.set(datetime(day.year, day.month, day.day, 13, 30, tzinfo=UTC))
    asks.append("ask", {"run_id": run_id, "ask_sha256": ask_sha, "seats": season.seats})
    book.append("run", {"run_id": run_id, "session": session, "ask_sha256": ask_sha, "snapshot_sha256": "0" * 64,
                        "roster": season.seats, "methodology": {"version": "m1"}, "crowd": {}})
    reference_at = datetime(day.year, day.month, day.day, 14, 30, tzinfo=UTC)
    refs = {a: round(prices[a], 2) for a in season.assets}
    answer_lines = []
    for k, seat in enumerate(season.seats):
        clock.set(datetime(day.year, day.month, day.day, 13, 31 + k, tzinfo=UTC))
        items = {a: {h: {"prob_up": 50 if seat == "_coin" else rng.randint(20, 80), "action": "hold"}
                     for h in season.horizons} for a in season.assets}
        silent = seat == "gamma" and day.day % 5 == 0
        line = book.append("answer", {"seat": seat, "model": f"{seat}-model", "version": "1", "mode": "high",
                                      "items": {} if silent else items, "years": {}, "own_sha256": "1" * 64,
                                      "ask_sha256": ask_sha, "booked_at": iso_seconds(clock.now()),
                                      "run_id": run_id, "attempt": 1})
        answer_lines.append((seat, line, silent, items))
    closes = {a: round(refs[a] * (1 + rng.uniform(-0.02, 0.02)), 2) for a in season.assets}
    prices.update(closes)
    clock.set(datetime(day.year, day.month, day.day, 21, 5, tzinfo=UTC))
    book.append("score", {"run_id": run_id, "session": session, "of": [ln.n for _, ln, _, _ in answer_lines],
                          "markets": {a: {"ref": refs[a], "close": closes[a]} for a in season.assets}})
    for seat, line, silent, items in answer_lines:
        for asset in season.assets:
            for horizon in season.horizons:
                season.rows.append(_row(season, session, run_id, seat, line.n, line.at, silent,
                                        items[asset][horizon]["prob_up"], asset, horizon, refs[asset],
                                        closes[asset] if horizon == "1d" else round(closes[asset] * 1.001, 2),
                                        reference_at))


def _row(season: Season, session: str, run_id: str, seat: str, n: int, at: str, silent: bool, p: int,
         asset: str, horizon: str, ref: float, close: float, reference_at: datetime) -> dict[str, str]:
    end_at = reference_at + timedelta(days=HORIZON_DAYS[horizon], hours=6, minutes=30)
    contract = {"asset": asset, "horizon": horizon, "reference_at": iso_seconds(reference_at),
                "end_at": iso_seconds(end_at), "rule": RULE, "resolver_version": "r1", "reference_rule": REF_RULE,
                "price_provider": "yahoo_finance_chart_v8_1m", "price_symbol": SYMBOLS.get(asset, asset)}
    keys = list(contract)
    row = {c: "" for c in COLUMNS}
    row.update(run_id=run_id, session=session, seat=seat, model=f"{seat}-model", mode="high", line=str(n),
               sealed_at=at, status="no_answer" if silent else "counted", asset=asset, horizon=horizon,
               action="" if silent else "hold", prob_up="" if silent else str(p), ref=f"{ref}", close=f"{close}",
               actual_pct=f"{(close / ref - 1) * 100:.10f}", draw="0", why_missing="no_answer" if silent else "",
               run_role="counted", seat_versions_in_run="1", line_kind="answer",
               reference_at=iso_seconds(reference_at), same_event="true",
               cell_status="" if silent else ("explicit_50" if p == 50 else "elicited"), attempt="1",
               event_id=_event_id(contract, keys[:5], "ev1-"), event_id_v2=_event_id(contract, keys, "ev2-"),
               event_reference_at=contract["reference_at"], event_end_at=contract["end_at"],
               methodology_version="m1", rule=RULE, resolver_version="r1", reference_rule=REF_RULE,
               price_provider=contract["price_provider"], price_symbol=contract["price_symbol"])
    return row


def _write_forecasts(season: Season) -> None:
    with open(season.public / "council-forecasts.csv", "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(season.rows)


def _write_league(season: Season) -> None:
    """Figures computed with plain arithmetic: mean of (p/100 - [close > ref])^2 over counted rows."""
    for seat in season.seats:
        for horizon in season.horizons:
            scores, sessions = [], set()
            for r in season.rows:
                if r["seat"] == seat and r["horizon"] == horizon and r["status"] == "counted":
                    outcome = 1.0 if float(r["close"]) > float(r["ref"]) else 0.0
                    scores.append((float(r["prob_up"]) / 100 - outcome) ** 2)
                    sessions.add(r["session"])
            season.models.append({"seat": seat, "horizon": horizon, "brier": round(sum(scores) / len(scores), 6),
                                  "n": len(scores), "sessions": len(sessions), "eligible": len(scores) >= 30})
    league = {"generated_at": "2026-01-30T00:00:00Z", "models": season.models}
    (season.public / "council-league.json").write_text(json.dumps(league, indent=1), encoding="utf-8")

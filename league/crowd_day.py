"""The crowd in the league day: which provider, resolution lines after the close, the §8 comparison.

Quotes are recorded with the snapshot and sealed in the run line (``league.day.crowd_quotes``); the ask
lists the contracts and their rules but never a price. After each close, every sealed quote whose
contract has resolved gets one ``crowd`` line; unresolved ones are asked again at later closes. The
published comparison (``council-league.json`` → ``crowd``) is computed from sealed lines only.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import Any

import structlog

from league.season import League

log = structlog.get_logger(__name__)


def make_crowd(lg: League) -> Any:
    """The configured provider: none (default), polymarket (+ Kalshi fallback), or recorded files."""
    kind = lg.config.settings.crowd.provider
    if kind == "none":
        return None
    if kind == "recorded":
        from league.crowd.recorded import RecordedCrowd

        return RecordedCrowd(lg.data_dir / "crowd")
    from league.crowd.kalshi import CombinedCrowd, KalshiCrowd
    from league.crowd.polymarket import PolymarketCrowd

    kalshi = KalshiCrowd(previous_close=lambda code, day: _previous_close(lg, code, day))
    return CombinedCrowd(PolymarketCrowd(), kalshi)


def _previous_close(lg: League, code: str, day: date) -> float:
    spec = lg.config.markets.by_code()[code]
    prev = lg.calendar.previous_session(day)
    closes = lg.prices.daily_closes(spec.symbol, prev, prev)
    if not closes:
        from league.crowd.interface import CrowdError

        raise CrowdError(f"no previous close of {code} for {day}")
    return float(closes[-1][1])


def synthetic_crowd(lg: League, seed: int) -> Any:
    """Demo only: seeded quotes for up to 8 markets, resolved by the replay's own 1d outcome."""
    from league.crowd.recorded import SyntheticCrowd

    return SyntheticCrowd(seed, resolver=lambda code, day: _replay_outcome(lg, code, day))


def _replay_outcome(lg: League, code: str, day: date) -> bool | None:
    from league.markettime import event_contract
    from league.scoring_day import event_outcome

    spec = lg.config.markets.by_code().get(code)
    if spec is None:
        return None
    if not spec.daily:
        return _day_over_day(lg, spec, day)
    return event_outcome(lg, code, "1d", event_contract(lg.calendar, spec, day, "1d", None))


def _day_over_day(lg: League, spec: Any, day: date) -> bool | None:
    """24x7 markets: the 16:00 ET price of ``day`` against the day before's (the crowd's own terms)."""
    from datetime import time, timedelta

    from league.markettime import et_time
    from league.prices.reference import terminal_price

    prices = []
    for d in (day - timedelta(days=1), day):
        end = et_time(d, time(16, 0))
        bars = lg.prices.bars(spec.symbol, end - timedelta(hours=1), end + timedelta(minutes=1))
        point = terminal_price(bars, end, since=end - timedelta(hours=1)) if bars else None
        if point is None:
            return None
        prices.append(point.price)
    return prices[1] > prices[0]


# ------------------------------------------------------------------------- resolution
def resolved_ids(lg: Any) -> set[tuple[str, str]]:
    return {(str(x.get("venue")), str(x.get("contract_id"))) for x in lg.index.of_kind("crowd")}


def resolve_crowd(lg: League, session: str) -> int:
    """Seal a ``crowd`` line for every sealed quote (this session or earlier) that has now resolved."""
    if lg.crowd is None:
        return 0
    from league.crowd.interface import CrowdQuote

    done, sealed = resolved_ids(lg), 0
    for run in lg.index.of_kind("run"):
        if run["session"] > session:
            continue
        for obj in _quotes(run):
            if (obj["venue"], obj["contract_id"]) in done:
                continue
            outcome = _resolution(lg, CrowdQuote.from_json(obj))
            if outcome is not None:
                lg.append("crowd", {"session": obj["session"], "market": obj["market"], "venue": obj["venue"],
                                    "contract_id": obj["contract_id"], "resolved_up": outcome, "run_id": run["run_id"]})
                done.add((obj["venue"], obj["contract_id"]))
                sealed += 1
    return sealed


def _resolution(lg: League, quote: Any) -> bool | None:
    try:
        result = lg.crowd.resolution(quote)
    except Exception as exc:  # noqa: BLE001 - asked again at the next close
        log.warning("crowd.resolution_failed", contract=quote.contract_id, error=str(exc))
        return None
    return None if result is None else bool(result)


# ------------------------------------------------------------------------- comparison
def comparison_rows(lg: Any) -> list[Any]:
    """One row per seat × crowd contract: its sealed crowd_up, the sealed price, both outcomes."""
    from league.crowd.compare import CrowdRow

    outcomes = {(x.get("venue"), x.get("contract_id")): x.get("resolved_up") for x in lg.index.of_kind("crowd")}
    league_up = _league_outcomes(lg)
    rows = []
    for run in lg.index.of_kind("run"):
        if run.get("role") != "counted":
            continue
        answers = [a for a in lg.index.answers({run["run_id"]}) if a.get("status") == "answered"]
        for q in _quotes(run):
            for a in answers:
                cell = _cell(a, q["market"])
                if cell.get("crowd_up") is None or a["seat"].startswith("_"):
                    continue
                rows.append(CrowdRow(session=date.fromisoformat(run["session"]), market=q["market"], seat=a["seat"],
                                     crowd_up=float(cell["crowd_up"]), crowd_price=float(q["price"]),
                                     crowd_outcome=outcomes.get((q["venue"], q["contract_id"])),
                                     league_outcome=league_up.get((run["session"], q["market"])),
                                     volume_usd=float(q["volume_usd"])))
    return rows


def _quotes(run: dict[str, Any]) -> list[dict[str, Any]]:
    """The sealed quotes of a run line (anything else in `crowd` is not a quote and is passed over)."""
    keys = ("market", "venue", "contract_id", "price", "volume_usd")
    return [q for q in run.get("crowd") or [] if isinstance(q, dict) and all(k in q for k in keys)]


def _cell(answer: dict[str, Any], market: str) -> dict[str, Any]:
    cell = ((answer.get("items") or {}).get(market) or {}).get("1d")
    return cell if isinstance(cell, dict) else {}


def _league_outcomes(lg: Any) -> dict[tuple[str, str], bool | None]:
    out: dict[tuple[str, str], bool | None] = {}
    for line in lg.index.of_kind("score"):
        for m in line.get("markets") or []:
            if isinstance(m, dict) and not m.get("late_ref") and m.get("horizon") == "1d":
                out.setdefault((line["session"], m["market"]), m.get("up"))
    return out


def comparison(lg: Any) -> dict[str, Any]:
    """The §8 section of council-league.json: per seat and tier, its crowd_up Brier against the crowd's."""
    from dataclasses import asdict

    from league.crowd.compare import compare

    rows = comparison_rows(lg)
    return {"method": "question by question on the crowd's own terms (scoring.md §8); primary = sealed volume "
                      ">= $1,000, thin reported apart; a gap <= 2d is not read as an advantage",
            "rows": len(rows), "seats": [_jsonable(asdict(s)) for s in compare(rows)]}


def _jsonable(obj: dict[str, Any]) -> dict[str, Any]:
    return json.loads(json.dumps(obj, default=str))  # type: ignore[no-any-return]


def add_to_league_json(data_dir: Path, out: Path) -> None:
    """Publisher step: merge the crowd comparison into council-league.json (from the sealed book)."""
    from types import SimpleNamespace

    from league.book.index import BookIndex

    path = out / "council-league.json"
    if not path.is_file():
        return
    index = BookIndex.of_book(Path(data_dir) / "books" / "council-book.jsonl")
    doc = json.loads(path.read_text(encoding="utf-8"))
    doc["crowd"] = comparison(SimpleNamespace(index=index))
    path.write_text(json.dumps(doc, sort_keys=True, indent=1), encoding="utf-8")

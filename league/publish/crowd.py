"""The crowd comparison of scoring.md §8 in ``council-league.json``, from sealed lines only.

One row per seat × crowd contract: the seat's sealed ``crowd_up``, the crowd's sealed price, both
outcomes; per seat and tier, its Brier score against the crowd's (:mod:`league.crowd.compare`); and per
question (paper §4.9) both probabilities, both Briers, who was right and the crowd's price at the
minute the seat's answer was sealed (from the ``crowd`` line). ``available`` is true once any run line
sealed a quote.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import date
from pathlib import Path
from typing import TypedDict

from league.book.index import Body, BodyIndex, BookIndex
from league.book.shared import cut_index
from league.crowd.compare import CrowdRow, at_answer_minute, compare, question, sealed_quotes
from league.jsonvalue import Json, JsonObject, as_float, flag, items, obj
from league.records import Sealed, as_json

#: What the comparison reads of the book; the publisher parses only these lines (league.book.shared).
COMPARED_KINDS = ("crowd", "run", "answer", "score")


#: What the index is keyed by (league.book.index.BodyIndex.add_body): kept in every cut line.
_KEYS = ("kind", "session", "run_id")


def compared_fields(content: Body) -> Body:
    """A line cut to what the comparison reads of it (:func:`comparison_rows`, :func:`comparison`): a run's
    role and crowd quotes, an answer's seat, status and each market's one-day cell's ``crowd_up``, a score
    line's one-day events' market, late flag, horizon and outcome; a crowd line whole. A field a line lacks stays
    absent and a value not in the expected shape is kept as it is, so the comparison reads the same and fails
    the same. Why: the answers' and score lines' other fields are most of what the step held."""
    kind = content.get("kind")
    if kind not in ("run", "answer", "score"):
        return content
    fields = {"run": ("role", "crowd"), "answer": ("seat", "status"), "score": ()}[str(kind)]
    out: Body = {k: content[k] for k in (*_KEYS, *fields) if k in content}
    if kind == "answer" and "items" in content:
        out["items"] = _day_cells(content["items"])
    if kind == "score" and "markets" in content:
        markets = content["markets"]
        out["markets"] = [_score_event(m) for m in markets] if isinstance(markets, list) else markets
    return out


def _score_event(event: Json) -> Json:
    """A score line's event cut to what :func:`_league_outcomes` reads (anything but an object kept as it is)."""
    if not isinstance(event, dict):
        return event
    return {k: event[k] for k in ("market", "late_ref", "horizon", "up") if k in event}


def _day_cells(cells_of: Json) -> Json:
    """An answer's items cut to what :func:`_cell` reads: each market's ``1d`` cell's ``crowd_up``."""
    if not isinstance(cells_of, dict):
        return cells_of
    out: JsonObject = {}
    for market, cells in cells_of.items():
        if not isinstance(cells, dict) or not cells:
            out[market] = cells
            continue
        cell = cells.get("1d")
        if isinstance(cell, dict):
            out[market] = {"1d": {"crowd_up": cell["crowd_up"]} if "crowd_up" in cell else {}}
        else:
            out[market] = {"1d": cell} if "1d" in cells else {}
    return out


def _loose(line: Body | Sealed) -> Body:
    """A (cut) line as the comparison reads it: JSON of any shape, checked where it is used (a value not in the
    expected shape reads as the league's own writer never writes it, and the comparison fails the same)."""
    return as_json(line) if isinstance(line, Sealed) else line


def comparison_rows(index: BodyIndex | BookIndex) -> list[CrowdRow]:
    """One row per seat × crowd contract: its sealed crowd_up, the sealed price, both outcomes."""
    lines = {(x.get("venue"), x.get("contract_id")): x for x in map(_loose, index.of_kind("crowd"))}
    outcomes = {k: flag(x.get("resolved_up")) for k, x in lines.items()}
    league_up = _league_outcomes(index)
    rows = []
    for run in map(_loose, index.of_kind("run")):
        if run.get("role") != "counted":
            continue
        answers = [a for a in map(_loose, index.answer_items({_str(run["run_id"])}))
                   if a.get("status") == "answered"]
        for q in map(_loose, sealed_quotes(items(run.get("crowd")))):
            for a in answers:
                market = q["market"]  # JSON keys are text: a market of another type names no cell
                cell = _cell(a, market) if isinstance(market, str) else {}
                if not isinstance(market, str) or cell.get("crowd_up") is None:
                    continue
                seat = _str(a["seat"])
                if seat.startswith("_"):
                    continue
                rows.append(CrowdRow(session=date.fromisoformat(_str(run["session"])), market=market, seat=seat,
                                     crowd_up=as_float(cell["crowd_up"]), crowd_price=as_float(q["price"]),
                                     crowd_outcome=outcomes.get((q["venue"], q["contract_id"])),
                                     league_outcome=league_up.get((run["session"], q["market"])),
                                     volume_usd=as_float(q["volume_usd"]), venue=str(q["venue"]),
                                     contract_id=str(q["contract_id"]),
                                     **_at_answer(lines.get((q["venue"], q["contract_id"])), seat)))
    return rows


def _str(value: Json) -> str:
    """A field the comparison needs as text; any other value stops it, as a malformed line must."""
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {type(value).__name__}")
    return value


class _AtAnswer(TypedDict):
    """The crowd's price at a seat's answer minute, as :class:`CrowdRow` takes it."""

    price_at_answer: float | None
    answer_minute: str


def _get(value: Json | None, key: str) -> Json | None:
    """``(value or {}).get(key)``: absent for an empty value, and a value of another shape fails as that does
    (AttributeError), whether the line is cut or whole (tests/unit/publish/test_publish_kept.py)."""
    if not value:
        return None
    if not isinstance(value, dict):
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'get'")
    return value.get(key)


def _at_answer(line: Body | None, seat: str) -> _AtAnswer:
    """The crowd price at the seat's answer minute, as its ``crowd`` line sealed it (if any)."""
    got = _get(_get(line, "at_answer"), seat)
    price = _get(got, "price")
    return {"price_at_answer": float(price) if isinstance(price, int | float) else None,
            "answer_minute": str(_get(got, "minute") or "")}


def _cell(answer: Body, market: str) -> JsonObject:
    return obj(_get(_get(answer.get("items"), market), "1d"))


def _league_outcomes(index: BodyIndex | BookIndex) -> dict[tuple[Json, Json], bool | None]:
    out: dict[tuple[Json, Json], bool | None] = {}
    for line in map(_loose, index.of_kind("score")):
        for m in items(line.get("markets")):
            if isinstance(m, dict) and not m.get("late_ref") and m.get("horizon") == "1d":
                out.setdefault((line["session"], m["market"]), flag(m.get("up")))
    return out


def comparison(index: BodyIndex | BookIndex) -> dict[str, object]:
    """The §8 section of council-league.json: per seat and tier, its crowd_up Brier against the crowd's."""
    rows = comparison_rows(index)
    available = any(sealed_quotes(items(_loose(run).get("crowd"))) for run in index.of_kind("run"))
    return {"available": available,
            "method": "question by question on the crowd's own terms (scoring.md §8); primary = sealed volume "
                      ">= $1,000, thin reported apart; a gap <= 2d is not read as an advantage",
            "rows": len(rows), "seats": [_jsonable(asdict(s)) for s in compare(rows)],
            "questions": [question(r) for r in rows]}


def _jsonable(fields: dict[str, object]) -> JsonObject:
    """A dataclass's fields as JSON (a date or a tier as its text)."""
    out: JsonObject = json.loads(json.dumps(fields, default=str))
    return out


def add_to_league_json(data_dir: Path, out: Path) -> None:
    """Publisher step: merge the crowd comparison into council-league.json and the answer-minute
    comparison into council-calibration.json (both from the sealed book)."""
    if (out / "council-league.json").is_file():
        merge_blocks(out, crowd_blocks(data_dir))


def crowd_blocks(data_dir: Path) -> tuple[dict[str, object], dict[str, object]]:
    """The ``crowd`` block of council-league.json and the ``crowd_at_answer`` block of council-calibration.json,
    from the sealed book alone (so they can be computed while the statistics write those files)."""
    index = cut_index(Path(data_dir) / "books" / "council-book.jsonl", COMPARED_KINDS, cut=compared_fields)
    at_answer: dict[str, object] = {
        "method": "each seat's crowd_up against the crowd's price at the minute its answer was sealed (the "
                  "crowd line's at_answer), both scored on the crowd's resolution (paper §4.9)",
        "seats": at_answer_minute(comparison_rows(index))}
    return comparison(index), at_answer


def merge_blocks(out: Path, blocks: tuple[dict[str, object], dict[str, object]]) -> None:
    """Write :func:`crowd_blocks` into council-league.json (when present) and council-calibration.json."""
    path = out / "council-league.json"
    if not path.is_file():
        return
    doc: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    doc["crowd"] = blocks[0]
    path.write_text(json.dumps(doc, sort_keys=True, indent=1), encoding="utf-8")
    calibration = out / "council-calibration.json"
    if calibration.is_file():
        cal: dict[str, object] = json.loads(calibration.read_text(encoding="utf-8"))
        cal["crowd_at_answer"] = blocks[1]
        calibration.write_text(json.dumps(cal, sort_keys=True, indent=1), encoding="utf-8")

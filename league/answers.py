"""Reply → cells (protocol.md §7, docs/answer-format.md). Pure: no I/O, no clock.

A reply is parsed, never repaired: a reply without a usable ``forecast`` object is
``refused_shape`` with the reason, and the raw text stays sealed as received. Unknown markets or
horizons are reported as notes and never scored.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

ACTIONS = ("buy_strong", "buy_dips", "hold", "trim", "sell")
_FENCE = re.compile(r"```(?:json)?\s*\n(.*?)```", re.DOTALL)
MAX_REPLY_CHARS = 2_000_000


@dataclass(frozen=True)
class Cell:
    """One market × horizon cell as the seat stated it."""

    prob_up: float | None
    cell_status: str
    action: str = ""
    action_word: str = ""
    entry: float | None = None
    target: float | None = None
    invalidation: float | None = None
    risk: str = ""
    revise_if: str = ""
    crowd_up: float | None = None
    source_urls: tuple[str, ...] = ()
    source_domains: tuple[str, ...] = ()
    problem: str = ""

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"prob_up": self.prob_up, "cell_status": self.cell_status}
        for key in ("action", "action_word", "risk", "revise_if", "problem"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        for key in ("entry", "target", "invalidation", "crowd_up"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.source_urls:
            out["source_urls"] = list(self.source_urls)
        if self.source_domains:
            out["source_domains"] = list(self.source_domains)
        return out


@dataclass(frozen=True)
class ParsedReply:
    ok: bool
    failure: str = ""
    items: dict[str, dict[str, Cell]] = field(default_factory=dict)
    years: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def items_json(self) -> dict[str, dict[str, dict[str, Any]]]:
        return {m: {h: c.as_json() for h, c in cells.items()} for m, cells in self.items.items()}


def extract_json(raw: str) -> dict[str, Any] | None:
    """The last top-level JSON object in the reply (a fenced block is preferred)."""
    text = raw[:MAX_REPLY_CHARS]
    for block in reversed(_FENCE.findall(text)):
        found = _last_object(block)
        if found is not None:
            return found
    return _last_object(text)


def _last_object(text: str) -> dict[str, Any] | None:
    decoder = json.JSONDecoder()
    best: dict[str, Any] | None = None
    pos = text.find("{")
    while pos >= 0:
        try:
            obj, end = decoder.raw_decode(text, pos)
        except ValueError:
            pos = text.find("{", pos + 1)
            continue
        if isinstance(obj, dict):
            best = obj
        pos = text.find("{", end)
    return best


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        if isinstance(value, str):
            try:
                return _number(float(value.strip().rstrip("%")))
            except ValueError:
                return None
        return None
    return float(value) if math.isfinite(value) else None


def _strings(value: Any) -> tuple[str, ...]:
    if isinstance(value, list):
        return tuple(str(v) for v in value if isinstance(v, str | int | float))[:50]
    return ()


def parse_cell(obj: Any) -> Cell | None:
    """One cell; ``None`` when the seat left it empty (absent or ``{}``)."""
    if obj is None or obj == {}:
        return None
    if not isinstance(obj, Mapping):
        return Cell(prob_up=None, cell_status="invalid", problem=f"cell is {type(obj).__name__}, not an object")
    prob = _number(obj.get("prob_up"))
    status, problem = "elicited", ""
    if prob is None:
        status, problem = "invalid", f"prob_up {obj.get('prob_up')!r} is not a number"
    elif not 0 <= prob <= 100:
        status, problem, prob = "invalid", f"prob_up {prob} outside 0-100", None
    elif prob == 50:
        status = "explicit_50"
    action, word = _action(obj.get("action"))
    return Cell(
        prob_up=prob,
        cell_status=status,
        action=action,
        action_word=word,
        entry=_number(obj.get("entry")),
        target=_number(obj.get("target")),
        invalidation=_number(obj.get("invalidation")),
        risk=str(obj.get("risk") or "")[:500],
        revise_if=str(obj.get("revise_if") or "")[:500],
        crowd_up=_number(obj.get("crowd_up")),
        source_urls=_strings(obj.get("source_urls")),
        source_domains=_strings(obj.get("source_domains")),
        problem=problem,
    )


def _action(value: Any) -> tuple[str, str]:
    if value in (None, ""):
        return "", ""
    word = str(value).strip().lower()
    return (word, "") if word in ACTIONS else ("", str(value)[:100])


def parse_reply(raw: str, markets: Mapping[str, Sequence[str]]) -> ParsedReply:
    """Parse a raw reply against the markets (code → horizons) that were asked."""
    obj = extract_json(raw)
    if obj is None:
        return ParsedReply(ok=False, failure="no JSON object found in the reply")
    forecast = obj.get("forecast")
    if not isinstance(forecast, Mapping):
        return ParsedReply(ok=False, failure="the reply's JSON object has no `forecast` object")
    items: dict[str, dict[str, Cell]] = {}
    years: dict[str, str] = {}
    notes: list[str] = []
    for code, body in forecast.items():
        if code not in markets:
            notes.append(f"unknown market {code!r} ignored")
            continue
        if not isinstance(body, Mapping):
            notes.append(f"market {code}: not an object")
            continue
        cells, more = _market_cells(code, body, markets[code])
        notes += more
        if cells:
            items[code] = cells
        if isinstance(body.get("years"), str):
            years[code] = body["years"][:1000]
    if not items:  # well-formed but empty: every cell is missing (counted_50 for the service score only)
        notes.append("the forecast object holds no cell for any asked market")
    return ParsedReply(ok=True, items=items, years=years, notes=tuple(notes))


def _market_cells(code: str, body: Mapping[str, Any], horizons: Sequence[str]) -> tuple[dict[str, Cell], list[str]]:
    cells: dict[str, Cell] = {}
    notes: list[str] = []
    for key, value in body.items():
        if key == "years":
            continue
        if key not in horizons:
            notes.append(f"market {code}: unknown horizon {key!r} ignored")
            continue
        cell = parse_cell(value)
        if cell is not None:
            cells[key] = cell
    return cells, notes

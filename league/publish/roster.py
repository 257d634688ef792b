"""``roster.json``: the seats, their families and sides, read from the sealed roster lines of ``asks.jsonl``.

The consensus weighs the later-sealed seats of one family 1/3 (docs/protocol.md §10), so a reader
needs each seat's family to recount it. The family is sealed in every run's roster line, before
the run's first ask (hence before the season's first ask for the first run); this file is a
convenience view of those lines, rebuilt and compared by ``league verify``. A seat keeps the family
of the first roster line that names one (a later line naming another is listed under ``conflicts``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path
from typing import TypedDict

from league.jsonvalue import Json, JsonObject, as_int, items, obj

SOURCE = ("asks.jsonl roster lines: each seat's family and side are sealed before its run's first ask; "
          "a seat keeps the family of the first roster line naming one")


def roster_lines(asks: Path) -> list[JsonObject]:
    """The roster lines of an ask chain (complete JSON lines only), in book order."""
    if not asks.is_file():
        return []
    out: list[JsonObject] = []
    for raw in asks.read_bytes().split(b"\n")[:-1]:
        try:
            line: Json = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and line.get("kind") == "roster":
            out.append(line)
    return out


class RosterDocument(TypedDict):
    """roster.json: each seat's sealed family, side and model, the conflicting later claims, the runs."""

    source: str
    seats: dict[str, JsonObject]
    conflicts: list[JsonObject]
    runs: list[JsonObject]


def roster_document(lines: Iterable[JsonObject]) -> RosterDocument:
    """Seat → family, side, model and the first sealing line; the runs that sealed a roster."""
    seats: dict[str, JsonObject] = {}
    conflicts: list[JsonObject] = []
    runs: list[JsonObject] = []
    for line in lines:
        runs.append({"run_id": line.get("run_id"), "session": line.get("session"), "role": line.get("role"),
                     "line": line.get("n"), "seats": [obj(s).get("seat") for s in items(line.get("seats"))]})
        for s in items(line.get("seats")):
            _add_seat(seats, conflicts, obj(s), _line_number(line.get("n")))
    return {"source": SOURCE, "seats": dict(sorted(seats.items())), "conflicts": conflicts, "runs": runs}


def _line_number(value: Json | None) -> int:
    """``int(value or 0)`` for the JSON values it reads; any other raises as ``int()`` does."""
    return as_int(value) if value else 0


def _add_seat(seats: dict[str, JsonObject], conflicts: list[JsonObject], s: JsonObject, n: int) -> None:
    name = str(s.get("seat"))
    entry = seats.setdefault(name, {"family": "", "side": "", "model": s.get("model", ""), "first_line": n})
    for key in ("family", "side"):
        value = str(s.get(key) or "")
        if value and not entry[key]:
            entry[key], entry[f"{key}_line"] = value, n
        elif value and value != entry[key]:
            conflicts.append({"seat": name, "key": key, "kept": entry[key], "line": n, "later": value})


def families(doc: RosterDocument) -> dict[str, str]:
    """Seat → family of the seats whose family is sealed (others are their own family)."""
    return {k: str(v["family"]) for k, v in doc["seats"].items() if v.get("family")}


def sides(doc: RosterDocument) -> dict[str, str]:
    """Seat → side of the seats whose side is sealed."""
    return {k: str(v["side"]) for k, v in doc["seats"].items() if v.get("side")}

"""``roster.json``: the seats, their families and sides, read from the sealed roster lines of ``asks.jsonl``.

The consensus weighs the later-sealed seats of one family 1/3 (docs/protocol.md §10), so a reader
needs each seat's family to recount it. The family is sealed in every run's roster line, before
the run's first ask (hence before the season's first ask for the first run); this file is a
convenience view of those lines, rebuilt and compared by ``league verify``. A seat keeps the family
of the first roster line that names one (a later line naming another is listed under ``conflicts``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

SOURCE = ("asks.jsonl roster lines: each seat's family and side are sealed before its run's first ask; "
          "a seat keeps the family of the first roster line naming one")


def roster_lines(asks: Path) -> list[dict[str, Any]]:
    """The roster lines of an ask chain (complete JSON lines only), in book order."""
    if not asks.is_file():
        return []
    out = []
    for raw in asks.read_bytes().split(b"\n")[:-1]:
        try:
            obj = json.loads(raw)
        except ValueError:
            continue
        if isinstance(obj, dict) and obj.get("kind") == "roster":
            out.append(obj)
    return out


def roster_document(lines: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """Seat → family, side, model and the first sealing line; the runs that sealed a roster."""
    seats: dict[str, dict[str, Any]] = {}
    conflicts: list[dict[str, Any]] = []
    runs = []
    for line in lines:
        runs.append({"run_id": line.get("run_id"), "session": line.get("session"), "role": line.get("role"),
                     "line": line.get("n"), "seats": [s.get("seat") for s in line.get("seats") or []]})
        for s in line.get("seats") or []:
            _add_seat(seats, conflicts, s, int(line.get("n") or 0))
    return {"source": SOURCE, "seats": dict(sorted(seats.items())), "conflicts": conflicts, "runs": runs}


def _add_seat(seats: dict[str, dict[str, Any]], conflicts: list[dict[str, Any]], s: Mapping[str, Any],
              n: int) -> None:
    name = str(s.get("seat"))
    entry = seats.setdefault(name, {"family": "", "side": "", "model": s.get("model", ""), "first_line": n})
    for key in ("family", "side"):
        value = str(s.get(key) or "")
        if value and not entry[key]:
            entry[key], entry[f"{key}_line"] = value, n
        elif value and value != entry[key]:
            conflicts.append({"seat": name, "key": key, "kept": entry[key], "line": n, "later": value})


def families(doc: Mapping[str, Any]) -> dict[str, str]:
    """Seat → family of the seats whose family is sealed (others are their own family)."""
    return {k: str(v["family"]) for k, v in (doc.get("seats") or {}).items() if v.get("family")}


def sides(doc: Mapping[str, Any]) -> dict[str, str]:
    return {k: str(v["side"]) for k, v in (doc.get("seats") or {}).items() if v.get("side")}

"""The contest's published files: the sweep file and ``sealed.json``.

A sweep file is written in the tracks' exact bytes (league.seatcore.files: ``json.dumps(doc, indent=1,
sort_keys=True, ensure_ascii=False)`` encoded UTF-8, no trailing newline), the same bytes the reference hashes,
so its SHA-256 is reproducible by any reader with a JSON library. ``sealed.json`` is a list, newest first, of
``{date, sha256, file, forecasts, sealed_at}`` where ``file`` is relative to the folder holding ``sealed.json``.
Files are written atomically (temporary file, fsync, rename) so a reader never sees half a file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from league.contest.asks import SweptMarket
from league.jsonvalue import JsonObject, text
from league.seatcore.files import read_json, write_json

KIND = "forecast sweep"


def forecast_row(agent: str, market_id: str, model: str, probabilities: dict[str, float]) -> JsonObject:
    return {"agent": agent, "market_id": market_id, "model": model,
            "probabilities": {outcome: p for outcome, p in probabilities.items()}}


def sweep_document(*, benchmark: str, date: str, methodology_version: str, markets: Sequence[SweptMarket],
                   forecasts: Sequence[JsonObject]) -> dict[str, object]:
    """The reference's keys exactly: benchmark, date, kind, methodology_version, forecasts, markets."""
    return {
        "benchmark": benchmark,
        "date": date,
        "kind": KIND,
        "methodology_version": methodology_version,
        "forecasts": sorted(forecasts, key=lambda f: (text(f["agent"]), text(f["market_id"]))),
        "markets": [m.as_file_json() for m in sorted(markets, key=lambda m: m.id)],
    }


def sweep_path(public: Path, date: str) -> Path:
    return public / "forecasts" / f"{date}.json"


def sealed_entry(date: str, sha256: str, forecasts: int, sealed_at: float) -> JsonObject:
    return {"date": date, "sha256": sha256, "file": f"forecasts/{date}.json", "forecasts": forecasts,
            "sealed_at": sealed_at}


def add_sealed(public: Path, entry: JsonObject) -> list[JsonObject]:
    """Insert (or keep) the day's entry in ``sealed.json``, newest first; an existing date with a
    different hash is never overwritten (the first seal stands)."""
    path = public / "sealed.json"
    listed: list[JsonObject] = read_json(path, what="contest file") if path.exists() else []
    if any(e.get("date") == entry["date"] for e in listed):
        return listed
    listed = sorted([*listed, entry], key=lambda e: str(e.get("date")), reverse=True)
    write_json(path, listed)
    return listed

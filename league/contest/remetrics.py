"""``league contest metrics FOLDER``: a published contest folder's metrics recomputed as of a date.

The figures come from the sealed sweeps that verify (sha256 and byte form, as ``league contest verify``
checks them) and the recorded resolutions, by the procedure the folder's intervals are drawn with
(league.contest.verify.choose_procedure). A metrics file is a snapshot as of its own date: without
``--as-of`` the date is the folder's ``metrics.json``'s ``generated_at`` day, so recomputing an untouched
folder gives its published file byte for byte; with ``--as-of`` only the sweeps dated on or before that day
count (``markets_open`` and ``sweeps`` included) and the document says ``as_of``.

The document keeps the folder's own layout: the reference's (its keys in its order, ``json.dumps(doc,
indent=1)``) for a reference folder, the league's (``json.dumps(doc, indent=1, sort_keys=True,
ensure_ascii=False)``) for ours. What cannot be recomputed from the folder (the header, the reference's
``significance`` and betting record, our voided rounds) is carried over from its metrics.json as published.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from league.contest.errors import ContestError
from league.contest.metrics import betting_record
from league.contest.verify import (
    Layout,
    accuracy_for,
    as_of_docs,
    check_sealed,
    choose_procedure,
    find_layout,
    load_resolutions,
    present,
    snapshot_date,
)
from league.inputs import InputError
from league.jsonvalue import Json, JsonObject, items, obj, text
from league.seatcore.files import dump_bytes


@dataclass(frozen=True)
class Recomputed:
    layout: Layout
    procedure: str
    as_of: str | None
    document: JsonObject
    data: bytes  # the file's exact bytes, in the folder's layout


def reference_bytes(doc: JsonObject) -> bytes:
    """The reference's byte form of its metrics file: insertion order, one-space indent, ASCII escapes."""
    return json.dumps(doc, indent=1).encode("utf-8")


def recompute_metrics(folder: Path, resolutions: Path | None = None, as_of: str | None = None,
                      procedure: str | None = None) -> Recomputed:
    """The folder's metrics document recomputed; a folder that cannot give it raises ContestError naming why."""
    layout = find_layout(folder)
    if layout is None:
        raise ContestError(f"{folder}: no sealed.json (nor data/sealed.json): not a contest folder",
                           fix="name the folder holding sealed.json, or the repository holding data/sealed.json")
    try:
        return _recompute(layout, resolutions, as_of, procedure)
    except InputError as exc:
        raise ContestError(exc.message, fix="each file must be the published JSON; see league contest verify") from exc


def _recompute(layout: Layout, resolutions: Path | None, as_of: str | None, procedure: str | None) -> Recomputed:
    checks, docs, listed = check_sealed(layout)
    bad = [c for c in checks if c.failed]
    if bad:
        raise ContestError(f"{bad[0].name}: {bad[0].detail}", fix="metrics are recomputed from sealed files that "
                                                                  "verify only: run league contest verify FOLDER")
    path = layout.path("metrics.json")
    published: JsonObject = obj(layout.read(path, "metrics file")) if present(path) else {}
    winners = load_resolutions(layout, resolutions)
    if winners is None:
        raise ContestError(f"{layout.named}: no recorded resolutions (the folder publishes no resolutions.json)",
                           fix="pass the recorded winners with --resolutions FILE ({market_id: winner})")
    chosen = choose_procedure(layout, obj(published.get("forecast_accuracy")), procedure)
    snapshot = snapshot_date(published)
    day = as_of or snapshot
    mine, _ = accuracy_for(layout, published, as_of_docs(docs, day), winners, chosen)
    out: JsonObject = dict(published)
    out["forecast_accuracy"] = mine
    sealed: list[Json] = [e for e in listed if day is None or text(obj(e).get("date")) <= day]
    if "sealed_forecasts" in out or not published:
        out["sealed_forecasts"] = sealed
    if as_of is not None and as_of != snapshot:
        out["as_of"] = as_of
    if layout.kind == "reference":
        return Recomputed(layout, chosen, day, out, reference_bytes(out))
    betting = obj(published.get("betting_record"))
    if "voided" in betting and present(layout.path("rounds.json")):
        rounds = [obj(r) for r in items(layout.read(layout.path("rounds.json"), "rounds file"))]
        agents = [(text(obj(r).get("agent")), text(obj(r).get("name"), text(obj(r).get("agent"))))
                  for r in items(betting.get("agents"))]
        voided = [obj(v) for v in items(betting.get("voided"))]
        out["betting_record"] = betting_record(rounds, voided, agents)
    return Recomputed(layout, chosen, day, out, dump_bytes(out))

"""The CSV writer: book → ``council-forecasts.csv`` (open-data.md), one row per seat × run × market × horizon.

Scored horizons come straight from their sealed ``score``/``score_h`` lines, so every published
figure traces to a sealed line; horizons not yet scored are listed from the answers with their
event and empty outcome fields. ``line`` names the answer line that sealed the cell.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from league.book.lines import ScoreEvent, ScoreLine, ScoreRow
from league.book.view import BookView
from league.counting import LONG_HORIZONS, Sealed, session_rows

COLUMNS = (
    "run_id session seat model mode line sealed_at status asset horizon action action_word prob_up exp_pct "
    "target invalidation ref close actual_pct draw source_domains source_urls why_missing run_role "
    "seat_versions_in_run line_kind reference_at same_event cell_status attempt event_id event_id_v2 "
    "event_reference_at event_end_at methodology_version rule resolver_version reference_rule price_provider "
    "price_symbol late_ref"
).split()


def _fmt(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "1" if value else "0"
    if isinstance(value, float):
        return repr(value)
    if isinstance(value, list | tuple):
        return ";".join(str(v) for v in value)
    return str(value)


def _versions(lg: Sealed) -> dict[tuple[str, str], str]:
    out: dict[tuple[str, str], set[str]] = {}
    for a in lg.index.of_kind("answer"):
        out.setdefault((a["run_id"], a["seat"]), set()).add(f"{a.get('model', '')}:{a.get('version', '')}")
    return {k: ";".join(sorted(v)) for k, v in out.items()}


def _run_info(lg: Sealed) -> dict[str, dict[str, Any]]:
    return {r["run_id"]: r for r in lg.index.of_kind("run")}


def iter_rows(lg: Sealed) -> Iterator[dict[str, str]]:
    """Scored horizons from their sealed score lines (typed: a line that does not fit its model stops
    the export with its name); horizons not yet scored from the counting rule, typed the same way."""
    runs = _run_info(lg)
    versions = _versions(lg)
    scored = {(x["session"], x["horizon"]): x for k in ("score", "score_h") for x in lg.index.of_kind(k)}
    for session in sorted({r["session"] for r in runs.values()}):
        for horizon in ("1d", *LONG_HORIZONS):
            sealed = scored.get((session, horizon))
            if sealed is not None:
                line = ScoreLine.from_content(sealed)
                rows, events = line.seats, {e.event_id_v2: e for e in line.markets}
            else:
                raw_rows, evs = session_rows(lg, session, horizon)
                rows = [ScoreRow.from_content(r) for r in raw_rows]
                events = {k: ScoreEvent.from_content(e.as_json()) for k, e in evs.items()}
            for row in rows:
                yield _csv_row(row, events.get(row.event_id_v2), runs, versions)


def _csv_row(row: ScoreRow, ev: ScoreEvent | None, runs: Mapping[str, Any],
             versions: Mapping[tuple[str, str], str]) -> dict[str, str]:
    run = runs.get(row.run_id, {})
    contract = ev.contract if ev is not None else _common_contract(run, row)
    ref, close = (ev.reference, ev.close) if ev is not None else (None, None)
    target = row.target if isinstance(row.target, int | float) and not isinstance(row.target, bool) else None
    out = {
        "run_id": row.run_id, "session": row.session, "seat": row.seat, "model": row.model,
        "mode": row.mode, "line": row.line if row.line else run.get("n"),
        "sealed_at": row.sealed_at, "status": row.status, "asset": row.market,
        "horizon": row.horizon, "action": row.action, "action_word": row.action_word,
        "prob_up": row.prob_up, "exp_pct": (100 * (target / ref - 1)) if target and ref else None,
        "target": row.target, "invalidation": row.invalidation, "ref": ref, "close": close,
        "actual_pct": (100 * (close / ref - 1)) if ref and close else None,
        "draw": ev.draw if ev is not None else None,
        "source_domains": row.source_domains, "source_urls": row.source_urls,
        "why_missing": row.why_missing, "run_role": row.run_role,
        "seat_versions_in_run": versions.get((row.run_id, row.seat), ""),
        "line_kind": "answer" if row.line else "run", "reference_at": _common_ref(run, row),
        "same_event": None if not contract else not (ev.late_ref if ev is not None else False),
        "cell_status": row.cell_status, "attempt": row.attempt or run.get("attempt"),
        "event_id": (ev.event_id if ev is not None else "") or row.event_id or _ids(contract)[0],
        "event_id_v2": (ev.event_id_v2 if ev is not None else "") or row.event_id_v2 or _ids(contract)[1],
        "event_reference_at": (contract or {}).get("reference_at"), "event_end_at": (contract or {}).get("end_at"),
        "methodology_version": (run.get("methodology") or {}).get("version", ""),
        "late_ref": ev.late_ref if ev is not None else None,
    }
    for key in ("rule", "resolver_version", "reference_rule", "price_provider", "price_symbol"):
        out[key] = (contract or {}).get(key)
    return {k: _fmt(out.get(k)) for k in COLUMNS}


def _common_contract(run: Mapping[str, Any], row: ScoreRow) -> dict[str, Any] | None:
    """No-answer rows of daily markets still name the session's common event from the run line."""
    ev = (run.get("events") or {}).get(row.market, {}).get(row.horizon)
    if not ev:
        return None
    return {k: ev[k] for k in ("asset", "horizon", "reference_at", "end_at", "rule", "resolver_version",
                               "reference_rule", "price_provider", "price_symbol")}


def _common_ref(run: Mapping[str, Any], row: ScoreRow) -> str:
    ev = (run.get("events") or {}).get(row.market, {}).get("1d")
    return str(ev["reference_at"]) if ev else ""


def _ids(contract: Mapping[str, Any] | None) -> tuple[str, str]:
    if not contract:
        return "", ""
    from league.contracts import event_ids

    return event_ids(dict(contract))


def write_forecasts(lg: Sealed, path: Path) -> int:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".csv.tmp")
    count = 0
    with open(tmp, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        for row in iter_rows(lg):
            writer.writerow(row)
            count += 1
    tmp.replace(path)
    return count


def export_forecasts(data_dir: Path, target: Path) -> int:
    """The publisher's producer: write the CSV from the sealed book of DATA (read-only: safe while the
    daemon writes)."""
    return write_forecasts(BookView.open(Path(data_dir)), Path(target))

"""The CSV writer: book → ``council-forecasts.csv`` (open-data.md), one row per seat × run × market × horizon.

Scored horizons come straight from their sealed ``score``/``score_h`` lines, so every published
figure traces to a sealed line; horizons not yet scored are listed from the answers with their
event and empty outcome fields. ``line`` names the answer line that sealed the cell.

Column values follow the paper's Appendix C (:mod:`league.contracts.columns`). Corrections
(paper §3.10) are honoured without rewriting anything: a price correction line replaces that
event's reference or close in every row of the event (``corrected_by`` names the correction line);
a cell correction adds a row of ``line_kind`` ``correction`` after the row it corrects, sealed when
the correction was, so it never enters a score of answers sealed before the reference.
"""

from __future__ import annotations

import csv
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

import msgspec

from league import records
from league.contracts import event_ids
from league.contracts.columns import CORRECTION, ISSUE, NO_LINE, RUN_ROLE
from league.counting import LONG_HORIZONS, Sealed, market_specs, session_rows
from league.jsonvalue import Json, JsonObject, text
from league.records import ScoreEvent, ScoreRow

COLUMNS = (
    "run_id session seat model mode line sealed_at status asset horizon action action_word prob_up exp_pct "
    "target invalidation ref close actual_pct draw source_domains source_urls why_missing run_role "
    "seat_versions_in_run line_kind reference_at same_event cell_status attempt event_id event_id_v2 "
    "event_reference_at event_end_at methodology_version rule resolver_version reference_rule price_provider "
    "price_symbol late_ref reference_price_at corrected_by"
).split()


def _fmt(value: object) -> str:
    if type(value) is str:  # most cells: the value itself (what str() returns for an exact str)
        return value
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
        if isinstance(a, records.Answer):
            out.setdefault((a.run_id, a.seat), set()).add(f"{a.model}:{a.version}")
    return {k: ";".join(sorted(v)) for k, v in out.items()}


def _run_info(lg: Sealed) -> dict[str, records.Run]:
    return {r.run_id: r for r in lg.index.of_kind("run") if isinstance(r, records.Run)}


class Corrections:
    """The book's correction lines, by what they correct (price: session, horizon, market, field;
    cell: answer line, market, horizon). A later correction of the same thing wins."""

    def __init__(self, lg: Sealed) -> None:
        self.prices: dict[tuple[str, str, str], dict[str, records.Correction]] = {}
        self.cells: dict[tuple[int, str, str], records.Correction] = {}
        for c in sorted(lg.index.of_kind("correction"), key=lambda x: x.n):
            if not isinstance(c, records.Correction):
                continue
            if c.target == "price":
                self.prices.setdefault((c.session, c.horizon, c.market), {})[c.field] = c
            elif c.target == "cell":
                self.cells[(c.of, c.market, c.horizon)] = c

    def event(self, session: str, horizon: str, ev: ScoreEvent | None) -> tuple[ScoreEvent | None, int | None]:
        """The event with its corrected reference or close (and the outcome they give)."""
        fixes = self.prices.get((session, horizon, ev.market)) if ev is not None else None
        if ev is None or not fixes:
            return ev, None
        ref = _value(fixes["reference"]) if "reference" in fixes else ev.reference
        close = _value(fixes["close"]) if "close" in fixes else ev.close
        change = (close / ref - 1.0) * 100.0 if ref and close else None
        band = ev.band_pct
        fixed = msgspec.structs.replace(ev, reference=ref, close=close, change_pct=change,
                                        up=None if change is None else change > 0.0,
                                        draw=None if change is None or band is None else abs(change) < band)
        return fixed, max(f.n for f in fixes.values())


def _value(fix: records.Correction) -> float | None:
    return None if fix.value is None else float(fix.value)


@dataclass(frozen=True)
class RowContext:
    """What every session's rows read besides the session's own lines: the run lines, the seat versions
    per run, the corrections and the score lines by (session, horizon), and each run's line number."""

    runs: dict[str, records.Run]
    versions: dict[tuple[str, str], str]
    fixes: Corrections
    scored: dict[tuple[str, str], list[records.Score]]
    order: dict[str, int]

    @classmethod
    def of(cls, lg: Sealed) -> RowContext:
        runs = _run_info(lg)
        scored: dict[tuple[str, str], list[records.Score]] = {}
        for k in ("score", "score_h"):
            for x in lg.index.of_kind(k):
                if isinstance(x, records.Score):
                    scored.setdefault((x.session, x.horizon), []).append(x)
        return cls(runs, _versions(lg), Corrections(lg), scored, {r.run_id: r.n for r in runs.values()})

    def sessions(self) -> list[str]:
        return sorted({r.session for r in self.runs.values()})


def iter_rows(lg: Sealed) -> Iterator[dict[str, str]]:
    """Scored horizons from their sealed score lines (typed: a line that does not fit its model stops
    the export with its name); horizons not yet scored from the counting rule, typed the same way.
    Rows come run by run (each run's rows contiguous, for the per-run index)."""
    ctx = RowContext.of(lg)
    for session in ctx.sessions():
        yield from session_rows_of(lg, ctx, session)


def session_rows_of(lg: Sealed, ctx: RowContext, session: str) -> list[dict[str, str]]:
    """One session's rows in CSV order (by run line, then horizon); they depend only on that session's
    lines (its runs, their answers, its score lines, incidents and corrections), the config and the code:
    what league.publish.forecast_cache keys a session's cached rows by."""
    out: list[tuple[int, int, dict[str, str]]] = []
    for h_i, horizon in enumerate(("1d", *LONG_HORIZONS)):
        for row, ev in _session_horizon(lg, session, horizon, ctx.scored.get((session, horizon), [])):
            fixed, by = ctx.fixes.event(session, horizon, ev)
            first = _csv_row(row, fixed, ctx.runs, ctx.versions, by)
            out.append((ctx.order.get(row.run_id, 0), h_i, first))
            issue = first["line_kind"] == ISSUE
            cell_fix = ctx.fixes.cells.get((row.line or -1, row.market, row.horizon)) if issue else None
            if cell_fix is not None:
                first["corrected_by"] = ";".join(x for x in (first["corrected_by"], str(cell_fix.n)) if x)
                out.append((ctx.order.get(row.run_id, 0), h_i, _corrected_cell(first, cell_fix)))
    return [csv_row for _, _, csv_row in sorted(out, key=lambda t: (t[0], t[1]))]


def _session_horizon(lg: Sealed, session: str, horizon: str,
                     sealed: list[records.Score]) -> Iterator[tuple[ScoreRow, ScoreEvent | None]]:
    """Rows with their events: from the sealed score lines (one, or one per market group when the
    groups' windows close on different days), and from the counting rule for markets not scored yet."""
    covered: set[str] = set()
    for line in sorted(sealed, key=lambda x: x.n):
        events = {e.event_id_v2: e for e in line.markets}
        covered |= {e.market for e in line.markets} | {r.market for r in line.seats}
        for row in line.seats:
            yield row, events.get(row.event_id_v2)
    if sealed and not _unscored_left(lg, horizon, covered):
        return
    raw_rows, evs = session_rows(lg, session, horizon)
    events = {k: msgspec.convert(e.as_json(), ScoreEvent) for k, e in evs.items()}
    for raw in raw_rows:
        row = msgspec.convert(raw, ScoreRow)
        if row.market not in covered:  # a group whose window has not closed yet (bitcoin's week)
            yield row, events.get(row.event_id_v2)


def _unscored_left(lg: Sealed, horizon: str, covered: set[str]) -> bool:
    return any(m.code not in covered for m in market_specs(lg, horizon))


def _corrected_cell(issue: dict[str, str], fix: records.Correction) -> dict[str, str]:
    """The row a cell correction adds: the corrected values, sealed when the correction was."""
    cell = fix.cell or {}
    row = dict(issue)
    row.update({"line": str(fix.n), "line_kind": CORRECTION, "sealed_at": fix.at, "status": "not_counted",
                "corrected_by": "", "why_missing": f"correction of line {fix.of}: {fix.reason}"})
    for key in ("prob_up", "cell_status", "action", "action_word", "target", "invalidation"):
        if key in cell:
            row[key] = _fmt(cell[key])
    return row


def _csv_row(row: ScoreRow, ev: ScoreEvent | None, runs: Mapping[str, records.Run],
             versions: Mapping[tuple[str, str], str], corrected_by: int | None = None) -> dict[str, str]:
    run = runs.get(row.run_id)
    contract = ev.contract if ev is not None else _common_contract(run, row)
    ref, close = (ev.reference, ev.close) if ev is not None else (None, None)
    target = row.target if isinstance(row.target, int | float) and not isinstance(row.target, bool) else None
    out = {
        "run_id": row.run_id, "session": row.session, "seat": row.seat, "model": row.model,
        "mode": row.mode, "line": row.line if row.line else (run.n if run is not None else None),
        "sealed_at": row.sealed_at, "status": row.status, "asset": row.market,
        "horizon": row.horizon, "action": row.action, "action_word": row.action_word,
        "prob_up": row.prob_up, "exp_pct": (100 * (target / ref - 1)) if target and ref else None,
        "target": row.target, "invalidation": row.invalidation, "ref": ref, "close": close,
        "actual_pct": (100 * (close / ref - 1)) if ref and close else None,
        "draw": ev.draw if ev is not None else None,
        "source_domains": row.source_domains, "source_urls": row.source_urls,
        "why_missing": row.why_missing, "run_role": RUN_ROLE.get(row.run_role, row.run_role),
        "seat_versions_in_run": versions.get((row.run_id, row.seat), ""),
        "line_kind": ISSUE if row.line else NO_LINE,
        "reference_at": (contract or {}).get("reference_at") or _common_ref(run, row),
        "reference_price_at": ev.reference_bar if ev is not None else None, "corrected_by": corrected_by,
        "same_event": None if not contract else not (ev.late_ref if ev is not None else False),
        "cell_status": row.cell_status, "attempt": row.attempt or (run.attempt if run is not None else None),
        "event_id": (ev.event_id if ev is not None else "") or row.event_id or _ids(contract)[0],
        "event_id_v2": (ev.event_id_v2 if ev is not None else "") or row.event_id_v2 or _ids(contract)[1],
        "event_reference_at": (contract or {}).get("reference_at"), "event_end_at": (contract or {}).get("end_at"),
        "methodology_version": text(run.methodology.get("version")) if run is not None else "",
        "late_ref": ev.late_ref if ev is not None else None,
    }
    for key in ("rule", "resolver_version", "reference_rule", "price_provider", "price_symbol"):
        out[key] = (contract or {}).get(key)
    return {k: _fmt(out.get(k)) for k in COLUMNS}


def _common_contract(run: records.Run | None, row: ScoreRow) -> JsonObject | None:
    """No-answer rows of daily markets still name the session's common event from the run line."""
    ev = run.events.get(row.market, {}).get(row.horizon) if run is not None else None
    if not ev:
        return None
    return {k: ev[k] for k in ("asset", "horizon", "reference_at", "end_at", "rule", "resolver_version",
                               "reference_rule", "price_provider", "price_symbol")}


def _common_ref(run: records.Run | None, row: ScoreRow) -> str:
    ev = run.events.get(row.market, {}).get("1d") if run is not None else None
    return str(ev["reference_at"]) if ev else ""


def _ids(contract: Mapping[str, Json] | None) -> tuple[str, str]:
    if not contract:
        return "", ""
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


#: ``league tail --rows``: the CSV's columns plus where the row comes from and its Brier score.
ROW_COLUMNS = ("row_id", *COLUMNS, "brier")


def scored_rows(lg: Sealed, line: records.Score) -> Iterator[dict[str, str]]:
    """The published rows of one sealed ``score``/``score_h`` line, each with its Brier score.

    ``row_id`` is ``<score line n>.<row index>``: stable, increasing in book order, so a reader resumes
    after the last id it saw. The Brier is the one sealed in the score line, ``(prob_up/100 − y)²``;
    when a price correction changed the event, it is recomputed from the corrected prices (strict rise)."""
    runs, versions, fixes = _run_info(lg), _versions(lg), Corrections(lg)
    events = {e.event_id_v2: e for e in line.markets}
    for i, row in enumerate(line.seats):
        fixed, by = fixes.event(line.session, line.horizon, events.get(row.event_id_v2))
        out = _csv_row(row, fixed, runs, versions, by)
        yield {"row_id": f"{line.n}.{i}", **out, "brier": _fmt(_brier(row, fixed, by))}


def _brier(row: ScoreRow, ev: ScoreEvent | None, corrected_by: int | None) -> float | None:
    if corrected_by is None or row.prob_up is None or ev is None or ev.reference is None or ev.close is None:
        return row.brier
    return (float(row.prob_up) / 100 - (1.0 if ev.close > ev.reference else 0.0)) ** 2

"""The arms' open files (docs/experiments.md, open-data.md): their books, packets and ask texts under ``arms/``,
one row per arm answer cell in ``arms/arm-forecasts.csv``, and the two reports computed from those rows and
the council's own CSV: ``arena-cb-experiment.json`` (the arms against the open run) and ``council-repeats.json``
(the noise floor of disagreement). Nothing here reads or writes a council file but ``council-forecasts.csv``,
which it only reads; a league without arms gets none of these files.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path

from league.arms.book import ARM_ASKS, ARMS_BOOK, ARMS_DIR
from league.arms.lines import ArmAnswerLine, ArmRunLine, ArmSilenceLine, ExtraScoreLine, FetchRecordLine, read_arm_line
from league.book import iter_lines
from league.isotime import iso_seconds, parse_iso
from league.publish.arm_accounts import write_arm_accounts
from league.publish.writing import complete_lines, copy_file, write_bytes, write_json
from league.scoring.arms import arms_experiment, repeats_report
from league.verify.commitments import snapshot_bytes

ARM_FORECASTS = f"{ARMS_DIR}/arm-forecasts.csv"
ARM_ACCOUNTS = f"{ARMS_DIR}/arm-accounts.csv"
EXTRA_RUNS = f"{ARMS_DIR}/extra-runs.csv"
FETCH_RECORDS = f"{ARMS_DIR}/fetch-records.csv"
FETCH_COLUMNS: dict[str, str] = {
    "session": "NYSE session of the counted answers that cited the link",
    "url": "the cited link, as the answer gave it",
    "label": "the domain the answer named beside the link (a citation named after one outlet can link to another)",
    "host": "the host the league's fetch really reached (after redirects)",
    "status": "HTTP status of the league's fetch; empty when no response",
    "fetched_at": "UTC time of the fetch (after the answers were sealed)",
    "sha256": "SHA-256 of the body fetched; empty when none was read in full",
    "size": "bytes of body read",
    "declared_published": "the publication time the page declares in its own metadata (UTC); empty when none",
    "error": "why there is no status or no hash (refused address, timeout, body above the cap...)",
    "cited_by": "the seats whose counted answers cited the link, ';'-separated",
    "line": "number n of the arms' book line that sealed the record",
}
EXTRA_COLUMNS: dict[str, str] = {
    "run_id": "id of the extra reference run (<day asked>-<kind>)",
    "kind": "evening (after a session's close), weekend_btc (Saturday or Sunday, bitcoin) or sunday_radar",
    "label": "earlier_run (asked about a later session) or reference (a reference computation); never counted",
    "asked_on": "the New York day the run was asked on",
    "session": "the NYSE session the run asks about (the next one after asked_on)",
    "horizon": "1d, 1w, 1m or 6m",
    "seat": "seat id",
    "asset": "market code",
    "prob_up": "stated probability (0-100) of a strict rise; empty when none",
    "reference_at": "the answer's own reference: its seal time, to the second above (first bar at or after it)",
    "end_at": "the session's horizon end",
    "ref": "reference price (first 1-minute bar at or after reference_at)",
    "close": "terminal price at end_at",
    "outcome": "1 when close > ref, 0 otherwise; empty while unresolved",
    "brier": "(prob_up/100 - outcome)^2; empty when either is missing",
    "why": "why the cell has no Brier (a missing price, no stated probability)",
}
EXPERIMENT = "arena-cb-experiment.json"
REPEATS = "council-repeats.json"
HORIZONS = {"1d": 0, "1w": 1, "1m": 2, "6m": 3}
ARM_COLUMNS: dict[str, str] = {
    "run_id": "id of the arm run (<session>-<arm>, or <session>-<repeat kind>-<k> for a repeat)",
    "session": "NYSE session the arm run belongs to",
    "arm": "closed_book, price_only, repeat_open (the open question again) or repeat_packet (the closed-book one)",
    "repeat": "0 for an arm; 1..k for the k-th repeat",
    "seat": "seat id (ids starting with '_' are baselines: never in the figures)",
    "model": "model the seat reported",
    "version": "model version the seat reported",
    "line": "number n of the arms' book line (arms/arms-book.jsonl) that sealed the reply",
    "sealed_at": "UTC time the line was sealed: max(at, booked_at)",
    "reference_at": "the session's common reference (counted ingest close) the arm is compared at",
    "comparable": "true when sealed at or before reference_at (compared with the open run); false: reported apart",
    "search_status": "verified, configured or instruction_only (docs/experiments.md)",
    "outside": "cited links that were not in the arm's packet, ';'-separated",
    "status": "answered, refused_shape or no_answer",
    "asset": "market code",
    "horizon": "1d, 1w, 1m or 6m",
    "prob_up": "stated probability (0-100) of a strict rise; empty when none",
    "action": "portfolio action word (empty when none)",
    "cell_status": "elicited, explicit_50, invalid; empty when absent",
}


def write_arms(data_dir: Path, out: Path) -> list[Path]:
    """Every arms file from the arms' books (nothing when the league never ran an arm)."""
    books = data_dir / "books"
    if not (books / ARMS_BOOK).is_file():
        return []
    target = out / ARMS_DIR
    written = [write_bytes(target / name, complete_lines(books / name)) for name in (ARMS_BOOK, ARM_ASKS)
               if (books / name).is_file()]
    for path in sorted((data_dir / ARMS_DIR / "snapshots").glob("*.json")):  # an extra run's own snapshot
        record = json.loads(path.read_text(encoding="utf-8"))
        data = snapshot_bytes(record.get("snapshot"))
        if hashlib.sha256(data).hexdigest() == record.get("sha256"):  # as the council's: never a changed one
            written.append(write_bytes(target / "snapshots" / path.name, data))
    for folder in ("packets", "asks"):
        for path in sorted((data_dir / ARMS_DIR / folder).glob("*.*")):
            if not path.name.endswith(".tmp"):
                written.append(copy_file(path, target / folder / path.name))
    if not any(not line.kind.startswith("talk_") for line in iter_lines(out / ARMS_DIR / ARMS_BOOK)):
        return written  # the council talk alone (league.publish.talk): no arm ever ran, no arm's report
    rows = list(arm_rows(out / ARMS_DIR / ARMS_BOOK))
    written.append(write_bytes(out / ARM_FORECASTS, csv_bytes(rows)))
    fetches = list(fetch_rows(out / ARMS_DIR / ARMS_BOOK))
    if fetches:
        written.append(write_bytes(out / FETCH_RECORDS, csv_bytes(fetches, FETCH_COLUMNS)))
    extra = list(extra_rows(out / ARMS_DIR / ARMS_BOOK))
    if extra:
        written.append(write_bytes(out / EXTRA_RUNS, csv_bytes(extra, EXTRA_COLUMNS)))
    written.append(write_arm_accounts(out / ARMS_DIR / ARMS_BOOK, out / ARM_ACCOUNTS))
    council = out / "council-forecasts.csv"
    open_rows = _read_csv(council) if council.is_file() else []
    written.append(write_json(out / EXPERIMENT, arms_experiment(open_rows, rows)))
    written.append(write_json(out / REPEATS, repeats_report(rows)))
    return written


def rebuild_arms(folder: Path, out: Path) -> None:
    """A reader's rebuild (league verify step 11): the arms' rows, accounts and both reports from the published
    arms' book and council-forecasts.csv (the one rebuilt into ``out`` when there is one), for the comparison."""
    book = folder / ARMS_DIR / ARMS_BOOK
    published = [name for name in (ARM_FORECASTS, ARM_ACCOUNTS, EXTRA_RUNS, FETCH_RECORDS, EXPERIMENT, REPEATS)
                 if (folder / name).is_file()]
    if not book.is_file() or not published:
        return
    rows = list(arm_rows(book))
    if ARM_FORECASTS in published:
        write_bytes(out / ARM_FORECASTS, csv_bytes(rows))
    if ARM_ACCOUNTS in published:
        write_arm_accounts(book, out / ARM_ACCOUNTS)
    if FETCH_RECORDS in published:
        write_bytes(out / FETCH_RECORDS, csv_bytes(fetch_rows(book), FETCH_COLUMNS))
    if EXTRA_RUNS in published:
        write_bytes(out / EXTRA_RUNS, csv_bytes(extra_rows(book), EXTRA_COLUMNS))
    council = out / "council-forecasts.csv" if (out / "council-forecasts.csv").is_file() else \
        folder / "council-forecasts.csv"
    open_rows = _read_csv(council) if council.is_file() else []
    if EXPERIMENT in published:
        write_json(out / EXPERIMENT, arms_experiment(open_rows, rows))
    if REPEATS in published:
        write_json(out / REPEATS, repeats_report(rows))


def _read_csv(path: Path) -> list[dict[str, str]]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def csv_bytes(rows: Iterable[dict[str, str]], columns: Mapping[str, str] = ARM_COLUMNS) -> bytes:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return buf.getvalue().encode("utf-8")


def fetch_rows(book: Path) -> Iterator[dict[str, str]]:
    """One row per sealed fetch record of a cited link, in book order."""
    for line in iter_lines(book):
        x = read_arm_line({**line.content, "at": line.at})
        if isinstance(x, FetchRecordLine):
            yield {"session": x.session, "url": x.url, "label": x.label, "host": x.host, "status": _text(x.status),
                   "fetched_at": x.fetched_at, "sha256": x.sha256 or "", "size": str(x.size),
                   "declared_published": x.declared_published or "", "error": x.error,
                   "cited_by": ";".join(x.cited_by), "line": str(line.n)}


def extra_rows(book: Path) -> Iterator[dict[str, str]]:
    """One row per scored cell of every extra reference run (its ``extra_score`` lines), in book order."""
    runs: dict[str, ArmRunLine] = {}
    for line in iter_lines(book):
        typed = read_arm_line({**line.content, "at": line.at})
        if isinstance(typed, ArmRunLine):
            runs[typed.run_id] = typed
        elif isinstance(typed, ExtraScoreLine) and typed.run_id in runs:
            run = runs[typed.run_id]
            for r in typed.rows:
                yield {"run_id": run.run_id, "kind": run.arm, "label": run.label, "asked_on": run.asked_on,
                       "session": run.session, "horizon": typed.horizon, "seat": r.seat, "asset": r.market,
                       "prob_up": _text(r.prob_up), "reference_at": r.reference_at, "end_at": r.end_at,
                       "ref": _text(r.reference), "close": _text(r.close), "outcome": _text(r.outcome),
                       "brier": _text(r.brier), "why": r.why}


def _text(value: float | int | None) -> str:
    return "" if value is None else repr(value)


def arm_rows(book: Path) -> Iterator[dict[str, str]]:
    """One row per seat × market × horizon of every arm run's roster, from the sealed book alone (a reply's
    cells; a silent or refused seat's cells empty, with its status), in book order."""
    runs: dict[str, ArmRunLine] = {}
    for line in iter_lines(book):
        typed = read_arm_line({**line.content, "at": line.at})
        if isinstance(typed, ArmRunLine):
            runs[typed.run_id] = typed
        elif isinstance(typed, ArmAnswerLine | ArmSilenceLine) and typed.run_id in runs:
            yield from _cells(runs[typed.run_id], typed, line.n)


def _cells(run: ArmRunLine, reply: ArmAnswerLine | ArmSilenceLine, n: int) -> Iterator[dict[str, str]]:
    sealed = iso_seconds(reply.sealed_time())
    answer = reply if isinstance(reply, ArmAnswerLine) else None
    base = {"run_id": run.run_id, "session": run.session, "arm": run.arm, "repeat": str(run.repeat),
            "seat": reply.seat, "model": answer.model if answer else "", "version": answer.version if answer else "",
            "line": str(n), "sealed_at": sealed, "reference_at": run.reference_at,
            "comparable": "true" if parse_iso(sealed) <= parse_iso(run.reference_at) else "false",
            "search_status": answer.search_status if answer else "",
            "outside": ";".join(answer.outside) if answer else "",
            "status": answer.status if answer else "no_answer"}
    items = answer.items if answer is not None and answer.status == "answered" else {}
    if not items:  # a silent or refused reply (or one without cells): one row says so
        yield {**base, "asset": "", "horizon": "", "prob_up": "", "action": "", "cell_status": ""}
        return
    for market in sorted(items):
        for horizon, cell in sorted(items[market].items(), key=lambda hc: HORIZONS.get(hc[0], 9)):
            prob = cell.get("prob_up")
            yield {**base, "asset": market, "horizon": horizon, "prob_up": "" if prob is None else repr(prob),
                   "action": str(cell.get("action") or ""), "cell_status": str(cell.get("cell_status") or "")}

#!/usr/bin/env python3
"""Stand-alone conformance checker for a league's forecasts CSV (standard library only).

Run it on a downloaded file without installing anything:

    python3 -I conformance.py council-forecasts.csv

It validates every row's event contract (the nine keys of docs/protocol.md section 2), rebuilds both
event ids and compares them with the row, checks times, probability ranges and outcome fields,
rejects one id used for two different events, and requires a methodology version on every row.
It prints ``N rows, ok`` or one line per failure (``row K: ...``) and exits 1.
"""

import csv
import hashlib
import json
import os
import re
import sys
from datetime import datetime
from typing import TextIO

CONTRACT_KEYS = ("asset", "horizon", "reference_at", "end_at", "rule", "resolver_version",
                 "reference_rule", "price_provider", "price_symbol")
REQUIRED_COLUMNS = (
    "run_id session seat model mode line sealed_at status asset horizon action action_word prob_up exp_pct "
    "target invalidation ref close actual_pct draw source_domains source_urls why_missing run_role "
    "seat_versions_in_run line_kind reference_at same_event cell_status attempt event_id event_id_v2 "
    "event_reference_at event_end_at methodology_version rule resolver_version reference_rule price_provider "
    "price_symbol"
).split()
STATUSES = {"counted", "not_counted", "counted_50", "no_answer", "refused_shape"}
# Appendix C of the paper: run_role session_run / earlier_run (asked_again: the league's retry label);
# line_kind issue / correction (run: a row for a seat that sealed nothing). The earlier names
# (counted, not_counted, answer) are still accepted, so an older folder checks as it did.
RUN_ROLES = {"session_run", "earlier_run", "asked_again", "counted", "not_counted", ""}
LINE_KINDS = {"issue", "correction", "run", "answer", ""}
CELL_STATUSES = {"", "elicited", "explicit_50", "invalid"}
HORIZONS = {"1d", "1w", "1m", "6m"}
# Rows that were never tied to an event (nothing sealed, or sealed after the close) may leave it empty.
NO_EVENT_OK = {"no_answer", "refused_shape", "not_counted"}
ISO = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$")
ASSET = re.compile(r"^[A-Z][A-Z0-9]{1,9}$")


def event_id(obj: dict[str, str], keys: tuple[str, ...], prefix: str) -> str:
    text = json.dumps({k: obj[k] for k in keys}, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return prefix + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def when(text: str) -> datetime:
    if not ISO.match(text or ""):
        raise ValueError(f"{text!r} is not UTC ISO-8601 with seconds (YYYY-MM-DDTHH:MM:SSZ)")
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ")


def number(text: str, name: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{name} {text!r} is not a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"{name} {text!r} is not finite")
    return value


def contract_of(row: dict[str, str]) -> dict[str, str]:
    return {"asset": row["asset"], "horizon": row["horizon"], "reference_at": row["event_reference_at"],
            "end_at": row["event_end_at"], "rule": row["rule"], "resolver_version": row["resolver_version"],
            "reference_rule": row["reference_rule"], "price_provider": row["price_provider"],
            "price_symbol": row["price_symbol"]}


def check_contract(row: dict[str, str]) -> tuple[list[str], dict[str, str] | None]:
    problems: list[str] = []
    contract = contract_of(row)
    empty = [k for k in CONTRACT_KEYS if not contract[k]]
    no_event = all(not contract[k] for k in CONTRACT_KEYS[2:]) and not row["event_id_v2"]
    if no_event and row["status"] in NO_EVENT_OK:
        return [], None
    if empty:
        return [f"contract keys empty: {', '.join(empty)}"], None
    if not ASSET.match(contract["asset"]):
        problems.append(f"asset {contract['asset']!r} is not a market code")
    if contract["horizon"] not in HORIZONS:
        problems.append(f"horizon {contract['horizon']!r} is not one of 1d 1w 1m 6m")
    try:
        if when(contract["end_at"]) <= when(contract["reference_at"]):
            problems.append("event_end_at is not after event_reference_at")
    except ValueError as exc:
        problems.append(str(exc))
    if event_id(contract, CONTRACT_KEYS[:5], "ev1-") != row["event_id"]:
        problems.append(f"event_id {row['event_id']!r} does not match the contract")
    if event_id(contract, CONTRACT_KEYS, "ev2-") != row["event_id_v2"]:
        problems.append(f"event_id_v2 {row['event_id_v2']!r} does not match the contract")
    return problems, contract


def check_values(row: dict[str, str]) -> list[str]:
    problems: list[str] = []
    if not row["methodology_version"]:
        problems.append("methodology_version is empty")
    if row["status"] not in STATUSES:
        problems.append(f"status {row['status']!r} is not one of {sorted(STATUSES)}")
    if row["cell_status"] not in CELL_STATUSES:
        problems.append(f"cell_status {row['cell_status']!r} is not a cell status")
    if row["prob_up"]:
        try:
            p = number(row["prob_up"], "prob_up")
            if not 0 <= p <= 100:
                problems.append(f"prob_up {p} outside 0-100")
        except ValueError as exc:
            problems.append(str(exc))
    elif row["status"] == "counted":
        problems.append("a counted row has no prob_up")
    if row["run_role"] not in RUN_ROLES:
        problems.append(f"run_role {row['run_role']!r} is not one of {sorted(RUN_ROLES)}")
    if row["line_kind"] not in LINE_KINDS:
        problems.append(f"line_kind {row['line_kind']!r} is not one of {sorted(LINE_KINDS)}")
    if row.get("same_event") == "1" and row.get("reference_at") and row["event_reference_at"] \
            and row["reference_at"] != row["event_reference_at"]:
        problems.append("a same_event row whose reference_at is not its event's reference")
    if row["draw"] not in ("", "0", "1"):
        problems.append(f"draw {row['draw']!r} is not 0, 1 or empty")
    return problems + check_outcome(row) + check_times(row)


def check_outcome(row: dict[str, str]) -> list[str]:
    if not (row["ref"] and row["close"]):
        return ["actual_pct given without ref and close"] if row["actual_pct"] else []
    try:
        ref, close = number(row["ref"], "ref"), number(row["close"], "close")
        if ref <= 0:
            return [f"ref {ref} is not positive"]
        if row["actual_pct"]:
            actual = number(row["actual_pct"], "actual_pct")
            if abs(actual - 100 * (close / ref - 1)) > 1e-6 + 1e-9 * abs(actual):
                return [f"actual_pct {actual} != 100*(close/ref-1) = {100 * (close / ref - 1):.10f}"]
    except ValueError as exc:
        return [str(exc)]
    return []


def check_times(row: dict[str, str]) -> list[str]:
    if not row["sealed_at"] and row["status"] == "no_answer":
        return []
    try:
        sealed = when(row["sealed_at"])
        if row.get("reference_price_at"):
            if when(row["reference_price_at"]) < when(row["event_reference_at"]):
                return ["reference_price_at is before the event's reference_at"]
        if row["status"] == "counted" and sealed > when(row["event_reference_at"]):
            return [f"counted row sealed at {row['sealed_at']}, after its reference {row['event_reference_at']}"]
    except ValueError as exc:
        return [str(exc)]
    return []


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python3 -I conformance.py FORECASTS.csv")
        return 2
    if not os.path.isfile(argv[1]):  # a folder, or a FIFO or a device that would be read for ever
        print(f"cannot open {argv[1]}: not a regular file")
        return 2
    try:
        fh = open(argv[1], encoding="utf-8", newline="")
    except OSError as exc:
        print(f"cannot open {argv[1]}: {exc}")
        return 2
    try:
        return _check_file(fh)
    except (UnicodeDecodeError, csv.Error) as exc:
        print(f"{argv[1]}: not a UTF-8 CSV table ({exc})")
        return 2


def _check_file(fh: TextIO) -> int:
    with fh:
        reader = csv.DictReader(fh)
        missing = [c for c in REQUIRED_COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            print(f"header: missing columns {', '.join(missing)}")
            return 1
        failures: list[str] = []
        count = 0
        seen_v2: dict[str, str] = {}
        seen_v1: dict[str, str] = {}
        for count, row in enumerate(reader, 1):
            problems, contract = check_contract(row)
            problems += check_values(row)
            if contract is not None and not problems:  # a row whose own ids are wrong is not the id's owner
                key = json.dumps(contract, sort_keys=True)
                if seen_v2.setdefault(row["event_id_v2"], key) != key:
                    problems.append(f"event_id_v2 {row['event_id_v2']} is used for two different events")
                short = json.dumps({k: contract[k] for k in CONTRACT_KEYS[:5]}, sort_keys=True)
                if seen_v1.setdefault(row["event_id"], short) != short:
                    problems.append(f"event_id {row['event_id']} is used for two different events")
            failures += [f"row {count} (line {count + 1}): {p}" for p in problems]
    if failures:
        for failure in failures:
            print(failure)
        print(f"{count} rows, {len(failures)} failure{'s' if len(failures) != 1 else ''}")
        return 1
    print(f"{count} rows, ok")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

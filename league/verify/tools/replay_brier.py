#!/usr/bin/env python3
"""Recount every published Brier score from the forecast rows alone.

Stand-alone, standard library only, so a reader can run it without installing the project:

    python3 -I replay_brier.py --data public            (an open-data folder on disk)
    python3 -I replay_brier.py --data https://host/     (the same folder served over HTTP)

It reads ``council-forecasts.csv`` and, for every row that enters a seat's stated-probability score
(scoring.md), recomputes ``(prob_up/100 - outcome)^2`` with ``outcome = close > ref`` (a strict rise).
A row enters when: status is ``counted``; cell_status is ``elicited`` or ``explicit_50``;
prob_up, ref and close are numbers; run_role is ``session_run`` (the session's counted run);
same_event is not false (own-reference rows are separate events); line_kind is ``issue`` (the cell
as sealed: a ``correction`` row was sealed after the reference). Folders published before the paper's
Appendix C names (``counted``, ``answer``) read the same.

It totals the scores by seat, horizon and methodology version, then compares the seat x horizon
figures with the ``models`` list of ``council-league.json`` (``brier``, ``n`` and, when published,
``sessions``). A published figure matches when it equals the recount within the rounding of its
own printed digits. Exit status 0 when every figure matched, 1 on any mismatch or when nothing
was published to compare, 2 when the input cannot be read.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import sys
import urllib.parse
import urllib.request
from collections import defaultdict
from collections.abc import Iterable, Iterator
from typing import Any

STATED = {"elicited", "explicit_50"}
SESSION_RUN = {"session_run", "counted"}  # Appendix C's name, and the name before it
ISSUE = {"issue", "answer"}
FALSE_WORDS = {"0", "false", "no", "n"}
TIMEOUT_S = 60
Row = tuple[str, str, str, str, float]
Totals = dict[tuple[str, ...], list[Any]]


def fetch_text(base: str, name: str) -> str:
    """Read ``name`` from a folder path or a base URL (``http://`` or ``https://``)."""
    if base.startswith(("http://", "https://")):
        url = urllib.parse.urljoin(base.rstrip("/") + "/", name)
        with urllib.request.urlopen(url, timeout=TIMEOUT_S) as resp:  # noqa: S310 - the reader's own URL
            body: bytes = resp.read()
            return body.decode("utf-8")
    with open(f"{base.rstrip('/')}/{name}", encoding="utf-8", newline="") as fh:
        return fh.read()


def number(text: str | None) -> float | None:
    """A float, or None for an empty or non-numeric cell (such a row is not a stated forecast)."""
    text = (text or "").strip()
    if not text:
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value else None


def enters_score(row: dict[str, str]) -> bool:
    """The row filter of the module docstring (absent optional columns do not exclude a row)."""
    return (row.get("status") == "counted" and row.get("cell_status") in STATED
            and row.get("run_role", "session_run") in SESSION_RUN
            and (row.get("same_event") or "").strip().lower() not in FALSE_WORDS
            and row.get("line_kind", "issue") in ISSUE)


def counted_rows(csv_text: str) -> Iterator[Row]:
    """Yield (seat, horizon, version, session, brier) for every scorable row."""
    for row in csv.DictReader(io.StringIO(csv_text)):
        if not enters_score(row):
            continue
        p, ref, close = number(row.get("prob_up")), number(row.get("ref")), number(row.get("close"))
        if p is None or ref is None or close is None:
            continue
        outcome = 1.0 if close > ref else 0.0
        score = (p / 100.0 - outcome) ** 2
        yield row["seat"], row["horizon"], row.get("methodology_version", ""), row["session"], score


def totals(rows: Iterable[Row]) -> Totals:
    """Sum, count and session set per key; keys (seat, horizon) and (seat, horizon, version)."""
    acc: Totals = defaultdict(lambda: [0.0, 0, set()])
    for seat, horizon, version, session, score in rows:
        for key in ((seat, horizon), (seat, horizon, version)):
            slot = acc[key]
            slot[0] += score
            slot[1] += 1
            slot[2].add(session)
    return acc


def tolerance(published: float) -> float:
    """Half a unit of the last printed digit: 0.2134 matches anything within 0.00005."""
    text = repr(float(published))
    if "e" in text or "E" in text:
        return 1e-9
    decimals = len(text.split(".")[1]) if "." in text else 0
    return max(0.5 * 10.0 ** (-decimals), 1e-9)


def compare(model: dict[str, Any], acc: Totals) -> list[str]:
    """Return a list of differences (empty when the published figure is reproduced)."""
    key: tuple[str, ...] = (model["seat"], model["horizon"])
    if model.get("methodology_version"):
        key = key + (model["methodology_version"],)
    slot = acc.get(key)
    if slot is None:
        return [f"no counted, resolved rows for {'/'.join(key)} in the forecasts file"]
    mean, n, sessions = slot[0] / slot[1], slot[1], len(slot[2])
    problems = []
    if model.get("brier") is None or abs(float(model["brier"]) - mean) > tolerance(model["brier"]):
        problems.append(f"brier published {model.get('brier')} recomputed {mean:.10f}")
    if "n" in model and int(model["n"]) != n:
        problems.append(f"n published {model['n']} recomputed {n}")
    if "sessions" in model and model["sessions"] is not None and int(model["sessions"]) != sessions:
        problems.append(f"sessions published {model['sessions']} recomputed {sessions}")
    return problems


def published_models(league_text: str) -> list[dict[str, Any]]:
    models = json.loads(league_text).get("models")
    if not isinstance(models, list):
        raise ValueError("council-league.json has no 'models' list")
    return [m for m in models if isinstance(m, dict) and m.get("brier") is not None]


def print_totals(acc: Totals) -> None:
    print("recomputed totals (seat, horizon, methodology version: mean Brier over n rows, sessions)")
    for key in sorted(k for k in acc if len(k) == 3):
        total, n, sessions = acc[key]
        print(f"  {key[0]:<16} {key[1]:<3} {key[2] or '-':<6} {total / n:.6f}  n={n:<6} sessions={len(sessions)}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Recompute every published Brier score from council-forecasts.csv.")
    parser.add_argument("--data", required=True, help="open-data folder or its URL")
    parser.add_argument("--quiet", action="store_true", help="print only the summary and the mismatches")
    args = parser.parse_args(argv)
    try:
        acc = totals(counted_rows(fetch_text(args.data, "council-forecasts.csv")))
        models = published_models(fetch_text(args.data, "council-league.json"))
    except (OSError, ValueError, KeyError, csv.Error) as exc:
        print(f"replay_brier: cannot read the published files: {exc}", file=sys.stderr)
        return 2
    if not args.quiet:
        print_totals(acc)
    mismatched = 0
    for model in models:
        problems = compare(model, acc)
        if problems:
            mismatched += 1
            label = f"{model['seat']} {model['horizon']} {model.get('methodology_version', '')}".strip()
            print(f"MISMATCH {label}: " + "; ".join(problems))
    matched = len(models) - mismatched
    print(f"{matched} of {len(models)} published Brier figures reproduced, {mismatched} differ")
    return 1 if mismatched or not models else 0


if __name__ == "__main__":
    sys.exit(main())

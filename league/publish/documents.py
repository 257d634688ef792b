"""The summary documents publish writes itself: protocol, code manifest, digest, dataset, index.

Each function is pure (inputs in, a JSON-ready object or text out); :mod:`league.publish.files`
does the reading and writing. That keeps every document testable without a folder.
"""

from __future__ import annotations

import csv
import hashlib
import html
import importlib
import io
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from league.publish.bookfacts import BookFacts
from league.publish.catalogue import BOOK_FIELDS, describe_column, info_for

DIGEST_LIMIT = 30 * 1024


# ------------------------------------------------------------------------------ protocol
def protocol_document(facts: BookFacts, settings: Mapping[str, Any] | None, generated_at: str) -> dict[str, Any]:
    """arena-protocol.json: rules in force, every version seen in the book, dated changes."""
    changes: list[dict[str, Any]] = []
    for version, seen in facts.methodology.items():
        changes.append({"date": seen["first_at"][:10], "what": "methodology", "version": version,
                        "change": f"methodology {version} in force from session {seen['first_session']}",
                        "line": seen["first_line"]})
    changes += _version_changes(facts)
    changes += [{"date": c["at"][:10], "what": "correction", "line": c["line"], "of": c["of"],
                 "change": c["reason"], "source": c["source"]} for c in facts.corrections]
    portfolio = _portfolio_rules()
    changes += [{**c, "what": "portfolio_rules"} for c in portfolio.get("changes", [])]
    return {
        "generated_at": generated_at,
        "methodology": {"in_config": dict(settings or {}), "versions": facts.methodology},
        "scoring_rules": _scoring_rules(),
        "portfolio": portfolio or {"status": "not produced: portfolio rules not installed"},
        "model_versions": sorted(facts.versions.values(), key=lambda v: (v["seat"], v["first_line"])),
        "changes": sorted(changes, key=lambda c: (str(c.get("date", "")), str(c.get("what", "")))),
    }


def _version_changes(facts: BookFacts) -> list[dict[str, Any]]:
    """A seat's second and later model versions are dated changes (protocol.md section 8)."""
    by_seat: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for entry in facts.versions.values():
        by_seat[entry["seat"]].append(entry)
    out = []
    for seat, entries in by_seat.items():
        for entry in sorted(entries, key=lambda e: e["first_line"])[1:]:
            out.append({"date": entry["first_at"][:10], "what": "model_version", "seat": seat,
                        "change": f"{seat} answered as {entry['model']} {entry['version']}",
                        "line": entry["first_line"]})
    return out


def _scoring_rules() -> dict[str, Any]:
    try:
        constants = importlib.import_module("league.scoring.constants")
    except ImportError:
        return {"status": "not produced: scoring constants not installed"}
    names = ("RANK_MIN_FORECASTS", "RANK_MIN_SESSIONS", "INTERVAL_MIN_SESSIONS", "BOOTSTRAP_MIN_SESSIONS",
             "BOOTSTRAP_REPS", "BOOTSTRAP_SEED", "CALIB_EDGES", "CALIB_MIN", "CLAMP_LO", "CLAMP_HI",
             "TRIM_MIN_ANSWERS", "FAMILY_EXTRA_WEIGHT", "EQUIV_MARGIN", "COIN_P", "MOMENTUM_P")
    return {n.lower(): _jsonable(getattr(constants, n)) for n in names if hasattr(constants, n)}


def _portfolio_rules() -> dict[str, Any]:
    try:
        rules = importlib.import_module("league.portfolio.rules")
        document = rules.protocol_document()
    except (ImportError, AttributeError):
        return {}
    return dict(json.loads(json.dumps(document, default=str)))


def _jsonable(value: Any) -> Any:
    return list(value) if isinstance(value, tuple | frozenset | set) else value


# ---------------------------------------------------------------------------------- code
def code_manifest(files: Iterable[tuple[str, bytes]]) -> tuple[dict[str, Any], dict[str, bytes]]:
    """arena-code.json and the ``arena-code-<file>.txt`` bodies for (repo path, bytes) pairs."""
    entries, bodies = [], {}
    for path, data in sorted(files):
        name = "arena-code-" + path.removeprefix("league/").replace("/", "-") + ".txt"
        bodies[name] = data
        entries.append({"path": path, "published_as": name, "bytes": len(data),
                        "sha256": hashlib.sha256(data).hexdigest()})
    manifest = {"description": "scoring and portfolio engine source files; each published file's SHA-256 "
                "equals `sha256sum` of the .txt beside this file", "files": entries}
    return manifest, bodies


# -------------------------------------------------------------------------------- digest
def markets_digest(forecasts_csv: str, generated_at: str) -> dict[str, Any]:
    """markets-digest.json: per market the last resolved move and the latest run's mean probability."""
    rows = list(csv.DictReader(io.StringIO(forecasts_csv)))
    latest = max((r["session"] for r in rows), default="")
    digest: dict[str, Any] = {"generated_at": generated_at, "latest_session": latest, "rows": len(rows),
                              "markets": _market_digest(rows, latest), "seats": _seat_digest(rows)}
    if len(json.dumps(digest)) > DIGEST_LIMIT:
        digest["seats"] = "left out to keep this file under 30 KB; see council-league.json"
    return digest


def _num(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


def _market_digest(rows: list[dict[str, str]], latest: str) -> dict[str, Any]:
    markets: dict[str, Any] = {}
    for asset in sorted({r["asset"] for r in rows}):
        mine = [r for r in rows if r["asset"] == asset]
        resolved = [r for r in mine if _num(r.get("ref")) is not None and _num(r.get("close")) is not None]
        last = max(resolved, key=lambda r: (r["session"], r["horizon"] == "1d"), default=None)
        today = [p for r in mine if r["session"] == latest and r["status"] == "counted"
                 and not r["seat"].startswith("_") and (p := _num(r.get("prob_up"))) is not None]
        markets[asset] = {
            "last_resolved": None if last is None else {"session": last["session"], "horizon": last["horizon"],
                                                        "ref": _num(last["ref"]), "close": _num(last["close"])},
            "latest_mean_prob_up": round(sum(today) / len(today), 2) if today else None,
            "latest_n": len(today),
        }
    return markets


def _seat_digest(rows: list[dict[str, str]]) -> dict[str, Any]:
    acc: dict[tuple[str, str], list[float]] = defaultdict(list)
    for r in rows:
        p, ref, close = _num(r.get("prob_up")), _num(r.get("ref")), _num(r.get("close"))
        if r["status"] == "counted" and None not in (p, ref, close):
            assert p is not None and ref is not None and close is not None
            acc[(r["seat"], r["horizon"])].append((p / 100 - (1.0 if close > ref else 0.0)) ** 2)
    seats: dict[str, Any] = defaultdict(dict)
    for (seat, horizon), scores in sorted(acc.items()):
        seats[seat][horizon] = {"brier": round(sum(scores) / len(scores), 4), "n": len(scores)}
    return dict(seats)


# ------------------------------------------------------------------------------- dataset
def csv_columns(path: Path) -> tuple[list[str], int]:
    """The header and the number of data rows of a CSV file."""
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        rows = sum(1 for _ in reader)
    return header, rows


def describe_csv(name: str, header: list[str], rows: int) -> dict[str, Any]:
    columns = []
    for column in header:
        text, registered = describe_column(name, column)
        columns.append({"name": column, "description": text, "registered": registered})
    return {"format": "csv", "rows": rows, "columns": columns}


def describe_json(obj: Any) -> dict[str, Any]:
    """Top-level keys of a JSON file with their JSON types (nested content is documented by its producer)."""
    if not isinstance(obj, dict):
        return {"format": "json", "top_level": type(obj).__name__}
    keys = [{"name": k, "type": _json_type(v), "description": _JSON_KEYS.get(k, f"{k.replace('_', ' ')} section")}
            for k, v in sorted(obj.items())]
    return {"format": "json", "keys": keys}


def describe_book(facts: BookFacts) -> dict[str, Any]:
    fields = [{"name": k, "description": v} for k, v in BOOK_FIELDS.items()]
    kinds = {k: {"lines": facts.kinds[k], "content_keys": sorted(facts.kind_keys.get(k, ()))}
             for k in sorted(facts.kinds)}
    return {"format": "jsonl", "rows": facts.lines, "fields": fields, "kinds": kinds}


_JSON_KEYS = {
    "generated_at": "UTC time the file was generated",
    "models": "one entry per seat x horizon (x methodology version): brier, n, sessions",
    "changes": "dated changes, oldest first",
    "files": "one entry per published file",
    "markets": "one entry per market code",
    "seats": "one entry per seat",
    "methodology": "methodology versions in force",
    "portfolio": "portfolio rule sets",
}


def _json_type(value: Any) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


# --------------------------------------------------------------------------------- index
def index_html(entries: list[dict[str, Any]], skipped: list[tuple[str, str]], generated_at: str) -> str:
    """index.html: every file with its size and update frequency, and what was not produced."""
    rows = "\n".join(
        f"<tr><td><a href=\"{html.escape(e['name'])}\">{html.escape(e['name'])}</a></td>"
        f"<td class=\"num\">{e['bytes']}</td><td>{html.escape(info_for(e['name']).frequency)}</td>"
        f"<td>{html.escape(info_for(e['name']).description)}</td></tr>" for e in entries)
    missing = "\n".join(f"<li>{html.escape(n)}: {html.escape(r)}</li>" for n, r in skipped) or "<li>none</li>"
    return _INDEX.format(generated_at=html.escape(generated_at), rows=rows, missing=missing)


_INDEX = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Forecasting league: open data</title>
<style>body{{font:14px/1.4 system-ui,sans-serif;margin:2em}}td,th{{padding:2px 8px;text-align:left}}
.num{{text-align:right;font-variant-numeric:tabular-nums}}</style></head>
<body><h1>Open data</h1>
<p>Generated {generated_at}. Every file below is regenerated from the sealed books, the database and the
price cache; <a href="arena-dataset.json">arena-dataset.json</a> describes every column.</p>
<table><thead><tr><th>file</th><th>bytes</th><th>updated</th><th>content</th></tr></thead>
<tbody>
{rows}
</tbody></table>
<h2>Not produced in this run</h2><ul>
{missing}
</ul></body></html>
"""

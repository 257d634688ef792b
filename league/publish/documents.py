"""The summary documents publish writes itself: protocol, code manifest, digest, dataset, index.

Each function is pure (inputs in, a JSON-ready object or text out); :mod:`league.publish.files`
does the reading and writing. That keeps every document testable without a folder.
"""

from __future__ import annotations

import ast
import csv
import hashlib
import html
import json
import operator
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TypedDict

from league.jsonvalue import Json, JsonObject, items
from league.portfolio.rules import protocol_document as portfolio_protocol
from league.publish.bookfacts import BookFacts, VersionFact
from league.publish.catalogue import BOOK_FIELDS, describe_column, info_for

DIGEST_LIMIT = 30 * 1024


# ------------------------------------------------------------------------------ protocol
def protocol_document(facts: BookFacts, settings: Mapping[str, object] | None,
                      generated_at: str) -> dict[str, object]:
    """arena-protocol.json: rules in force, every version seen in the book, dated changes."""
    changes: list[Mapping[str, object]] = []
    for version, seen in facts.methodology.items():
        changes.append({"date": seen["first_at"][:10], "what": "methodology", "version": version,
                        "change": f"methodology {version} in force from session {seen['first_session']}",
                        "line": seen["first_line"]})
    changes += _version_changes(facts)
    changes += [{"date": c["at"][:10], "what": "correction", "line": c["line"], "of": c["of"],
                 "change": c["reason"], "source": c["source"]} for c in facts.corrections]
    portfolio = _portfolio_rules()
    changes += [{**c, "what": "portfolio_rules"} for c in items(portfolio.get("changes")) if isinstance(c, dict)]
    return {
        "generated_at": generated_at,
        "methodology": {"in_config": dict(settings or {}), "versions": facts.methodology},
        "scoring_rules": _scoring_rules(),
        "portfolio": portfolio or {"status": "not produced: portfolio rules not installed"},
        "model_versions": sorted(facts.versions.values(), key=lambda v: (v["seat"], v["first_line"])),
        "changes": sorted(changes, key=lambda c: (str(c.get("date", "")), str(c.get("what", "")))),
    }


def _version_changes(facts: BookFacts) -> list[Mapping[str, object]]:
    """A seat's second and later model versions are dated changes (docs/protocol.md section 8)."""
    by_seat: dict[str, list[VersionFact]] = defaultdict(list)
    for entry in facts.versions.values():
        by_seat[entry["seat"]].append(entry)
    out: list[Mapping[str, object]] = []
    for seat, entries in by_seat.items():
        for entry in sorted(entries, key=lambda e: e["first_line"])[1:]:
            out.append({"date": entry["first_at"][:10], "what": "model_version", "seat": seat,
                        "change": f"{seat} answered as {entry['model']} {entry['version']}",
                        "line": entry["first_line"]})
    return out


def _scoring_rules() -> dict[str, object]:
    """The scoring constants, read from league/scoring/constants.py as literals.

    Parsed rather than imported: importing the scoring package pulls in scipy and statsmodels,
    seconds of start-up for a handful of numbers.
    """
    path = Path(__file__).resolve().parent.parent / "scoring" / "constants.py"
    if not path.is_file():
        return {"status": "not produced: scoring constants not installed"}
    found: dict[str, object] = {}
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            name = node.target.id
            if name in SCORING_CONSTANTS:
                found[name.lower()] = _literal(node.value)
    return found


def _literal(node: ast.expr) -> object:
    """A literal, or plain arithmetic on numbers (``1.0 / 3.0``); anything else as its source text."""
    try:
        return _jsonable(ast.literal_eval(node))
    except ValueError:
        pass
    if isinstance(node, ast.BinOp) and type(node.op) in _ARITH:
        left, right = _literal(node.left), _literal(node.right)
        if isinstance(left, int | float) and isinstance(right, int | float):
            return _ARITH[type(node.op)](left, right)
    return ast.unparse(node)


_ARITH: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv}


SCORING_CONSTANTS = frozenset({
    "RANK_MIN_FORECASTS", "RANK_MIN_SESSIONS", "INTERVAL_MIN_SESSIONS", "BOOTSTRAP_MIN_SESSIONS", "BOOTSTRAP_REPS",
    "BOOTSTRAP_SEED", "CALIB_EDGES", "CALIB_MIN", "CLAMP_LO", "CLAMP_HI", "TRIM_MIN_ANSWERS", "FAMILY_EXTRA_WEIGHT",
    "EQUIV_MARGIN", "COIN_P", "MOMENTUM_P", "GAIN_BLOCK", "POWER_FACTOR", "ALL_WRONG_MIN",
})


def _portfolio_rules() -> JsonObject:
    """The portfolio rule sets as the JSON they publish as (dates and other values as their text)."""
    rules: JsonObject = dict(json.loads(json.dumps(portfolio_protocol(), default=str)))
    return rules


def _jsonable(value: object) -> object:
    return list(value) if isinstance(value, tuple | frozenset | set) else value


# ---------------------------------------------------------------------------------- code
def code_manifest(files: Iterable[tuple[str, bytes]]) -> tuple[dict[str, object], dict[str, bytes]]:
    """arena-code.json and the ``arena-code-<file>.txt`` bodies for (repo path, bytes) pairs."""
    entries, bodies = [], {}
    for path, data in sorted(files):
        name = "arena-code-" + path.removeprefix("league/").replace("/", "-") + ".txt"
        bodies[name] = data
        entries.append({"path": path, "published_as": name, "bytes": len(data),
                        "sha256": hashlib.sha256(data).hexdigest()})
    manifest: dict[str, object] = {
        "description": "scoring and portfolio engine source files; each published file's SHA-256 "
        "equals `sha256sum` of the .txt beside this file", "files": entries}
    return manifest, bodies


# -------------------------------------------------------------------------------- digest
class _Resolved(TypedDict):
    """A market's last resolved move as the digest shows it."""

    session: str
    horizon: str
    ref: float
    close: float


class _Digest:
    """One streaming pass over the forecast rows (the CSV can hold ~100k rows; never held in memory)."""

    def __init__(self) -> None:
        self.rows = 0
        self.latest = ""
        self.today: dict[str, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        self.last: dict[str, tuple[str, bool, _Resolved]] = {}
        self.seats: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])

    def add(self, r: dict[str, str]) -> None:
        self.rows += 1
        session, asset = r["session"], r["asset"]
        if session > self.latest:
            self.latest, self.today = session, defaultdict(lambda: defaultdict(list))
        p, ref, close = _num(r.get("prob_up")), _num(r.get("ref")), _num(r.get("close"))
        counted = r["status"] == "counted"
        if session == self.latest and counted and not r["seat"].startswith("_") and p is not None:
            self.today[asset][r["horizon"]].append(p)
        if ref is not None and close is not None:
            key = (session, r["horizon"] == "1d")
            if asset not in self.last or key > self.last[asset][:2]:
                self.last[asset] = (*key, {"session": session, "horizon": r["horizon"], "ref": ref, "close": close})
            if counted and p is not None:
                slot = self.seats[(r["seat"], r["horizon"])]
                slot[0] += (p / 100 - (1.0 if close > ref else 0.0)) ** 2
                slot[1] += 1

    def markets(self) -> dict[str, object]:
        out: dict[str, object] = {}
        for asset in sorted(set(self.last) | set(self.today)):
            today = self.today.get(asset, {})
            out[asset] = {"last_resolved": self.last[asset][2] if asset in self.last else None,
                          "latest_session": {h: {"mean_prob_up": round(sum(ps) / len(ps), 2), "n": len(ps)}
                                             for h, ps in sorted(today.items())}}
        return out

    def seat_table(self) -> dict[str, dict[str, dict[str, float]]]:
        seats: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
        for (seat, horizon), (total, n) in sorted(self.seats.items()):
            seats[seat][horizon] = {"brier": round(total / n, 4), "n": int(n)}
        return dict(seats)


_DIGEST_COLUMNS = ("session", "asset", "seat", "horizon", "status", "prob_up", "ref", "close")


def markets_digest(forecasts: Iterable[str], generated_at: str) -> dict[str, object]:
    """markets-digest.json: per market the last resolved move and, per horizon, the latest session's mean
    council probability (counted rows of council seats).

    ``forecasts`` is the CSV's text lines (an open file works). The per-seat figures are a plain
    all-rows mean for orientation; the published scores are those of council-league.json.
    """
    acc = _Digest()
    reader = csv.reader(forecasts)
    header = next(reader, [])
    wanted = [(k, header.index(k)) for k in _DIGEST_COLUMNS if k in header]
    for values in reader:
        acc.add({k: values[i] for k, i in wanted})
    digest: dict[str, object] = {"generated_at": generated_at, "latest_session": acc.latest, "rows": acc.rows,
                              "markets": acc.markets(), "seats": acc.seat_table()}
    if len(json.dumps(digest)) > DIGEST_LIMIT:
        digest["seats"] = "left out to keep this file under 30 KB; see council-league.json"
    return digest


def _num(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


# ------------------------------------------------------------------------------- dataset
def csv_columns(path: Path) -> tuple[list[str], int]:
    """The header and the number of data rows of a CSV file."""
    with open(path, encoding="utf-8", newline="") as fh:
        reader = csv.reader(fh)
        header = next(reader, [])
        rows = sum(1 for _ in reader)
    return header, rows


def describe_csv(name: str, header: list[str], rows: int) -> dict[str, object]:
    columns = []
    for column in header:
        text, registered = describe_column(name, column)
        columns.append({"name": column, "description": text, "registered": registered})
    return {"format": "csv", "rows": rows, "columns": columns}


def describe_json(obj: Json) -> dict[str, object]:
    """Top-level keys of a JSON file with their JSON types (nested content is documented by its producer)."""
    if not isinstance(obj, dict):
        return {"format": "json", "top_level": type(obj).__name__}
    keys = [{"name": k, "type": _json_type(v), "description": _JSON_KEYS.get(k, f"{k.replace('_', ' ')} section")}
            for k, v in sorted(obj.items())]
    return {"format": "json", "keys": keys}


def describe_book(facts: BookFacts) -> dict[str, object]:
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
    "crowd": "the crowd comparison: available, per seat and tier (seats), per question (questions); docs/crowd.md",
    "runs": "one entry per run: its rows, byte range and SHA-256 in council-forecasts.csv",
    "sessions": "one entry per session: its rows, byte range, SHA-256 and runs in council-forecasts.csv",
    "header": "byte range (offset, length) of the CSV header line",
}


def _json_type(value: Json) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(
        type(value), "number")


# --------------------------------------------------------------------------------- index
class IndexEntry(TypedDict):
    """A published file as the index lists it."""

    name: str
    bytes: int


def index_html(entries: list[IndexEntry], skipped: list[tuple[str, str]], generated_at: str) -> str:
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

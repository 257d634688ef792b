"""``league contest verify FOLDER``: re-check a published contest folder from its files alone.

Two layouts are read: ours (``sealed.json``, ``forecasts/<date>.json``, ``metrics.json``, ... at the
folder's top) and the reference implementation's (the same files under ``data/``). Checks:

1. every ``sealed.json`` entry: the file exists, its SHA-256 is the listed one, it is in the exact
   byte form (``json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)``), its date, kind and
   forecast count agree; no forecasts file is left unlisted; the list is newest first;
2. our book, when the folder has one: the chain holds and each sealed sweep's hash is in it;
3. ``metrics.json`` is recomputed from the sealed forecasts and the recorded resolutions
   (``resolutions.json``, or ``--resolutions`` for a reference folder, which publishes none) and
   compared field by field. Intervals are recomputed when the file names our bootstrap (seed,
   resamples); a reference folder's intervals come from another resampler, so only their
   consistency with the verdict is checked. A reference folder's figures are compared at the
   precision it publishes (±0.0001); ours exactly.
Each failure names the file and the field.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any

from league.contest.files import KIND, dump_bytes, read_json, sha256_bytes
from league.contest.metrics import Stats, betting_record, forecast_accuracy
from league.verify.chain import check_line

SWEEP_SEALED = "contest.sweep.sealed"  # league/contest/ledger.py's kind; not imported: no writer code here

BOOK_NAME = "contest-book.jsonl"
ACCURACY_FIELDS = ("n", "offered", "coverage", "brier", "rank")
VS_FIELDS = ("mean_diff", "sign_test_p")
BETTING_FIELDS = ("played", "wins", "losses", "no_bets", "win_rate", "net_pnl", "staked", "roi", "avg_entry", "rank")


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # "ok", "FAILED" or "skipped"
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.status == "FAILED"


def ok(name: str, detail: str = "") -> Check:
    return Check(name, "ok", detail)


def failed(name: str, detail: str) -> Check:
    return Check(name, "FAILED", detail)


def skipped(name: str, detail: str) -> Check:
    return Check(name, "skipped", detail)


@dataclass(frozen=True)
class Layout:
    root: Path
    kind: str  # "ours" or "reference"

    @property
    def tolerance(self) -> float:
        return 0.0 if self.kind == "ours" else 1e-4 + 1e-12

    def path(self, name: str) -> Path:
        return self.root / name

    def resolve(self, listed: str) -> Path | None:
        """A ``file`` of sealed.json: relative to the data folder, or (reference) to the repository."""
        rel = PurePosixPath(listed)
        if rel.is_absolute() or ".." in rel.parts:
            return None
        for base in (self.root, self.root.parent):
            if (base / rel).is_file():
                return base / rel
        return None


def find_layout(folder: Path) -> Layout | None:
    if (folder / "sealed.json").is_file():
        return Layout(folder, "ours" if (folder / "sweeps.json").exists() or (folder / BOOK_NAME).exists()
                      else "reference")
    if (folder / "data" / "sealed.json").is_file():
        return Layout(folder / "data", "reference")
    return None


# ----------------------------------------------------------------------------------- sealed files
def check_entry(layout: Layout, i: int, entry: Any) -> tuple[list[Check], dict[str, Any] | None]:
    where = f"sealed.json[{i}]"
    if not isinstance(entry, dict) or not {"date", "sha256", "file", "forecasts"} <= set(entry):
        return [failed(where, "not an object with date, sha256, file, forecasts")], None
    path = layout.resolve(str(entry["file"]))
    name = str(entry["file"])
    if path is None:
        return [failed(name, f"listed in {where} but missing from the folder")], None
    data = path.read_bytes()
    if sha256_bytes(data) != entry["sha256"]:
        return [failed(name, f"sha256 {sha256_bytes(data)} is not the sealed {entry['sha256']} ({where}.sha256)")], None
    doc = read_json(path)
    problems = []
    if dump_bytes(doc) != data:
        problems.append("not in the exact byte form json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)")
    if doc.get("date") != entry["date"]:
        problems.append(f"field date is {doc.get('date')!r}, sealed.json says {entry['date']!r}")
    if doc.get("kind") != KIND:
        problems.append(f"field kind is {doc.get('kind')!r}, expected {KIND!r}")
    if len(doc.get("forecasts", [])) != entry["forecasts"]:
        problems.append(f"field forecasts holds {len(doc.get('forecasts', []))} rows, "
                        f"sealed.json ({where}.forecasts) says {entry['forecasts']}")
    if problems:
        return [failed(name, "; ".join(problems))], None
    return [ok(name, f"sha256 {entry['sha256'][:16]}…, {entry['forecasts']} forecasts")], doc


def check_sealed(layout: Layout) -> tuple[list[Check], list[dict[str, Any]], list[dict[str, Any]]]:
    listed = read_json(layout.path("sealed.json"))
    if not isinstance(listed, list):
        return [failed("sealed.json", "not a JSON list")], [], []
    checks, docs = [], []
    for i, entry in enumerate(listed):
        found, doc = check_entry(layout, i, entry)
        checks += found
        if doc is not None:
            docs.append(doc)
    dates = [str(e.get("date")) for e in listed if isinstance(e, dict)]
    if dates != sorted(dates, reverse=True):
        checks.append(failed("sealed.json", "entries are not newest first"))
    named = {layout.resolve(str(e.get("file"))) for e in listed if isinstance(e, dict)}
    for stray in sorted((layout.root / "forecasts").glob("*.json")):
        if stray not in named:
            checks.append(failed(f"forecasts/{stray.name}", "a forecasts file not listed in sealed.json"))
    return checks, docs, listed


def check_book(layout: Layout, listed: Sequence[Mapping[str, Any]]) -> list[Check]:
    path = layout.path(BOOK_NAME)
    if not path.exists():
        return [skipped(BOOK_NAME, "no contest book in this folder")]
    lines, problem = read_chain(path)
    if problem is not None:
        return [failed(BOOK_NAME, problem)]
    sealed_lines = {x["date"]: x["sha256"] for x in lines if x.get("kind") == SWEEP_SEALED}
    checks = []
    for entry in listed:
        in_book = sealed_lines.get(str(entry.get("date")))
        if in_book != entry.get("sha256"):
            checks.append(failed(BOOK_NAME, f"sweep {entry.get('date')}: book seals {in_book}, "
                                            f"sealed.json lists {entry.get('sha256')}"))
    return checks or [ok(BOOK_NAME, f"chain holds; {len(sealed_lines)} sealed sweeps match sealed.json")]


def read_chain(path: Path) -> tuple[list[dict[str, Any]], str | None]:
    """Every line of a book checked by the reader's own chain code (league.verify.chain, which shares
    nothing with the writer); the lines read and the first problem, if any."""
    lines: list[dict[str, Any]] = []
    prev = ""
    with open(path, "rb") as fh:
        for i, raw in enumerate(fh, 1):
            if not raw.endswith(b"\n"):
                return lines, f"line {i}: torn line (no LF at the end of the file)"
            problem, x = check_line(raw[:-1], i, prev)
            if problem is not None or x is None:
                return lines, f"line {i}: {problem}"
            lines.append(x)
            prev = str(x["link"])
    return lines, None


# ------------------------------------------------------------------------------------ metrics
def load_resolutions(layout: Layout, override: Path | None) -> dict[str, str] | None:
    path = override or layout.path("resolutions.json")
    if not path.exists():
        return None
    body = read_json(path)
    if isinstance(body, dict):
        return {str(k): str(v) for k, v in body.items() if v is not None}
    return {str(r["market_id"]): str(r["winner"]) for r in body if r.get("winner") is not None}


def same(a: Any, b: Any, tol: float) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and not isinstance(a, bool):
        return math.isclose(float(a), float(b), rel_tol=0.0, abs_tol=tol)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return all(same(x, y, tol) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def compare(where: str, published: Mapping[str, Any], recomputed: Mapping[str, Any], fields: Sequence[str],
            tol: float) -> Iterator[str]:
    for f in fields:
        if not same(published.get(f), recomputed.get(f), tol):
            yield f"{where}.{f}: published {published.get(f)!r}, recomputed {recomputed.get(f)!r}"


def _rows(rows: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(r["agent"]): r for r in rows}


def accuracy_problems(published: Mapping[str, Any], mine: Mapping[str, Any], tol: float,
                      with_ci: bool) -> Iterator[str]:
    pub_rows, my_rows = _rows(published.get("agents", [])), _rows(mine["agents"])
    for agent, row in my_rows.items():
        pub = pub_rows.get(agent, {})
        where = f"forecast_accuracy.agents[{agent}]"
        yield from compare(where, pub, row, ACCURACY_FIELDS + (("ci",) if with_ci else ()), tol)
        pub_vs, my_vs = pub.get("vs_crowd") or {}, row["vs_crowd"] or {}
        if bool(pub_vs) != bool(my_vs):
            yield f"{where}.vs_crowd: published {pub.get('vs_crowd')!r}, recomputed {row['vs_crowd']!r}"
            continue
        if my_vs:
            fields = VS_FIELDS + (("ci", "verdict") if with_ci else ())
            yield from compare(f"{where}.vs_crowd", pub_vs, my_vs, fields, tol)
            yield from verdict_consistent(f"{where}.vs_crowd", pub_vs)
    yield from compare("forecast_accuracy.crowd", published.get("crowd", {}), mine["crowd"],
                       ("n", "brier") + (("ci",) if with_ci else ()), tol)


def verdict_consistent(where: str, vs: Mapping[str, Any]) -> Iterator[str]:
    lo, hi = vs.get("ci") or (None, None)
    if lo is None or hi is None:
        return
    expected = "better" if hi < 0 else "worse" if lo > 0 else "inconclusive"
    if vs.get("verdict") != expected:
        yield f"{where}.verdict: published {vs.get('verdict')!r}, but its interval [{lo}, {hi}] means {expected!r}"


def betting_problems(published: Mapping[str, Any], mine: Mapping[str, Any]) -> Iterator[str]:
    yield from compare("betting_record", published, mine, ("rounds_counted", "rounds_excluded"), 0.0)
    pub_rows = _rows(published.get("agents", []))
    for agent, row in _rows(mine["agents"]).items():
        yield from compare(f"betting_record.agents[{agent}]", pub_rows.get(agent, {}), row, BETTING_FIELDS, 0.0)


def recompute(layout: Layout, docs: list[dict[str, Any]], resolutions_path: Path | None) -> list[Check]:
    path = layout.path("metrics.json")
    if not path.exists():
        return [skipped("metrics.json", "no metrics.json in this folder")]
    metrics = read_json(path)
    resolutions = load_resolutions(layout, resolutions_path)
    if resolutions is None:
        return [skipped("metrics.json", "no recorded resolutions (resolutions.json or --resolutions)")]
    published = metrics.get("forecast_accuracy", {})
    boot = published.get("bootstrap")
    with_ci = isinstance(boot, dict) and {"resamples", "seed"} <= set(boot)
    stats = Stats(int(boot["resamples"]), int(boot["seed"]), float(boot.get("level", 0.95))) if with_ci \
        else Stats(2000, 0)
    sweeps = read_json(layout.path("sweeps.json")) if layout.path("sweeps.json").exists() else None
    part = {s["date"]: {r["agent"]: r["status"] for r in s["runs"]} for s in sweeps
            if "void" not in s} if sweeps else None  # a voided sweep offered nothing
    agents = [(str(r["agent"]), str(r.get("name", r["agent"]))) for r in published.get("agents", [])]
    mine = forecast_accuracy(docs, resolutions, agents, stats, part)
    problems = list(accuracy_problems(published, mine, layout.tolerance, with_ci))
    checks = [failed("metrics.json", p) for p in problems] or [
        ok("metrics.json", f"forecast_accuracy recomputed: {mine['markets_resolved']} resolved markets, "
                           f"{sum(r['n'] for r in mine['agents'])} forecasts")]
    if not with_ci:
        checks.append(skipped("metrics.json", "intervals not recomputed: the folder does not name its resampling "
                                              "(only each verdict's consistency with its interval was checked)"))
    checks += recompute_betting(layout, metrics)
    return checks


def recompute_betting(layout: Layout, metrics: Mapping[str, Any]) -> list[Check]:
    published = metrics.get("betting_record")
    rounds_path = layout.path("rounds.json")
    if not isinstance(published, dict) or "voided" not in published or not rounds_path.exists():
        return [skipped("metrics.json", "betting_record not recomputed (needs our rounds.json and voided list)")]
    agents = [(str(r["agent"]), str(r.get("name", r["agent"]))) for r in published.get("agents", [])]
    mine = betting_record(read_json(rounds_path), published["voided"], agents)
    problems = list(betting_problems(published, mine))
    return [failed("metrics.json", p) for p in problems] or [
        ok("metrics.json", f"betting_record recomputed from rounds.json: {mine['rounds_counted']} counted rounds")]


def verify_folder(folder: Path, resolutions: Path | None = None) -> list[Check]:
    layout = find_layout(folder)
    if layout is None:
        return [failed(str(folder), "no sealed.json (nor data/sealed.json): not a contest folder")]
    checks, docs, listed = check_sealed(layout)
    checks += check_book(layout, listed)
    checks += recompute(layout, docs, resolutions)
    return checks

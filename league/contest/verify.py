"""``league contest verify FOLDER``: re-check a published contest folder from its files alone.

Two layouts are read: ours (``sealed.json``, ``forecasts/<date>.json``, ``metrics.json``, ... at the
folder's top) and the reference implementation's (the same files under ``data/``). Checks:

1. every ``sealed.json`` entry: the file exists, its SHA-256 is the listed one, it is in the exact
   byte form (``json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)``), its date, kind and
   forecast count agree; no forecasts file is left unlisted; the list is newest first;
2. our book, when the folder has one: the chain holds and each sealed sweep's hash is in it;
3. ``metrics.json`` is recomputed from the sealed forecasts and the recorded resolutions
   (``resolutions.json``, or ``--resolutions`` for a reference folder, which publishes none) and
   compared field by field, as of the snapshot's own date (its ``generated_at``: a sweep sealed later
   is not in it, so ``markets_open`` and ``sweeps`` count only the sweeps up to that day). Intervals are
   recomputed by the procedure the folder's intervals were drawn with: the league's
   (league.contest.stats) when the file names it in ``forecast_accuracy.bootstrap``, the reference's
   (league.contest.refstats) for a folder in the reference's layout, or the one ``--procedure``
   names; with the league's procedure on a file that names no seed, only each interval's
   consistency with its verdict is checked. Every figure is compared exactly: a figure published
   to N decimals must be the recomputed figure rounded the same way (both files round as the
   reference does: 4 decimals, P&L 2), so 0.148 published where 0.1481 is recomputed fails.
Each failure names the file, the JSON path, the published and the recomputed figure.

A group of published figures that cannot be recomputed from the folder (no recorded resolutions,
intervals of an unnamed resampler, a betting record without our rounds) is reported "unchecked"
with the reason: it is not a failure, but neither is it verified, and ``--strict`` refuses it.

Every file is read as :mod:`league.inputs` reads what a user hands over: a regular file inside the
folder named (a symbolic link out of it, a FIFO or a device is refused, never followed or opened),
bounded in size and nesting. A file that cannot be read, or holds JSON of another shape, is one
FAILED check naming it, never a traceback.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from league.contest import refstats
from league.contest.files import KIND
from league.contest.metrics import Stats, betting_record, forecast_accuracy
from league.inputs import InputError, parse_json, read_json, read_text
from league.jsonvalue import Json, JsonObject, items, number, obj, text
from league.seatcore.files import dump_bytes, sha256_bytes
from league.verify.chain import MAX_LINE_BYTES, OVERLONG, check_line
from league.verify.files import bounded_lines, regular

SWEEP_SEALED = "contest.sweep.sealed"  # league/contest/ledger.py's kind; not imported: no writer code here

BOOK_NAME = "contest-book.jsonl"
ACCURACY_FIELDS = ("n", "offered", "coverage", "brier", "rank")
VS_FIELDS = ("mean_diff", "sign_test_p")
BETTING_FIELDS = ("played", "wins", "losses", "no_bets", "win_rate", "net_pnl", "staked", "roi", "avg_entry", "rank")


@dataclass(frozen=True)
class Check:
    name: str
    status: str  # "ok", "FAILED", "unchecked" (published but not recomputable here) or "skipped" (nothing to check)
    detail: str = ""

    @property
    def failed(self) -> bool:
        return self.status == "FAILED"

    @property
    def unchecked(self) -> bool:
        return self.status == "unchecked"


def ok(name: str, detail: str = "") -> Check:
    return Check(name, "ok", detail)


def failed(name: str, detail: str) -> Check:
    return Check(name, "FAILED", detail)


def skipped(name: str, detail: str) -> Check:
    return Check(name, "skipped", detail)


def unchecked(name: str, detail: str) -> Check:
    """Published figures this folder gives no means to recompute: said, never counted as verified."""
    return Check(name, "unchecked", detail)


#: A published file whose JSON is not the shape this check reads (a list where an object belongs, ...).
SHAPE_ERRORS = (KeyError, TypeError, ValueError, AttributeError, IndexError)


@dataclass(frozen=True)
class Layout:
    root: Path
    kind: str  # "ours" or "reference"
    #: The folder the reader named: nothing outside it is read.
    named: Path

    @property
    def tolerance(self) -> float:
        """Exact for both layouts: each publishes its figures rounded (4 decimals, P&L 2) and the recomputed
        figures are rounded the same way, so a difference of one unit of the last decimal is a difference."""
        return 0.0

    def path(self, name: str) -> Path:
        return self.root / name

    def read(self, path: Path, what: str) -> Any:
        """A JSON file of the folder, bounded (league.inputs) and never through a link out of it."""
        return read_json(path, what=what, inside=self.named)

    def resolve(self, listed: str) -> Path | None:
        """A ``file`` of sealed.json: relative to the data folder, or (reference) to the repository."""
        rel = PurePosixPath(listed)
        if rel.is_absolute() or ".." in rel.parts:
            return None
        for base in (self.root, self.root.parent):
            if _present(base / rel):  # a link or a FIFO too: reading it refuses it by name
                return base / rel
        return None


def find_layout(folder: Path) -> Layout | None:
    """Ours or the reference's, by where ``sealed.json`` is (an entry of any type counts as there: it is
    refused when read, rather than taken for "no contest here")."""
    if _present(folder / "sealed.json"):
        return Layout(folder, "ours" if _present(folder / "sweeps.json") or _present(folder / BOOK_NAME)
                      else "reference", folder)
    if _present(folder / "data" / "sealed.json"):
        return Layout(folder / "data", "reference", folder)
    return None


def _present(path: Path) -> bool:
    return path.is_symlink() or path.exists()


#: For the other readers of a folder (league.contest.remetrics): an entry of any type counts as there.
present = _present


# ----------------------------------------------------------------------------------- sealed files
def check_entry(layout: Layout, i: int, entry: Any) -> tuple[list[Check], dict[str, Any] | None]:
    where = f"sealed.json[{i}]"
    if not isinstance(entry, dict) or not {"date", "sha256", "file", "forecasts"} <= set(entry):
        return [failed(where, "not an object with date, sha256, file, forecasts")], None
    path = layout.resolve(str(entry["file"]))
    name = str(entry["file"])
    if path is None:
        return [failed(name, f"listed in {where} but missing from the folder")], None
    try:
        text = read_text(path, what="sealed forecasts file", inside=layout.named)
    except InputError as exc:
        return [failed(name, exc.message)], None
    data = text.encode("utf-8")  # the file's own bytes: read_text decodes strict UTF-8, which round-trips
    if sha256_bytes(data) != entry["sha256"]:
        return [failed(name, f"sha256 {sha256_bytes(data)} is not the sealed {entry['sha256']} ({where}.sha256)")], None
    try:
        doc = parse_json(text, where=name)
    except InputError as exc:
        return [failed(name, exc.message)], None
    if not isinstance(doc, dict):
        return [failed(name, "not a JSON object")], None
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
    try:
        listed = layout.read(layout.path("sealed.json"), "sealed list")
    except InputError as exc:
        return [failed("sealed.json", exc.message)], [], []
    if not isinstance(listed, list):
        return [failed("sealed.json", "not a JSON list")], [], []
    checks, docs = [], []
    for i, entry in enumerate(listed):
        try:
            found, doc = check_entry(layout, i, entry)
        except SHAPE_ERRORS as exc:
            found, doc = [failed(f"sealed.json[{i}]", f"not the shape of a sealed entry ({_why(exc)})")], None
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
    if not _present(path):
        return [skipped(BOOK_NAME, "no contest book in this folder")]
    try:
        regular(path, inside=layout.named, what="contest book")
    except InputError as exc:
        return [failed(BOOK_NAME, exc.message)]
    lines, problem = read_chain(path)
    if problem is not None:
        return [failed(BOOK_NAME, problem)]
    sealed_lines = {x.get("date"): x.get("sha256") for x in lines if x.get("kind") == SWEEP_SEALED}
    checks = []
    for entry in (e for e in listed if isinstance(e, dict)):  # other entries failed in check_sealed
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
        for i, raw in enumerate(bounded_lines(fh, MAX_LINE_BYTES), 1):
            if raw is None:
                return lines, f"line {i}: {OVERLONG}"
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
    """The recorded winners: the folder's resolutions.json, or the file the reader named with --resolutions
    (read wherever it is: the reader named it herself)."""
    if override is not None:
        body = read_json(override, what="resolutions file")
    elif _present(path := layout.path("resolutions.json")):
        body = layout.read(path, "resolutions file")
    else:
        return None
    if isinstance(body, dict):
        return {str(k): str(v) for k, v in body.items() if v is not None}
    return {str(r["market_id"]): str(r["winner"]) for r in body if r.get("winner") is not None}


def _number(x: object) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def same(a: object, b: object, tol: float) -> bool:
    if isinstance(a, int | float) and isinstance(b, int | float) and _number(a) and _number(b):
        return math.isclose(float(a), float(b), rel_tol=0.0, abs_tol=tol)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        return all(same(x, y, tol) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def decimals(x: object) -> int | None:
    """How many decimals a published number shows (JSON drops trailing zeros: 0.1480 reads as 0.148)."""
    if not _number(x):
        return None
    text = repr(x)
    if "e" in text or "E" in text or "inf" in text or "nan" in text:
        return None
    return len(text.partition(".")[2]) if isinstance(x, float) and "." in text else 0


def mismatch(path: str, published: object, recomputed: object) -> str:
    """One field's report: its JSON path, the published and the recomputed figure (and, for a number, the
    decimals it was published to: the recomputed figure at that precision is what it had to equal)."""
    shown = f"{path}: published {published!r}"
    n = decimals(published)
    if n is not None and _number(recomputed) and isinstance(published, float):
        shown += f" ({n} decimal{'s' if n != 1 else ''})"
    return f"{shown}, recomputed {recomputed!r}"


def differences(path: str, published: object, recomputed: object, tol: float) -> Iterator[str]:
    """Every differing leaf, by JSON path (an interval's bound as ``ci[0]``), so the report names the figure."""
    if (isinstance(published, list) and isinstance(recomputed, list) and len(published) == len(recomputed)
            and published):
        for i, (x, y) in enumerate(zip(published, recomputed, strict=True)):
            yield from differences(f"{path}[{i}]", x, y, tol)
    elif not same(published, recomputed, tol):
        yield mismatch(path, published, recomputed)


def compare(where: str, published: Mapping[str, object], recomputed: Mapping[str, object], fields: Sequence[str],
            tol: float) -> Iterator[str]:
    for f in fields:
        yield from differences(f"{where}.{f}", published.get(f), recomputed.get(f), tol)


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


def recompute(layout: Layout, docs: list[dict[str, Any]], resolutions_path: Path | None,
              procedure: str | None = None) -> list[Check]:
    """metrics.json recomputed; a file it needs that cannot be read, or of another shape, is one FAILED check."""
    try:
        return _recompute(layout, docs, resolutions_path, procedure)
    except InputError as exc:
        return [failed("metrics.json", f"not recomputed: {exc.message}")]
    except SHAPE_ERRORS as exc:
        return [failed("metrics.json", f"not recomputed: metrics.json, resolutions.json, sweeps.json or rounds.json "
                                       f"is not the shape this check reads ({_why(exc)})")]


def _why(exc: Exception) -> str:
    text = f"{exc.__class__.__name__}: {exc}"
    return text if len(text) <= 200 else text[:199] + "…"


def _recompute(layout: Layout, docs: list[dict[str, Any]], resolutions_path: Path | None,
               procedure: str | None = None) -> list[Check]:
    path = layout.path("metrics.json")
    if not _present(path):
        return [skipped("metrics.json", "no metrics.json in this folder")]
    metrics = layout.read(path, "metrics file")
    resolutions = load_resolutions(layout, resolutions_path)
    if resolutions is None:
        return [unchecked("metrics.json", "forecast_accuracy not recomputed: no recorded resolutions (the folder "
                                          "publishes no resolutions.json and no --resolutions file was given)"),
                *recompute_betting(layout, metrics)]
    published = metrics.get("forecast_accuracy", {})
    chosen = choose_procedure(layout, published, procedure)
    snapshot = as_of_docs(docs, snapshot_date(metrics))
    mine, with_ci = accuracy_for(layout, metrics, snapshot, resolutions, chosen)
    problems = list(resolution_problems(published, mine, snapshot, resolutions, resolutions_path))
    problems += accuracy_problems(published, mine, layout.tolerance, with_ci)
    problems += count_problems(published, mine)
    n = sum(number(obj(r).get("n")) or 0 for r in items(mine.get("agents")))
    checks = [failed("metrics.json", p) for p in problems] or [
        ok("metrics.json", f"forecast_accuracy recomputed ({chosen} procedure): {mine.get('markets_resolved')} "
                           f"resolved markets, {n} forecasts" + (", every interval" if with_ci else ""))]
    if not with_ci:
        checks.append(unchecked("metrics.json", "intervals not recomputed: the folder does not name its "
                                                "resampling (only each verdict's consistency with its interval was "
                                                "checked; --procedure reference recomputes the reference's)"))
    checks += recompute_betting(layout, metrics)
    return checks


PROCEDURES = ("reference", "league")


def choose_procedure(layout: Layout, published: Mapping[str, Json], requested: str | None) -> str:
    """The bootstrap procedure a folder's intervals are checked with: the one asked for, else the one its
    metrics file names (``forecast_accuracy.bootstrap.procedure``; a league file naming a seed and B without a
    procedure is the league's), else the reference's for a folder in the reference's layout."""
    if requested is not None:
        if requested not in PROCEDURES:
            raise ValueError(f"--procedure {requested!r} is not one of {', '.join(PROCEDURES)}")
        return requested
    boot = obj(published.get("bootstrap"))
    if text(boot.get("procedure")) in PROCEDURES:
        return text(boot.get("procedure"))
    return "league" if layout.kind == "ours" or boot else "reference"


def snapshot_date(metrics: Mapping[str, Json]) -> str | None:
    """The UTC day a metrics file is a snapshot of (its ``generated_at``), or None when it names none."""
    at = number(metrics.get("generated_at"))
    if at is None or not math.isfinite(at):
        return None
    try:
        return datetime.fromtimestamp(at, UTC).date().isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def as_of_docs(docs: Sequence[JsonObject], as_of: str | None) -> list[JsonObject]:
    """The sealed sweeps dated on or before ``as_of`` (every one when None): a snapshot counts no later sweep."""
    return [d for d in docs if as_of is None or text(d.get("date")) <= as_of]


def participation_of(layout: Layout) -> dict[str, dict[str, str]] | None:
    """Who took part in each sweep, from the folder's sweeps.json (a voided sweep offered nothing), if any."""
    if not _present(layout.path("sweeps.json")):
        return None
    sweeps = layout.read(layout.path("sweeps.json"), "sweeps file")
    return {text(obj(s).get("date")): {text(obj(r).get("agent")): text(obj(r).get("status"))
                                       for r in items(obj(s).get("runs"))}
            for s in items(sweeps) if "void" not in obj(s)}


def contest_agents(metrics: Mapping[str, Json]) -> list[tuple[str, str]]:
    """The contestants in configured order: the keys of ``contestants`` when the file keeps their order (the
    reference's does; ours is written with sorted keys, where the order decides nothing: ties rank by id),
    else the order of the published rows."""
    rows = [obj(r) for r in items(obj(metrics.get("forecast_accuracy")).get("agents"))]
    names = {text(r.get("agent")): text(r.get("name"), text(r.get("agent"))) for r in rows}
    listed = obj(metrics.get("contestants"))
    if listed and set(names) <= set(listed):
        return [(a, names.get(a) or text(obj(v).get("name"), a)) for a, v in listed.items()]
    return list(names.items())


def agents_in(docs: Sequence[JsonObject]) -> list[tuple[str, str]]:
    """With no metrics file to name the contestants: every agent with a sealed forecast, in order of first
    appearance (sweep date, then agent id, as each sealed file lists them), named by its id."""
    seen: dict[str, str] = {}
    for doc in sorted(docs, key=lambda d: text(d.get("date"))):
        for f in items(doc.get("forecasts")):
            agent = text(obj(f).get("agent"))
            seen.setdefault(agent, agent)
    return list(seen.items())


def accuracy_for(layout: Layout, metrics: Mapping[str, Json], docs: Sequence[JsonObject],
                 resolutions: Mapping[str, str], chosen: str) -> tuple[JsonObject, bool]:
    """forecast_accuracy recomputed by the chosen procedure, and whether its intervals are comparable."""
    boot = obj(obj(metrics.get("forecast_accuracy")).get("bootstrap"))
    agents = contest_agents(metrics) or agents_in(docs)
    part = participation_of(layout)
    if chosen == "reference":
        seed, resamples = number(boot.get("seed")), number(boot.get("resamples"))
        mine = refstats.accuracy(docs, resolutions, agents, seed=int(seed) if seed is not None else refstats.SEED,
                                 resamples=int(resamples) if resamples is not None else refstats.RESAMPLES,
                                 participation=part)
        if boot:
            mine["bootstrap"] = refstats.named(int(seed or refstats.SEED), int(resamples or refstats.RESAMPLES))
        return mine, True
    with_ci = {"resamples", "seed"} <= set(boot)
    stats = Stats(int(number(boot["resamples"]) or 0), int(number(boot["seed"]) or 0),
                  float(number(boot.get("level")) or 0.95)) if with_ci else Stats(2000, 0)
    return forecast_accuracy(docs, resolutions, agents, stats, part), with_ci


def count_problems(published: Mapping[str, Json], mine: Mapping[str, Json]) -> Iterator[str]:
    """markets_open and sweeps, as of the snapshot's date (a later sweep is not in an earlier snapshot)."""
    for f in ("markets_open", "sweeps"):
        if f in published:
            yield from differences(f"forecast_accuracy.{f}", published[f], mine.get(f), 0.0)


def resolution_problems(published: Mapping[str, Json], mine: Mapping[str, Json], docs: Sequence[Mapping[str, Json]],
                        resolutions: Mapping[str, str], override: Path | None) -> Iterator[str]:
    """Whether the resolutions are the ones the snapshot was computed on: a winner that is not an outcome of
    its swept market, and a count of resolved swept markets other than the published one, are named (with
    the markets the file resolves), since every other figure would then differ for that reason alone."""
    source = str(override) if override is not None else "resolutions.json"
    outcomes = {str(obj(m).get("id")): [str(o) for o in items(obj(m).get("outcomes"))]
                for doc in docs for m in items(doc.get("markets"))}
    for market, winner in sorted(resolutions.items()):
        if market in outcomes and winner not in outcomes[market]:
            yield (f"{source}: market {market}: winner {winner!r} is not one of its swept outcomes "
                   f"{outcomes[market]!r}")
    if "markets_resolved" in published and published["markets_resolved"] != mine["markets_resolved"]:
        resolved = sorted(m for m in resolutions if m in outcomes and resolutions[m] in outcomes[m])
        unknown = sorted(m for m in resolutions if m not in outcomes)
        yield (f"forecast_accuracy.markets_resolved: published {published['markets_resolved']!r}, recomputed "
               f"{mine['markets_resolved']!r}: {source} and the sealed sweeps that verify do not give the "
               f"snapshot's resolved markets (the file resolves {_ids(resolved)} of them"
               + (f"; not in a verified sweep: {_ids(unknown)}" if unknown else "") + ")")


def _ids(ids: Sequence[str], most: int = 40) -> str:
    shown = ", ".join(ids[:most])
    return f"{len(ids)}: {shown}" + (f", … {len(ids) - most} more" if len(ids) > most else "") if ids else "none"


def recompute_betting(layout: Layout, metrics: Mapping[str, Any]) -> list[Check]:
    published = metrics.get("betting_record")
    rounds_path = layout.path("rounds.json")
    if not isinstance(published, dict):
        return [skipped("metrics.json", "no betting_record published")]
    if "voided" not in published or not _present(rounds_path):
        return [unchecked("metrics.json", "betting_record not recomputed (needs our rounds.json and voided list)")]
    agents = [(str(r["agent"]), str(r.get("name", r["agent"]))) for r in published.get("agents", [])]
    mine = betting_record(layout.read(rounds_path, "rounds file"), published["voided"], agents)
    problems = list(betting_problems(published, mine))
    return [failed("metrics.json", p) for p in problems] or [
        ok("metrics.json", f"betting_record recomputed from rounds.json: {mine['rounds_counted']} counted rounds")]


def verify_folder(folder: Path, resolutions: Path | None = None, procedure: str | None = None) -> list[Check]:
    layout = find_layout(folder)
    if layout is None:
        return [failed(str(folder), "no sealed.json (nor data/sealed.json): not a contest folder")]
    checks, docs, listed = check_sealed(layout)
    checks += check_book(layout, listed)
    if any(c.failed and c.name == "sealed.json" for c in checks) and not docs:
        return [*checks, skipped("metrics.json", "not recomputed: sealed.json cannot be read")]
    checks += recompute(layout, docs, resolutions, procedure)
    return checks

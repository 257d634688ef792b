"""The JSON the API answers with, built from the published files and the book index.

Published figures come first: the league table, grid, intervals, N_eff and calibration bins are
read from ``council-league.json``, ``council-stats.json`` and ``council-calibration.json`` exactly
as published, so the page shows what ``replay_brier.py`` checks. Where a file has not been
produced yet, the table and grid fall back to plain means over ``council-forecasts.csv`` (same row
rule as the recount) and say so in ``source``. Files are re-read only when their size or mtime
changes.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import os
import re
import stat
import threading
from collections import defaultdict
from collections.abc import Callable, Collection
from pathlib import Path
from typing import BinaryIO, Generic, TypedDict, TypeVar

from league.api.bookindex import BookIndex
from league.api.dbseed import database_url, seed_from_database
from league.api.embargo import Embargo
from league.api.errors import MAX_QUOTED, BadRequest, NotFound, clip, shown
from league.api.paths import DataPaths
from league.api.viewcache import Reads, stat_or_none
from league.contracts.columns import COUNTED_RUN_ROLES, ISSUE_KINDS
from league.jsonvalue import Json, JsonObject, as_int, items, number, obj
from league.jsonvalue import path as json_path

RANK_MIN_FORECASTS = 30
RANK_MIN_SESSIONS = 10
CALIB_EDGES = (50.0, 60.0, 70.0, 80.0, 100.0)
CALIB_MIN = 20
SESSION = re.compile(r"^\d{4}-\d{2}-\d{2}$")
FALSE_WORDS = frozenset({"0", "false", "no", "n"})
STATED = frozenset({"elicited", "explicit_50"})
FORECASTS = "council-forecasts.csv"
FORECASTS_INDEX = "council-forecasts-index.json"


#: What a cached file reads as (a JSON value, or the CSV's rows).
_T = TypeVar("_T")
#: A forecast row of council-forecasts.csv, column -> text.
Row = dict[str, str]


class _FileCache(Generic[_T]):
    """Files of the open-data folder as ``load`` reads them, read again only when their size or mtime changes."""

    def __init__(self, folder: Path, load: Callable[[Path], _T]) -> None:
        self.folder = folder
        self.load = load
        self._cache: dict[str, tuple[tuple[int, int], _T]] = {}
        self._lock = threading.Lock()

    def get(self, name: str, reads: Reads | None = None) -> _T | None:
        """The file as read, or None when it does not exist (noted in ``reads`` either way)."""
        path = self.folder / name
        try:
            st = path.stat()
        except FileNotFoundError:
            if reads is not None:
                reads.note(path, None)
            return None
        if reads is not None:
            reads.note(path, st)
        key = (st.st_size, st.st_mtime_ns)
        with self._lock:
            hit = self._cache.get(name)
            if hit is not None and hit[0] == key:
                return hit[1]
        value = self.load(path)
        with self._lock:
            self._cache[name] = (key, value)
        return value


def _load_json(path: Path) -> Json:
    value: Json = json.loads(path.read_text(encoding="utf-8"))
    return value


def _load_rows(path: Path) -> list[Row]:
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


class Store:
    """Cached readers of the open-data folder plus the live book's index.

    A store made by :meth:`recording` shares all of it and notes every file a view reads through it (league.api.
    viewcache); the views read files only through the store's methods (:meth:`json`, :meth:`rows`,
    :meth:`session_rows`, :meth:`refresh_book`, :meth:`listing`)."""

    def __init__(self, paths: DataPaths, *, db_url: str | None = None) -> None:
        """``db_url``: the database whose book index seeds the book's (league.api.dbseed); by default the
        league's own, found beside the data folder; ``""`` reads the whole book instead."""
        self.paths = paths
        self.book = BookIndex(paths.book)
        self.embargo = Embargo(self.book)
        url = database_url(paths.book, db_url) if db_url != "" else None
        self.seeded = seed_from_database(self.book, self.embargo, url) if url else 0
        self._json = _FileCache(paths.public, _load_json)
        self._rows = _FileCache(paths.public, _load_rows)
        self.reads: Reads | None = None

    def recording(self, reads: Reads) -> Store:
        """This store (the same caches, book index and embargo), noting in ``reads`` every file read through it."""
        view = copy.copy(self)
        view.reads = reads
        return view

    def _stat(self, path: Path) -> os.stat_result | None:
        """``path``'s stat (None when missing), noted as read when recording; taken before the file is read."""
        return self.reads.stat(path) if self.reads is not None else stat_or_none(path)

    def refresh_book(self) -> int:
        """Index the lines appended to the book (the embargo's state follows from them); the book's line count."""
        self._stat(self.book.path)
        return self.book.refresh()

    def listing(self, folder: Path) -> list[Path]:
        """The files of ``folder``, sorted by name (none when it is not a folder)."""
        st = self._stat(folder)
        if st is None or not stat.S_ISDIR(st.st_mode):
            return []
        return sorted(p for p in folder.iterdir() if p.is_file())

    def json(self, name: str) -> Json:
        """A published JSON file as read (None when it does not exist)."""
        return self._json.get(name, self.reads)

    def rows(self) -> list[Row]:
        """The published forecast rows, without those of sessions still under embargo."""
        self.refresh_book()
        return self.embargo.public_rows(self._rows.get(FORECASTS, self.reads) or [])

    def session_rows(self, day: str) -> list[Row]:
        """The published forecast rows of one session (embargo applied), read from that session's slices of
        the CSV as ``council-forecasts-index.json`` gives them, so a session's view does not parse the
        season. Each slice is read with one seek and must hash to the SHA-256 the index states; an index
        that does not describe the CSV on disk (another size, a slice that does not hash) is not trusted and
        the whole CSV is read instead, as before."""
        slices = self._session_slices(day)
        if slices is None:
            return [r for r in self.rows() if r["session"] == day]
        self.refresh_book()  # the CSV was noted by _session_slices, before this read
        with open(self.paths.public / FORECASTS, "rb") as fh:
            parts = [_read_at(fh, offset, length) for offset, length, _ in slices]
        hashes = [sha for _, _, sha in slices[1:]]
        if any(hashlib.sha256(part).hexdigest() != sha for part, sha in zip(parts[1:], hashes, strict=True)):
            return [r for r in self.rows() if r["session"] == day]
        text = b"".join(parts).decode("utf-8")
        rows = [r for r in csv.DictReader(io.StringIO(text, newline="")) if r["session"] == day]
        return self.embargo.public_rows(rows)

    def _session_slices(self, day: str) -> list[tuple[int, int, str]] | None:
        """(offset, length, sha256) of the CSV's header and of every block of ``day``; None without a usable index."""
        index = self.json(FORECASTS_INDEX)
        st = self._stat(self.paths.public / FORECASTS)
        if st is None:
            return None
        size = st.st_size
        if not isinstance(index, dict) or index.get("file") != FORECASTS or index.get("bytes") != size:
            return None
        try:
            head = _object(index["header"])
            out = [(as_int(head["offset"]), as_int(head["length"]), "")]
            sessions = index.get("sessions", [])
            if not isinstance(sessions, list):
                raise TypeError("sessions is not a list")
            out += [(as_int(s["offset"]), as_int(s["length"]), str(s["sha256"]))
                    for s in map(_object, sessions) if s.get("session") == day]
        except (KeyError, TypeError, ValueError):
            return None
        return out


def _object(value: Json) -> JsonObject:
    """An entry of the CSV's index, which must be a JSON object: any other value is a TypeError (as indexing
    it is), so an index of another shape is not trusted and the whole CSV is read."""
    if not isinstance(value, dict):
        raise TypeError(f"{type(value).__name__} is not an object")
    return value


def _read_at(fh: BinaryIO, offset: int, length: int) -> bytes:
    fh.seek(offset)
    return fh.read(length)


# --------------------------------------------------------------------------- row helpers
def _num(text: str | None) -> float | None:
    try:
        return float(text) if text else None
    except ValueError:
        return None


def scored(row: Row) -> float | None:
    """The row's Brier score when it enters a seat's stated-probability score, else None."""
    if not (row.get("status") == "counted" and row.get("cell_status") in STATED
            and row.get("run_role", "session_run") in COUNTED_RUN_ROLES and row.get("line_kind", "issue") in ISSUE_KINDS
            and (row.get("same_event") or "").strip().lower() not in FALSE_WORDS):
        return None
    p, ref, close = _num(row.get("prob_up")), _num(row.get("ref")), _num(row.get("close"))
    if p is None or ref is None or close is None:
        return None
    return (p / 100.0 - (1.0 if close > ref else 0.0)) ** 2


def _means(rows: list[Row], keys: tuple[str, ...]) -> list[JsonObject]:
    """Plain mean Brier per ``keys`` (the fallback before the statistics are published), as the API shows it."""
    totals: dict[tuple[str, ...], float] = defaultdict(float)
    counts: dict[tuple[str, ...], int] = defaultdict(int)
    sessions: dict[tuple[str, ...], set[str]] = defaultdict(set)
    for row in rows:
        score = scored(row)
        if score is not None:
            key = tuple(row[k] for k in keys)
            totals[key] += score
            counts[key] += 1
            sessions[key].add(row["session"])
    return [{**dict(zip(keys, key, strict=True)), "brier": totals[key] / counts[key], "n": counts[key],
             "sessions": len(sessions[key])} for key in sorted(totals)]


# ------------------------------------------------------------------------------- league
class TableInterval(TypedDict):
    """A seat's published interval as the league table shows it."""

    lo: Json
    hi: Json
    method: Json
    reason: Json


class TableRow(TypedDict):
    """One seat of one horizon in the league table."""

    seat: str
    brier: Json
    n: Json
    sessions: Json
    in_table: bool
    rank: Json
    baseline: bool
    interval: TableInterval | None


class LeagueTable(TypedDict):
    """``/api/league``: per horizon, the seats in table order, and the rule that ranks them."""

    source: str
    rule: dict[str, int]
    horizons: dict[str, list[TableRow]]


def league_table(store: Store) -> LeagueTable:
    """Per horizon, seats ordered by rank (ranked first) then Brier; the 30/10 rule stated."""
    published = store.json("council-league.json")
    models = published.get("models") if isinstance(published, dict) else None
    source = "council-league.json"
    if not isinstance(models, list):
        models = [{**m, "in_table": _ranked(m), "interval": None} for m in _means(store.rows(), ("seat", "horizon"))]
        source = "computed from council-forecasts.csv (council-league.json not published yet)"
    horizons: dict[str, list[TableRow]] = defaultdict(list)
    for m in models:
        row = obj(m)
        horizons[str(row.get("horizon"))].append(_table_row(row))
    for rows in horizons.values():
        rows.sort(key=_table_order)
    return {"source": source, "rule": {"forecasts": RANK_MIN_FORECASTS, "sessions": RANK_MIN_SESSIONS},
            "horizons": {h: horizons[h] for h in _horizon_order(horizons)}}


def _ranked(mean: JsonObject) -> bool:
    """The 30/10 rule on a computed mean (its n and sessions are counts)."""
    n, sessions = number(mean["n"]), number(mean["sessions"])
    return n is not None and sessions is not None and n >= RANK_MIN_FORECASTS and sessions >= RANK_MIN_SESSIONS


def _table_order(row: TableRow) -> tuple[bool, float, str]:
    """Ranked seats first, then by Brier (a seat without one last), then by name."""
    brier = number(row["brier"])
    return not row["in_table"], brier if brier is not None else 9.0, row["seat"]


def _table_row(m: JsonObject) -> TableRow:
    interval = obj(m.get("interval"))
    seat = str(m.get("seat"))
    return {"seat": seat, "brier": m.get("brier"), "n": m.get("n"), "sessions": m.get("sessions"),
            "in_table": bool(m.get("in_table")), "rank": m.get("rank"), "baseline": seat.startswith("_"),
            "interval": {"lo": interval.get("lo"), "hi": interval.get("hi"), "method": interval.get("method"),
                         "reason": interval.get("reason")} if interval else None}


def _horizon_order(horizons: Collection[str]) -> list[str]:
    order = ["1d", "1w", "1m", "6m"]
    return [h for h in order if h in horizons] + sorted(h for h in horizons if h not in order)


class Grid(TypedDict):
    """``/api/grid``: Brier per seat, market and horizon."""

    source: str
    cells: list[JsonObject]


def grid(store: Store) -> Grid:
    published = store.json("council-league.json")
    cells = json_path(published, "grid", "cells")
    if isinstance(cells, list):
        keep = ("seat", "asset", "horizon", "brier", "n", "sessions", "hit_rate")
        return {"source": "council-league.json", "cells": [{k: obj(c).get(k) for k in keep} for c in cells]}
    return {"source": "computed from council-forecasts.csv",
            "cells": _means(store.rows(), ("seat", "asset", "horizon"))}


# ---------------------------------------------------------------------- seat, run, session
def seat(store: Store, name: str) -> dict[str, object]:
    table = league_table(store)
    rows = {h: r for h, rs in table["horizons"].items() for r in rs if r["seat"] == name}
    cells = [c for c in grid(store)["cells"] if c["seat"] == name]
    if not rows and not cells and not any(r["seat"] == name for r in store.rows()):
        raise NotFound(f"no seat {shown(name)}", fix="see /api/league for the seats")
    protocol = obj(store.json("arena-protocol.json"))
    versions = [v for v in items(protocol.get("model_versions", [])) if obj(v).get("seat") == name]
    return {"seat": name, "horizons": rows, "grid": cells, "versions": versions}


class RunView(TypedDict):
    """``/api/runs/{run_id}``: the run line (bulky fields left out), its answers, its other lines, its N_eff."""

    run_id: str
    line: int
    run: JsonObject
    answers: list[JsonObject]
    lines: list[JsonObject]
    n_eff: list[JsonObject]


def run(store: Store, run_id: str) -> RunView:
    store.refresh_book()
    n = store.book.run_line(run_id)
    if n is None:
        raise NotFound(f"no run {shown(run_id)} in the book", fix="see /api/today or /api/sessions/<date>")
    content = _strip(store.book.line(n))
    answers: list[JsonObject] = []
    others: list[JsonObject] = []
    for i in store.book.lines_of_run(run_id):
        if i == n:
            continue
        line = store.book.line(i)
        entry: JsonObject = {"n": i, "kind": line.get("kind"), "at": line.get("at")}
        if line.get("kind") == "answer":
            answers.append({**entry, **{k: line.get(k) for k in ("seat", "model", "version", "mode", "booked_at",
                                                                   "attempt")},
                            "cells": sum(len(v) for v in obj(line.get("items")).values() if isinstance(v, dict))})
        else:
            others.append(entry)
    return {"run_id": run_id, "line": n, "run": content, "answers": answers, "lines": others,
            "n_eff": [r for r in n_eff(store)["per_run"] if r.get("run_id") == run_id]}


def _strip(line: JsonObject) -> JsonObject:
    """A run line without its bulky fields (the full line is in council-book.jsonl)."""
    return {k: v for k, v in line.items() if k not in ("crowd", "roster") or not isinstance(v, dict | list)
            or len(json.dumps(v)) < 2000}


def session(store: Store, day: str) -> dict[str, object]:
    if not SESSION.match(day):
        raise BadRequest(f"session {shown(day)} is not a date YYYY-MM-DD")
    store.refresh_book()
    runs = store.book.runs_of_session(day)
    rows = store.session_rows(day)
    if not runs and not rows:
        raise NotFound(f"no run in session {clip(day, MAX_QUOTED)}")
    markets: dict[str, dict[str, float | None]] = {}
    for r in rows:
        if r.get("horizon") == "1d" and r.get("ref"):
            markets.setdefault(r["asset"], {"ref": _num(r["ref"]), "close": _num(r.get("close"))})
    return {"session": day, "runs": runs, "forecast_rows": len(rows), "markets": markets,
            "league": _means(rows, ("seat", "horizon")), "proof": proof_links(store, day)}


# ----------------------------------------------------------------- today, N_eff, calibration
class NEff(TypedDict):
    """``n_eff`` of the page: the counted runs' effective numbers of forecasts, as published."""

    source: str
    per_run: list[JsonObject]


def n_eff(store: Store) -> NEff:
    stats = store.json("council-stats.json")
    block = json_path(stats, "n_eff", "counted")
    if not isinstance(block, dict):
        return {"source": "not published yet (council-stats.json)", "per_run": []}
    keep = ("run_id", "session", "horizon", "n", "rho", "n_eff")
    return {"source": "council-stats.json n_eff.counted",
            "per_run": [{k: obj(r).get(k) for k in keep} for r in items(block.get("per_run", []))]}


def calibration(store: Store) -> dict[str, object]:
    published = store.json("council-calibration.json")
    if isinstance(published, dict) and isinstance(bins := published.get("bins"), list):
        return {"source": "council-calibration.json", "calib_min": published.get("calib_min", CALIB_MIN),
                "groups": [_bin_group(obj(g)) for g in bins]}
    return {"source": "computed from council-forecasts.csv (council seats pooled)", "calib_min": CALIB_MIN,
            "groups": _pooled_bins(store.rows())}


def _bin_group(g: JsonObject) -> JsonObject:
    who = g.get("seat") or g.get("consensus") or g.get("who") or "consensus"
    return {"who": str(who), "horizon": g.get("horizon"), "bins": g.get("bins", [])}


def _pooled_bins(rows: list[Row]) -> list[dict[str, object]]:
    """Directional bins (scoring.md section 3): fold p < 50 to 100 - p with the outcome flipped."""
    acc: dict[str, list[list[float]]] = defaultdict(lambda: [[] for _ in CALIB_EDGES[:-1]])
    for r in rows:
        p, ref, close = _num(r.get("prob_up")), _num(r.get("ref")), _num(r.get("close"))
        if r["seat"].startswith("_") or scored(r) is None or p is None or p == 50 or ref is None or close is None:
            continue
        up = close > ref
        folded, hit = (p, up) if p > 50 else (100 - p, not up)
        b = next(i for i in range(len(CALIB_EDGES) - 1) if folded < CALIB_EDGES[i + 1] or i == len(CALIB_EDGES) - 2)
        acc[r["horizon"]][b].append(folded if hit else -folded)
    groups: list[dict[str, object]] = []
    for horizon in _horizon_order(acc):
        bins = []
        for i, values in enumerate(acc[horizon]):
            shown = len(values) >= CALIB_MIN
            bins.append({"bin": [CALIB_EDGES[i], CALIB_EDGES[i + 1]], "n": len(values), "shown": shown,
                         "mean_stated": sum(abs(v) for v in values) / len(values) if shown else None,
                         "realised": 100.0 * sum(v > 0 for v in values) / len(values) if shown else None})
        groups.append({"who": "council (pooled)", "horizon": horizon, "bins": bins})
    return groups


def proof_links(store: Store, day: str) -> list[str]:
    # relative to the page, so the page works under any URL prefix (e.g. nginx's /league/)
    return [f"proof/{day}/{p.name}" for p in store.listing(store.paths.public / "proof" / day)]


class Today(TypedDict, total=False):
    """``/api/today``: the last session's runs (its waves), every seat's answers and the proofs (only ``run``
    and ``book_lines`` before any run). ``run_id`` and ``line`` name the newest run, as before."""

    run: None
    run_id: str
    session: str
    at: Json
    line: int
    runs: list[JsonObject]
    answers: list[JsonObject]
    n_eff: list[JsonObject]
    proof: list[str]
    book_lines: int


def today(store: Store) -> Today:
    """The whole latest session, not only its newest run: a session is asked in waves (a run, then a second
    run ``…-r2`` for the seats that must be asked again), and showing the last wave alone hid every seat the
    first wave asked. Each answer says which run (wave) it came from."""
    store.refresh_book()
    run_id = store.book.last_run()
    if run_id is None:
        return {"run": None, "book_lines": store.book.lines}
    detail = run(store, run_id)
    day = str(detail["run"].get("session", ""))
    waves = store.book.runs_of_session(day) or [run_id]
    runs: list[JsonObject] = []
    answers: list[JsonObject] = []
    n_effs: list[JsonObject] = []
    for wave, rid in enumerate(waves, 1):
        one = detail if rid == run_id else run(store, rid)
        seats = one["answers"]
        runs.append({"run_id": rid, "wave": wave, "line": one["line"], "at": one["run"].get("at"),
                     "seats": len(seats), "answered": sum(1 for a in seats if (number(a.get("cells")) or 0) > 0)})
        answers += [{**a, "run_id": rid, "wave": wave} for a in seats]
        n_effs += one["n_eff"]
    return {"run_id": run_id, "session": day, "at": detail["run"].get("at"), "line": detail["line"], "runs": runs,
            "answers": answers, "n_eff": n_effs, "proof": proof_links(store, day), "book_lines": store.book.lines}


def points(store: Store) -> dict[str, object]:
    """The point-forecast (MASE) table per seat from council-points.json, when published."""
    report = store.json("council-points.json")
    if not isinstance(report, dict):
        return {"seats": [], "source": "council-points.json not published yet"}
    rows = [{"seat": name, "overall": obj(s).get("overall"), "buckets": obj(s).get("buckets", {}),
             "windows": obj(s).get("windows", 0), "compliance": obj(s).get("compliance", {})}
            for name, s in sorted(obj(report.get("seats")).items())]
    return {"seats": rows, "naive_windows": obj(report.get("naive")).get("windows", 0),
            "source": "council-points.json"}


#: How many runs the page's three-arm table shows (newest first); the file holds every run.
ARM_RUNS_SHOWN = 10
ARMS = ("open", "closed_book", "price_only")


def arms(store: Store) -> dict[str, object]:
    """The three-arm table (docs/experiments.md) from arena-cb-experiment.json, when published: per run, the
    dispersion heat and N_eff of the open, closed-book and price-only arms on the same seats, newest first."""
    report = store.json("arena-cb-experiment.json")
    if not isinstance(report, dict):
        return {"runs": [], "season": {}, "source": "arena-cb-experiment.json not published yet"}
    rows: list[JsonObject] = []
    for run in reversed(items(report.get("runs"))):
        r = obj(run)
        table = obj(r.get("three_arms")) or obj(r.get("closed_vs_open"))
        if not table:
            continue
        rows.append({"session": r.get("session"), "seats": len(items(table.get("seats"))),
                     **{arm: {"heat": obj(table.get(arm)).get("heat"), "n_eff": obj(table.get(arm)).get("n_eff")}
                        if arm in table else None for arm in ARMS}})
        if len(rows) == ARM_RUNS_SHOWN:
            break
    season = {arm: obj(obj(report.get("season")).get(arm)) for arm in ARMS}
    return {"runs": rows, "season": season, "source": "arena-cb-experiment.json"}


#: How many weeks the page's council talk section shows (newest first); the file holds every week.
TALK_WEEKS_SHOWN = 8
TALK_JSON = "council-talk.json"


def _letter_order(letter: str) -> tuple[int, str]:
    return len(letter), letter


def _talk_week(w: JsonObject) -> JsonObject:
    """One week as the page shows it: the chair, the council's portfolio, the critiques, each critiqued letter's
    reply and the shadow returns (council, the sealed accounts' mean, each critiqued letter's three accounts)."""
    critiques = [obj(c) for c in items(w.get("critiques"))]
    replies = {str(obj(r).get("letter")): obj(r) for r in items(w.get("replies"))}
    targets = sorted({str(c.get("target")) for c in critiques}, key=_letter_order)
    returns = obj(w.get("shadow_returns"))
    sealed = [returns[k] for k in sorted(returns) if k.startswith("sealed:")]
    known = [x for x in (number(v) for v in sealed) if x is not None]
    sealed_mean = round(sum(known) / len(known), 6) if known and len(known) == len(sealed) else None
    reply_rows: list[Json] = []
    for letter in targets:
        r = replies.get(letter)
        reply_rows.append({"letter": letter, "status": "no reply yet" if r is None else
                           ("ok" if r.get("ok") is True else "failed"),
                           "failure": None if r is None else r.get("failure") or None})
    return {"week": w.get("week"), "session": w.get("session"), "chair_letter": w.get("chair_letter"),
            "chair_seat": w.get("chair_seat"), "revealed": w.get("letter_map") is not None,
            "chair_failure": w.get("chair_failure") or None, "council_portfolio": obj(w.get("council_portfolio")),
            "critiques": [{k: c.get(k) for k in ("target", "market", "fund", "weight", "direction", "resolution")}
                          for c in critiques],
            "replies": reply_rows, "f22": obj(w.get("f22")),
            "returns": {"council": returns.get("council"), "sealed_mean": sealed_mean,
                        "seats": [{"letter": L, "sealed": returns.get(f"sealed:{L}"),
                                   "critiqued": returns.get(f"critiqued:{L}"),
                                   "stated": returns.get(f"stated:{L}")} for L in targets]},
            "settled": bool(returns)}


def talk(store: Store) -> dict[str, object]:
    """The council talk (docs/experiments.md) from council-talk.json, when published: the newest
    :data:`TALK_WEEKS_SHOWN` weeks, newest first, and the season's F22 and F23."""
    report = store.json(TALK_JSON)
    if not isinstance(report, dict):
        return {"weeks": [], "weeks_total": 0, "season": {}, "source": f"{TALK_JSON} not published yet"}
    listed = [obj(w) for w in items(report.get("weeks")) if isinstance(w, dict)]
    newest = sorted(listed, key=lambda w: str(w.get("week")), reverse=True)[:TALK_WEEKS_SHOWN]
    season = obj(report.get("season"))
    return {"weeks": [_talk_week(w) for w in newest], "weeks_total": len(listed),
            "season": {"f22": obj(season.get("f22")), "f23": obj(season.get("f23"))}, "source": TALK_JSON}


PREDICTIONS_JSON = "predictions.json"


def predictions(store: Store) -> dict[str, object]:
    """The registered predictions (docs/predictions.md) from predictions.json, when published: each line with its
    status, its value and sample once resolved, the files it read and the command that re-resolves it; the
    scorecard."""
    report = store.json(PREDICTIONS_JSON)
    if not isinstance(report, dict):
        return {"predictions": [], "scorecard": {}, "registries": [], "source": f"{PREDICTIONS_JSON} not published yet"}
    lines: list[JsonObject] = []
    for x in items(report.get("predictions")):
        if not isinstance(x, dict):
            continue
        r = obj(x.get("resolution"))
        lines.append({"id": x.get("id"), "set": x.get("set"), "statement": x.get("statement"),
                      "measure": x.get("measure"), "check_date": x.get("check_date"), "p": x.get("p"),
                      "op": x.get("op"), "threshold": x.get("threshold"), "status": x.get("status"),
                      "value": r.get("value"), "n": r.get("n"), "reason": r.get("reason"),
                      "inputs": [str(k) for k in sorted(obj(r.get("inputs")))], "resolved_on": r.get("session"),
                      "command": x.get("command")})
    registries = [{"name": obj(x).get("name"), "sha256": obj(x).get("sha256"), "file": obj(x).get("file"),
                   "sealed_at": obj(x).get("sealed_at"), "note": obj(x).get("note")}
                  for x in items(report.get("registries"))]
    return {"predictions": lines, "scorecard": obj(report.get("scorecard")), "registries": registries,
            "source": PREDICTIONS_JSON}


def corrections(store: Store) -> list[JsonObject]:
    """Every sealed correction line (paper §3.10), newest first: what it corrects, the new value, why.
    The figures on the page already use them (the CSV and the statistics apply each one)."""
    store.refresh_book()
    store.embargo.refresh()
    found = [n for n in range(1, store.book.lines + 1) if store.book.kind(n) == "correction"]
    out: list[JsonObject] = []
    for n in reversed(found):
        c = store.book.line(n)
        session = store.embargo.session_of(c)
        hidden = c.get("target") == "cell" and not store.embargo.scored(session)  # a cell is a probability
        out.append({"line": n, "at": c.get("at"), "of": c.get("of"), "target": c.get("target"),
                    "session": session or None, "seat": c.get("seat"), "market": c.get("market"),
                    "horizon": c.get("horizon"), "field": c.get("field"), "value": c.get("value"),
                    "cell": None if hidden else c.get("cell"), "embargoed": hidden,
                    "source": c.get("source"), "reason": c.get("reason")})
    return out


def page(store: Store) -> dict[str, object]:
    """Everything the league page shows, in one answer."""
    return {"today": today(store), "league": league_table(store), "grid": grid(store), "n_eff": n_eff(store),
            "calibration": calibration(store), "points": points(store), "corrections": corrections(store),
            "arms": arms(store), "talk": talk(store), "predictions": predictions(store)}


#: The "who cites what" chart: how many sites (most cited first) and runs (newest first) the page shows.
SOURCES_JSON = "council-sources.json"
SOURCES_SITES_SHOWN = 15
SOURCES_RUNS_SHOWN = 10


def sources(store: Store) -> dict[str, object]:
    """Who cites what (docs/experiments.md, shared sources) from council-sources.json, when published: the
    season's site x seat counts of the counted (fetched) citations, the most-cited sites first, and the newest
    runs' overlap figures."""
    report = store.json(SOURCES_JSON)
    if not isinstance(report, dict):
        return {"sites": [], "seats": [], "runs": [], "season": {}, "source": f"{SOURCES_JSON} not published yet"}
    season = obj(report.get("season"))
    table = [obj(x) for x in items(season.get("seat_sites"))]
    shown = table[:SOURCES_SITES_SHOWN]
    seats = sorted({str(k) for x in table for k in obj(x.get("seats"))})
    runs: list[Json] = []
    for run in reversed(items(report.get("runs"))):
        r = obj(run)
        test = obj(r.get("permutation"))
        runs.append({k: r.get(k) for k in ("run_id", "session", "citations", "unfetched", "unreached", "removed",
                                            "top_site", "top_share", "shared_site_share", "jaccard_links",
                                            "jaccard_sites")}
                    | {"statistic": test.get("statistic"), "p": test.get("p")})
        if len(runs) == SOURCES_RUNS_SHOWN:
            break
    test = obj(season.get("permutation"))
    return {"sites": [{"site": x.get("site"), "total": x.get("total"), "seats": obj(x.get("seats"))} for x in shown],
            "sites_total": len(table), "seats": seats, "runs": runs,
            "season": {k: season.get(k) for k in ("runs", "citations", "unfetched", "unreached", "removed",
                                                  "relabelled")} | {"statistic": test.get("statistic"),
                                                                    "p": test.get("p"),
                                                                    "permutations": test.get("permutations")},
            "source": SOURCES_JSON}

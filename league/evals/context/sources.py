"""Where the contextual track's series come from: a series file the user names, or the league's own prices.

**A series file** (``--series FILE``): CSV or Parquet (by the suffix ``.csv`` / ``.parquet``) in the long format,
one row per (id, timestamp, value), several series per file, rows in any order. Columns are named ``id``,
``timestamp`` and ``value``; a timestamp is ISO 8601 (``2026-01-01``, ``2026-01-01T13:00:00Z``); an empty or
``NA`` value reads as missing (a window over it is skipped, league.evals.context.windows). A series' points are
sorted by their parsed timestamp; the same timestamp twice in one series is an error.

**The frequency** is stated (``--freq H``) or inferred from each series' timestamps: the most common gap
between consecutive timestamps, named as below; daily data whose gaps skip weekends (no Saturday or Sunday
timestamp, gaps of 1 and 3 days) is ``B`` (business days). A gap that fits no name is an error naming the
series and the fix (``--freq``).

**The season length m** follows the frequency, as GIFT-Eval's MASE takes it (gluonts' ``get_seasonality``):

=========  ===========  ===
frequency  name         m
=========  ===========  ===
``S``      second       3600
``T``      minute       1440
``H``      hour         24
``D``      day          1
``B``      business day 5
``W``      week         1
``M``      month        12
``Q``      quarter      4
``Y``      year         1
=========  ===========  ===

A multiple (``15T``: every 15 minutes) divides m when it divides it evenly (1440 / 15 = 96), else m = 1. A
window's history must hold more than two seasons for m to be used (league.evals.context.windowset); otherwise
that window is scored with m = 1.

**The league's prices** (``--data DATA``, :func:`read_league_series`): the league's recorded daily history — the
file ``league init`` sealed the climatology from, named with its SHA-256 in ``climatology.json`` (the
``--history`` file kept as ``climatology-history.csv.gz`` in the data folder, or the demo's shipped
``demo-history.csv.gz``) — one series per market (its code from ``markets.toml``: the config folder beside the
data folder, else the shipped one), its closes by day; then the council book's sealed one-day closes of the
sessions after the history's last day (read exactly as ``league eval points`` reads them,
:func:`league.evals.points.daily_closes`). A market whose days include a Saturday or Sunday (BTC) is daily
(``D``, m = 1); the others are business days (``B``, m = 5). The file's hash must be the one the climatology
names; a folder without a climatology (a published folder) falls back to the book's closes alone
(:func:`read_book_series`, frequency ``B``).
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Final

from league.book.shared import book_contents
from league.config import load_markets, shipped_config_dir
from league.evals.context.windows import Series, WindowError, read_series_parquet
from league.evals.errors import EvalError
from league.evals.points import daily_closes, find_book, score_fields
from league.jsonvalue import JsonObject, obj, text

SEASON: Final[dict[str, int]] = {"S": 3600, "T": 1440, "H": 24, "D": 1, "B": 5, "W": 1, "M": 12, "Q": 4, "Y": 1}
ALIASES: Final[dict[str, str]] = {"MIN": "T", "A": "Y", "MS": "M", "ME": "M", "QS": "Q", "QE": "Q", "YS": "Y",
                                  "YE": "Y", "AS": "Y"}
SECONDS: Final[dict[str, int]] = {"S": 1, "T": 60, "H": 3600, "D": 86400, "W": 7 * 86400}
COLUMNS: Final = ("id", "timestamp", "value")
FREQ_FIX: Final = "state the frequency with --freq (S, T or min, H, D, B, W, M, Q, Y, with a multiple: 15min)"


class SeriesFileError(EvalError):
    """A series file (or a stated frequency) the track cannot read; the message names the file, row or column."""

    exit_code = 2


@dataclass(frozen=True)
class Frequency:
    """A frequency: its base name (a key of :data:`SEASON`), its multiple and the season length it gives."""

    base: str
    multiple: int = 1

    @property
    def name(self) -> str:
        return self.base if self.multiple == 1 else f"{self.multiple}{self.base}"

    @property
    def season(self) -> int:
        m = SEASON[self.base]
        return m // self.multiple if m % self.multiple == 0 else 1


@dataclass(frozen=True)
class SourceSeries:
    """One series with its frequency."""

    series: Series
    freq: Frequency

    @property
    def season(self) -> int:
        return self.freq.season


@dataclass(frozen=True)
class Source:
    """What was read: its kind (``file`` or ``book``), the file read, its SHA-256 and the series."""

    kind: str
    path: Path
    sha256: str
    series: tuple[SourceSeries, ...]
    book: tuple[str, str] | None = None  # the league's source: the council book read after the history (name, hash)

    def as_json(self) -> JsonObject:
        doc: JsonObject = {"kind": self.kind, "name": self.path.name, "sha256": self.sha256,
                           "series": [{"id": s.series.series_id, "steps": len(s.series.values), "freq": s.freq.name,
                                       "season": s.season} for s in self.series]}
        if self.book is not None:
            doc["book"] = {"name": self.book[0], "sha256": self.book[1]}
        return doc


def shipped_series() -> Path:
    """The shipped demo series (league/evals/data/ctx-series.csv, written by benchmarks/make_ctx_series.py)."""
    return Path(__file__).resolve().parents[1] / "data" / "ctx-series.csv"


def parse_freq(text: str) -> Frequency:
    """``H``, ``15min``, ``2W`` ... to a :class:`Frequency`; a name not in the table is a clear error."""
    found = re.fullmatch(r"\s*(\d*)\s*([A-Za-z]+)\s*", text)
    if found is None:
        raise SeriesFileError(f"frequency {text!r} is not understood", fix=FREQ_FIX)
    name = found.group(2).upper()
    base = ALIASES.get(name, name)
    multiple = int(found.group(1) or "1")
    if base not in SEASON or multiple < 1:
        raise SeriesFileError(f"frequency {text!r} is not one the track knows", fix=FREQ_FIX)
    return Frequency(base, multiple)


def _instant(text: str, where: str) -> datetime:
    try:
        return datetime.fromisoformat(text.strip())
    except ValueError:
        raise SeriesFileError(f"{where}: timestamp {text!r} is not ISO 8601",
                              fix="write timestamps as 2026-01-01 or 2026-01-01T13:00:00Z") from None


def _months(a: datetime, b: datetime) -> int:
    return (b.year - a.year) * 12 + b.month - a.month


def infer_freq(series: Series, where: str) -> Frequency:
    """The most common gap between consecutive timestamps, named (see the module docstring)."""
    stamps = [_instant(t, f"{where}: series {series.series_id!r}") for t in series.timestamps]
    if len(stamps) < 2:
        raise SeriesFileError(f"{where}: series {series.series_id!r} has fewer than two timestamps", fix=FREQ_FIX)
    try:
        gaps = Counter(b - a for a, b in zip(stamps, stamps[1:], strict=False))
    except TypeError:
        raise SeriesFileError(f"{where}: series {series.series_id!r} mixes timestamps with and without a zone",
                              fix="give every timestamp of a series the same form") from None
    gap = gaps.most_common(1)[0][0]
    seconds = gap.total_seconds()
    if seconds == 86400 and all(s.weekday() < 5 for s in stamps) and set(gaps) <= {timedelta(days=1),
                                                                                   timedelta(days=3)}:
        if timedelta(days=3) in gaps:
            return Frequency("B")
    if 28 * 86400 <= seconds <= 31 * 86400 or 89 * 86400 <= seconds <= 92 * 86400 or 365 <= seconds / 86400 <= 366:
        months = Counter(_months(a, b) for a, b in zip(stamps, stamps[1:], strict=False)).most_common(1)[0][0]
        if months % 12 == 0:
            return Frequency("Y", months // 12)
        if months % 3 == 0:
            return Frequency("Q", months // 3)
        return Frequency("M", months)
    for base in ("W", "D", "H", "T", "S"):
        unit = SECONDS[base]
        if seconds >= unit and math.isclose(seconds % unit, 0.0, abs_tol=1e-9):
            return Frequency(base, int(seconds // unit))
    raise SeriesFileError(f"{where}: series {series.series_id!r}: no frequency fits its most common gap {gap}",
                          fix=FREQ_FIX)


def _value(text: str, where: str) -> float:
    if text.strip() in ("", "NA", "NaN", "nan", "null"):
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise SeriesFileError(f"{where}: value {text!r} is not a number",
                              fix="write values as decimal numbers (empty or NA for a missing one)") from None


def _sorted(rows: list[tuple[str, str, float]], where: str) -> list[Series]:
    by_id: dict[str, list[tuple[datetime, str, float]]] = {}
    for sid, ts, value in rows:
        by_id.setdefault(sid, []).append((_instant(ts, f"{where}: series {sid!r}"), ts, value))
    out = []
    for sid in sorted(by_id):
        try:
            pts = sorted(by_id[sid], key=lambda p: p[0])
        except TypeError:
            raise SeriesFileError(f"{where}: series {sid!r} mixes timestamps with and without a zone",
                                  fix="give every timestamp of a series the same form") from None
        for a, b in zip(pts, pts[1:], strict=False):
            if a[0] == b[0]:
                raise SeriesFileError(f"{where}: series {sid!r} has timestamp {b[1]!r} twice",
                                      fix="keep one row per id and timestamp")
        out.append(Series(sid, tuple(p[1] for p in pts), tuple(p[2] for p in pts)))
    return out


def _read_csv(path: Path) -> list[tuple[str, str, float]]:
    try:
        with path.open(newline="", encoding="utf-8") as fh:
            reader = csv.DictReader(fh)
            missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
            if missing:
                raise SeriesFileError(f"{path}: no column {', '.join(missing)} (header: {reader.fieldnames})",
                                      fix="name the columns id,timestamp,value (one row per series and time)")
            rows = []
            for k, r in enumerate(reader, start=2):
                if r["id"] is None or r["timestamp"] is None or r["value"] is None:
                    raise SeriesFileError(f"{path}: line {k} has fewer than three fields",
                                          fix="give every row an id, a timestamp and a value")
                rows.append((r["id"], r["timestamp"], _value(r["value"], f"{path}: line {k}")))
            return rows
    except UnicodeDecodeError:
        raise SeriesFileError(f"{path}: not UTF-8 text", fix="save the CSV as UTF-8") from None


def read_series_file(path: Path, freq: str | None = None) -> Source:
    """The series of a CSV or Parquet file, each with its frequency (stated, else inferred)."""
    path = Path(path)
    if not path.is_file():
        raise SeriesFileError(f"{path}: no such file", fix="pass --series a CSV or Parquet file")
    if path.suffix.lower() == ".csv":
        series = _sorted(_read_csv(path), str(path))
    elif path.suffix.lower() in (".parquet", ".pq"):
        try:
            read = read_series_parquet(path)
        except (WindowError, KeyError, ValueError) as exc:
            raise SeriesFileError(f"{path}: {exc}", fix="a Parquet file with columns id, timestamp, value") from None
        series = _sorted([(s.series_id, t, v) for s in read for t, v in zip(s.timestamps, s.values, strict=True)],
                         str(path))
    else:
        raise SeriesFileError(f"{path}: unknown suffix {path.suffix!r}", fix="a .csv or .parquet file")
    if not series:
        raise SeriesFileError(f"{path}: no rows", fix="one row per id, timestamp and value")
    stated = parse_freq(freq) if freq else None
    return Source("file", path, hashlib.sha256(path.read_bytes()).hexdigest(),
                  tuple(SourceSeries(s, stated or infer_freq(s, str(path))) for s in series))


SHIPPED_HISTORY_NAME: Final = "demo-history.csv.gz"
CLIMATOLOGY_PLACES: Final = ("climatology.json", "data/climatology.json")


def _book_closes(book: Path) -> dict[str, list[tuple[str, float]]]:
    lines: list[JsonObject] = book_contents(book, ("score", "score_h"), lambda line: score_fields(line.content))
    return daily_closes([c for c in lines if isinstance(c.get("markets", []), list)])


def read_book_series(data: Path) -> Source:
    """The sealed daily closes of every market of the council book under ``data`` (frequency ``B``, m = 5)."""
    book = find_book(Path(data))
    closes = _book_closes(book)
    if not closes:
        raise SeriesFileError(f"{book}: no sealed one-day close", fix="pass --data a folder whose book has scores")
    series = tuple(SourceSeries(Series(m, tuple(s for s, _ in pts), tuple(c for _, c in pts)), Frequency("B"))
                   for m, pts in sorted(closes.items()))
    return Source("book", book, hashlib.sha256(book.read_bytes()).hexdigest(), series)


def _history_file(clim_path: Path) -> tuple[Path, str]:
    """The recorded history the climatology names (``NAME sha256 HEX``), checked against its hash."""
    try:
        named = text(obj(json.loads(clim_path.read_text(encoding="utf-8")))["history"])
    except (ValueError, KeyError, TypeError):
        raise SeriesFileError(f"{clim_path}: no `history` naming the recorded history",
                              fix="re-create the folder with league init --history FILE") from None
    found = re.fullmatch(r"(\S+) sha256 ([0-9a-f]{64})", named.strip())
    if found is None:
        raise SeriesFileError(f"{clim_path}: `history` is {named!r}, not 'FILE sha256 HEX'",
                              fix="re-create the folder with league init --history FILE")
    name, digest = found.group(1), found.group(2)
    if name == SHIPPED_HISTORY_NAME:
        path = Path(str(resources.files("league.scoring").joinpath("data", SHIPPED_HISTORY_NAME)))
    else:
        path = clim_path.parent / name
    if not path.is_file():
        raise SeriesFileError(f"{clim_path}: the recorded history {name} is not beside it ({path})",
                              fix="put the file league init kept back into the data folder")
    actual = hashlib.sha256(path.read_bytes()).hexdigest()
    if actual != digest:
        raise SeriesFileError(f"{path}: SHA-256 {actual}, not the {digest} the climatology sealed",
                              fix="restore the recorded history the climatology was sealed from")
    return path, digest


def _symbols(clim_path: Path) -> dict[str, str]:
    """Price symbol -> market code, from the config folder beside the data folder, else the shipped one."""
    for markets in (clim_path.parent.parent / "config" / "markets.toml", shipped_config_dir() / "markets.toml"):
        if markets.is_file():
            return {m.symbol: m.code for m in load_markets(markets).markets}
    return {}


def _history_rows(path: Path) -> dict[str, list[tuple[str, float]]]:
    data = path.read_bytes()
    try:
        content = gzip.decompress(data).decode("utf-8") if path.suffix == ".gz" else data.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        raise SeriesFileError(f"{path}: not a UTF-8 CSV (gzip when it ends in .gz)",
                              fix="pass league init --history a symbol,day,open,close CSV") from None
    by: dict[str, dict[str, float]] = {}
    for k, row in enumerate(csv.DictReader(io.StringIO(content)), start=2):
        try:
            sym, day, close = row["symbol"], date.fromisoformat(row["day"]).isoformat(), float(row["close"])
        except (KeyError, TypeError, ValueError):
            raise SeriesFileError(f"{path}: line {k} is not symbol,day,open,close with an ISO day and a close",
                                  fix="write symbol,day,open,close (one row per symbol and day)") from None
        by.setdefault(sym, {})[day] = close
    return {sym: sorted(days.items()) for sym, days in by.items()}


def _daily_freq(days: Sequence[str]) -> Frequency:
    return Frequency("D") if any(date.fromisoformat(d).weekday() >= 5 for d in days) else Frequency("B")


def read_league_series(data: Path) -> Source:
    """The league's recorded daily history plus the council book's sealed closes after it (module docstring)."""
    data = Path(data)
    clim_path = next((data / p for p in CLIMATOLOGY_PLACES if (data / p).is_file()), None)
    if clim_path is None:
        return read_book_series(data)
    path, digest = _history_file(clim_path)
    symbols = _symbols(clim_path)
    try:
        book_path: Path | None = find_book(clim_path.parent)
    except EvalError:
        book_path = None
    closes = _book_closes(book_path) if book_path is not None else {}
    series = []
    for sym, pts in sorted(_history_rows(path).items(), key=lambda kv: symbols.get(kv[0], kv[0])):
        code = symbols.get(sym, sym)
        last = pts[-1][0]
        after = [(s, c) for s, c in closes.get(code, []) if s[:10] > last]
        pts = pts + after
        series.append(SourceSeries(Series(code, tuple(d for d, _ in pts), tuple(c for _, c in pts)),
                                   _daily_freq([d for d, _ in pts])))
    if not series:
        raise SeriesFileError(f"{path}: no rows", fix="record the history with league init --history FILE")
    book = None if book_path is None else (book_path.name, hashlib.sha256(book_path.read_bytes()).hexdigest())
    return Source("league", path, digest, tuple(series), book)

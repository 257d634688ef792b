"""Rebuild every published file that derives from the books, from the published folder alone, and compare.

A reader holds the published folder, not the operator's config, database or price cache. Every
derived file is a function of the two books (``council-book.jsonl``, ``asks.jsonl``) and the sealed
climatology table (``council-clim-window.json``, its hash re-checked by the statistics), so this
module rebuilds them with the very producers the publisher runs, into a scratch folder, and
compares structurally (:mod:`league.verify.compare`): each CSV row against its recomputation (all
columns), every figure of the statistics and portfolio files. ``league verify`` runs it as a
reader step; ``league stats`` uses the same inputs so that a recomputation gives the same bytes.

The counting rule needs the markets and the ingest deadline for horizons not yet scored; a reader
takes the markets from the opening line (sealed in the config's order) and the deadline from the run
lines, which seal each market's event contracts and deadline before the ask.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypedDict, cast
from zoneinfo import ZoneInfo

from league import jsonvalue, records
from league.arms.book import ARMS_DIR
from league.book.index import BookIndex
from league.book.shared import shared_reads
from league.calendar import Calendar, default_calendar
from league.clock import parse_iso
from league.config import HORIZON_SESSIONS, Config, MarketSpec
from league.heap import collector_paused
from league.jsonvalue import JsonObject, obj, text
from league.publish import arms, producers
from league.publish import documents as docs
from league.publish import predictions as prediction_files
from league.publish import readers as readers_files
from league.publish import roster as rostermod
from league.publish import sides as sides_files
from league.publish import talk as talk_files
from league.publish.bookfacts import BookFacts, read_facts
from league.publish.forecasts import write_forecasts
from league.publish.memory import release_memory
from league.publish.sources import rebuild_sources
from league.publish.writing import write_json
from league.verify.compare import FORECAST_KEY, diff_csv_bytes, diff_csv_order, diff_json_bytes
from league.verify.reader import Status

NEW_YORK = ZoneInfo("America/New_York")
BOOK, ASKS, FORECASTS = "council-book.jsonl", "asks.jsonl", "council-forecasts.csv"
CLIM = "council-clim-window.json"
DIGEST, PROTOCOL = "markets-digest.json", "arena-protocol.json"
ROSTER = "roster.json"
STATS_JSON = ("council-stats.json", "council-calibration.json", "council-clim-window.json", "council-league.json")
PORTFOLIO_CSV = ("arena-trades.csv", "arena-accounts.csv")


# ------------------------------------------------------------------------------ inputs
class StatsOptions(TypedDict, total=False):
    """The statistics producer's keyword arguments, each passed only when it has something to say."""

    sides: dict[str, str]
    methodologies: dict[str, JsonObject]
    shadow_weights: dict[str, JsonObject]


@dataclass(frozen=True)
class StatsInputs:
    """What the statistics read besides the forecasts: the sealed climatology table, each seat's family
    and side (sealed roster lines first, the config for seats they do not name) and each methodology
    version's sealed rules. The publisher, ``league stats`` and ``league verify`` all build it here."""

    clim: JsonObject | None
    families: dict[str, str] = field(default_factory=dict)
    sides: dict[str, str] = field(default_factory=dict)
    methodologies: dict[str, JsonObject] = field(default_factory=dict)
    #: methodology version -> the shadow-consensus weights sealed for it before its primary window
    shadow_weights: dict[str, JsonObject] = field(default_factory=dict)

    def arguments(self) -> tuple[tuple[JsonObject | None, dict[str, str]], StatsOptions]:
        """The statistics producer's arguments after (forecasts, out): the sides only when two exist."""
        kwargs: StatsOptions = {}
        if len(set(self.sides.values())) >= 2:
            kwargs["sides"] = self.sides
        if self.methodologies:
            kwargs["methodologies"] = self.methodologies
        if self.shadow_weights:
            kwargs["shadow_weights"] = self.shadow_weights
        return (self.clim, self.families), kwargs

    def call(self, forecasts: Path, out: Path) -> None:
        """Run the statistics producer exactly as the publisher does."""
        args, kwargs = self.arguments()
        producers.stats(forecasts, out, *args, **kwargs)


def sealed_inputs(book: Path, asks: Path, clim: JsonObject | None, *,
                  families: Mapping[str, str] | None = None, sides: Mapping[str, str] | None = None,
                  facts: BookFacts | None = None) -> StatsInputs:
    """The inputs as sealed in the books; ``families``/``sides`` (the config's) fill seats the roster
    lines do not name (books written before families were sealed). ``facts``: :func:`read_facts` of ``book``
    as the caller already read and verified it (the publisher's books step), else the book is read here."""
    doc = rostermod.roster_document(rostermod.roster_lines(asks))
    facts = read_facts(book) if facts is None else facts
    sealed = {v: m["rules"] for v, m in facts.methodology.items() if m.get("rules")}
    return StatsInputs(clim, {**dict(families or {}), **rostermod.families(doc)},
                       {**dict(sides or {}), **rostermod.sides(doc)}, sealed, dict(facts.shadow))


def published_inputs(folder: Path) -> StatsInputs:
    """The inputs of a published folder: its books and its sealed climatology table."""
    clim_path = folder / CLIM
    clim: JsonObject | None = json.loads(clim_path.read_text(encoding="utf-8")) if clim_path.is_file() else None
    return sealed_inputs(folder / BOOK, folder / ASKS, clim)


def write_statistics(books: Path, forecasts: Path, out: Path, inputs: StatsInputs,
                     progress: Callable[[str, int, int], None] | None = None) -> None:
    """The statistics files with the point-forecast block, then the crowd and portfolio tables merged into
    council-league.json, in the publisher's order (``books``: a data folder holding ``books/council-book.jsonl``;
    ``progress(step, done, total)``, when given, is told before each of the four producers)."""
    # one verified read of the book for the three steps below (league/book/shared.py); the collector's automatic
    # runs paused (league/heap.py): what each builds lives on, and release_memory collects after the statistics
    with shared_reads(), collector_paused():
        _write_statistics(books, forecasts, out, inputs, progress or (lambda step, done, total: None))


def _write_statistics(books: Path, forecasts: Path, out: Path, inputs: StatsInputs,
                      tell: Callable[[str, int, int], None]) -> None:
    tell("statistics", 0, 4)
    inputs.call(forecasts, out)
    release_memory()  # the statistics' frames, freed, are handed back before the book readers (as publish does)
    tell("points", 1, 4)
    if (books / "books" / BOOK).is_file():
        producers.points(books, out)
    tell("crowd", 2, 4)
    if (out / "council-league.json").is_file() and (books / "books" / BOOK).is_file():
        producers.crowd(books, out)
        tell("portfolio", 3, 4)
        producers.portfolio_tables(books, out)
    tell("done", 4, 4)


# ------------------------------------------------------------------------------ the counting rule's view
class _Roster:
    def __init__(self, deadline: str) -> None:
        self.deadline = deadline


class _Markets:
    def __init__(self, markets: tuple[MarketSpec, ...]) -> None:
        self.markets = markets


class _SealedConfig:
    """The two things of a config the counting rule reads, taken from the sealed run lines."""

    def __init__(self, opening: list[records.Opening], runs: list[records.Run]) -> None:
        self.markets = _Markets(_opening_markets(opening) or _markets(runs))
        self.roster = _Roster(_deadline(runs))


class SealedView:
    """What the CSV writer reads (:class:`league.counting.Sealed`) from a published book alone."""

    def __init__(self, book: Path) -> None:
        self.index = BookIndex.of_book(book)
        self.calendar: Calendar = default_calendar()
        self.config = cast(Config, _SealedConfig(self.index.of(records.Opening), self.index.of(records.Run)))


def _opening_markets(opening: list[records.Opening]) -> tuple[MarketSpec, ...]:
    """The markets as the opening line sealed them (the config's, in its order); empty when it names none
    or they do not read as markets of this version."""
    try:
        return tuple(MarketSpec.model_validate(m) for m in opening[0].markets) if opening else ()
    except ValueError:
        return ()


def _markets(runs: list[records.Run]) -> tuple[MarketSpec, ...]:
    """Without an opening line's markets: each market with the horizons its sealed events name (first seen
    order of the run lines)."""
    seen: dict[str, dict[str, JsonObject]] = {}
    for run in runs:
        for code, by_h in run.events.items():
            seen.setdefault(code, {}).update(by_h)
    return tuple(_spec(code, by_h) for code, by_h in seen.items() if by_h)


def _spec(code: str, by_h: dict[str, JsonObject]) -> MarketSpec:
    """A market as the counting rule needs it when its events are sealed: code, horizons and the price
    source. ``trading`` only matters for the fallback contract of a run line that seals no events (books
    older than sealed events): every market reads as a session market, so such a book's bitcoin rows
    would differ, and step 11 would name them."""
    first = next(iter(by_h.values()))
    horizons = tuple(h for h in HORIZON_SESSIONS if h in by_h)
    # Not validated as a configuration file is: what a book sealed is taken as sealed (an older book's price
    # source or rule may be one this version no longer configures; the checks compare, they do not refuse).
    return MarketSpec.model_construct(code=code, name=code, symbol=text(first.get("price_symbol")) or code,
                                      kind="index", group="sealed", provider=text(first.get("price_provider")),
                                      reference_rule=text(first.get("reference_rule")), horizons=horizons,
                                      end_time="16:00", trading="session", fund="", fund_inverse=False,
                                      history="none")


def _deadline(runs: list[records.Run]) -> str:
    """The ingest deadline (HH:MM New York) sealed in the first run line that states one."""
    for run in runs:
        if run.deadline:
            return parse_iso(run.deadline).astimezone(NEW_YORK).strftime("%H:%M")
    return "09:30"


# ------------------------------------------------------------------------------ rebuild and compare
@dataclass
class Rebuilt:
    """The differences found, and what was compared or could not be."""

    compared: list[str] = field(default_factory=list)
    differences: list[str] = field(default_factory=list)
    missing: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.differences


def rebuild_into(folder: Path, work: Path) -> Path:
    """Recompute into ``work/out`` every derived file ``folder`` publishes (returns ``work/out``)."""
    data, out = work / "data", work / "out"
    (data / "books").mkdir(parents=True)
    out.mkdir()
    for name in (BOOK, ASKS):
        if (folder / name).is_file():
            shutil.copyfile(folder / name, data / "books" / name)
    published = {p.name for p in folder.iterdir() if p.is_file()}
    stats = published & set(STATS_JSON)
    if FORECASTS in published or stats or DIGEST in published:
        write_forecasts(SealedView(data / "books" / BOOK), out / FORECASTS)
    if ROSTER in published:
        write_roster(data / "books" / ASKS, out / ROSTER)
    _documents(folder, published, data / "books" / BOOK, out)
    if stats and CLIM in published:
        write_statistics(data, out / FORECASTS, out, published_inputs(folder))
    if published & set(PORTFOLIO_CSV):
        producers.portfolio(data, out)
    readers_files.rebuild_experiment(folder, out)
    arms.rebuild_arms(folder, out)
    talk_files.rebuild_talk(folder, out)
    prediction_files.rebuild_predictions(folder, out)
    sides_files.rebuild_sides(folder, out)
    rebuild_sources(folder, out)
    return out


def _documents(folder: Path, published: set[str], book: Path, out: Path) -> None:
    """The digest (from the rebuilt CSV) and the protocol document (from the book's facts), with the
    published ``generated_at`` and, for the protocol, the published config settings (not in the book)."""
    if DIGEST in published:
        stamp = _json(folder / DIGEST).get("generated_at", "")
        with open(out / FORECASTS, encoding="utf-8", newline="") as fh:
            write_json(out / DIGEST, docs.markets_digest(fh, str(stamp)))
    if PROTOCOL in published:
        doc = _json(folder / PROTOCOL)
        settings = obj(jsonvalue.path(doc, "methodology", "in_config"))
        write_json(out / PROTOCOL, docs.protocol_document(read_facts(book), settings,
                                                          str(doc.get("generated_at", ""))))


def _json(file: Path) -> JsonObject:
    """A published JSON object, or {} when it is not one (the comparison then names every field)."""
    try:
        value: JsonObject = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return obj(value)


def write_roster(asks: Path, target: Path) -> None:
    if asks.is_file():
        write_json(target, rostermod.roster_document(rostermod.roster_lines(asks)))


def compare_folder(folder: Path, rebuilt: Path) -> Rebuilt:
    """Compare each rebuilt file with the published one of the same name."""
    result = Rebuilt()
    for path in sorted(p for p in rebuilt.iterdir() if p.is_file()):
        published = folder / path.name
        if not published.is_file():
            result.missing.append(path.name)
            continue
        result.compared.append(path.name)
        result.differences += _diff(path.name, published.read_bytes(), path.read_bytes())
    for path in sorted((rebuilt / ARMS_DIR).glob("*.csv")):  # the arms' rows (arms/arm-forecasts.csv)
        name = f"{ARMS_DIR}/{path.name}"
        result.compared.append(name)
        result.differences += _diff(name, (folder / name).read_bytes(), path.read_bytes())
    derived = (FORECASTS, ROSTER, DIGEST, PROTOCOL, *STATS_JSON, *PORTFOLIO_CSV)
    result.differences += [f"{name}: published, but cannot be recomputed from this folder (the statistics need "
                           f"{CLIM}, the roster asks.jsonl)" for name in derived
                           if (folder / name).is_file() and not (rebuilt / name).is_file()]
    return result


def _diff(name: str, published: bytes, rebuilt: bytes) -> list[str]:
    if published == rebuilt:
        return []
    if name.endswith(".json"):
        return diff_json_bytes(name, published, rebuilt)
    key = FORECAST_KEY if name == FORECASTS else None
    return diff_csv_bytes(name, published, rebuilt, key) or diff_csv_order(name, published, rebuilt, key)


def rebuild_and_compare(folder: Path) -> Rebuilt:
    if not (folder / BOOK).is_file():
        raise FileNotFoundError(f"{BOOK} is not published")
    with tempfile.TemporaryDirectory(prefix="league-rebuild-") as tmp:
        return compare_folder(folder, rebuild_into(folder, Path(tmp)))


def rebuild_step(folder: Path) -> tuple[Status, str]:
    """The reader step: ``ok`` when every derived file equals its recomputation from the book."""
    if not (folder / BOOK).is_file():
        return "skipped", f"{BOOK} is not published"
    result = rebuild_and_compare(folder)
    if not result.compared:
        return "skipped", "no file derived from the books is published"
    shown = "; ".join(result.differences[:5])
    more = f"; and {len(result.differences) - 5} more" if len(result.differences) > 5 else ""
    if not result.ok:
        return "FAILED", f"{len(result.differences)} published values differ from the book: {shown}{more}"
    note = f" ({', '.join(result.missing)} not published)" if result.missing else ""
    return "ok", f"{', '.join(result.compared)} equal their recomputation from the books{note}"


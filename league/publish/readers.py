"""The reader experiment's open data (docs/readers.md): the readers' book, published whole as
``readers/readers-book.jsonl`` (it holds no address and no hash of one), and the ``experiment`` block of
``council-league.json`` (g0 blind, g1 see), computed from that book and the outcomes of ``council-forecasts.csv``
so that ``league verify`` (step 11) rebuilds it from the published folder alone.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from league.book import iter_lines
from league.jsonvalue import Json
from league.publish.writing import complete_lines, write_bytes
from league.readers.book import (
    READERS_BOOK,
    READERS_DIR,
    ReaderAssignedLine,
    ReaderFinalLine,
    ReaderForecastLine,
    ReaderPeekLine,
    ReaderPrivateLine,
    read_reader_line,
)
from league.readers.rules import GROUP_LABELS, First, Revision, experiment, revision

PUBLISHED = f"{READERS_DIR}/{READERS_BOOK}"
LEAGUE_JSON = "council-league.json"
DEFINITIONS: dict[str, str] = {
    "groups": "g0 = blind (the council hidden until the reader's first forecast of the session), g1 = see (shown "
              "at once); assigned once, at random, per identifier",
    "first_forecasts": "counted forecasts: each reader's first per market and session, sealed before the session's "
                       "reference time; later ones are counted in later_forecasts only",
    "brier": "(p_up - outcome)^2 with p_up = c/100 for up and 1 - c/100 for down; outcome 1 when the market's 1d "
             "close is strictly above its reference (council-forecasts.csv ref and close)",
    "matched": "g1 minus g0 mean Brier per market x session cell, weighted by the smaller group's count in the cell",
    "anchoring": "share of first forecasts on the side of the consensus on offer (consensus_up above 50: up), over "
                 "those with a consensus on offer not equal to 50; the consensus on offer is sealed with each forecast "
                 "for both groups (g0 did not see it)",
    "overconfidence": "mean confidence / 100 minus hit rate",
    "seconds": "median seconds from the reader's first view of the session to its first forecast",
    "resets": "identifiers issued to an address that had already been given one that day (each a new reader)",
    "revision": "per display (council, control): mean Brier change private -> final (negative: better) and mean "
                "movement toward the council's p (probability units) when the council was right and when wrong; "
                "primary = council minus control",
}


def outcomes(forecasts: Path) -> dict[tuple[str, str], int]:
    """(session, market) -> 1d outcome (1 when close > ref) from the published CSV."""
    out: dict[tuple[str, str], int] = {}
    if not forecasts.is_file():
        return out
    with forecasts.open(encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            if row.get("horizon") == "1d" and row.get("ref") and row.get("close"):
                out.setdefault((row["session"], row["asset"]), 1 if float(row["close"]) > float(row["ref"]) else 0)
    return out


def experiment_block(book: Path, forecasts: Path) -> dict[str, Json]:
    """The ``experiment`` block from the readers' book and the published forecasts."""
    ups = outcomes(forecasts)
    groups: dict[str, str] = {}
    resets = later = 0
    peeks: set[str] = set()
    firsts: list[First] = []
    sessions: dict[str, set[str]] = {}
    private: dict[tuple[str, str, str], ReaderPrivateLine] = {}
    pairs: list[Revision] = []
    for line in iter_lines(book):
        x = read_reader_line(line)
        if isinstance(x, ReaderAssignedLine):
            groups.setdefault(x.reader, x.group)
            resets += 1 if x.reset else 0
        elif isinstance(x, ReaderPeekLine):
            peeks.add(x.reader)
        elif isinstance(x, ReaderForecastLine):
            if not x.counted:
                later += 1
                continue
            sessions.setdefault(x.reader, set()).add(x.session)
            firsts.append(First(x.reader, x.group, x.session, x.market, x.side, x.confidence, x.seconds,
                                x.consensus_up, ups.get((x.session, x.market))))
        elif isinstance(x, ReaderPrivateLine):
            private.setdefault((x.reader, x.session, x.market), x)
        elif isinstance(x, ReaderFinalLine):
            p = private.get((x.reader, x.session, x.market))
            if p is not None:
                pairs.append(Revision(p.display, p.side, p.confidence, x.side, x.confidence, p.consensus_up,
                                      ups.get((x.session, x.market))))
    block = experiment(groups, firsts, later=later, peeks=peeks, resets=resets, sessions_by_reader=sessions)
    labels: dict[str, Json] = dict(GROUP_LABELS)
    definitions: dict[str, Json] = dict(DEFINITIONS)
    return {**block, "labels": labels, "blind_group": "g0", "revision": revision(pairs), "definitions": definitions,
            "source": PUBLISHED}


def write_readers_book(data_dir: Path, out: Path) -> list[Path]:
    """The readers' book, up to its last complete line (nothing when no reader ever came)."""
    book = data_dir / "books" / READERS_BOOK
    if not book.is_file():
        return []
    return [write_bytes(out / PUBLISHED, complete_lines(book))]


def merge_experiment(out: Path, block: dict[str, Json]) -> None:
    """Write the block into council-league.json (when the statistics wrote it)."""
    path = out / LEAGUE_JSON
    if not path.is_file():
        return
    doc: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    doc["experiment"] = block
    path.write_text(json.dumps(doc, sort_keys=True, indent=1), encoding="utf-8")


def rebuild_experiment(folder: Path, out: Path) -> None:
    """A reader's rebuild (league verify step 11): the block from the published readers' book and forecasts, merged
    into the rebuilt council-league.json."""
    book = folder / PUBLISHED
    if not book.is_file() or not (out / LEAGUE_JSON).is_file():
        return
    forecasts = out / "council-forecasts.csv" if (out / "council-forecasts.csv").is_file() else \
        folder / "council-forecasts.csv"
    merge_experiment(out, experiment_block(book, forecasts))

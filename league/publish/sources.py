"""``council-sources.json``: the shared-sources figures (league/scoring/sources.py) from the published files.

It reads only what a reader holds in the open-data folder (``council-forecasts.csv``, ``arms/fetch-records.csv``,
``asks/*.md``), so the publisher, ``league verify`` step 11 (:func:`rebuild_sources`) and the stand-alone
``tools/recount_sources.py`` compute from the same inputs. The one input a reader cannot derive, the league's own
data sources (``[sources] ask_sites``), is published in the file's ``method`` and read back from there by the
rebuild and the recount.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from league.arms.book import ARMS_DIR
from league.publish.writing import write_json
from league.scoring.sources import ask_links, sources_report

SOURCES = "council-sources.json"
FORECASTS = "council-forecasts.csv"
FETCH_RECORDS = f"{ARMS_DIR}/fetch-records.csv"
#: The columns of council-forecasts.csv that league.scoring.sources reads (``in_time``, ``citations``, the report).
READ_COLUMNS = frozenset({"action", "asset", "event_reference_at", "horizon", "line_kind", "reference_at", "run_id",
                          "run_role", "sealed_at", "seat", "session", "source_domains", "source_urls", "status"})
#: Of those, the ones whose texts repeat from row to row (held once each).
REPEATED = READ_COLUMNS - {"source_domains", "source_urls"}


def _rows(path: Path) -> list[dict[str, str]]:
    if not path.is_file():
        return []
    with open(path, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def _forecast_rows(path: Path) -> Iterator[dict[str, str]]:
    """council-forecasts.csv's rows one at a time, each with only the columns the figures read (READ_COLUMNS) and
    their repeated texts held once. Why: the whole file as dicts (43 columns, 6 million rows at 5 years × 100 seats)
    passed 14 GB; the report keeps only the counted one-day rows, and of them only these columns."""
    if not path.is_file():
        return
    texts: dict[str, str] = {}
    one = texts.setdefault
    with open(path, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            yield {k: (one(v, v) if k in REPEATED and v is not None else v)
                   for k, v in row.items() if k in READ_COLUMNS}


def _report(folder: Path, ask_sites: Sequence[str], forecasts: Path | None = None) -> dict[str, object]:
    texts = [p.read_text(encoding="utf-8") for p in sorted((folder / "asks").glob("*.md"))]
    return dict(sources_report(_forecast_rows(forecasts or folder / FORECASTS), _rows(folder / FETCH_RECORDS),
                               ask_links(texts), ask_sites))


def write_sources(out: Path, ask_sites: Sequence[str]) -> Path | None:
    """The file, when the league fetched cited links (``arms/fetch-records.csv``) or a counted row cites one."""
    forecasts = out / FORECASTS
    if not forecasts.is_file():
        return None
    cites = any(r.get("source_urls") for r in _forecast_rows(forecasts))
    if not cites and not (out / FETCH_RECORDS).is_file():
        return None
    return write_json(out / SOURCES, _report(out, ask_sites))


def rebuild_sources(folder: Path, out: Path) -> None:
    """A reader's rebuild (league verify step 11): the file from the published folder, with the ``ask_sites``
    its ``method`` declares (and the CSV rebuilt into ``out`` when there is one)."""
    published = folder / SOURCES
    if not published.is_file():
        return
    method = json.loads(published.read_text(encoding="utf-8")).get("method", {})
    sites = [str(s) for s in method.get("ask_sites", [])] if isinstance(method, dict) else []
    rebuilt = out / FORECASTS
    write_json(out / SOURCES, _report(folder, sites, rebuilt if rebuilt.is_file() else None))

"""The producers of the open-data folder: one function each.

Each is called by :func:`league.publish.files.publish` with the data folder and the output folder
(the proof pages also with the books and the public key). Only the statistics are imported when they
run (``league.extras.extra("stats")``): they pull in the numerical stack, which the publisher leaves to
the side child that computes them; a producer whose import fails is a failure the report names like
any other, never a silently missing file.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path

from league.arms.book import ARMS_BOOK, ARMS_DIR
from league.book.shared import KeptLines
from league.evals import points as points_track
from league.extras import extra
from league.jsonvalue import JsonObject
from league.publish import arms as arms_files
from league.publish import crowd as crowd_files
from league.publish import forecast_cache, proof_pages
from league.publish import portfolio as portfolio_files
from league.publish import predictions as prediction_files
from league.publish import talk as talk_files
from league.publish.writing import write_json

#: A producer: called with the data and output folders (and its own options); what it returns is not read.
Producer = Callable[..., object]


def forecasts(data_dir: Path, target: Path, book: bytes | None = None, *, workers: int = 1,
              kept: KeptLines | None = None,
              copy: tuple[Path, str] | None = None) -> int:
    return forecast_cache.export_forecasts(data_dir, target, book, workers=workers, kept=kept, copy=copy)


def stats(forecasts_csv: Path, out_dir: Path, clim_table: JsonObject | None, families: dict[str, str],
          sides: dict[str, str] | None = None, methodologies: Mapping[str, JsonObject] | None = None,
          shadow_weights: Mapping[str, JsonObject] | None = None) -> dict[str, Path]:
    """The statistics' four files (league.scoring.publish.write_stats, imported only when they run)."""
    with extra("stats"):
        from league.scoring.publish import write_stats
    return write_stats(forecasts_csv, out_dir, clim_table, families, sides, methodologies, shadow_weights)


def preload_stats() -> None:
    """Import what :func:`stats` runs on (the numerical stack: pandas, scipy.stats, statsmodels, arch; ~1 s
    and ~130 MiB), ahead of its call. The publisher's side child calls it first, while the books step keeps the
    other core busy and long before the statistics can start, so the import is off their path, and only the
    child that computes them holds the stack (league.publish.files._side_child). A failing import is left
    for :func:`stats` to raise, where the report names it."""
    try:
        with extra("stats"):
            import league.scoring.publish  # noqa: F401 - imported for the side effect of loading
    except Exception:  # noqa: BLE001, S110 - reported by the statistics step itself
        pass


def portfolio(data_dir: Path, out: Path) -> list[Path]:
    return portfolio_files.write_open_data(data_dir, out)


def portfolio_tables(data_dir: Path, out: Path) -> None:
    portfolio_files.add_to_league_json(data_dir, out)


def crowd(data_dir: Path, out: Path) -> None:
    crowd_files.add_to_league_json(data_dir, out)


def points(data_dir: Path, out: Path) -> None:
    """The point-forecast track (MASE of `league eval points`) from the sealed score lines: written as
    council-points.json and, as the `points` block, into council-stats.json beside the Brier tables."""
    points_merge(out, points_block(data_dir, out))


def points_block(data_dir: Path, out: Path) -> dict[str, object]:
    """council-points.json written; its report returned, for :func:`points_merge` once the statistics are."""
    report: dict[str, object] = dict(points_track.points_report(data_dir))
    report["book"] = "council-book.jsonl"  # the published copy, not this machine's path
    write_json(out / "council-points.json", report)
    return report


def points_merge(out: Path, report: Mapping[str, object]) -> None:
    """The report as the `points` block of council-stats.json (when the statistics wrote it)."""
    stats = out / "council-stats.json"
    if stats.is_file():  # same writer as the statistics themselves, so `league stats` gives the same bytes
        doc: dict[str, object] = json.loads(stats.read_text(encoding="utf-8"))
        doc["points"] = report
        stats.write_text(json.dumps(doc, indent=1, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")


def proof(stamps_dir: Path, public_dir: Path, *, books: Mapping[str, Path],
          public_key: Path | None = None) -> list[Path]:
    return proof_pages.write_proof_pages(stamps_dir, public_dir, books=books, public_key=public_key)


def arms(data_dir: Path, out: Path) -> list[Path]:
    """The arms' files (league.publish.arms; its reports are plain Python, no numerical stack) and the council
    talk's and the registered predictions', from the arms' book just published (league.publish.talk,
    league.publish.predictions)."""
    return (arms_files.write_arms(data_dir, out) + talk_files.write_talk(out / ARMS_DIR / ARMS_BOOK, out)
            + prediction_files.write_predictions(data_dir, out))


ALL: dict[str, Producer] = {"forecasts": forecasts, "stats": stats, "portfolio": portfolio, "proof": proof,
                            "crowd": crowd, "portfolio_tables": portfolio_tables, "points": points, "arms": arms}

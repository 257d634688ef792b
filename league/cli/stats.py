"""`league stats`: recompute every published statistic from the open data folder, never overwriting silently.

The statistics read the same inputs the publisher used (:mod:`league.publish.rebuild`): the
forecasts CSV, the sealed climatology table, the families and sides sealed in the roster lines of
``asks.jsonl``, the methodology sealed in the run lines, and the book for the crowd and portfolio
tables. So the same folder gives the same bytes; a recomputation that differs from a file already
there is an error naming the differences, unless ``--force`` (or ``--out`` to another folder).
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console

from league.cli._common import DataDir
from league.cli._progress import steps
from league.config import load_roster
from league.errors import LeagueError
from league.extras import extra
from league.jsonvalue import Json, JsonObject
from league.scoring.errors import ScoringError
from league.verify.compare import diff_json_bytes

SHOWN = 8
#: The recomputation's steps on the progress bar: inputs, the four producers, the comparison.
STEPS = 6
Progress = Callable[[str, int, int], None]


def _silent(step: str, done: int, total: int) -> None:
    """No progress bar wanted."""


def _families(roster: Path | None) -> dict[str, str]:
    """Seat -> family from a roster file (an explicit override of the sealed families)."""
    if roster is None:
        return {}
    return dict(load_roster(roster).families)


def _clim(clim: Path | None) -> JsonObject | None:
    """The climatology table a reader passes in place of the sealed one, as a JSON object."""
    if clim is None:
        return None
    try:
        table: Json = json.loads(clim.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ScoringError(f"cannot read climatology table {clim}: {exc}", fix="pass a valid JSON file") from exc
    if not isinstance(table, dict):
        raise ScoringError(f"climatology table {clim} is not a JSON object", fix="pass council-clim-window.json")
    return table


def published_folder(data: Path) -> Path:
    """DATA/public, or DATA itself when it is a published folder (it holds the forecasts CSV)."""
    return data if (data / "council-forecasts.csv").is_file() else data / "public"


def _compute(public: Path, work: Path, clim: Path | None, roster: Path | None, tell: Progress) -> Path:
    """The statistics files of ``public`` recomputed into ``work/out`` with the publisher's inputs; ``tell``
    hears steps 0-4 of :data:`STEPS` (the inputs, then the publisher's four producers)."""
    with extra("stats"):
        from league.publish.rebuild import published_inputs, write_statistics
    tell("inputs", 0, STEPS)
    inputs = published_inputs(public)
    if clim is not None:
        inputs = replace(inputs, clim=_clim(clim))
    if roster is not None:
        inputs = replace(inputs, families=_families(roster))
    books, out = work / "data", work / "out"
    (books / "books").mkdir(parents=True)
    out.mkdir()
    if (public / "council-book.jsonl").is_file():
        shutil.copyfile(public / "council-book.jsonl", books / "books" / "council-book.jsonl")
    write_statistics(books, public / "council-forecasts.csv", out, inputs,
                     progress=lambda name, done, total: tell(name, 1 + done, STEPS) if done < total else None)
    return out


def _differences(target: Path, computed: Path) -> list[str]:
    with extra("stats"):
        from league.publish.rebuild import STATS_JSON
    out: list[str] = []
    for name in STATS_JSON:
        old, new = target / name, computed / name
        if old.is_file() and new.is_file() and old.read_bytes() != new.read_bytes():
            out += diff_json_bytes(name, old.read_bytes(), new.read_bytes()) or [f"{name}: same values, other bytes"]
    return out


def _install(target: Path, computed: Path) -> None:
    with extra("stats"):
        from league.publish.rebuild import STATS_JSON
    target.mkdir(parents=True, exist_ok=True)
    for name in STATS_JSON:
        new, old = computed / name, target / name
        if not new.is_file():
            continue
        if old.is_file() and old.read_bytes() == new.read_bytes():
            typer.echo(f"unchanged {name}: {old}")
            continue
        shutil.copyfile(new, old)
        typer.echo(f"wrote {name}: {old}")


def stats(
    data: DataDir,
    out: Annotated[Path | None, typer.Option("--out", envvar="LEAGUE_STATS_OUT",
                                             help="write the statistics files here (default: DATA/public)")] = None,
    clim: Annotated[Path | None, typer.Option("--clim", envvar="LEAGUE_STATS_CLIM",
                                              help="climatology table (default: the folder's sealed "
                                                   "council-clim-window.json)")] = None,
    roster: Annotated[Path | None, typer.Option("--roster", envvar="LEAGUE_ROSTER",
                                                help="roster.toml overriding the sealed families")] = None,
    write: Annotated[bool, typer.Option("--write/--no-write", envvar="LEAGUE_STATS_WRITE",
                                        help="write the JSON files, not only print the table")] = True,
    force: Annotated[bool, typer.Option("--force", envvar="LEAGUE_STATS_FORCE",
                                        help="replace files that differ from the recomputation")] = False,
) -> None:
    """Print the league table and recompute the statistics files; a file that would change is an error."""
    with extra("stats"):
        from league.scoring.frame import STATS_COLUMNS, load_forecasts
        from league.scoring.render import league_table
    public = published_folder(data)
    # the table reads what the statistics read: not the free text of every row (less memory)
    Console().print(league_table(load_forecasts(public / "council-forecasts.csv", STATS_COLUMNS)))
    if not write:
        return
    target = out or public
    with tempfile.TemporaryDirectory(prefix="league-stats-") as tmp:
        with steps("stats") as progress:
            tell = progress or _silent
            computed = _compute(public, Path(tmp), clim, roster, tell)
            tell("compare", STEPS - 1, STEPS)
            problems = _differences(target, computed)
            tell("done", STEPS, STEPS)
        if problems and not force:
            more = f"; and {len(problems) - SHOWN} more" if len(problems) > SHOWN else ""
            shown = "; ".join(problems[:SHOWN]) + more
            raise LeagueError(f"the recomputed statistics differ from the files in {target}: {shown}",
                              fix="find out why (other inputs?); --force replaces them, --out DIR writes elsewhere")
        _install(target, computed)


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)

"""`league stats`: recompute every published statistic from the open data folder's forecasts CSV."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import DataDir


def _families(roster: Path | None) -> dict[str, str]:
    """Seat -> family from a roster file; without one, every seat is its own family."""
    if roster is None:
        return {}
    from league.config import load_roster

    return dict(load_roster(roster).families)


def stats(
    data: DataDir,
    out: Annotated[Path | None, typer.Option("--out", envvar="LEAGUE_STATS_OUT",
                                             help="write the statistics files here (default: DATA/public)")] = None,
    clim: Annotated[Path | None, typer.Option("--clim", envvar="LEAGUE_STATS_CLIM",
                                              help="sealed council-clim-window.json (default: built offline)")] = None,
    roster: Annotated[Path | None, typer.Option("--roster", envvar="LEAGUE_ROSTER",
                                                help="roster.toml giving each seat's family")] = None,
    write: Annotated[bool, typer.Option("--write/--no-write", envvar="LEAGUE_STATS_WRITE",
                                        help="write the JSON files, not only print the table")] = True,
) -> None:
    """Read DATA/public/council-forecasts.csv, print the league table, write the statistics files."""
    from rich.console import Console

    from league.scoring import league_table, load_forecasts, write_stats
    from league.scoring.errors import ScoringError

    csv_path = data / "public" / "council-forecasts.csv"
    df = load_forecasts(csv_path)
    Console().print(league_table(df))
    if not write:
        return
    table = None
    if clim is not None:
        try:
            table = json.loads(clim.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            raise ScoringError(f"cannot read climatology table {clim}: {exc}", fix="pass a valid JSON file") from exc
        if not isinstance(table, dict):
            raise ScoringError(f"climatology table {clim} is not a JSON object", fix="pass council-clim-window.json")
    paths = write_stats(csv_path, out or data / "public", table, _families(roster))
    for name, path in sorted(paths.items()):
        typer.echo(f"wrote {name}: {path}")


def register(app: typer.Typer) -> None:
    app.command("stats")(stats)

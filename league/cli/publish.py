"""``league publish``: regenerate the open-data folder from the books (open-data.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import DataDir


def register(app: typer.Typer) -> None:
    app.command("publish")(publish_command)


def publish_command(
    data: DataDir = Path("data"),
    out: Annotated[Path | None, typer.Option("--out", envvar="LEAGUE_PUBLISH_OUT",
                                             help="open-data folder to write (default DATA/public)")] = None,
) -> None:
    """Write every open-data file the installed features produce; list what was not produced."""
    from league.publish import publish

    report = publish(data, out)
    typer.echo(f"published {len(report.files)} files from {report.book_lines} book lines to {report.out_dir}")
    if report.line_check:
        typer.echo(f"  council-forecasts.csv: {report.line_check}")
    for name, reason in report.skipped:
        typer.echo(f"  {name}: {reason}")
    for name, reason in report.failed:
        typer.echo(f"  {name}: {reason}", err=True)
    if not report.ok:
        raise typer.Exit(1)

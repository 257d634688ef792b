"""`league rebuild`: re-derive the database index from the books and the price cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import DataDir
from league.cli._progress import steps
from league.extras import extra

DbUrl = Annotated[
    str | None,
    typer.Option(
        "--db", envvar="LEAGUE_DB_URL",
        help="database URL (default: sqlite:///DATA/league.db; PostgreSQL: postgresql+psycopg://USER@HOST/DB)",
    ),
]


def rebuild(data: DataDir = Path("data"), db: DbUrl = None) -> None:
    """Verify every book, then rebuild the index (runs, asks, cells, scores, bars) in one transaction.

    Job bookkeeping and stamp records are kept: they exist nowhere else.
    """
    with extra("daemon"):
        from league.store import default_url
        from league.store import rebuild as do_rebuild
        from league.store.engine import redact
    url = db or default_url(data)
    with steps("rebuild") as progress:
        report = do_rebuild(url, data, progress=progress)
    for name, lines in sorted(report.books.items()):
        typer.echo(f"book {name}: {lines} lines indexed")
    typer.echo(f"price cache: {sum(report.bars.values())} bars of {len(report.bars)} symbols")
    rows = ", ".join(f"{k} {v}" for k, v in report.counts.items())
    typer.echo(f"rebuilt {redact(url)}: {rows}")


def register(app: typer.Typer) -> None:
    app.command("rebuild")(rebuild)

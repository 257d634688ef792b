"""`league init DIR`: a working config folder and data folder an operator can start from.

All or nothing (league.folder builds beside DIR and renames into place), and offline-first: the climatology is
sealed from ``--history FILE``, or from the history shipped in the package with ``--offline`` or when Yahoo
cannot be reached; the output says which.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.extras import extra


def init(
    target: Annotated[Path, typer.Argument(help="folder to create (config/ and data/ inside)", envvar="LEAGUE_HOME")],
    demo: Annotated[bool, typer.Option("--demo", help="offline roster and replay prices")] = False,
    history: Annotated[Path | None, typer.Option(
        "--history", envvar="LEAGUE_CLIM_HISTORY",
        help="recorded daily history (symbol,day,open,close; .csv or .csv.gz) to seal the climatology from; "
             "default: fetch 2016-2025 with yfinance, or the history shipped in the package when Yahoo cannot "
             "be reached (the demo: its shipped history)")] = None,
    offline: Annotated[bool, typer.Option(
        "--offline", envvar="LEAGUE_OFFLINE",
        help="reach no network: seal the climatology from the history shipped in the package")] = False,
) -> None:
    """Write a working config folder and data folder (books opened, signing key made, climatology sealed)."""
    with extra("daemon"):
        from league.folder import init_folder
    config_dir, data_dir = init_folder(target, demo=demo, history=history, offline=offline, say=typer.echo)
    typer.echo(f"config: {config_dir}\ndata:   {data_dir}")
    typer.echo(f"check the book with: league verify {data_dir / 'books' / 'council-book.jsonl'}")
    typer.echo(f"then: league doctor --config {config_dir}")


def register(app: typer.Typer) -> None:
    app.command("init")(init)

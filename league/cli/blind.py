"""`league reveal`: end a blind season by sealing each seat's salt and identity (league/blind.py)."""

from __future__ import annotations

from pathlib import Path

import typer

from league.cli._common import ConfigDir
from league.extras import extra
from league.jobs.blind import seal_reveal


def reveal(config: ConfigDir = Path("config")) -> None:
    """Seal the reveal line of a blind season: every seat's salt, model, version and mode."""
    with extra("daemon"):
        from league.compose import open_for_correction
    lg = open_for_correction(config)
    try:
        sealed = seal_reveal(lg.books)
    finally:
        lg.close()
    typer.echo(f"sealed reveal line {sealed.n}: `league verify` checks it against the blind line")


def register(app: typer.Typer) -> None:
    app.command("reveal")(reveal)

"""Small helpers shared by CLI modules (options defaulting from LEAGUE_* variables)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

ConfigDir = Annotated[
    Path,
    typer.Option("--config", envvar="LEAGUE_CONFIG", help="config folder (league.toml, markets.toml, roster.toml)"),
]
DataDir = Annotated[Path, typer.Option("--data", envvar="LEAGUE_DATA", help="data folder (books, database, public/)")]

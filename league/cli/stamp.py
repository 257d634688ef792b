"""``league stamp`` (stamp the books' heads now) and ``league stamp upgrade`` (complete pending .ots)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import DataDir
from league.clock import SystemClock
from league.config import load_settings
from league.errors import ConfigError
from league.extras import extra
from league.stamps.interface import StampConfig

DEFAULT_BOOKS = ("council-book.jsonl", "asks.jsonl")

ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", envvar="LEAGUE_CONFIG",
                 help="config folder holding league.toml (its \\[stamps] table); default: DATA/../config"),
]
BooksOpt = Annotated[
    list[str] | None,
    typer.Option("--book", envvar="LEAGUE_STAMP_BOOKS",
                 help="NAME=PATH: a book to stamp under its published name (repeatable); "
                      "default: council-book.jsonl and asks.jsonl from DATA/books/"),
]

stamp_app = typer.Typer(help="Stamp the books' heads outside the operator (OpenTimestamps, RFC 3161, Rekor).",
                        invoke_without_command=True, no_args_is_help=False)


def _config(config_dir: Path | None, data: Path) -> StampConfig:
    with extra("daemon"):
        from league.stamping.stamper import config_from_settings
    folder = config_dir or data.resolve().parent / "config"
    if not (folder / "league.toml").is_file():
        raise ConfigError(f"{folder / 'league.toml'}: file not found", fix="pass --config or set LEAGUE_CONFIG")
    return config_from_settings(load_settings(folder / "league.toml").stamps, data)


def _books(specs: list[str] | None, data: Path) -> list[tuple[str, Path]]:
    if not specs:
        found = [(n, data / "books" / n) for n in DEFAULT_BOOKS if (data / "books" / n).is_file()]
        if not found:
            raise ConfigError(f"no book found in {data / 'books'}", fix="pass --book NAME=PATH")
        return found
    out = []
    for spec in specs:
        name, sep, path = spec.partition("=")
        if not sep or not name or not path:
            raise ConfigError(f"--book {spec!r}: expected NAME=PATH", fix="e.g. --book council-book.jsonl=data/b.jsonl")
        out.append((name, Path(path)))
    return out


@stamp_app.callback()
def stamp(ctx: typer.Context, data: DataDir = Path("data"), config: ConfigOpt = None, book: BooksOpt = None) -> None:
    """Write a stamped list of the books' heads now and stamp it with every configured backend."""
    if ctx.invoked_subcommand is not None:
        return
    with extra("daemon"):
        from league.stamping.stamper import Stamper
    stamper = Stamper(_config(config, data), data / "stamps", SystemClock())
    result = stamper.stamp_books(_books(book, data))
    if result is None:
        typer.echo("FAILED: no stamped list could be written (see the log)", err=True)
        raise typer.Exit(1)
    typer.echo(f"{result.list_path}: sha256 {result.list_sha256}, trust level {result.trust_level}")
    for o in result.outcomes:
        state = "ok" if o.ok else f"FAILED after {o.attempts} attempts: {o.error}"
        typer.echo(f"  {o.kind} {o.name}: {state}" + (f" ({o.file})" if o.ok else ""))
    if result.outcomes and not any(o.ok for o in result.outcomes):
        raise typer.Exit(1)


@stamp_app.command("upgrade")
def upgrade(data: DataDir = Path("data"), config: ConfigOpt = None) -> None:
    """Ask the calendars to complete every pending .ots proof (Bitcoin block attestations)."""
    with extra("daemon"):
        from league.stamping.stamper import Stamper
    cfg = _config(config, data)
    stamper = Stamper(StampConfig(ots_calendars=cfg.ots_calendars, timeout=cfg.timeout), data / "stamps",
                      SystemClock())
    done = stamper.upgrade()
    for path, complete in done:
        typer.echo(f"{path}: {'complete' if complete else 'still pending'}")
    typer.echo(f"{sum(c for _, c in done)} of {len(done)} pending proofs completed")


def register(app: typer.Typer) -> None:
    app.add_typer(stamp_app, name="stamp")

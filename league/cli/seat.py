"""`league seat check SEAT`: ask one roster seat a trivial question inside its sandbox."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from agents.base import SeatSpec
from league.errors import ConfigError

seat_app = typer.Typer(help="Check a seat of the roster.", no_args_is_help=True)

RosterOpt = Annotated[
    Path | None,
    typer.Option("--roster", envvar="LEAGUE_ROSTER", help="roster.toml (default: $LEAGUE_CONFIG/roster.toml)"),
]


def roster_path(roster: Path | None) -> Path:
    """--roster, else the config folder's roster.toml, else ./config/roster.toml."""
    if roster is not None:
        return roster
    return Path(os.environ.get("LEAGUE_CONFIG", "config")) / "roster.toml"


def load_specs(roster: Path | None) -> list[SeatSpec]:
    from league.config import load_roster

    return list(load_roster(roster_path(roster)).seat)


@seat_app.command("check")
def check(
    seat: Annotated[str, typer.Argument(help="seat name from the roster, e.g. claude")],
    roster: RosterOpt = None,
) -> None:
    """Run a trivial ask; print what the seat answered, the model it reported and the time taken."""
    from agents.selfcheck import run_trivial_ask
    from league.clock import SystemClock

    specs = {s.name: s for s in load_specs(roster)}
    if seat not in specs:
        raise ConfigError(f"{roster_path(roster)}: no seat named {seat!r}", fix=f"one of: {', '.join(sorted(specs))}")
    result = run_trivial_ask(specs[seat], SystemClock().now)
    reply = result.reply
    typer.echo(f"seat:     {reply.seat} ({specs[seat].adapter})")
    typer.echo(f"model:    {reply.model}  version: {reply.version}  mode: {reply.mode}")
    typer.echo(f"time:     {result.seconds:.2f} s")
    if reply.failure is not None:
        typer.echo(f"FAILED:   {reply.failure.value}{' (incident)' if reply.failure.is_incident else ''}")
        typer.echo(f"detail:   {reply.detail}")
        raise typer.Exit(1)
    typer.echo("answer:")
    typer.echo(reply.raw if reply.raw.strip() else "(no output: the seat was silent)")
    if not result.ok:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.add_typer(seat_app, name="seat")

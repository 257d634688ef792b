"""`league seat check SEAT`: ask one roster seat a trivial question inside its sandbox."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from league.answers import clean_label, clean_text
from league.cli._seatcheck import diagnose
from league.clock import SystemClock
from league.config import load_roster
from league.errors import ConfigError
from league_agents.base import SeatSpec
from league_agents.selfcheck import run_trivial_ask, static_checks, trivial_ask
from sandbox.selfcheck import Check

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
    return list(load_roster(roster_path(roster)).seat)


@seat_app.command("check")
def check(
    seat: Annotated[str, typer.Argument(help="seat name from the roster, e.g. claude")],
    roster: RosterOpt = None,
) -> None:
    """Run a trivial ask; print what the seat answered, the model it reported, the time taken, the
    hosts it contacted and, when something is wrong, the cause and its fix."""
    specs = {s.name: s for s in load_specs(roster)}
    if seat not in specs:
        raise ConfigError(f"{roster_path(roster)}: no seat named {seat!r}", fix=f"one of: {', '.join(sorted(specs))}")
    spec = specs[seat]
    markets = {k: list(v["horizons"]) for k, v in trivial_ask().context["markets"].items()}
    static = static_checks(spec)
    findings = diagnose(spec, static, None, markets)
    if findings:
        _print_findings(findings)
        raise typer.Exit(1)
    result = run_trivial_ask(spec, SystemClock().now)
    reply = result.reply
    typer.echo(f"seat:     {reply.seat} ({spec.adapter}, network {spec.network})")
    typer.echo(f"model:    {clean_label(reply.model)}  version: {clean_label(reply.version)}  "
               f"mode: {clean_label(reply.mode)}")
    typer.echo(f"time:     {result.seconds:.2f} s")
    for f in reply.fetches or ():
        typer.echo(f"fetch:    {f['method']} {f['host']}:{f['port']} {'allowed' if f['allowed'] else 'REFUSED'}"
                   f" ({f['reason']})")
    if reply.failure is not None:
        typer.echo(f"FAILED:   {reply.failure.value}{' (incident)' if reply.failure.is_incident else ''}")
        typer.echo(f"detail:   {clean_text(reply.detail)}")
    else:
        typer.echo("answer:")
        typer.echo(reply.raw if reply.raw.strip() else "(no output: the seat was silent)")
    findings = diagnose(spec, static, reply, markets)
    _print_findings(findings)
    if findings or not result.ok:
        raise typer.Exit(1)


def _print_findings(findings: list[Check]) -> None:
    for c in findings:
        typer.echo(f"PROBLEM:  {c.name}: {c.detail}")
        if c.fix:
            typer.echo(f"  fix:    {c.fix}")


def register(app: typer.Typer) -> None:
    app.add_typer(seat_app, name="seat")

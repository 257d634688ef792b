"""`league doctor`: is bubblewrap working and isolating, and is every seat's CLI and login in place?"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli.seat import RosterOpt, load_specs
from sandbox.selfcheck import Check


def collect(roster: Path | None, probe: bool) -> list[Check]:
    """All checks, in order: bubblewrap, the isolation probe, then each seat's static checks."""
    from agents.selfcheck import static_checks
    from sandbox.interface import SandboxError
    from sandbox.selfcheck import check_bwrap_installed, check_isolation

    checks: list[Check] = [check_bwrap_installed()]
    if probe:
        try:
            from sandbox.bwrap import BwrapSandbox

            checks += check_isolation(BwrapSandbox())
        except SandboxError as exc:
            checks.append(Check("sandbox starts", False, exc.message, exc.fix or ""))
    try:
        specs = load_specs(roster)
    except Exception as exc:  # noqa: BLE001 - a broken roster is one failed check, not a crash
        return [*checks, Check("roster", False, str(getattr(exc, "message", exc)), getattr(exc, "fix", "") or "")]
    for spec in specs:
        checks += static_checks(spec)
    return checks


def doctor(
    roster: RosterOpt = None,
    probe: Annotated[
        bool,
        typer.Option(
            "--probe/--no-probe", envvar="LEAGUE_DOCTOR_PROBE", help="run the isolation probe inside a real sandbox"
        ),
    ] = True,
) -> None:
    """Check the sandbox and every seat; exit 1 if anything is broken."""
    checks = collect(roster, probe)
    for c in checks:
        typer.echo(
            f"{'ok  ' if c.ok else 'FAIL'}  {c.name}: {c.detail}"
            + (f"\n        fix: {c.fix}" if not c.ok and c.fix else "")
        )
    failed = sum(not c.ok for c in checks)
    typer.echo(f"{len(checks) - failed} ok, {failed} failed")
    if failed:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command("doctor")(doctor)

"""`league predictions register|resolve|show`: the registered predictions (docs/predictions.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated
from zoneinfo import ZoneInfo

import typer

from league.cli._common import ConfigDir, parse_day
from league.errors import UsageError
from league.extras import extra

NEW_YORK = ZoneInfo("America/New_York")
predictions_app = typer.Typer(help="Registered predictions about the league: seal a registry, resolve, show.",
                              no_args_is_help=True)


@predictions_app.command("register")
def register_cmd(
    registry: Annotated[Path, typer.Argument(envvar="LEAGUE_PREDICTIONS_REGISTRY",
                                             help="the registry file (TOML; set-B scripts beside it)")],
    config: ConfigDir = Path("config"),
    stamp: Annotated[bool, typer.Option("--stamp/--no-stamp", envvar="LEAGUE_PREDICTIONS_STAMP",
                                        help="stamp the books' heads once it is sealed")] = True,
) -> None:
    """Check a registry, seal it and every set-B script's hash in the arms' book, and stamp it. Refused when a
    prediction's window has already begun. Run with the daemon stopped (it holds the book)."""
    with extra("daemon"):
        from league.compose import open_for_correction
        from league.jobs.predictions import register
    if not registry.is_file():
        raise UsageError(f"{registry}: no such file", fix="give the registry's path (config/predictions.toml)")
    lg = open_for_correction(config)
    try:
        line = register(lg, registry, stamp=stamp)
        n = lg.arms.book.size
    finally:
        lg.close()
    typer.echo(f"sealed registry {line.name!r} ({len(line.ids)} predictions, SHA-256 {line.registry_sha256}) as "
               f"line {n} of the arms' book; `league publish` puts it in predictions/")


@predictions_app.command("resolve")
def resolve_cmd(
    config: ConfigDir = Path("config"),
    session: Annotated[str | None, typer.Option("--session", envvar="LEAGUE_PREDICTIONS_SESSION",
                                                help="resolve what is due by this day (default today)")] = None,
) -> None:
    """Publish, resolve every prediction whose check date has come and that was never resolved, publish again.
    The nightly publication does the same; this is for a league that did not publish that night."""
    with extra("daemon"):
        from league.compose import open_for_correction
        from league.jobs.predictions import resolve_due
        from league.publish.files import publish
    asked = parse_day(session, option="--session", env="LEAGUE_PREDICTIONS_SESSION") if session else None
    lg = open_for_correction(config)
    day = asked or lg.clock.now().astimezone(NEW_YORK).date()
    try:
        report = publish(lg.data_dir, config=lg.config, clock=lg.clock)
        sealed = resolve_due(lg, day.isoformat(), report.out_dir)
        if sealed:
            publish(lg.data_dir, config=lg.config, clock=lg.clock)
    finally:
        lg.close()
    for line in sealed:
        typer.echo(f"{line.id}: {line.status}" + (f" ({line.reason})" if line.reason else f" value {line.value}"))
    typer.echo(f"{len(sealed)} predictions resolved")


@predictions_app.command("show")
def show_cmd(
    folder: Annotated[Path, typer.Argument(envvar="LEAGUE_PREDICTIONS_FOLDER",
                                           help="an open-data folder (default: data/public)")] = Path("data/public"),
) -> None:
    """Print each registered prediction's status and the scorecard from a published predictions.json."""
    path = folder / "predictions.json"
    if not path.is_file():
        raise UsageError(f"{path}: no predictions published", fix="register a registry, then `league publish`")
    report = json.loads(path.read_text(encoding="utf-8"))
    for line in report["predictions"]:
        r = line.get("resolution") or {}
        shown = r.get("reason") or (f"value {r.get('value')}" if r else f"check {line['check_date']}")
        typer.echo(f"{line['id']:<8} p={line['p']:<5} {line['status']:<10} {shown}")
    card = report["scorecard"]
    typer.echo(f"scorecard: {card['resolved']} of {card['due']} due resolved; Brier {card['brier']} (worst case "
               f"{card['brier_worst_case']}), skill against 0.5 {card['skill_vs_half']}")


def register(app: typer.Typer) -> None:
    app.add_typer(predictions_app, name="predictions")

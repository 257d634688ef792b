"""`league contest ...`: the vendor-CLI contest (docs/contest.md): verify, the offline demo, a follower's call.

The contest itself runs inside `league daemon` when the config folder holds a `contest.toml`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import parse_day
from league.clock import SystemClock
from league.contest.config import load_config
from league.contest.errors import VerifyFailed
from league.errors import UsageError
from league.extras import extra
from league.seatcore.files import write_atomic

contest_app = typer.Typer(name="contest", help="The vendor-CLI contest: sealed sweeps and betting rounds.",
                          no_args_is_help=True)


@contest_app.command("verify")
def verify(
    folder: Annotated[Path, typer.Argument(help="a published contest folder (ours, or the reference's layout)")],
    resolutions: Annotated[Path | None, typer.Option(
        "--resolutions", envvar="LEAGUE_CONTEST_RESOLUTIONS",
        help="recorded resolutions (JSON {market_id: winner}) for a folder that publishes none")] = None,
    strict: Annotated[bool, typer.Option(
        "--strict", envvar="LEAGUE_CONTEST_VERIFY_STRICT",
        help="also fail (exit 4) when published figures are left unchecked (e.g. no resolutions)")] = False,
    procedure: Annotated[str | None, typer.Option(
        "--procedure", envvar="LEAGUE_CONTEST_PROCEDURE",
        help="bootstrap procedure of the intervals: reference or league (default: the one the folder names, "
             "else the reference's for a reference-layout folder)")] = None,
) -> None:
    """Check every sealed file against sealed.json (and the book), recompute metrics.json."""
    with extra("stats"):
        from league.contest.verify import verify_folder
    checks = verify_folder(folder, resolutions, checked_procedure(procedure))
    for c in checks:
        typer.echo(f"{c.status:<7} {c.name}" + (f": {c.detail}" if c.detail else ""))
    bad = [c for c in checks if c.failed]
    if bad:
        raise VerifyFailed(f"{len(bad)} check(s) FAILED for {folder}", fix="each FAILED line names the file and field")
    left = [c for c in checks if c.status == "unchecked"]
    if strict and left:
        raise VerifyFailed(f"--strict: {len(left)} group(s) of published figures unchecked for {folder}",
                           fix="each unchecked line says why (e.g. pass the recorded winners with --resolutions)")


PROCEDURES = ("reference", "league")


def checked_procedure(procedure: str | None) -> str | None:
    if procedure is not None and procedure not in PROCEDURES:
        raise UsageError(f"--procedure {procedure!r} is not a bootstrap procedure",
                         fix="give --procedure reference or --procedure league (or LEAGUE_CONTEST_PROCEDURE)")
    return procedure


@contest_app.command("metrics")
def metrics(
    folder: Annotated[Path, typer.Argument(help="a published contest folder (ours, or the reference's layout)")],
    resolutions: Annotated[Path | None, typer.Option(
        "--resolutions", envvar="LEAGUE_CONTEST_RESOLUTIONS",
        help="recorded resolutions (JSON {market_id: winner}) for a folder that publishes none")] = None,
    as_of: Annotated[str | None, typer.Option(
        "--as-of", envvar="LEAGUE_CONTEST_AS_OF",
        help="the day (YYYY-MM-DD) the metrics are a snapshot of (default: the metrics.json's own day)")] = None,
    out: Annotated[Path | None, typer.Option(
        "--out", envvar="LEAGUE_CONTEST_METRICS_OUT", help="also write the document to this file")] = None,
    procedure: Annotated[str | None, typer.Option(
        "--procedure", envvar="LEAGUE_CONTEST_PROCEDURE",
        help="bootstrap procedure of the intervals: reference or league (default: the folder's)")] = None,
) -> None:
    """Recompute a folder's metrics as of a day and print them, in the folder's own field layout."""
    with extra("stats"):
        from league.contest.remetrics import recompute_metrics
    day = parse_day(as_of, option="--as-of", env="LEAGUE_CONTEST_AS_OF").isoformat() if as_of is not None else None
    result = recompute_metrics(folder, resolutions, day, checked_procedure(procedure))
    if out is not None:
        write_atomic(out, result.data)
    typer.echo(result.data.decode("utf-8"))


@contest_app.command("demo")
def demo(
    out: Annotated[Path, typer.Option("--out", envvar="LEAGUE_CONTEST_DEMO_OUT", help="folder to create")],
    seed: Annotated[int, typer.Option("--seed", envvar="LEAGUE_CONTEST_DEMO_SEED")] = 7,
    day: Annotated[str, typer.Option("--day", envvar="LEAGUE_CONTEST_DEMO_DAY", help="the day (YYYY-MM-DD)")] = (
        "2026-12-07"),
    config: Annotated[Path | None, typer.Option("--contest-config", envvar="LEAGUE_CONTEST_CONFIG",
                                                help="contest TOML (default: packaged stand-in roster)")] = None,
) -> None:
    """A recorded contest day offline: sweep, two betting rounds, publish, verify."""
    with extra("stats"):
        from league.contest.demo import run_demo
    result = run_demo(out, seed=seed, day=parse_day(day, option="--day"), config=load_config(config), say=typer.echo)
    for c in result.checks:
        typer.echo(f"{c.status:<7} {c.name}" + (f": {c.detail}" if c.detail else ""))
    if not result.verified:
        raise VerifyFailed(f"the demo folder {result.public} did not verify")
    typer.echo(f"open data: {result.public}")


@contest_app.command("call")
def call(
    market_id: Annotated[str, typer.Argument(help="the venue's market id a follower asks a round for")],
    data: Annotated[Path, typer.Option("--data", envvar="LEAGUE_DATA", help="data folder of the league")] = Path(
        "data"),
    by: Annotated[str, typer.Option("--by", envvar="LEAGUE_CONTEST_CALLED_BY", help="who called it")] = "operator",
) -> None:
    """Queue a follower's call: the daemon's next poll opens the market's round (flagged follower_called,
    outside every table) if the eligibility rules and the caps allow it."""
    with extra("daemon"):
        from league.contest.schedule import call_market
    path = call_market(data / "contest-calls", market_id, by, SystemClock().now())
    typer.echo(f"called market {market_id}: {path} (the next poll takes it)")


def register(app: typer.Typer) -> None:
    app.add_typer(contest_app)

"""`league demo`: an offline demo season on a simulated clock, ending with a verified book."""

from __future__ import annotations

import re
import shlex
from datetime import date
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from league.cli._common import parse_day
from league.cli._tables import render_tables
from league.extras import extra
from league.inputs import InputError
from league.verify.chain import verify


def parse_start(value: str | date) -> date:
    """--start as a day: a malformed or impossible date (2026-02-30) is an error naming the format, not a
    ValueError; the demo's own range is checked by league.demo.check_arguments."""
    if isinstance(value, date):
        return value
    return parse_day(str(value).strip(), option="--start", earliest=date.min, latest=date.max,
                     env="LEAGUE_DEMO_START")


def _whole_number(option: str, env: str, value: str | int) -> int:
    if isinstance(value, int):
        return value
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?\d{1,30}", text):
        raise InputError(f"{option} {value!r}: not a whole number", fix=f"give a whole number ({option} or {env})")
    return int(text)


def parse_sessions(value: str | int) -> int:
    return _whole_number("--sessions", "LEAGUE_DEMO_SESSIONS", value)


def parse_seed(value: str | int) -> int:
    return _whole_number("--seed", "LEAGUE_DEMO_SEED", value)


def demo(
    out: Annotated[Path | None, typer.Option("--out", envvar="LEAGUE_DEMO_OUT", help="folder to create (required)",
                                             show_default=False)] = None,
    sessions: Annotated[int, typer.Option("--sessions", envvar="LEAGUE_DEMO_SESSIONS", parser=parse_sessions,
                                          metavar="INTEGER", help="how many sessions, 1 to 400")] = 10,
    seed: Annotated[int, typer.Option("--seed", envvar="LEAGUE_DEMO_SEED", parser=parse_seed,
                                      metavar="INTEGER")] = 7,
    start: Annotated[date, typer.Option("--start", envvar="LEAGUE_DEMO_START", parser=parse_start,
                                        metavar="YYYY-MM-DD", help="first day, 2026-01-01 to 2199-12-31")] = (
        date(2026, 6, 1)
    ),
    arms: Annotated[bool, typer.Option("--arms/--no-arms", envvar="LEAGUE_DEMO_ARMS",
                                       help="run the closed-book and price-only arms and the repeats beside the "
                                            "council (docs/experiments.md)")] = True,
) -> None:
    """Run SESSIONS league days offline (replay prices, sandboxed scripted seats), publish, verify.

    An --out folder left unfinished by a stopped or killed run is started again from scratch."""
    # Every argument is checked before the bar is drawn or anything written: a bad one is one error with its fix
    # (a day that does not exist, a year past the calendar's reach, an --out that cannot be made were tracebacks).
    with extra("daemon"):
        from league.demo import check_arguments, make_folder, run_demo
    if out is None:
        raise InputError("--out is missing: the folder the demo league is written into",
                         fix="name it: league demo --out demo-out (or set LEAGUE_DEMO_OUT)")
    check_arguments(start=start, sessions=sessions, seed=seed)
    make_folder(out)
    console = Console()
    # no refresh thread: the season runs in a forked child, and a process forks safely only without other threads
    with Progress(TextColumn("[bold]season"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=console, transient=False, auto_refresh=False) as bar:
        task = bar.add_task("", total=sessions)
        result = run_demo(out, sessions=sessions, seed=seed, start=start, arms=arms,
                          say=lambda text: console.print(text, markup=False, highlight=False, soft_wrap=True),
                          progress=lambda s: bar.update(task, advance=1, description=s, refresh=True))
    _print_tables(console, result.public_dir)
    report = verify(result.public_dir / "council-book.jsonl")
    if not report.ok:
        raise typer.Exit(4)
    console.print(f"verified {result.public_dir / 'council-book.jsonl'}: {report.lines} lines, "
                  f"last link {report.last_link[:16]}…  ({result.forecasts} forecast rows)")
    console.print(f"open data: {result.public_dir}")
    console.print(DEMO_AUTHORITIES)
    console.print("\n".join(next_commands(out)), markup=False, highlight=False, soft_wrap=True)


def next_commands(out: Path) -> list[str]:
    """The commands to run next on this demo league, with its own folders named: `league status` or `league
    doctor` run bare read ./config, which in the repository's clone is the example config, not the demo's."""
    config, data = shlex.quote(str(out / "config")), shlex.quote(str(out / "data"))
    rows = [
        (f"league verify {shlex.quote(str(out / 'data' / 'public'))}", "every reader's step on the open data"),
        (f"league status --config {config}", "the demo's last jobs, runs and each seat's last answer"),
        (f"league doctor --config {config} --no-providers", "the sandbox, the seats, the data folder"),
        (f"league stats --data {data}", "the league table and the statistics, recomputed"),
        (f"league serve --data {data}", "the league page at http://127.0.0.1:8765/"),
    ]
    width = max(len(command) for command, _ in rows)
    return ["next:", *(f"  {command:<{width}}  # {what}" for command, what in rows)]


#: Said after every demo: its stamps come from stand-ins the operator (this machine) runs.
DEMO_AUTHORITIES = (
    "stamps: the demo's RFC 3161 tokens are signed by two LOCAL TEST AUTHORITIES (local-a, local-b) generated on "
    "this machine; their roots are published in proof/tsa/ and are in no reader's trust store, so `league verify` "
    "reports them as untrusted (as declared by the operator with --trust-folder-certs) and --strict fails. Its "
    ".ots proofs and transparency-log entries come from a local calendar and a local Rekor stand-in (pending, "
    "and a log that is not Sigstore's). None of it proves anything to an outsider; a live league uses the "
    "public authorities, calendars and log of config/league.toml."
)


def _print_tables(console: object, public: Path) -> None:
    for table in render_tables(public):
        console.print(table)  # type: ignore[attr-defined]


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)

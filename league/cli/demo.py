"""`league demo`: an offline demo season on a simulated clock, ending with a verified book."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated

import typer


def demo(
    out: Annotated[Path, typer.Option("--out", envvar="LEAGUE_DEMO_OUT", help="folder to create")],
    sessions: Annotated[int, typer.Option("--sessions", envvar="LEAGUE_DEMO_SESSIONS", min=1, max=400)] = 10,
    seed: Annotated[int, typer.Option("--seed", envvar="LEAGUE_DEMO_SEED")] = 7,
    start: Annotated[str, typer.Option("--start", envvar="LEAGUE_DEMO_START", help="first day (YYYY-MM-DD)")] = (
        "2026-06-01"
    ),
) -> None:
    """Run SESSIONS league days offline (replay prices, sandboxed scripted seats), publish, verify."""
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from league.demo import run_demo
    from league.verify.chain import verify

    console = Console()
    # no refresh thread: the season runs in a forked child, and a process forks safely only without other threads
    with Progress(TextColumn("[bold]season"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
                  TimeElapsedColumn(), console=console, transient=False, auto_refresh=False) as bar:
        task = bar.add_task("", total=sessions)
        result = run_demo(out, sessions=sessions, seed=seed, start=date.fromisoformat(start),
                          progress=lambda s: bar.update(task, advance=1, description=s, refresh=True))
    _print_tables(console, result.public_dir)
    report = verify(result.public_dir / "council-book.jsonl")
    if not report.ok:
        raise typer.Exit(4)
    console.print(f"verified {result.public_dir / 'council-book.jsonl'}: {report.lines} lines, "
                  f"last link {report.last_link[:16]}…  ({result.forecasts} forecast rows)")
    console.print(f"open data: {result.public_dir}")
    console.print(DEMO_AUTHORITIES)


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
    from league.cli._tables import render_tables

    for table in render_tables(public):
        console.print(table)  # type: ignore[attr-defined]


def register(app: typer.Typer) -> None:
    app.command("demo")(demo)

"""``league publish``: regenerate the open-data folder from the books (open-data.md)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.cli._common import DataDir
from league.cli._progress import steps
from league.clock import SystemClock
from league.config import load_config
from league.extras import extra


def register(app: typer.Typer) -> None:
    app.command("publish")(publish_command)


def _stamp_manifest(data: Path, out: Path) -> str:
    """Stamp release-manifest.json like the day's publish job does, then republish proof/."""
    with extra("daemon"):
        from league.jobs.stamp import release_stamp
        from league.publish.compliance import MANIFEST
        from league.publish.files import refresh_proof
        from league.stamping.stamper import Stamper, config_from_settings
    folder = data.parent / "config"
    if not (folder / "league.toml").is_file():
        return f"  {MANIFEST}: not stamped (no config folder beside {data}: no stamp backends known)"
    settings = load_config(folder).settings.stamps
    stamper = Stamper(config_from_settings(settings, data), data / "stamps", SystemClock())
    result = release_stamp(stamper, out, MANIFEST)
    if result is None or not refresh_proof(data, out):
        return f"  {MANIFEST}: not stamped (see the log)"
    return f"  {MANIFEST}: stamped in {result.list_path.name} (trust level {result.trust_level})"


def publish_command(
    data: DataDir = Path("data"),
    out: Annotated[Path | None, typer.Option("--out", envvar="LEAGUE_PUBLISH_OUT",
                                             help="open-data folder to write (default DATA/public)")] = None,
    stamp: Annotated[bool, typer.Option("--stamp/--no-stamp", envvar="LEAGUE_PUBLISH_STAMP",
                                        help="stamp the release manifest with the league's [stamps] "
                                             "backends (needs the config folder beside DATA)")] = True,
) -> None:
    """Write every open-data file the installed features produce; list what was not produced."""
    with extra("stats"):
        from league.publish import publish
    with steps("publish") as progress:
        report = publish(data, out, progress=progress)
    typer.echo(f"published {len(report.files)} files from {report.book_lines} book lines to {report.out_dir}")
    if stamp and report.ok:
        typer.echo(_stamp_manifest(data, report.out_dir))
    if report.line_check:
        typer.echo(f"  council-forecasts.csv: {report.line_check}")
    for name, reason in report.skipped:
        typer.echo(f"  {name}: {reason}")
    for name, reason in report.failed:
        typer.echo(f"  {name}: {reason}", err=True)
    if not report.ok:
        raise typer.Exit(1)

"""``league tail``: print the book's lines as they are sealed (a local file or the API's stream).

The CLI contest's kinds (``contest.bet``, ... or ``contest.*`` for all of them) follow the contest's
book instead: ``data/books/contest-book.jsonl`` by default, or the API's ``/api/contest/stream``."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.book.lines import COUNCIL_KINDS
from league.errors import LeagueError
from league.extras import extra

DEFAULT_BOOK = "data/books/council-book.jsonl"
DEFAULT_CONTEST_BOOK = "data/books/contest-book.jsonl"
ALL_CONTEST = "contest.*"


def register(app: typer.Typer) -> None:
    app.command("tail")(tail)


def tail(
    source: Annotated[str, typer.Argument(envvar="LEAGUE_TAIL_SOURCE",
                                          help="book file or API base URL (http://host:port)")] = DEFAULT_BOOK,
    kind: Annotated[list[str] | None, typer.Option("--kind", envvar="LEAGUE_TAIL_KIND",
                                                   help="only lines of this kind (repeatable)")] = None,
    start: Annotated[int, typer.Option("--from", envvar="LEAGUE_TAIL_FROM", min=1,
                                       help="first line number to print")] = 1,
    follow: Annotated[bool, typer.Option("--follow/--no-follow", "-f", envvar="LEAGUE_TAIL_FOLLOW",
                                         help="keep waiting for new lines")] = False,
    raw: Annotated[bool, typer.Option("--raw", envvar="LEAGUE_TAIL_RAW",
                                      help="print score lines whole instead of a compact row")] = False,
    rows: Annotated[bool, typer.Option("--rows", envvar="LEAGUE_TAIL_ROWS",
                                       help="print scored rows (CSV columns + brier), not book lines")] = False,
    after_row: Annotated[str | None, typer.Option("--after-row", envvar="LEAGUE_TAIL_AFTER_ROW",
                                                  help="with --rows: resume after this row_id")] = None,
    fmt: Annotated[str, typer.Option("--format", envvar="LEAGUE_TAIL_FORMAT",
                                     help="with --rows: csv or ndjson")] = "csv",
) -> None:
    """Print each line from --from on; score lines as one compact row. Resumes after a disconnect.

    With --rows, a researcher's view: each row of council-forecasts.csv as it is scored, with its
    Brier, from a data folder (or the demo's folder); --after-row resumes after the last row seen.
    With contest kinds (``--kind 'contest.*'``), the CLI contest's book instead of the council's."""
    with extra("daemon"):
        from league.api.contest import CONTEST_KINDS
        from league.api.follow import compact, follow_file, follow_url
    if rows:
        _tail_rows(source, after_row, fmt, follow)
        return

    kinds, contest = _kinds(kind or [], CONTEST_KINDS)
    if source.startswith(("http://", "https://")):
        lines = follow_url(source, start, kinds, follow, stream="/api/contest/stream" if contest else "/api/stream")
    else:
        book = DEFAULT_CONTEST_BOOK if contest and source == DEFAULT_BOOK else source
        lines = follow_file(Path(book), start, kinds, follow)
    try:
        for _, line in lines:
            typer.echo(line.decode("utf-8") if raw else compact(line))
    except KeyboardInterrupt:
        raise typer.Exit(0) from None


def _kinds(asked: list[str], contest_kinds: frozenset[str]) -> tuple[frozenset[str], bool]:
    """The kinds to print and whether they are the contest's (one book at a time: no mixing)."""
    wanted = set(asked)
    everything = ALL_CONTEST in wanted
    wanted.discard(ALL_CONTEST)
    unknown = wanted - COUNCIL_KINDS - contest_kinds
    if unknown:
        raise LeagueError(f"unknown kind {', '.join(sorted(unknown))}",
                          fix=f"use one of {sorted(COUNCIL_KINDS | contest_kinds)} or {ALL_CONTEST}")
    contest = everything or bool(wanted & contest_kinds)
    if contest and wanted - contest_kinds:
        raise LeagueError("council and contest kinds are in two books; `league tail` follows one",
                          fix="run one `league tail` for the council's kinds and one for the contest's")
    return (frozenset() if everything else frozenset(wanted)), contest


def _tail_rows(source: str, after_row: str | None, fmt: str, follow: bool) -> None:
    with extra("daemon"):
        from league.publish.tailrows import follow_rows, render
    if fmt not in ("csv", "ndjson"):
        raise LeagueError(f"--format {fmt!r}", fix="use csv or ndjson")
    if source.startswith(("http://", "https://")):
        raise LeagueError("--rows reads a data folder", fix="run it on the league host with --rows DATA_DIR")
    path = Path("data") if source == DEFAULT_BOOK and not Path(source).exists() else Path(source)
    try:
        for text in render(follow_rows(path, after_row, follow), fmt):
            typer.echo(text)
    except KeyboardInterrupt:
        raise typer.Exit(0) from None

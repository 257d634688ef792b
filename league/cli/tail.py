"""``league tail``: print the book's lines as they are sealed (a local file or the API's stream).

The CLI contest's kinds (``contest.bet``, ... or ``contest.*`` for all of them) follow the contest's
book instead: ``data/books/contest-book.jsonl`` by default, or the API's ``/api/contest/stream``. The arms'
and the council talk's kinds (``arm_answer``, ``talk_chair``, ...; ``arms.*`` for every kind of the arms'
book, ``talk.*`` for the talk's) follow the arms' book: ``data/books/arms-book.jsonl`` by default, or the
API's ``/api/arms/stream`` (the published copy). One book at a time."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Annotated

import typer

from league.api import follow as remote
from league.api.armsbook import ARMS_BOOK_KINDS, TALK_LINE_KINDS
from league.api.contest import CONTEST_KINDS
from league.api.follow import compact, csv_record, follow_file
from league.book.lines import COUNCIL_KINDS
from league.errors import LeagueError
from league.extras import extra

DEFAULT_BOOK = "data/books/council-book.jsonl"
DEFAULT_CONTEST_BOOK = "data/books/contest-book.jsonl"
DEFAULT_ARMS_BOOK = "data/books/arms-book.jsonl"
ALL_CONTEST = "contest.*"
ALL_ARMS = "arms.*"
ALL_TALK = "talk.*"
COUNCIL, CONTEST, ARMS = "council", "contest", "arms"
#: Each book: its local default and the API stream that follows it.
BOOKS = {COUNCIL: (DEFAULT_BOOK, "/api/stream"), CONTEST: (DEFAULT_CONTEST_BOOK, "/api/contest/stream"),
         ARMS: (DEFAULT_ARMS_BOOK, "/api/arms/stream")}


def register(app: typer.Typer) -> None:
    app.command("tail")(tail)


def tail(
    source: Annotated[str, typer.Argument(envvar="LEAGUE_TAIL_SOURCE",
                                          help="book file, data folder (--rows) or API base URL "
                                               "(http://host:port)")] = DEFAULT_BOOK,
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
    Brier, from a data folder (or the demo's folder) or a league's API URL (the same rows, over
    /api/rows/stream); --after-row resumes after the last row seen.
    With contest kinds (``--kind 'contest.*'``), the CLI contest's book instead of the council's; with the arms'
    or the council talk's kinds (``--kind 'talk.*'``, ``--kind 'arms.*'``, ``--kind talk_chair``), the arms'."""
    if rows:
        _tail_rows(source, after_row, fmt, follow)
        return

    kinds, which = _kinds(kind or [], CONTEST_KINDS, ARMS_BOOK_KINDS, TALK_LINE_KINDS)
    default, stream = BOOKS[which]
    if source.startswith(("http://", "https://")):
        lines = remote.follow_url(source, start, kinds, follow, stream=stream)
    else:
        lines = follow_file(Path(default if source == DEFAULT_BOOK else source), start, kinds, follow)
    try:
        for _, line in lines:
            typer.echo(line.decode("utf-8") if raw else compact(line))
    except KeyboardInterrupt:
        raise typer.Exit(0) from None


def _kinds(asked: list[str], contest_kinds: frozenset[str], arms_kinds: frozenset[str] = frozenset(),
           talk_kinds: frozenset[str] = frozenset()) -> tuple[frozenset[str], str]:
    """The kinds to print and the book they are in (council, contest or arms: one book at a time, no mixing).
    ``contest.*`` and ``arms.*`` mean every kind of their book (no filter), ``talk.*`` every talk kind."""
    wanted = set(asked)
    wildcards = {w for w in (ALL_CONTEST, ALL_ARMS, ALL_TALK) if w in wanted}
    wanted -= wildcards
    unknown = wanted - COUNCIL_KINDS - contest_kinds - arms_kinds
    if unknown:
        raise LeagueError(f"unknown kind {', '.join(sorted(unknown))}",
                          fix=f"use one of {sorted(COUNCIL_KINDS | contest_kinds | arms_kinds)} or "
                              f"{ALL_CONTEST}, {ALL_ARMS}, {ALL_TALK}")
    books = {COUNCIL: bool(wanted & COUNCIL_KINDS),
             CONTEST: ALL_CONTEST in wildcards or bool(wanted & contest_kinds),
             ARMS: bool(wildcards & {ALL_ARMS, ALL_TALK}) or bool(wanted & arms_kinds)}
    chosen = [name for name, asked_for in books.items() if asked_for]
    if len(chosen) > 1:
        raise LeagueError(f"{' and '.join(chosen)} kinds are in {('two', 'three')[len(chosen) - 2]} books; "
                          "`league tail` follows one",
                          fix="run one `league tail` per book: the council's, the contest's (contest.*) or the "
                              "arms' (arms.*, talk.*)")
    which = chosen[0] if chosen else COUNCIL
    if ALL_CONTEST in wildcards or ALL_ARMS in wildcards:
        return frozenset(), which
    if ALL_TALK in wildcards:
        wanted |= talk_kinds
    return frozenset(wanted), which


def _tail_rows(source: str, after_row: str | None, fmt: str, follow: bool) -> None:
    """The scored rows of a data folder (read here) or of a league's API (``/api/rows/stream``): the same rows.

    Over the API only httpx is needed, so a researcher's lean install follows a remote league; reading a data
    folder recomputes the rows from the book and needs the daemon extra."""
    if fmt not in ("csv", "ndjson"):
        raise LeagueError(f"--format {fmt!r}", fix="use csv or ndjson")
    if source.startswith(("http://", "https://")):
        _echo_all(_remote_rows(source, after_row, fmt, follow))
        return
    with extra("daemon"):
        from league.publish.tailrows import follow_rows, render
    path = Path("data") if source == DEFAULT_BOOK and not Path(source).exists() else Path(source)
    _echo_all(render(follow_rows(path, after_row, follow), fmt))


def _remote_rows(base: str, after_row: str | None, fmt: str, follow: bool) -> Iterator[str]:
    """The API's rows as CSV (the header once, from the first connection's column list) or NDJSON."""
    columns: tuple[str, ...] = ()
    for event in remote.follow_rows_url(base, after_row, follow):
        if isinstance(event, tuple):
            if not columns and fmt == "csv":
                yield csv_record(dict(zip(event, event, strict=True)), event)
            columns = columns or event
        elif fmt == "ndjson":
            yield json.dumps(event, ensure_ascii=False)
        else:
            yield csv_record(event, columns)


def _echo_all(lines: Iterable[str]) -> None:
    try:
        for text in lines:
            typer.echo(text)
    except KeyboardInterrupt:
        raise typer.Exit(0) from None

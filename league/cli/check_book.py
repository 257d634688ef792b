"""`league check-book`: the full verification of the council book on demand (what the daemon runs nightly).

It re-hashes every line (the open re-hashes only the lines after the sealed checkpoint), checks the
first N against the checkpoint's digest, and on success moves the checkpoint to the head. It takes
no writer lock: the daemon may keep sealing meanwhile.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from league.book.startup import check_book as run_check
from league.cli._common import DataDir
from league.cli.rebuild import DbUrl
from league.clock import SystemClock
from league.extras import extra
from league.inputs import InputError


def check_book(
    data: DataDir = Path("data"),
    db: DbUrl = None,
    move: Annotated[bool, typer.Option("--move/--no-move", envvar="LEAGUE_CHECK_BOOK_MOVE",
                                       help="on success, move the startup checkpoint to the book's head")] = True,
    no_db: Annotated[bool, typer.Option("--no-db", envvar="LEAGUE_CHECK_BOOK_NO_DB",
                                        help="check the book alone (no checkpoint read or written)")] = False,
) -> None:
    """Verify the council book in full against its startup checkpoint; move the checkpoint when it holds."""
    with extra("daemon"):
        from league.jobs.books import COUNCIL_BOOK
        from league.store import default_url, open_store
    path = data / "books" / "council-book.jsonl"
    if not path.is_file():
        raise InputError(f"{path}: no council book here", fix="pass --data of a league made by `league init`")
    if path.stat().st_size == 0:  # `league init` seals the opening line: an empty book is not a league's
        raise InputError(f"{path}: empty (0 lines): there is nothing to verify",
                         fix="pass --data of a league made by `league init`, or restore the book from a backup")
    store = None if no_db else open_store(db or default_url(data))
    try:
        before = store.checkpoint(COUNCIL_BOOK) if store is not None else None
        scan, cp = run_check(path, store=store, book=COUNCIL_BOOK, now=SystemClock().now(), move=move)
    finally:
        if store is not None:
            store.close()
    typer.echo(f"ok {path}: {scan.lines} lines verified in full, sha256 {scan.prefix_sha256}, "
               f"last link {scan.last_link or '-'}")
    if before is not None:
        typer.echo(f"the first {before.lines} lines still hash to the checkpoint of {before.taken_at:%Y-%m-%d %H:%M}Z")
    if cp is not None and move:
        typer.echo(f"checkpoint moved to line {cp.lines}")


def register(app: typer.Typer) -> None:
    app.command("check-book")(check_book)

"""Progress bars for the long commands (`league publish`, `league verify FOLDER`), on stderr.

Shown when a person watches (stderr is a terminal) or when ``LEAGUE_PROGRESS=1`` asks for them (a CI
log, a test); otherwise the commands print exactly what they printed before. The core functions take
an optional ``progress(name, done, total)`` callback and know nothing of the bar.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
from rich.progress import Progress as Bar

Progress = Callable[[str, int, int], None]


def wanted() -> bool:
    return sys.stderr.isatty() or os.environ.get("LEAGUE_PROGRESS") == "1"


@contextmanager
def steps(label: str) -> Iterator[Progress | None]:
    """A bar labelled ``label`` advanced by the callback it yields (None when no bar is wanted)."""
    if not wanted():
        yield None
        return
    with Bar(TextColumn(f"[bold]{label}"), BarColumn(), MofNCompleteColumn(), TextColumn("{task.description}"),
             TimeElapsedColumn(), console=Console(stderr=True)) as bar:
        task = bar.add_task("", total=None)

        def advance(name: str, done: int, total: int) -> None:
            bar.update(task, completed=done, total=total, description=name)

        yield advance

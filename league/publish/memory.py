"""Give freed memory back to the system between the publisher's heavy steps.

CPython's small objects and glibc's arenas keep the pages of freed objects mapped: after the statistics
(frames of the whole forecasts table) the process stayed at its peak size while the book readers that follow
added their own lines on top (measured at one year × 14 seats: 830 MB resident after the statistics, with
about 450 MB of it free). A collection plus glibc's ``malloc_trim`` returns those pages, so the next step's
peak starts from what is live, not from what once was.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import os
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any


@cache
def _libc() -> Any:
    name = ctypes.util.find_library("c")
    if name is None:
        return None
    try:
        lib = ctypes.CDLL(name)
        return lib if hasattr(lib, "malloc_trim") else None  # glibc only (not musl, not macOS)
    except OSError:
        return None


def release_memory() -> None:
    """Collect cycles, then trim the C heap when the C library can (a no-op elsewhere)."""
    gc.collect()
    lib = _libc()
    if lib is not None:
        lib.malloc_trim(0)


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector's automatic runs paused inside the block (an explicit ``gc.collect`` still runs).

    Why: a step that builds many long-lived objects and no reference cycles (the publisher's books step keeps a
    few fields of every line) sets off full collections as it grows, each walking the whole heap again: three in
    the 126-session demo's books step, 0.7 s (docs/costs.md, "Session 18"). Nothing it frees needs the collector."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def settle_heap() -> None:
    """Move every object alive now out of the cyclic collector's reach (``gc.freeze``): its full collections then
    walk only what came after.

    Why: a process that keeps growing a large heap of long-lived objects (the demo's season child: every line of
    the season in its index; its parent: the statistics' imports) pays a full collection each time the heap grows
    by a quarter, each walking every object: 17 of them, 3.1 s of the 126-session season's child (docs/costs.md,
    "Session 18"). Frozen objects are still freed when their last reference goes; only a reference cycle already
    garbage when frozen stays until ``gc.unfreeze`` (the publisher's end) or the process's end: this is for work
    that ends, not for a daemon's life."""
    gc.freeze()


def fork_frozen() -> int:
    """``os.fork()`` with every object the caller holds moved out of the collector's reach for the child
    (``gc.freeze``; the caller's own collector gets them back at once): a collection in the child would
    otherwise write to each of them, copying the pages it shares with the caller — the publisher forks while
    holding its parse of the book (league.publish.bookread.KeptLines), hundreds of MB at a season's end.
    A caller that had settled its heap (:func:`settle_heap`: the publisher, until it ends) keeps it settled,
    with what this froze besides; any other gets its objects back at once."""
    settled = gc.get_freeze_count() > 0
    gc.freeze()
    pid = os.fork()
    if pid != 0 and not settled:
        gc.unfreeze()
    return pid

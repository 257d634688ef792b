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
from functools import cache

from league.shutdown import die_with_parent


@cache
def _libc() -> ctypes.CDLL | None:
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


def fork_frozen() -> int:
    """``os.fork()`` with every object the caller holds moved out of the collector's reach for the child
    (``gc.freeze``; the caller's own collector gets them back at once): a collection in the child would
    otherwise write to each of them, copying the pages it shares with the caller — the publisher forks while
    holding its parse of the book (league.book.shared.KeptLines), hundreds of MB at a season's end.
    A caller that had settled its heap (:func:`settle_heap`: the publisher, until it ends) keeps it settled,
    with what this froze besides; any other gets its objects back at once.

    The child ends with the caller (:func:`league.shutdown.die_with_parent`): a publishing worker left running
    after its parent was killed would go on writing into the published folder under a restarted publisher."""
    settled = gc.get_freeze_count() > 0
    gc.freeze()
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        die_with_parent(parent)
    elif not settled:
        gc.unfreeze()
    return pid

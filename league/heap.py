"""The cyclic garbage collector around work that builds large, long-lived heaps.

CPython's collector runs a full collection each time the objects that survived earlier ones grow by a quarter,
and each full collection walks every object the process holds. A process that loads a large heap of long-lived
objects pays for that again and again as the heap grows: half of the daemon's start at one year × 14 seats (the
memory window's lines: 7 full collections, 0.74 s of 1.65 s), 3.3 s of 10.3 s at one year × 100 seats, 3.1 s of
the 126-session demo's season (docs/costs.md, "The cyclic collector"). None of those objects is garbage, and the loaders
make no reference cycles: their work is paused here (:func:`collector_paused`), and what they built can be put
out of the later collections' reach (:func:`settle_heap`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """The cyclic collector's automatic runs paused inside the block (an explicit ``gc.collect`` still runs).

    Why: a step that builds many long-lived objects and no reference cycles (the publisher's books step keeps a
    few fields of every line) sets off full collections as it grows, each walking the whole heap again: three in
    the 126-session demo's books step, 0.7 s (docs/costs.md, "The cyclic collector"). Nothing it frees needs the
    collector."""
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
    "The cyclic collector"). Frozen objects are still freed when their last reference goes; only a reference
    cycle already garbage when frozen stays until ``gc.unfreeze`` (the publisher's end) or the process's end:
    call it once a heap is built (the daemon's open) or in work that ends (a season, a publish), never in a
    loop that lasts."""
    gc.freeze()

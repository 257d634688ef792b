"""league.heap: a paused collector comes back as it was and still collects when asked; a
settled heap is out of the collector's walks and still freed by reference counting."""

from __future__ import annotations

import gc
import weakref
from collections.abc import Iterator

import pytest

from league.heap import collector_paused, settle_heap


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Whatever a test freezes goes back to the collector afterwards (the test process lives on)."""
    yield
    gc.unfreeze()


@pytest.mark.parametrize("enabled", [True, False])
def test_the_collector_is_paused_inside_and_as_it_was_after(enabled: bool) -> None:
    was = gc.isenabled()
    (gc.enable if enabled else gc.disable)()
    try:
        with collector_paused():
            assert not gc.isenabled()
        assert gc.isenabled() is enabled
        with pytest.raises(RuntimeError), collector_paused():
            raise RuntimeError("a step that fails")
        assert gc.isenabled() is enabled
    finally:
        (gc.enable if was else gc.disable)()


def test_an_explicit_collection_still_runs_while_paused() -> None:
    class Node:
        other: object = None

    a, b = Node(), Node()
    a.other, b.other = b, a  # a cycle: only the collector frees it
    gone = weakref.ref(a)
    del a, b
    with collector_paused():
        gc.collect()
        assert gone() is None


def test_a_settled_heap_is_frozen_and_its_objects_still_freed_by_their_last_reference(unfrozen: None) -> None:
    class Held:
        pass

    held = Held()
    gone = weakref.ref(held)
    before = gc.get_freeze_count()
    settle_heap()
    assert gc.get_freeze_count() > before
    assert not any(obj is held for obj in gc.get_objects())  # no longer walked by the collector
    del held
    assert gone() is None

"""The collector helpers of league.publish.memory (issue 15, session 18): a paused collector comes back as it
was, a settled heap is out of the collector's walks and still freed by reference counting."""

from __future__ import annotations

import gc
import os
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest

from league.publish.memory import collector_paused, fork_frozen, settle_heap


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


@pytest.mark.fork
@pytest.mark.usefixtures("fork_ready")
@pytest.mark.parametrize("settled", [False, True])
def test_a_fork_keeps_the_callers_heap_as_settled_as_it_was(settled: bool, unfrozen: None) -> None:
    gc.unfreeze()
    if settled:
        settle_heap()
    pid = fork_frozen()
    if pid == 0:
        os._exit(0 if gc.get_freeze_count() > 0 else 1)  # the child: everything frozen
    assert os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0
    assert (gc.get_freeze_count() > 0) is settled


def test_the_publisher_gives_its_settled_heap_back(synth: Path, tmp_path: Path, unfrozen: None) -> None:
    from league.publish import publish

    gc.unfreeze()
    report = publish(synth / "data", tmp_path / "public")
    assert report.ok and (tmp_path / "public" / "council-forecasts.csv").is_file()
    assert gc.get_freeze_count() == 0  # settled after its books step, given back at its end

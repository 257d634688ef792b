"""The publisher and a settled heap: a fork keeps a settled caller settled, and the
publisher, which settles its heap after the books step, gives it back at its end."""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from league.heap import settle_heap
from league.publish.memory import fork_frozen


@pytest.fixture
def unfrozen() -> Iterator[None]:
    """Whatever a test freezes goes back to the collector afterwards (the test process lives on)."""
    yield
    gc.unfreeze()


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


def test_the_publisher_gives_its_settled_heap_back(synth: Path, tmp_path: Path, unfrozen: None,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    from league.publish import files, publish

    seen: list[bool] = []
    digest = files._digest

    def watched(run: files._Run) -> None:
        seen.append(gc.isenabled())
        digest(run)

    monkeypatch.setattr(files, "_digest", watched)
    gc.unfreeze()
    assert gc.isenabled()
    report = publish(synth / "data", tmp_path / "public")
    assert report.ok and (tmp_path / "public" / "council-forecasts.csv").is_file()
    assert seen == [False]  # a step runs with the collector's automatic runs paused
    assert gc.isenabled()  # and they are back afterwards
    assert gc.get_freeze_count() == 0  # settled after its books step, given back at its end

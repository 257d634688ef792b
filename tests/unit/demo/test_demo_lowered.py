"""The demo parent's share of the season runs on a thread of lower priority, whose threads inherit it, and
leaves the calling thread's own priority as it was."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from league.demo import BACKGROUND_NICE, _lowered


def _nice() -> int:
    return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a nice value per thread is Linux's")
def test_the_work_and_the_threads_it_starts_run_lower_and_the_caller_does_not() -> None:
    before = _nice()
    if before + BACKGROUND_NICE > 19:
        pytest.skip("this process already runs at the lowest priority")
    seen: dict[str, int] = {}

    def work() -> str:
        seen["work"] = _nice()
        inner = threading.Thread(target=lambda: seen.__setitem__("inner", _nice()))
        inner.start()
        inner.join()
        return "done"

    assert _lowered(work, stop=lambda: None) == "done"
    assert seen == {"work": before + BACKGROUND_NICE, "inner": before + BACKGROUND_NICE}
    assert _nice() == before


def test_the_work_s_exception_is_raised_in_the_caller() -> None:
    def work() -> None:
        raise LookupError("the season's pipe ended")

    with pytest.raises(LookupError, match="pipe ended"):
        _lowered(work, stop=lambda: None)

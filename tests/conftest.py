"""Session-wide settings of the test suite.

The seats' sandboxes run under uids of their own (docs/sandbox.md). The suite takes them from a
range of its own, so that its runs never share a uid, and so a per-uid process count, with a league
running on the same host (whose default range is 61000-61999).

The suite writes nothing into the source tree: Python's byte code (this process's imports from here
on, pytest's rewritten test modules, and every child the tests start, which inherit the environment)
goes under :data:`OUTSIDE_TREE`, as does Hypothesis' storage (its example database and caches);
pytest's own cache plugin is off (``-p no:cacheprovider`` in pyproject.toml's addopts). A checkout
stays as clean as it was, and several checkouts of the project can run their suites side by side.
The byte code is kept there, not switched off, so that the tests' ``league`` subprocesses do not
compile the package anew each time. ``tests/unit/architecture/test_suite_writes_outside_tree.py`` checks
it.
"""

from __future__ import annotations

import os
import sys
import tempfile
import threading
from datetime import UTC, datetime
from pathlib import Path

os.environ.setdefault("LEAGUE_SEAT_UIDS", "64000-64999")

#: Where the suite's byte code and Hypothesis' storage go (per user, kept between runs: a cache).
OUTSIDE_TREE = Path(tempfile.gettempdir()) / f"league-tests-{os.getuid()}"
if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
    os.environ.setdefault("PYTHONPYCACHEPREFIX", str(OUTSIDE_TREE / "pycache"))
    sys.pycache_prefix = os.environ["PYTHONPYCACHEPREFIX"]
os.environ.setdefault("HYPOTHESIS_STORAGE_DIRECTORY", str(OUTSIDE_TREE / "hypothesis"))

import pytest  # noqa: E402
from hypothesis import settings  # noqa: E402 - after the environment above, which the league reads at import

from league.book import Book  # noqa: E402
from league.clock import SimulatedClock  # noqa: E402

# No timing assertion in the suite: Hypothesis' per-example deadline (200 ms) failed property tests on a
# loaded 2-core machine for reasons that had nothing to do with the property.
settings.register_profile("league", deadline=None)
settings.load_profile("league")


@pytest.fixture
def fork_ready() -> None:
    """The two-worker paths fork only a process running no other thread, and fall back to one process otherwise,
    so a test of them in a process that already runs threads (an xdist worker after a League's seat pool has
    started) would compare one process with itself and could not fail. `make test` runs the tests marked
    ``fork`` in a pytest call of their own with LEAGUE_TEST_REQUIRE_FORK=1: there they must be able to fork."""
    if hasattr(os, "fork") and threading.active_count() == 1:
        return
    why = f"needs os.fork in a process running no other thread ({threading.active_count()} threads run here)"
    if os.environ.get("LEAGUE_TEST_REQUIRE_FORK") == "1":
        pytest.fail(why)
    pytest.skip(why + "; `make test` runs the fork tests in a call of their own")


#: Where the tests marked ``fork`` live: tests/suite.sh collects only this folder for its fork run.
FORK_TESTS_FOLDER = "tests/unit/publish"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """A fork test elsewhere would be deselected from the xdist run and never collected by the fork run:
    it would silently not run at all, so its collection is an error instead."""
    root = config.rootpath
    astray = [item.nodeid for item in items if item.get_closest_marker("fork") is not None
              and not item.path.is_relative_to(root / FORK_TESTS_FOLDER)]
    if astray:
        raise pytest.UsageError(f"tests marked fork must live under {FORK_TESTS_FOLDER} (tests/suite.sh runs only "
                                f"that folder's): {', '.join(astray)}")


@pytest.fixture()
def api_root(tmp_path: Path) -> Path:
    """A data folder the read-only API can open: a council book with one run line and an empty public folder
    (the page's and the API's tests publish into it what they read)."""
    with Book(tmp_path / "books" / "council-book.jsonl", SimulatedClock(datetime(2026, 12, 7, tzinfo=UTC))) as book:
        book.append("run", {"run_id": "r1", "session": "2026-12-07"})
    (tmp_path / "public").mkdir()
    return tmp_path

"""The real bubblewrap sandbox for the evaluation tracks' integration tests, and the unit tests' helpers
(tests/unit/evals: evals_helpers, the hand-written books of test_evals_points) for the tests here that run
worker processes, the ``league`` command and demo data folders."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "evals"))

from sandbox.bwrap import BwrapSandbox  # noqa: E402


@pytest.fixture(scope="session")
def bwrap() -> BwrapSandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    return BwrapSandbox()

"""The real bubblewrap sandbox for the evaluation tracks' integration tests."""

from __future__ import annotations

import shutil

import pytest

from sandbox.bwrap import BwrapSandbox


@pytest.fixture(scope="session")
def bwrap() -> BwrapSandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    return BwrapSandbox()

from __future__ import annotations

import shutil

import pytest

from sandbox.bwrap import BwrapSandbox


@pytest.fixture
def sandbox() -> BwrapSandbox:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    return BwrapSandbox()

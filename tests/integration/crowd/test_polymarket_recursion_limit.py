"""The crowd's read-only Polymarket client keeps the interpreter's recursion limit (extras.keeping_recursion_limit).

py-clob-client imports py_ecc, which raises the limit to 100,000 on import; with it raised, the book's refusal
of a too-deeply nested line (a RecursionError) becomes a C-stack overflow instead. Checked in a fresh
interpreter, where building the reader imports the client for the first time. No request is made.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

if importlib.util.find_spec("py_clob_client") is None:  # importorskip would import it (and py_ecc) as is
    pytest.skip("extra polymarket not installed", allow_module_level=True)

BUILD = """
import sys
from league.crowd.polymarket import PolymarketConfig, PyClobReader
before = sys.getrecursionlimit()
PyClobReader(PolymarketConfig(clob_url="http://127.0.0.1:9"))
print(before, sys.getrecursionlimit(), "py_ecc" in sys.modules)
"""


def test_building_the_reader_keeps_the_recursion_limit() -> None:
    done = subprocess.run([sys.executable, "-c", BUILD], capture_output=True, text=True, timeout=120, check=True)
    before, after, py_ecc = done.stdout.split()
    assert py_ecc == "True"  # the client did import py_ecc
    assert after == before

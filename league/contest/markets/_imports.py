"""Importing the Polymarket clients without letting them change the interpreter's recursion limit.

py-clob-client and py-clob-client-v2 import py_ecc, which raises ``sys.setrecursionlimit`` to 100,000
on import. The league relies on the default limit: the book refuses a too-deeply nested line with a
RecursionError, and with the raised limit the JSON scanner overflows the C stack instead (a
segmentation fault, seen in the test suite). Adapters import these clients through here.
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType


def import_keeping_limit(module: str) -> ModuleType:
    limit = sys.getrecursionlimit()
    try:
        return importlib.import_module(module)
    finally:
        sys.setrecursionlimit(limit)

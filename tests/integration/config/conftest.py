"""The configuration's integration tests (the ``league`` command run on a bad folder) build their folders with
the unit tests' helpers (tests/unit/config/test_config_bounds.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "config"))

"""The portfolio's integration tests (the replay tool run as a reader runs it) share the unit tests' helpers
(tests/unit/portfolio/portfolio_helpers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "portfolio"))

"""The agents' integration tests (child processes of the system Python) share the unit tests' helpers
(tests/unit/agents/agents_helpers.py)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "unit" / "agents"))

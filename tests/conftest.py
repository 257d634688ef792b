"""Session-wide settings of the test suite.

The seats' sandboxes run under uids of their own (docs/sandbox.md). The suite takes them from a
range of its own, so that its runs never share a uid, and so a per-uid process count, with a league
running on the same host (whose default range is 61000-61999).
"""

from __future__ import annotations

import os

os.environ.setdefault("LEAGUE_SEAT_UIDS", "64000-64999")

from hypothesis import settings  # noqa: E402 - after the environment above, which the league reads at import

# No timing assertion in the suite: Hypothesis' per-example deadline (200 ms) failed property tests on a
# loaded 2-core machine for reasons that had nothing to do with the property.
settings.register_profile("league", deadline=None)
settings.load_profile("league")

"""``_momentum``'s "yesterday" is the previous NYSE session, for the scoring baseline and
for the baseline seat alike; never the previous session in the table or the book.

The hand case, June 2026: Friday 06-19 is Juneteenth (NYSE closed), so Monday 06-22's yesterday is Thursday
06-18; the league skipped Tuesday 06-23, so Wednesday 06-24's yesterday (06-23) has no known move and
momentum states nothing, although the table's previous row is 06-22.
"""

from __future__ import annotations

from datetime import date
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
from index_of_lines import LinesIndex

from league.calendar import default_calendar
from league.jobs.ask import previous_day_changes
from league.scoring.baselines import momentum, yesterday_direction
from league_agents.baselines import MomentumSeat

# session -> SPX one-day move (reference, close): up on 06-17, down on 06-18, up on 06-22
MOVES = {"2026-06-17": (100.0, 101.0), "2026-06-18": (101.0, 99.0), "2026-06-22": (99.0, 102.0),
         "2026-06-24": (102.0, 103.0)}


def _frame() -> pd.DataFrame:
    return pd.DataFrame([{"asset": "SPX", "session": s, "horizon": "1d", "resolved": True, "common": True,
                          "ref_f": ref, "close_f": close} for s, (ref, close) in MOVES.items()])


def test_the_scoring_baseline_reads_the_previous_nyse_session() -> None:
    got = yesterday_direction(_frame()).set_index("session")["direction"].to_dict()
    # 06-18 <- 06-17 (up); 06-22 <- 06-18 (down, over the holiday); 06-24 <- 06-23 (not run: nothing);
    # 06-17 <- 06-16 (not in the table: nothing)
    assert got == {"2026-06-18": 1.0, "2026-06-22": -1.0}
    rows = pd.DataFrame({"asset": ["SPX"] * 4, "session": ["2026-06-17", "2026-06-18", "2026-06-22", "2026-06-24"]})
    p = momentum(rows, _frame()).to_numpy()
    assert np.isnan(p[0]) and p[1] == 55.0 and p[2] == 45.0 and np.isnan(p[3])


def test_the_previous_row_is_not_yesterday() -> None:
    """With the table's order as the calendar, 06-24 would take 06-22's move (what the code did before)."""
    order = sorted(MOVES)
    table_previous = dict(zip(order[1:], order[:-1], strict=True))
    got = yesterday_direction(_frame(), table_previous.get).set_index("session")["direction"].to_dict()
    assert got == {"2026-06-18": 1.0, "2026-06-22": -1.0, "2026-06-24": 1.0}


_Index = LinesIndex

def _score(session: str) -> dict[str, Any]:
    ref, close = MOVES[session]
    return {"kind": "score", "session": session, "horizon": "1d",
            "markets": [{"market": "SPX", "late_ref": False, "change_pct": (close / ref - 1) * 100}]}


def test_the_baseline_seat_reads_the_previous_nyse_session() -> None:
    lg: Any = SimpleNamespace(calendar=default_calendar(),
                              index=_Index([_score(s) for s in ("2026-06-17", "2026-06-18", "2026-06-22")]))
    assert default_calendar().previous_session(date(2026, 6, 22)) == date(2026, 6, 18)
    assert previous_day_changes(lg, "2026-06-22") == {"SPX": (99.0 / 101.0 - 1) * 100}
    assert previous_day_changes(lg, "2026-06-24") == {}  # 06-23 was not scored: no move, not 06-22's
    ask: Any = SimpleNamespace(context={"markets": {"SPX": {"horizons": ["1d", "1w"], "last_change_pct":
                                                            previous_day_changes(lg, "2026-06-22")["SPX"]}}})
    spec: Any = SimpleNamespace(name="_momentum", model="unreported")
    assert MomentumSeat(spec).cells(ask) == {"SPX": {"1d": 45.0, "1w": 45.0}}

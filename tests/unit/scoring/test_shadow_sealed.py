"""Shadow weights frozen and sealed before session 11 (paper §5.3, §8), and read back by scoring.

Hand case on the design window's first session (one-day probabilities on four markets):
a = 20 40 60 80, b = a + 5 (r(a,b) = 1), c = 80 60 40 20 (r(a,c) = r(b,c) = -1), d = 40 20 80 60:
a and d centred are (-30 -10 10 30) and (-10 -30 30 10): dot 1200, both norms² 2000, r(a,d) = 0.6, so
r(b,d) = 0.6 and r(c,d) = -0.6. Mean correlation with the others: a = (1 - 1 + 0.6)/3 = 0.2 -> weight 5;
b the same -> 5; c = (-1 - 1 - 0.6)/3 < 0.05 -> floor -> 20; d = (0.6 + 0.6 - 0.6)/3 = 0.2 -> 5.
An answer from session 11 (outside the window: d turned into a copy of c) must not move them.
"""

from __future__ import annotations

from copy import deepcopy
from types import SimpleNamespace
from typing import Any

import pandas as pd
import pytest
from index_of_lines import LinesIndex

from league.calendar import default_calendar
from league.jobs import shadow
from league.scoring.climatology import seal
from league.scoring.errors import ScoringError
from league.scoring.frame import load_forecasts
from league.scoring.publish import build_all
from league.scoring.synthetic import synthetic_season

MARKETS = ("SPX", "NDX", "DJI", "SOX")
PROBS = {"a": (20, 40, 60, 80), "b": (25, 45, 65, 85), "c": (80, 60, 40, 20), "d": (40, 20, 80, 60)}


def _sessions(n: int) -> list[str]:
    cal = default_calendar()
    first = cal.session_on_or_after(pd.Timestamp("2026-06-01").date())
    return [cal.offset(first, k).isoformat() for k in range(n)]


SESSIONS = _sessions(12)


def _row(seat: str, p: float, asset: str, session: str) -> dict[str, str]:
    base = {c: "" for c in synthetic_season(1, ("a",)).columns}
    base.update({"run_id": f"{session}-r1", "session": session, "seat": seat, "status": "counted", "asset": asset,
                 "horizon": "1d", "prob_up": str(p), "ref": "100", "close": "101", "run_role": "session_run",
                 "line_kind": "issue", "same_event": "1", "cell_status": "elicited",
                 "sealed_at": f"{session}T13:00:00Z", "event_reference_at": f"{session}T14:30:00Z",
                 "event_id_v2": f"ev2-{asset}-{session}", "methodology_version": "m1"})
    return base


def _rows() -> list[dict[str, str]]:
    out = [_row(s, p, m, SESSIONS[0]) for s, ps in PROBS.items() for m, p in zip(MARKETS, ps, strict=True)]
    later = {**PROBS, "d": PROBS["c"]}  # session 11: d now mirrors a; outside the window
    out += [_row(s, p, m, SESSIONS[10]) for s, ps in later.items() for m, p in zip(MARKETS, ps, strict=True)]
    return out


_Index = LinesIndex

class _League:
    def __init__(self) -> None:
        self.index = _Index()
        self.sealed: list[dict[str, Any]] = []
        self.books = self.view = self  # a League's books and read-only view

    def seal(self, line: Any) -> SimpleNamespace:
        body = {"kind": line.kind, **line.content(), "n": len(self.index.lines) + 1}
        self.index.lines.append(body)
        self.sealed.append(body)
        return SimpleNamespace(n=body["n"])


@pytest.fixture()
def season(monkeypatch: pytest.MonkeyPatch) -> _League:
    """Twelve sessions run and scored one by one, the shadow stage after each score."""
    monkeypatch.setattr(shadow, "iter_rows", lambda lg: iter(_rows()))
    lg = _League()
    for i, session in enumerate(SESSIONS):
        lg.index.lines.append({"kind": "run", "session": session, "methodology": {"version": "m1"}})
        lg.index.lines.append({"kind": "score", "session": session, "horizon": "1d"})
        n = shadow.seal_shadow_weights(lg, session)  # type: ignore[arg-type]
        assert (n is not None) == (i == 9), session  # sealed at session 10's score, and only then
    return lg


def test_weights_are_sealed_when_session_10_is_scored(season: _League) -> None:
    (line,) = season.sealed
    assert line["kind"] == "shadow_weights" and line["session"] == SESSIONS[9]
    assert line["methodology_version"] == "m1" and line["window"] == SESSIONS[:10]
    assert line["weights"]["weights"] == pytest.approx({"a": 5.0, "b": 5.0, "c": 20.0, "d": 5.0})
    assert line["weights"]["window"] == {"first": SESSIONS[0], "last": SESSIONS[9], "sessions": 10}


def test_scoring_reads_the_sealed_weights_not_a_recount(season: _League, clim_table: dict[str, Any]) -> None:
    sealed = season.sealed[0]["weights"]
    df = load_forecasts(_rows())
    clim = clim_table
    read = build_all(df, clim, sealed_shadow={"m1": sealed})["council-stats.json"]["council"]["shadow"]
    assert read["weights"] == sealed and read["weights_sealed"] is True
    # a planted, differently sealed set is what scoring publishes: it is never recomputed from the rows
    planted = seal({**{k: v for k, v in sealed.items() if k != "sha256"}, "weights": {"a": 1.0, "b": 2.0}})
    got = build_all(df, clim, sealed_shadow={"m1": planted})["council-stats.json"]["council"]["shadow"]
    assert got["weights"]["weights"] == {"a": 1.0, "b": 2.0}
    tampered = deepcopy(sealed)
    tampered["weights"]["c"] = 1.0
    with pytest.raises(ScoringError, match="sha256"):
        build_all(df, clim, sealed_shadow={"m1": tampered})

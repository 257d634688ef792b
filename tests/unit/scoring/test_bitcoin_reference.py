"""Bitcoin's common reference (paper §3.3), by the counting rule on a hand-built book.

Session Monday 2026-06-01 (EDT): ingest closes at 09:30 ET = 13:30:00Z. Seats ``a`` (sealed 12:31:05Z)
and ``b`` (booked 13:05:40Z) answered before it: their bitcoin cells are ONE event whose reference is
the ingest close, 13:30:00Z, ending 16:00 ET = 20:00:00Z — the same reference instant as the 09:30
index events. Seat ``c``'s line was booked at 13:41:07.2Z, after ingest close: its own reference, the
seal second rounded up (13:41:08Z), a separate event (``late_ref``), never pooled with the others.
"""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

from index_of_lines import LinesIndex

from league.calendar import default_calendar
from league.config import load_config, shipped_config_dir
from league.counting import session_rows

DAY = "2026-06-01"


_Index = LinesIndex

def _answer(n: int, seat: str, at: str, booked: str) -> dict[str, Any]:
    cells = {"BTC": {"1d": {"prob_up": 60.0, "cell_status": "elicited"}},
             "SPX": {"1d": {"prob_up": 55.0, "cell_status": "elicited"}}}
    return {"kind": "answer", "n": n, "run_id": "r1", "session": DAY, "seat": seat, "status": "answered",
            "at": at, "booked_at": booked, "items": cells, "model": seat, "mode": "m", "version": "1"}


def _rows() -> list[dict[str, Any]]:
    lg: Any = SimpleNamespace(calendar=default_calendar(), config=load_config(shipped_config_dir()), index=_Index([
        {"kind": "run", "n": 1, "run_id": "r1", "session": DAY, "role": "counted", "roster": ["a", "b", "c"]},
        _answer(2, "a", "2026-06-01T12:31:05Z", "2026-06-01T12:31:05Z"),
        _answer(3, "b", "2026-06-01T12:33:00Z", "2026-06-01T13:05:40Z"),
        _answer(4, "c", "2026-06-01T12:40:00Z", "2026-06-01T13:41:07.200000Z"),
    ]))
    rows, events = session_rows(lg, DAY, "1d")
    return [{**r, "contract": events[r["event_id_v2"]].contract} for r in rows if r.get("event_id_v2")]


def test_bitcoin_answers_before_ingest_close_share_one_event_at_the_ingest_close() -> None:
    btc = {r["seat"]: r for r in _rows() if r["market"] == "BTC"}
    a, b = btc["a"], btc["b"]
    assert a["event_id_v2"] == b["event_id_v2"] and not a["late_ref"] and not b["late_ref"]
    assert (a["contract"].reference_at, a["contract"].end_at) == ("2026-06-01T13:30:00Z", "2026-06-01T20:00:00Z")
    spx = next(r for r in _rows() if r["market"] == "SPX" and r["seat"] == "a")
    assert spx["contract"].reference_at == a["contract"].reference_at  # the 09:30 ET instant of the indices


def test_a_line_sealed_after_ingest_close_is_its_own_event() -> None:
    btc = {r["seat"]: r for r in _rows() if r["market"] == "BTC"}
    c = btc["c"]
    assert c["late_ref"] is True and c["event_id_v2"] != btc["a"]["event_id_v2"]
    assert c["contract"].reference_at == "2026-06-01T13:41:08Z"  # the seal second, rounded up
    assert c["contract"].end_at == "2026-06-01T20:00:00Z"

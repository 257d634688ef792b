"""Two hand-made council talk weeks shared by the report's and the recount's tests.

Week 2026-W49 (letters revealed; seed 7: delta A, alpha B, bravo C, charlie D; bravo chairs as C):
  B SPX (SPY) down, closes 100 ... 99   -> not up, "down" came true   -> true
  D GOLD (GLD) up, closes 50 ... 50     -> equal is not up             -> false
  A NDX (QQQ) up, closes 200 ... 210    -> up                          -> true
Week 2026-W50 (letters sealed, not revealed; charlie chairs as A):
  B SPX (SPY) down, three closes only   -> unresolved
  C NDX (QQQ) down, closes 200 ... 195  -> true
Season: 4 resolved, 3 hits.

Week 2026-W49's shadow accounts over its closes (SPY -1%, GLD 0, QQQ +5%, TLT +10%; IWM has no first or last
close but no account holds it above 0%), as simple returns:
  council    SPY 30 GLD 20          -0.003        sealed:A   QQQ 40 TLT 10        0.03
  critiqued:A QQQ 10 TLT 10          0.015        stated:A   QQQ 10               0.005
  sealed:B   SPY 50 TLT 20           0.015        critiqued:B SPY 25 TLT 20       0.0175
  stated:B   SPY 30                 -0.003        sealed:C   GLD 50 IWM 0         0.0
  sealed:D   GLD 60 QQQ 20           0.01         critiqued:D GLD 30 QQQ 20       0.01
(D's reply failed: no stated:D.) Week 2026-W50 is not settled: no accounts, closes or returns yet.
"""

from __future__ import annotations

from league.talk.critiques import Critique
from league.talk.report import CritiqueRecord, ReplyRecord, WeekRecord
from league.talk.rotation import letter_commitment, letter_map

SEATS = ["alpha", "bravo", "charlie", "delta"]


def critique(target: str, market: str, fund: str, weight: float, direction: str,
             closes: list[float]) -> CritiqueRecord:
    return CritiqueRecord(critique=Critique(target, market, f"risk of {target}'s {market}", weight,
                                            direction),  # type: ignore[arg-type]
                          fund=fund, closes=tuple(closes))


def weeks() -> list[WeekRecord]:
    w49 = letter_map(7, "2026-W49", SEATS)
    w50 = letter_map(7, "2026-W50", SEATS)
    first = WeekRecord(
        week="2026-W49", chair_seat="bravo", chair_letter="C", letter_map=w49,
        letter_map_sha256=letter_commitment("2026-W49", w49, "7"), salt="7",
        council_portfolio={"SPY": 30.0, "GLD": 20.0},
        critiques=(critique("B", "SPX", "SPY", 25, "down", [100, 101, 102, 103, 104, 99]),
                   critique("D", "GOLD", "GLD", 30, "up", [50, 50, 50, 50, 50, 50]),
                   critique("A", "NDX", "QQQ", 10, "up", [200, 201, 202, 203, 204, 210])),
        replies=(ReplyRecord("B", True, {"SPY": 30.0}, line=12),
                 ReplyRecord("D", False, failure="no JSON object found in the reply", line=13),
                 ReplyRecord("A", True, {"QQQ": 10.0}, line=14)),
        shadow_returns={"council": -0.003, "sealed:A": 0.03, "sealed:B": 0.015, "sealed:C": 0.0, "sealed:D": 0.01,
                        "critiqued:A": 0.015, "stated:A": 0.005, "critiqued:B": 0.0175, "stated:B": -0.003,
                        "critiqued:D": 0.01},
        accounts={"council": {"SPY": 30.0, "GLD": 20.0}, "sealed:A": {"QQQ": 40.0, "TLT": 10.0},
                  "critiqued:A": {"QQQ": 10.0, "TLT": 10.0}, "stated:A": {"QQQ": 10.0},
                  "sealed:B": {"SPY": 50.0, "TLT": 20.0}, "critiqued:B": {"SPY": 25.0, "TLT": 20.0},
                  "stated:B": {"SPY": 30.0}, "sealed:C": {"GLD": 50.0, "IWM": 0.0},
                  "sealed:D": {"GLD": 60.0, "QQQ": 20.0}, "critiqued:D": {"GLD": 30.0, "QQQ": 20.0}},
        sessions=("2026-12-04", "2026-12-07", "2026-12-08", "2026-12-09", "2026-12-10", "2026-12-11"),
        closes={"SPY": [100.0, 101.0, 102.0, 103.0, 104.0, 99.0], "GLD": [50.0] * 6,
                "QQQ": [200.0, 201.0, 202.0, 203.0, 204.0, 210.0], "TLT": [100.0] * 5 + [110.0],
                "IWM": [None, 81.0, 82.0, 83.0, 84.0, None]},
        session="2026-12-04", chair_line=11)
    second = WeekRecord(
        week="2026-W50", chair_seat="charlie", chair_letter="A", letter_map=None,
        letter_map_sha256=letter_commitment("2026-W50", w50, "7"), council_portfolio={},
        critiques=(critique("B", "SPX", "SPY", 0, "down", [100, 99, 98]),
                   critique("C", "NDX", "QQQ", 50, "down", [200, 199, 198, 197, 196, 195])),
        replies=(ReplyRecord("B", True, {}, line=22), ReplyRecord("C", True, {"QQQ": 40.0}, line=23)),
        chair_line=21)
    return [second, first]  # out of order on purpose: the report sorts by week

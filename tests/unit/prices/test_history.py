"""`league init`'s climatology history: yfinance daily bars on recorded chart-v8 responses, then the
table sealed from them, open to close for the indices (paper §4.3)."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime

import pytest

pytest.importorskip("yfinance")

from yahoo_standin import ASSETS, RecordedYahoo, session_with  # noqa: E402

from league.prices.yahoo import YahooProvider, daily_history  # noqa: E402
from league.scoring.climatology import build_climatology, read_history, sha256_ok  # noqa: E402


def test_daily_history_through_yfinance_and_the_open_to_close_table() -> None:
    payload = json.loads((ASSETS / "chart_v8_GSPC_1d.json").read_text())["chart"]["result"][0]
    days = [datetime.fromtimestamp(t, UTC).date() for t in payload["timestamp"]]
    provider = YahooProvider(session=session_with(RecordedYahoo()), wait_seconds=0.0, retries=1)
    rows = daily_history(provider, "^GSPC", days[0], days[-1])
    q = payload["indicators"]["quote"][0]
    assert [r["day"] for r in rows] == [d.isoformat() for d in days]
    assert [float(r["open"]) for r in rows] == pytest.approx(q["open"])
    table = build_climatology(read_history(rows, {"^GSPC": "SPX"}), window_start=days[0], window_end=days[-1],
                              season_start=date(2027, 1, 4), assets=("SPX", "GOLD"), horizons=("1d",))
    cell = table["table"]["SPX"]["1d"]
    # By hand from the recorded bars: the one-day event is each session's open -> close.
    ups = sum(1 for o, c in zip(q["open"], q["close"], strict=True) if c > o)
    assert cell["basis"] == "open_to_close" and cell["n"] == len(days) and cell["p_up"] == ups / len(days)
    assert table["table"]["GOLD"]["1d"]["n"] == 0  # no history given for it: named, 50%
    assert sha256_ok(table)


def test_every_shipped_market_has_history_and_none_sits_at_the_placeholder() -> None:
    from league.scoring.climatology import default_table

    table = default_table(date(2026, 6, 1))["table"]
    assert len(table) == 12
    assert all(cell["n"] > 1000 and cell["source"] for cells in table.values() for cell in cells.values())
    assert {table[a]["1d"]["basis"] for a in ("SPX", "NDX", "DJI", "SOX", "BTC")} == {"open_to_close"}
    assert table["GOLD"]["1d"]["basis"] == "close_to_close"

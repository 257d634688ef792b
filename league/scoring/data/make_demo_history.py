"""Writes ``demo-history.csv.gz``: the demo world's daily history of the twelve markets, 2016-2025.

The demo's prices are the replay world (``league.prices.replay.SyntheticMarket``): real daily rows of
the series ``arch`` ships (S&P 500, Nasdaq, VIX, WTI, Brent) where a market names one, seeded paths
elsewhere. Its climatology must be built the way a live league's is (a fixed 2016-2025 window of
daily open and close, sealed before the season), from that same world, so the demo ships the
world's own 2016-2025 daily history, recorded once with this script (seed 7, anchored on
2026-01-02, the span reaching back to the calendar's first session). It is not market data.

    python league/scoring/data/make_demo_history.py
"""

from __future__ import annotations

import csv
import gzip
import io
from datetime import date
from pathlib import Path

from league.calendar import Calendar
from league.config import load_markets, shipped_config_dir
from league.prices.replay import SyntheticMarket

OUT = Path(__file__).with_name("demo-history.csv.gz")
START, END = date(2016, 1, 1), date(2025, 12, 31)


def main() -> None:
    calendar = Calendar(date(2015, 12, 1), date(2028, 12, 29))
    markets = load_markets(shipped_config_dir() / "markets.toml").markets
    world = SyntheticMarket(7, markets, calendar, anchor=date(2026, 1, 2), before=2700)
    text = io.StringIO()
    writer = csv.writer(text, lineterminator="\n")
    writer.writerow(["symbol", "day", "open", "close"])
    for m in markets:
        daily = world.daily_path(m.code)
        for i, day in enumerate(daily.days):
            if START <= day <= END:
                writer.writerow([m.symbol, day.isoformat(), f"{daily.o[i]:.6g}", f"{daily.c[i]:.6g}"])
    OUT.write_bytes(gzip.compress(text.getvalue().encode("utf-8"), mtime=0))
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)")  # noqa: T201 - a one-off script


if __name__ == "__main__":
    main()

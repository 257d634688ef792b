"""Writes the recorded Yahoo chart-v8 payloads used by tests/unit/prices/test_yahoo.py.

The payloads follow the shape Yahoo's ``/v8/finance/chart/<symbol>`` endpoint returns (meta with
``exchangeTimezoneName``, ``currentTradingPeriod``, per-day ``tradingPeriods``; ``timestamp``;
``indicators.quote[0]`` arrays) for ^GSPC on the 2026-11-27 early close (14:30Z-18:00Z, 210
minutes). Yahoo quirks kept on purpose: one minute with all-null values (15:12Z = 10:12 ET), integer volumes,
prices with float noise. Prices follow a hand-written deterministic walk so the tests can name
exact values. Run once with ``python3 make_chart_payloads.py``; the JSON files are committed.
"""

import json
import math
from datetime import UTC, datetime
from pathlib import Path

HERE = Path(__file__).parent
OPEN = int(datetime(2026, 11, 27, 14, 30, tzinfo=UTC).timestamp())
CLOSE = int(datetime(2026, 11, 27, 18, 0, tzinfo=UTC).timestamp())


def period(start: int, end: int) -> dict:
    return {"timezone": "EST", "start": start, "end": end, "gmtoffset": -18000}


def meta(granularity: str, price: float) -> dict:
    return {
        "currency": "USD", "symbol": "^GSPC", "exchangeName": "SNP", "fullExchangeName": "SNP",
        "instrumentType": "INDEX", "firstTradeDate": -1325583000, "regularMarketTime": CLOSE,
        "hasPrePostMarketData": False, "gmtoffset": -18000, "timezone": "EST",
        "exchangeTimezoneName": "America/New_York", "regularMarketPrice": price,
        "fiftyTwoWeekHigh": 6920.34, "fiftyTwoWeekLow": 4835.04, "regularMarketDayHigh": 6849.72,
        "regularMarketDayLow": 6811.45, "regularMarketVolume": 1290473000, "longName": "S&P 500",
        "shortName": "S&P 500", "chartPreviousClose": 6812.61, "previousClose": 6812.61, "scale": 3,
        "priceHint": 2,
        "currentTradingPeriod": {
            "pre": period(OPEN - 19800, OPEN), "regular": period(OPEN, CLOSE), "post": period(CLOSE, CLOSE + 14400),
        },
        "dataGranularity": granularity, "range": "",
        "validRanges": ["1d", "5d", "1mo", "3mo", "6mo", "ytd", "1y", "2y", "5y", "10y", "max"],
    }


def minute_payload() -> dict:
    ts, o, h, lo, c, v = [], [], [], [], [], []
    price = 6812.61
    for k in range((CLOSE - OPEN) // 60):
        ts.append(OPEN + 60 * k)
        if k == 42:  # 15:12Z (10:12 ET): Yahoo sends a minute with every field null
            for arr in (o, h, lo, c, v):
                arr.append(None)
            continue
        nxt = round(6812.61 + 18.0 * math.sin(k / 23.0) + 0.05 * k, 2)
        o.append(price + 0.0000000001)  # float noise as Yahoo sends it
        c.append(nxt)
        h.append(round(max(price, nxt) + 0.37, 2))
        lo.append(round(min(price, nxt) - 0.29, 2))
        v.append(0 if k == 0 else 1200000 + 1000 * k)
        price = nxt
    m = meta("1m", c[-1])
    m["tradingPeriods"] = [[period(OPEN, CLOSE)]]
    quote = {"open": o, "high": h, "low": lo, "close": c, "volume": v}
    return {"chart": {"result": [{"meta": m, "timestamp": ts, "indicators": {"quote": [quote]}}], "error": None}}


def daily_payload() -> dict:
    days = ["2026-11-20", "2026-11-23", "2026-11-24", "2026-11-25", "2026-11-27"]
    closes = [6734.11, 6705.12, 6766.48, 6812.61, 6849.09]
    ts = [int(datetime.fromisoformat(d + "T14:30:00+00:00").timestamp()) for d in days]
    quote = {
        "open": [x - 10 for x in closes], "high": [x + 12 for x in closes], "low": [x - 25 for x in closes],
        "close": closes, "volume": [4100000000, 3900000000, 4300000000, 4000000000, 1290473000],
    }
    m = meta("1d", closes[-1])
    m["tradingPeriods"] = {"pre": [], "post": []}
    result = {"meta": m, "timestamp": ts, "indicators": {"quote": [quote], "adjclose": [{"adjclose": closes}]}}
    return {"chart": {"result": [result], "error": None}}


if __name__ == "__main__":
    (HERE / "chart_v8_GSPC_1m_2026-11-27.json").write_text(json.dumps(minute_payload(), indent=1) + "\n")
    (HERE / "chart_v8_GSPC_1d.json").write_text(json.dumps(daily_payload(), indent=1) + "\n")

"""A seat's own paper accounts, as its ask shows them (the paper's ask carries each model's account).

Read from the sealed ``mark`` lines only: for each league (``arena-3``, ``pro-1``) the latest mark
of the seat's account, sealed before the ask. A seat sees nothing of anyone else's account, and a
seat without a mark yet (its first session) is told it holds its starting cash.
"""

from __future__ import annotations

from typing import Any

from league.book.index import BookIndex

SHOWN = ("session", "capital", "cash", "value", "interest", "positions", "prices", "weights", "fees_total", "peak")


def seat_accounts(index: BookIndex, seat: str) -> dict[str, Any] | None:
    """``{league: {as_of, cash, value, positions, …}}`` from the latest mark per league, or ``None``."""
    latest: dict[str, dict[str, Any]] = {}
    for mark in index.of_kind("mark"):
        if mark.get("account") != seat:
            continue
        league = str(mark.get("league", ""))
        if league not in latest or mark["n"] > latest[league]["n"]:
            latest[league] = mark
    if not latest:
        return None
    return {league: {"as_of" if k == "session" else k: m.get(k) for k in SHOWN if k in m}
            for league, m in sorted(latest.items())}

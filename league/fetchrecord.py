"""The seat's fetch record as sealed with its answer (or incident/silence) line.

Paper requirement 17 ("fetch records"): every host a seat contacted through its egress proxy,
allowed or refused, is sealed with the line its run produced, in the order the proxy saw them.
A seat that ran without network has no proxy and so no ``fetches`` field at all.
"""

from __future__ import annotations

from typing import Any

from agents.base import SeatReply


def fetch_fields(reply: SeatReply) -> dict[str, Any]:
    """``{"fetches": [...]}`` for a seat that had network, else nothing."""
    if reply.fetches is None:
        return {}
    return {"fetches": [dict(f) for f in reply.fetches]}

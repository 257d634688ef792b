"""The arms' rules, pure (no I/O, no clock): run ids, the balanced order of the arms across days, the policy an
arm runs a seat under, its search status and the links it cited outside its packet (docs/experiments.md)."""

from __future__ import annotations

import hashlib
import itertools
from collections.abc import Iterable, Mapping, Sequence

from league.config import MarketSpec
from league.jsonvalue import Json
from league_agents.base import SeatSpec

#: How the order of the arms on a day is derived from the sealed seed (sealed in the ``arm_schedule`` line).
SCHEDULE_RULE = (
    "day k (k = 0 for the first session with arm runs, counted in the arms' book) uses block b = k // m! and "
    "position k % m! of the m! orders of the m arms, sorted by the SHA-256 hex of '<seed>:<b>:<order joined by />'; "
    "each block of m! days asks every order once")
REPEAT_KINDS = ("repeat_open", "repeat_packet")
#: The variants that ask the open question (the repeats of the counted ask, the extra reference runs): their
#: seats run as they run in the council, with the network policy of their roster entry.
OPEN_KINDS = ("repeat_open", "evening", "weekend_btc", "sunday_radar")


def run_id(session: str, arm: str, repeat: int = 0) -> str:
    """``2026-06-01-closed_book``, ``2026-06-01-repeat_open-2``: never a council run id (``…-r1``)."""
    return f"{session}-{arm}" if repeat == 0 else f"{session}-{arm}-{repeat}"


def day_order(seed: int, arms: Sequence[str], day_index: int) -> list[str]:
    """The order the arms are asked in on the ``day_index``-th arm day (:data:`SCHEDULE_RULE`): balanced
    across days, since every block of m! consecutive days uses each order once."""
    if day_index < 0:
        raise ValueError("day_index must be >= 0")
    orders = [list(o) for o in itertools.permutations(sorted(arms))]
    if not orders or not arms:
        return []
    block, position = divmod(day_index, len(orders))
    ranked = sorted(orders, key=lambda o: hashlib.sha256(f"{seed}:{block}:{'/'.join(o)}".encode()).hexdigest())
    return ranked[position]


def arm_spec(spec: SeatSpec, arm: str) -> SeatSpec:
    """The roster entry an arm runs a seat as. The closed-book and price-only arms (and the repeats of the
    closed-book question) never let a seat search: a seat on policy ``web`` runs on ``api`` (its model's
    endpoint and nothing else; the CLI adapters turn their own web tools off off ``web``) with no extra allowed
    host. The open question's repeats and the extra reference runs run as the seat runs in the council."""
    if arm in OPEN_KINDS or spec.network != "web":
        return spec
    return spec.model_copy(update={"network": "api", "allow": ()})


def search_status(spec: SeatSpec, fetches: Sequence[Mapping[str, object]] | None) -> str:
    """``verified``: retrieval blocked by the configuration (policy ``none``, or ``api`` with the CLI's web tools
    off) and the run's own egress record shows no other host tried; ``configured``: blocked by configuration but
    not verifiable (no egress record: a remote worker's run) or a refused attempt shows the seat tried;
    ``instruction_only``: the seat could reach the web and was only told not to search."""
    if spec.network == "web":
        return "instruction_only"
    if spec.network == "none":
        return "verified"
    if fetches is None or any(not f.get("allowed") for f in fetches):
        return "configured"
    return "verified"


def run_markets(markets: Sequence[MarketSpec], kind: str) -> list[MarketSpec]:
    """The markets a run asks about: bitcoin alone in the weekend runs (the one market that trades), else all."""
    return [m for m in markets if kind != "weekend_btc" or not m.daily]


def _norm(link: str) -> str:
    return link.strip().rstrip("/")


def cited_links(items: Mapping[str, Mapping[str, Mapping[str, Json]]]) -> list[str]:
    """Every link an answer cited (``source_urls`` of its cells), in order of appearance, once each."""
    seen: dict[str, None] = {}
    for market in items.values():
        for cell in market.values():
            urls = cell.get("source_urls")
            if isinstance(urls, list):
                for url in urls:
                    if isinstance(url, str) and url.strip():
                        seen.setdefault(url.strip(), None)
    return list(seen)


def outside_links(items: Mapping[str, Mapping[str, Mapping[str, Json]]], packet: Iterable[str]) -> list[str]:
    """The cited links that are not in the packet (a trailing slash aside): what the seat knew from elsewhere."""
    inside = {_norm(link) for link in packet}
    return [link for link in cited_links(items) if _norm(link) not in inside]

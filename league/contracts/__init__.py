"""Event contracts (docs/protocol.md §2): the nine keys that fix what a forecast is about.

Two leagues that write the same contract get the same id, so forecasts are pooled only when their
event ids are equal. The ids are computed exactly as the stand-alone ``league/verify/tools/conformance.py`` a
reader downloads computes them; a test keeps the two in agreement.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache
from pathlib import Path
from typing import Any

from league.errors import InvalidRecord
from league.isotime import iso_seconds, parse_iso

CONTRACT_KEYS = (
    "asset",
    "horizon",
    "reference_at",
    "end_at",
    "rule",
    "resolver_version",
    "reference_rule",
    "price_provider",
    "price_symbol",
)
V1_KEYS = CONTRACT_KEYS[:5]
RULE_UP = "close_strictly_above_reference"
RESOLVER_VERSION = "league-resolver-1"
HORIZONS = ("1d", "1w", "1m", "6m")
SCHEMA_PATH = Path(__file__).with_name("event-contract.schema.json")


def _id(prefix: str, obj: dict[str, Any]) -> str:
    text = json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return prefix + hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


@dataclass(frozen=True)
class EventContract:
    """The nine-key contract; validates on construction (times UTC ISO seconds, end after reference)."""

    asset: str
    horizon: str
    reference_at: str
    end_at: str
    rule: str
    resolver_version: str
    reference_rule: str
    price_provider: str
    price_symbol: str

    def __post_init__(self) -> None:
        for key in CONTRACT_KEYS:
            if not isinstance(getattr(self, key), str) or not getattr(self, key):
                raise InvalidRecord(f"event contract: `{key}` must be a non-empty string")
        if self.horizon not in HORIZONS:
            raise InvalidRecord(f"event contract: horizon {self.horizon!r} is not one of {HORIZONS}")
        ref, end = parse_iso(self.reference_at), parse_iso(self.end_at)
        if iso_seconds(ref) != self.reference_at or iso_seconds(end) != self.end_at:
            raise InvalidRecord("event contract: times must be UTC ISO-8601 with seconds, e.g. 2026-11-27T14:30:00Z")
        if end <= ref:
            raise InvalidRecord(f"event contract: end_at {self.end_at} is not after reference_at {self.reference_at}")

    @classmethod
    def make(
        cls,
        *,
        asset: str,
        horizon: str,
        reference_at: datetime,
        end_at: datetime,
        reference_rule: str,
        price_provider: str,
        price_symbol: str,
    ) -> EventContract:
        return cls(
            asset=asset,
            horizon=horizon,
            reference_at=iso_seconds(reference_at),
            end_at=iso_seconds(end_at),
            rule=RULE_UP,
            resolver_version=RESOLVER_VERSION,
            reference_rule=reference_rule,
            price_provider=price_provider,
            price_symbol=price_symbol,
        )

    @classmethod
    def from_mapping(cls, obj: Mapping[str, Any]) -> EventContract:
        """Read back a contract sealed as part of a larger object (its nine keys; others ignored)."""
        missing = [k for k in CONTRACT_KEYS if k not in obj]
        if missing:
            raise InvalidRecord(f"event contract: missing {missing}")
        return cls(**{k: obj[k] for k in CONTRACT_KEYS})

    def as_dict(self) -> dict[str, str]:
        """The nine keys in their order, as a new dict (what ``dataclasses.asdict`` gives for these str
        fields, without its recursive deep copy: the counting rule asks for it per cell)."""
        return {k: getattr(self, k) for k in CONTRACT_KEYS}

    @property
    def event_id(self) -> str:
        """v1: over the first five keys only (kept for comparison with older leagues)."""
        return _event_id_v1(self)

    @property
    def event_id_v2(self) -> str:
        return _event_id_v2(self)


#: A contract is immutable and its ids are pure functions of its keys; the counting rule asks for the same
#: few hundred contracts' ids once per cell (tens of thousands of times a season), so they are remembered.
@lru_cache(maxsize=8192)
def _event_id_v1(contract: EventContract) -> str:
    return _id("ev1-", {k: getattr(contract, k) for k in V1_KEYS})


@lru_cache(maxsize=8192)
def _event_id_v2(contract: EventContract) -> str:
    return _id("ev2-", contract.as_dict())


def event_ids(contract: dict[str, Any]) -> tuple[str, str]:
    """Both ids of a contract given as a plain mapping (as read back from a book or CSV)."""
    return _id("ev1-", {k: contract[k] for k in V1_KEYS}), _id("ev2-", {k: contract[k] for k in CONTRACT_KEYS})

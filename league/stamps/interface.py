"""The stamps port: put a book's head outside the operator's reach (docs/protocol.md §6).

A backend takes the bytes of a stamped list and returns an :class:`Artifact` (an RFC 3161 token,
a pending ``.ots`` proof, a Rekor entry) that is stored beside the list and published. Every
backend raises only :class:`StampError`, so the stamper can record a failure and carry on: a
failing authority never blocks sealing.
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field, field_validator

from league.errors import LeagueError
from league.jsonvalue import JsonObject

#: The file name of a stamped list under DATA/stamps/<day>/ (and public/proof/<day>/).
LIST_NAME = re.compile(r"^\d{6}Z(-\d+)?\.txt$")
BackendKind = Literal["rfc3161", "ots", "rekor"]
TrustLevel = Literal["1", "1+", "2 pending", "2", "2+ pending", "2+"]


class StampError(LeagueError):
    """A stamp could not be taken, upgraded or verified (network, authority, bad proof)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TsaEndpoint(_Frozen):
    """One RFC 3161 authority. ``ca_file`` holds its root (plus intermediates) so tokens can be
    verified and the chain published; without it a token is stored but cannot be checked."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]*$")
    url: str
    ca_file: Path | None = None
    cert_file: Path | None = None


class StampConfig(_Frozen):
    """What to stamp with; loaded by the integrator from ``league.toml`` ``[stamps]``."""

    tsa: tuple[TsaEndpoint, ...] = ()
    ots_calendars: tuple[str, ...] = ()
    rekor_url: str | None = None
    key_path: Path | None = None
    retries: int = Field(default=3, ge=1, le=10)
    retry_wait: float = Field(default=2.0, ge=0, le=60)
    timeout: float = Field(default=15.0, gt=0, le=300)

    @field_validator("tsa")
    @classmethod
    def _unique_names(cls, value: tuple[TsaEndpoint, ...]) -> tuple[TsaEndpoint, ...]:
        names = [t.name for t in value]
        if len(set(names)) != len(names):
            raise ValueError(f"two authorities share a name: {names}")
        return value

    @field_validator("rekor_url")
    @classmethod
    def _empty_is_none(cls, value: str | None) -> str | None:
        return value or None


class Artifact(_Frozen):
    """What one backend produced for one list: the bytes to store and the facts worth indexing."""

    kind: BackendKind
    name: str
    suffix: str = Field(pattern=r"^\.[A-Za-z0-9._-]+$")
    data: bytes
    signed_time: datetime | None = None
    log_index: int | None = None
    complete: bool = True
    detail: str = ""

    @field_validator("signed_time")
    @classmethod
    def _aware(cls, value: datetime | None) -> datetime | None:
        if value is not None and value.utcoffset() is None:
            raise ValueError("signed_time must be timezone-aware")
        return value


class BackendOutcome(_Frozen):
    """The record kept per backend per stamp (also what `league status` reports)."""

    kind: BackendKind
    name: str
    ok: bool
    attempts: int
    file: str = ""
    signed_time: str = ""
    log_index: int | None = None
    complete: bool = False
    verified: bool = False
    error: str = ""

    def as_json(self) -> JsonObject:
        return self.model_dump(mode="json")


@runtime_checkable
class StampBackend(Protocol):
    """One pluggable stamp service."""

    kind: BackendKind
    name: str

    def stamp(self, data: bytes) -> Artifact:
        """Stamp ``data`` (the list's bytes); raise :class:`StampError` on any failure."""
        ...


def trust_level(*, ots_complete: bool, ots_pending: bool, signed_times: int) -> TrustLevel:
    """The level reached (docs/protocol.md §6): 2 needs a Bitcoin anchor, the ``+`` a third-party signed time.

    ``pending`` says the ``.ots`` proof is at the calendars but not yet in a block: the level is
    promised, not reached, and the upgrade job settles it.
    """
    plus = signed_times > 0
    if ots_complete:
        return "2+" if plus else "2"
    if ots_pending:
        return "2+ pending" if plus else "2 pending"
    return "1+" if plus else "1"

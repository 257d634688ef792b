"""OpenTimestamps through the ``opentimestamps`` library (level 2 of docs/protocol.md §6).

Stamping submits a nonce-blinded commitment to every configured calendar and stores the merged
*pending* ``.ots``; the upgrade job later asks each pending calendar for the path to a Bitcoin
block; :func:`verify_ots` checks a complete proof offline against a block header the reader
supplies (height, merkle root, time) — no node and no network needed for the check itself.

The library talks HTTP through ``urllib``; every library exception is turned into
:class:`StampError` here so the stamper can record it and carry on.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

from bitcoin.core import CBlockHeader
from opentimestamps.calendar import RemoteCalendar
from opentimestamps.core.notary import (
    BitcoinBlockHeaderAttestation,
    PendingAttestation,
    TimeAttestation,
    VerificationError,
)
from opentimestamps.core.op import OpAppend, OpSHA256
from opentimestamps.core.serialize import (
    BytesDeserializationContext,
    BytesSerializationContext,
    DeserializationError,
)
from opentimestamps.core.timestamp import DetachedTimestampFile, Timestamp

from league.stamps.interface import Artifact, BackendKind, StampError

USER_AGENT = "forecast-league"


@dataclass(frozen=True)
class BlockHeaderFact:
    """A Bitcoin block header's two facts an attestation needs; ``merkle_root`` in display order
    (as block explorers print it), which is the byte-reverse of the header's internal order."""

    height: int
    merkle_root: str
    time: int

    def header(self) -> CBlockHeader:
        return CBlockHeader(hashMerkleRoot=bytes.fromhex(self.merkle_root)[::-1], nTime=self.time)


@dataclass(frozen=True)
class OtsVerdict:
    """What a proof says about a file: verified blocks, blocks we had no header for, pending calendars."""

    digest_hex: str
    verified: tuple[tuple[int, datetime], ...] = ()
    unchecked_heights: tuple[int, ...] = ()
    pending: tuple[str, ...] = ()
    other: tuple[str, ...] = field(default=())

    @property
    def complete(self) -> bool:
        return bool(self.verified or self.unchecked_heights)


def load_headers(path: Path) -> dict[int, BlockHeaderFact]:
    """Read ``[{"height": …, "merkle_root": …, "time": …}, …]`` (a reader's own copy of headers)."""
    try:
        rows = json.loads(path.read_text(encoding="utf-8"))
        facts = [BlockHeaderFact(int(r["height"]), str(r["merkle_root"]), int(r["time"])) for r in rows]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise StampError(f"block headers file {path} is unreadable ({exc})") from exc
    return {f.height: f for f in facts}


def parse_ots(raw: bytes) -> DetachedTimestampFile:
    """Deserialize a ``.ots`` file; a truncated or corrupt file gives a StampError naming the problem."""
    if not raw:
        raise StampError("the .ots file is empty")
    try:
        return DetachedTimestampFile.deserialize(BytesDeserializationContext(raw))
    except (DeserializationError, ValueError, TypeError, IndexError, KeyError, EOFError) as exc:
        raise StampError(f"not a valid .ots proof ({exc.__class__.__name__}: {exc})") from exc
    except Exception as exc:  # the library raises bare subclasses of Exception for bad versions
        raise StampError(f"not a valid .ots proof ({exc.__class__.__name__}: {exc})") from exc


def serialize_ots(proof: DetachedTimestampFile) -> bytes:
    ctx = BytesSerializationContext()
    proof.serialize(ctx)
    return bytes(ctx.getbytes())


def _attestations(ts: Timestamp) -> Iterator[tuple[bytes, TimeAttestation]]:
    yield from ts.all_attestations()


def verify_ots(raw: bytes, data: bytes, headers: Mapping[int, BlockHeaderFact] | None = None) -> OtsVerdict:
    """Check that the proof is for ``data`` and each Bitcoin attestation against the given headers."""
    proof = parse_ots(raw)
    digest = hashlib.sha256(data).digest()
    if not isinstance(proof.file_hash_op, OpSHA256):
        raise StampError(f"the .ots proof uses {proof.file_hash_op}, expected sha256")
    if proof.file_digest != digest:
        raise StampError(
            f"the .ots proof is for digest {proof.file_digest.hex()}, the file hashes to {digest.hex()}"
        )
    return _verdict(proof.timestamp, digest.hex(), headers or {})


def _verdict(ts: Timestamp, digest_hex: str, headers: Mapping[int, BlockHeaderFact]) -> OtsVerdict:
    verified: list[tuple[int, datetime]] = []
    unchecked: list[int] = []
    pending: list[str] = []
    other: list[str] = []
    for msg, att in _attestations(ts):
        if isinstance(att, BitcoinBlockHeaderAttestation):
            if att.height in headers:
                verified.append((att.height, _check_block(msg, att, headers[att.height])))
            else:
                unchecked.append(att.height)
        elif isinstance(att, PendingAttestation):
            pending.append(att.uri)
        else:
            other.append(repr(att))
    return OtsVerdict(digest_hex, tuple(sorted(verified)), tuple(sorted(set(unchecked))),
                      tuple(sorted(set(pending))), tuple(other))


def _check_block(msg: bytes, att: BitcoinBlockHeaderAttestation, fact: BlockHeaderFact) -> datetime:
    try:
        n_time = att.verify_against_blockheader(msg, fact.header())
    except VerificationError as exc:
        raise StampError(
            f"Bitcoin attestation at block {att.height} does not match the merkle root "
            f"{fact.merkle_root} ({exc}); the proof commits to {msg[::-1].hex()}"
        ) from exc
    return datetime.fromtimestamp(int(n_time), UTC)


class OtsBackend:
    """Submit to calendars, merge the answers, upgrade pending proofs later."""

    kind: BackendKind = "ots"
    name = "ots"

    def __init__(self, calendars: tuple[str, ...] | list[str], *, timeout: float = 15.0) -> None:
        if not calendars:
            raise StampError("no OpenTimestamps calendars configured", fix="set [stamps] ots_calendars")
        self.calendars = tuple(calendars)
        self.timeout = timeout

    def stamp(self, data: bytes) -> Artifact:
        """A pending proof committed at every calendar that answered (at least one must)."""
        proof = DetachedTimestampFile(OpSHA256(), Timestamp(hashlib.sha256(data).digest()))
        blinded = proof.timestamp.ops.add(OpAppend(os.urandom(16)))
        commitment = blinded.ops.add(OpSHA256())
        failures = []
        for url in self.calendars:
            try:
                commitment.merge(self._calendar(url).submit(commitment.msg, timeout=self.timeout))
            except Exception as exc:  # urllib, HTTP and parse errors all mean "this calendar failed"
                failures.append(f"{url}: {exc.__class__.__name__}: {exc}")
        if len(failures) == len(self.calendars):
            raise StampError("no OpenTimestamps calendar accepted the digest: " + "; ".join(failures))
        detail = "pending at " + ", ".join(u for u in self.calendars if not any(f.startswith(u) for f in failures))
        if failures:
            detail += "; failed: " + "; ".join(failures)
        return Artifact(kind="ots", name="ots", suffix=".ots", data=serialize_ots(proof), complete=False,
                        detail=detail)

    def _calendar(self, url: str) -> RemoteCalendar:
        return RemoteCalendar(url if url.endswith("/") else url + "/", user_agent=USER_AGENT)

    def upgrade(self, raw: bytes) -> tuple[bytes, bool]:
        """Ask each pending calendar for its path to a block; returns (new bytes, complete?)."""
        proof = parse_ots(raw)
        changed = False
        for sub in list(_pending_stamps(proof.timestamp)):
            for att in [a for a in sub.attestations if isinstance(a, PendingAttestation)]:
                changed |= self._upgrade_one(sub, att.uri)
        complete = any(isinstance(a, BitcoinBlockHeaderAttestation) for _, a in proof.timestamp.all_attestations())
        return (serialize_ots(proof) if changed else raw), complete

    def _upgrade_one(self, sub: Timestamp, uri: str) -> bool:
        if uri.rstrip("/") not in {c.rstrip("/") for c in self.calendars}:
            return False  # only ask calendars the operator configured, never a URI read from a file
        try:
            sub.merge(self._calendar(uri).get_timestamp(sub.msg, timeout=self.timeout))
        except Exception as exc:  # noqa: BLE001 - 404 "not yet" and network errors: try again next run
            raise_if_corrupt(exc)
            return False
        return True


def raise_if_corrupt(exc: Exception) -> None:
    """A calendar answering garbage is worth an error; "not found yet" or a timeout is not."""
    if isinstance(exc, DeserializationError):
        raise StampError(f"a calendar answered with an invalid timestamp ({exc})") from exc


def _pending_stamps(ts: Timestamp) -> Iterator[Timestamp]:
    if any(isinstance(a, PendingAttestation) for a in ts.attestations):
        yield ts
    for sub in ts.ops.values():
        yield from _pending_stamps(sub)


class OtsSummary(TypedDict):
    """What :func:`describe` says of a proof."""

    file_sha256: str
    bitcoin_blocks: list[int]
    pending: list[str]


def describe(raw: bytes) -> OtsSummary:
    """A short JSON-able summary of a proof (``ots info`` in one dict), for status and proof pages."""
    proof = parse_ots(raw)
    atts = [a for _, a in proof.timestamp.all_attestations()]
    return {
        "file_sha256": proof.file_digest.hex(),
        "bitcoin_blocks": sorted({a.height for a in atts if isinstance(a, BitcoinBlockHeaderAttestation)}),
        "pending": sorted({a.uri for a in atts if isinstance(a, PendingAttestation)}),
    }

"""Blind seasons (paper requirement 1): seat identities sealed as commitments until the reveal (pure).

In a blind season nobody — readers, seats, the operator's own public pages — sees which model sits
behind which seat until the season ends. Before the first ask the book seals, per seat, only

    identity_sha256 = SHA-256( salt ‖ model ‖ 0x00 ‖ version ‖ 0x00 ‖ mode )

(``salt``: 32 random bytes per seat, kept private by the operator; the strings UTF-8; 0x00 separates
them so no two identities share an encoding). Answer lines carry ``blind`` for model, version and
mode. The reveal line publishes each seat's salt, model, version and mode: anyone recomputes the hash
and compares it with the commitment sealed before the season (``league verify``, step 5). The salt
keeps a short list of candidate models from being hashed and matched before the reveal.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence

SEP = b"\x00"
SALT_BYTES = 32
RULE = "sha256(salt || model || 0x00 || version || 0x00 || mode), salt = 32 bytes given in hex at the reveal"
#: What a blind answer line says instead of the seat's model, version and mode.
MASK = "blind"


def identity_sha256(salt: bytes, model: str, version: str, mode: str) -> str:
    """The commitment to one seat's identity."""
    return hashlib.sha256(salt + model.encode() + SEP + version.encode() + SEP + mode.encode()).hexdigest()


def reveal_problems(committed: Sequence[Mapping[str, object]], revealed: Sequence[Mapping[str, object]]) -> list[str]:
    """Every way the reveal fails its commitment: a seat missing either side, a bad salt, a hash that differs."""
    want = {str(c.get("seat")): str(c.get("identity_sha256")) for c in committed}
    got = {str(r.get("seat")): r for r in revealed}
    problems = [f"seat {s}: committed but not revealed" for s in sorted(set(want) - set(got))]
    problems += [f"seat {s}: revealed but never committed" for s in sorted(set(got) - set(want))]
    for seat in sorted(set(want) & set(got)):
        r = got[seat]
        try:
            salt = bytes.fromhex(str(r.get("salt")))
        except ValueError:
            problems.append(f"seat {seat}: salt is not hex")
            continue
        h = identity_sha256(salt, str(r.get("model")), str(r.get("version")), str(r.get("mode")))
        if h != want[seat]:
            problems.append(f"seat {seat}: salt, model, version and mode hash to {h}, the commitment is {want[seat]}")
    return problems

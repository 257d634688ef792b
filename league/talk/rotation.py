"""Who chairs each week, and the letters the chair reads the seats under. Pure: no I/O, no clock.

Both rules are a seeded SHA-256 ordering, so anyone holding the seed and the seat list recomputes them with
``hashlib`` alone; the seed is sealed before the season's first talk, and each week's letter map is sealed
(by its SHA-256, :func:`letter_map_sha256`) before the chair is asked, so neither can be chosen after seeing
a reply.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

from league.talk import TalkError

ROTATION_RULE = (
    "Week index w (0 for the track's first week) falls in block b = w // n at position i = w % n, n being the "
    "number of seats. Block b's order is the seats sorted by the SHA-256 hex digest (UTF-8) of "
    "'{seed}:{b}:{seat}', ties by seat id; the chair of week w is the seat at position i of that order, so "
    "every block of n weeks gives the chair to every seat once."
)
LETTER_RULE = (
    "For week W the seats are sorted by the SHA-256 hex digest (UTF-8) of '{seed}:{W}:{seat}', ties by seat id; "
    "the first gets letter A, then B ... Z, AA, AB ... (bijective base 26). The map seat -> letter is sealed as "
    "the SHA-256 hex digest of its JSON with sorted keys, separators (',', ':') and ASCII escapes."
)


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _checked(seats: Sequence[str]) -> list[str]:
    """The seats as given, refused when empty, blank or repeated (a repeated seat would chair twice a block)."""
    listed = list(seats)
    if not listed:
        raise TalkError("the council talk needs at least one seat", fix="pass the council's seat ids")
    if any(not s for s in listed):
        raise TalkError("a seat id is empty", fix="pass the council's seat ids")
    if len(set(listed)) != len(listed):
        raise TalkError(f"seat ids repeat: {sorted(listed)}", fix="pass each seat once")
    return listed


def block_order(seed: int, seats: Sequence[str], block: int) -> list[str]:
    """The chairs of block ``block``, in week order (:data:`ROTATION_RULE`)."""
    listed = _checked(seats)
    return sorted(listed, key=lambda seat: (_digest(f"{seed}:{block}:{seat}"), seat))


def chair_for(seed: int, seats: Sequence[str], week_index: int) -> str:
    """The chair of week ``week_index`` (0 for the track's first week) by :data:`ROTATION_RULE`.

    Balanced by blocks rather than drawn each week so that over any whole block every seat chairs exactly
    once: no seat's view weighs more in the council portfolios because the draw favoured it."""
    if week_index < 0:
        raise TalkError(f"week index {week_index} is negative", fix="count weeks from 0")
    listed = _checked(seats)
    block, position = divmod(week_index, len(listed))
    return block_order(seed, listed, block)[position]


def letter(index: int) -> str:
    """0 -> A, 25 -> Z, 26 -> AA, 27 -> AB, 701 -> ZZ, 702 -> AAA (bijective base 26)."""
    if index < 0:
        raise TalkError(f"letter index {index} is negative")
    out = ""
    n = index + 1
    while n:
        n, rest = divmod(n - 1, 26)
        out = chr(ord("A") + rest) + out
    return out


def letter_map(seed: int, week: str, seats: Sequence[str]) -> dict[str, str]:
    """seat -> letter for week ``week`` by :data:`LETTER_RULE`, in letter order.

    A new permutation each week so that a letter does not follow a seat from week to week (a chair could
    otherwise learn who B is from the portfolios' style over a season)."""
    if not week:
        raise TalkError("the week label is empty")
    listed = _checked(seats)
    order = sorted(listed, key=lambda seat: (_digest(f"{seed}:{week}:{seat}"), seat))
    return {seat: letter(i) for i, seat in enumerate(order)}


def canonical_json(value: Mapping[str, str]) -> str:
    """The letter map's canonical JSON: sorted keys, no spaces, ASCII escapes."""
    return json.dumps(dict(value), sort_keys=True, separators=(",", ":"))


def letter_map_sha256(mapping: Mapping[str, str]) -> str:
    """SHA-256 hex digest of the map's canonical JSON, sealed before the chair's ask and checked at reveal."""
    return _digest(canonical_json(mapping))

"""Who chairs each week, and the letters the chair reads the seats under. Pure: no I/O, no clock.

Both rules are a seeded SHA-256 ordering, so anyone holding the seed and the seat list recomputes them with
``hashlib`` alone. The chairs' seed is sealed (in clear) before the season's first talk: who chairs is no secret.
Each week's letters come from a salt of their own, kept private until the week is over; before the chair is
asked only a commitment is sealed (:func:`letter_commitment`: the SHA-256 of the map, the week and the salt),
which hides the map (without the salt, a hash of the map alone could be found by trying the few permutations)
and binds it: the revealed map and salt must give the sealed digest.
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
    "For week W with salt S (the week's secret, revealed with its map) the seats are sorted by the SHA-256 hex "
    "digest (UTF-8) of '{S}:{W}:{seat}', ties by seat id; the first gets letter A, then B ... Z, AA, AB ... "
    "(bijective base 26). Before the chair is asked, the week seals the SHA-256 hex digest of the JSON "
    "{\"letters\": map, \"salt\": S, \"week\": W} with sorted keys, separators (',', ':') and ASCII escapes."
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


def letter_map(seed: int | str, week: str, seats: Sequence[str]) -> dict[str, str]:
    """seat -> letter for week ``week`` under salt ``seed`` by :data:`LETTER_RULE`, in letter order.

    A new permutation each week so that a letter does not follow a seat from week to week (a chair could
    otherwise learn who B is from the portfolios' style over a season)."""
    if not week:
        raise TalkError("the week label is empty")
    listed = _checked(seats)
    order = sorted(listed, key=lambda seat: (_digest(f"{seed}:{week}:{seat}"), seat))
    return {seat: letter(i) for i, seat in enumerate(order)}


def canonical_json(value: Mapping[str, object]) -> str:
    """Canonical JSON: sorted keys, no spaces, ASCII escapes."""
    return json.dumps(dict(value), sort_keys=True, separators=(",", ":"))


def letter_commitment(week: str, mapping: Mapping[str, str], salt: str) -> str:
    """SHA-256 hex digest of ``{"letters": map, "salt": salt, "week": week}`` in canonical JSON: sealed before the
    chair's ask, checked when the map and its salt are revealed (:data:`LETTER_RULE`)."""
    if not salt:
        raise TalkError("a letter commitment needs the week's salt")
    return _digest(canonical_json({"letters": dict(mapping), "salt": salt, "week": week}))

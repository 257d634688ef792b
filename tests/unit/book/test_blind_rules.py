"""The reveal check of a blind season, on hand-made commitments (league/blind.py)."""

from __future__ import annotations

import hashlib

from league.blind import identity_sha256, reveal_problems

SALT = bytes(range(32))


def test_identity_hash_by_hand() -> None:
    raw = SALT + b"claude-x" + b"\x00" + b"2026-01" + b"\x00" + b"max"
    assert identity_sha256(SALT, "claude-x", "2026-01", "max") == hashlib.sha256(raw).hexdigest()
    # the separators keep ("ab", "c") and ("a", "bc") apart
    assert identity_sha256(SALT, "ab", "c", "m") != identity_sha256(SALT, "a", "bc", "m")


def test_a_reveal_that_differs_names_the_seat() -> None:
    committed = [{"seat": "s1", "identity_sha256": identity_sha256(SALT, "m", "v", "x")},
                 {"seat": "s2", "identity_sha256": identity_sha256(SALT, "n", "v", "x")}]
    good = [{"seat": "s1", "salt": SALT.hex(), "model": "m", "version": "v", "mode": "x"},
            {"seat": "s2", "salt": SALT.hex(), "model": "n", "version": "v", "mode": "x"}]
    assert reveal_problems(committed, good) == []
    swapped = [{**good[0], "model": "n"}, {**good[1], "model": "m"}]
    problems = reveal_problems(committed, swapped)
    assert len(problems) == 2 and problems[0].startswith("seat s1: salt, model, version and mode hash to")
    assert reveal_problems(committed, good[:1]) == ["seat s2: committed but not revealed"]
    assert reveal_problems(committed, [*good, {**good[0], "seat": "s3"}]) == ["seat s3: revealed but never committed"]
    assert reveal_problems(committed[:1], [{**good[0], "salt": "zz"}]) == ["seat s1: salt is not hex"]

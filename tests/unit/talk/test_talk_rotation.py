"""The chair's rotation and the week's letters (league/talk/rotation.py), recomputed by hand with hashlib."""

from __future__ import annotations

import hashlib

import pytest

from league.talk import TalkError
from league.talk.rotation import chair_for, letter, letter_commitment, letter_map

SEATS = ["alpha", "bravo", "charlie", "delta"]


def test_rotation_over_two_blocks_gives_every_seat_the_chair_once_per_block() -> None:
    # seed 7, SHA-256 of "7:{block}:{seat}" (first hex digits):
    #   block 0: alpha 92dcad, bravo 16221e, charlie dcd98c, delta 88da04 -> bravo, delta, alpha, charlie
    #   block 1: alpha 85335b, bravo c90ded, charlie 818b6b, delta b9d608 -> charlie, alpha, delta, bravo
    chairs = [chair_for(7, SEATS, w) for w in range(8)]
    assert chairs == ["bravo", "delta", "alpha", "charlie", "charlie", "alpha", "delta", "bravo"]
    assert sorted(chairs[:4]) == SEATS and sorted(chairs[4:]) == SEATS


def test_rotation_does_not_depend_on_the_order_the_seats_are_listed() -> None:
    assert [chair_for(7, list(reversed(SEATS)), w) for w in range(4)] == ["bravo", "delta", "alpha", "charlie"]


def test_rotation_refuses_no_seats_repeated_seats_and_a_negative_week() -> None:
    with pytest.raises(TalkError):
        chair_for(7, [], 0)
    with pytest.raises(TalkError):
        chair_for(7, ["alpha", "alpha"], 0)
    with pytest.raises(TalkError):
        chair_for(7, SEATS, -1)


def test_letters_run_a_to_z_then_aa() -> None:
    assert [letter(i) for i in (0, 1, 25, 26, 27, 51, 52, 701, 702)] == [
        "A", "B", "Z", "AA", "AB", "AZ", "BA", "ZZ", "AAA"]


def test_letter_map_is_the_hashlib_order_a_reader_recomputes() -> None:
    # SHA-256 of "7:2026-W49:{seat}": alpha 6cdc57, bravo 80e036, charlie d872e7, delta 3823ca
    # -> delta A, alpha B, bravo C, charlie D
    expected = {"delta": "A", "alpha": "B", "bravo": "C", "charlie": "D"}
    assert letter_map(7, "2026-W49", SEATS) == expected
    by_hand = sorted(SEATS, key=lambda s: hashlib.sha256(f"7:2026-W49:{s}".encode()).hexdigest())
    assert by_hand == ["delta", "alpha", "bravo", "charlie"]
    # next week, "7:2026-W50:{seat}" orders them charlie, alpha, delta, bravo: a new permutation
    assert letter_map(7, "2026-W50", SEATS) == {"charlie": "A", "alpha": "B", "delta": "C", "bravo": "D"}


def test_letter_commitment_is_sha256_of_the_canonical_json_with_week_and_salt() -> None:
    mapping = {"delta": "A", "alpha": "B", "bravo": "C", "charlie": "D"}
    canonical = '{"letters":{"alpha":"B","bravo":"C","charlie":"D","delta":"A"},"salt":"s1","week":"2026-W49"}'
    assert letter_commitment("2026-W49", mapping, "s1") == hashlib.sha256(canonical.encode()).hexdigest()
    assert letter_commitment("2026-W49", {"alpha": "A"}, "s1") != letter_commitment("2026-W49", {"alpha": "B"}, "s1")
    # the salt hides the map: the same map under another salt gives another digest
    assert letter_commitment("2026-W49", mapping, "s1") != letter_commitment("2026-W49", mapping, "s2")

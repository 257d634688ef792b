"""What of the contest book may leave while agents work: bets of a running round, replies of an unsealed sweep."""

from __future__ import annotations

import json

from league.contest.embargo import released_bytes, released_prefix


def raw(kind: str, **content: object) -> bytes:
    return json.dumps({"kind": kind, **content}).encode()


def test_a_bet_is_held_until_its_round_closes_and_holds_every_later_line() -> None:
    lines = [raw("contest.round.open", round_id=1), raw("contest.bet", round_id=1, agent="a"),
             raw("contest.seen", market_ids=["x"])]
    assert released_prefix(lines) == 1  # the seen line waits behind the held bet: numbers stay contiguous
    assert released_prefix([*lines, raw("contest.round.closed", round_id=1)]) == 4


def test_a_void_round_releases_its_bets_and_another_rounds_end_does_not() -> None:
    lines = [raw("contest.bet", round_id=2, agent="a"), raw("contest.round.closed", round_id=1)]
    assert released_prefix(lines) == 0
    assert released_prefix([*lines, raw("contest.round.void", round_id=2)]) == 3


def test_a_sweep_reply_is_held_until_that_dates_sweep_is_sealed() -> None:
    lines = [raw("contest.sweep.open", date="2026-12-07"), raw("contest.sweep.reply", date="2026-12-07", agent="a")]
    assert released_prefix(lines) == 1
    assert released_prefix([*lines, raw("contest.sweep.sealed", date="2026-12-06")]) == 1
    assert released_prefix([*lines, raw("contest.sweep.sealed", date="2026-12-07")]) == 3


def test_released_bytes_is_a_prefix_of_whole_lines() -> None:
    data = b"".join(line + b"\n" for line in [raw("contest.seen"), raw("contest.forfeit", round_id=5)])
    assert released_bytes(data) == raw("contest.seen") + b"\n"
    assert released_bytes(b"") == b""

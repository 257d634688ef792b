"""One uid per seat: stable per seat name, the same in every league process."""

from __future__ import annotations

import hashlib

import pytest

from sandbox.identity import ANONYMOUS, UidTable, uid_range
from sandbox.interface import SandboxError


def expected(name: str, first: int = 61000, count: int = 1000) -> int:
    """The documented rule, written out independently: first + sha256(name)[:8] as an integer, mod count."""
    return first + int(hashlib.sha256(name.encode()).hexdigest()[:16], 16) % count


def test_uid_is_the_documented_hash_of_the_seat_name() -> None:
    table = UidTable(61000, 1000)
    for name in ("claude-max", "codex", "_coin", "gemini.pro"):
        assert table.uid(name) == expected(name)


def test_two_processes_agree_and_two_seats_differ() -> None:
    """The daemon and a by-hand `league run ask` each build their own table: same seat, same uid."""
    daemon, by_hand = UidTable(61000, 1000), UidTable(61000, 1000)
    assert daemon.uid("codex") == by_hand.uid("codex")
    assert by_hand.uid("claude") != by_hand.uid("codex")
    # the order of first use does not matter when nothing collides
    assert daemon.uid("claude") == by_hand.uid("claude")


def test_collisions_resolve_the_same_way_in_every_process() -> None:
    first, count = 70000, 5
    names = [f"seat{i}" for i in range(40)]
    a = next(n for n in names if expected(n, first, count) == expected(names[0], first, count) and n != names[0])
    roster = [names[0], a, "zeta"]
    one, two = UidTable(first, count), UidTable(first, count)
    got_one = one.reserve(roster)
    got_two = two.reserve(list(reversed(roster)))
    assert got_one == got_two
    seats = [got_one[n] for n in roster]
    assert len(set(seats)) == 3  # three seats, three uids, even though two hash to the same one


def test_full_range_is_a_clear_error() -> None:
    table = UidTable(70000, 2)
    table.uid("a")
    table.uid("b")
    with pytest.raises(SandboxError, match="is full"):
        table.uid("c")


def test_reserve_includes_the_anonymous_runs() -> None:
    assert ANONYMOUS in UidTable(61000, 1000).reserve(["a"])


@pytest.mark.parametrize("spec", ["61000", "abc-def", "100-200", "62000-61000", "61000-4294967295"])
def test_bad_uid_ranges_are_refused(spec: str) -> None:
    with pytest.raises(SandboxError, match="LEAGUE_SEAT_UIDS"):
        uid_range(spec)


def test_uid_range_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEAGUE_SEAT_UIDS", "50000-50099")
    assert uid_range() == (50000, 100)
    monkeypatch.delenv("LEAGUE_SEAT_UIDS")
    assert uid_range() == (61000, 1000)

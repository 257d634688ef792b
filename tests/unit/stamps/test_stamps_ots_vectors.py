"""OpenTimestamps parsing and offline verification with the upstream test vectors (tests/assets/stamps/ots)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.stamps.interface import StampError
from league.stamps.ots import BlockHeaderFact, describe, load_headers, parse_ots, verify_ots

OTS = Path(__file__).resolve().parents[2] / "assets" / "stamps" / "ots"
# Bitcoin block 358391's merkle root as block explorers print it (display order) and its header time
# (vendors.md: 8a1b66ec…e47e00, nTime 1432827678; the upstream README: "block 358391 attests existence
# as of 2015-05-28"). No network here, so the middle digits are the proof's own claim.
BLOCK_358391 = BlockHeaderFact(358391, "8a1b66ecb7cbd07d8139a7e7d7f2c41aab1f5009b8364aaf61d03ad245e47e00", 1432827678)


def read(name: str) -> bytes:
    return (OTS / name).read_bytes()


def test_display_order_root_is_the_published_one() -> None:
    assert BLOCK_358391.merkle_root.startswith("8a1b66ec") and BLOCK_358391.merkle_root.endswith("e47e00")


def test_hello_world_verifies_against_block_358391() -> None:
    verdict = verify_ots(read("hello-world.txt.ots"), read("hello-world.txt"), {358391: BLOCK_358391})
    assert verdict.verified == ((358391, datetime(2015, 5, 28, 15, 41, 18, tzinfo=UTC)),)
    assert verdict.digest_hex == hashlib.sha256(b"Hello World!\n").hexdigest()
    assert verdict.pending == ()


def test_hello_world_without_header_is_complete_but_unchecked() -> None:
    verdict = verify_ots(read("hello-world.txt.ots"), read("hello-world.txt"))
    assert verdict.complete and verdict.verified == () and verdict.unchecked_heights == (358391,)


def test_wrong_merkle_root_is_refused() -> None:
    wrong = BlockHeaderFact(358391, "00" * 32, 1432827678)
    with pytest.raises(StampError, match="does not match the merkle root"):
        verify_ots(read("hello-world.txt.ots"), read("hello-world.txt"), {358391: wrong})


def test_other_file_is_refused() -> None:
    with pytest.raises(StampError, match="the file hashes to"):
        verify_ots(read("hello-world.txt.ots"), b"Hello World?\n", {358391: BLOCK_358391})


def test_bad_stamp_fails_block_header_validation() -> None:
    """Upstream: "well-formatted, but will fail Bitcoin block header validation" (claims block 358391)."""
    assert verify_ots(read("bad-stamp.txt.ots"), read("bad-stamp.txt")).unchecked_heights == (358391,)
    with pytest.raises(StampError, match="block 358391 does not match the merkle root"):
        verify_ots(read("bad-stamp.txt.ots"), read("bad-stamp.txt"), {358391: BLOCK_358391})


@pytest.mark.parametrize(
    ("name", "calendars"),
    [
        ("incomplete.txt", ["https://alice.btc.calendar.opentimestamps.org"]),
        ("two-calendars.txt", ["https://alice.btc.calendar.opentimestamps.org",
                               "https://bob.btc.calendar.opentimestamps.org"]),
    ],
)
def test_pending_proofs_name_their_calendars(name: str, calendars: list[str]) -> None:
    verdict = verify_ots(read(name + ".ots"), read(name))
    assert list(verdict.pending) == calendars and not verdict.complete


def test_empty_file_proof_names_its_block() -> None:
    verdict = verify_ots(read("empty.ots"), b"")
    assert verdict.unchecked_heights == (129405,)
    assert describe(read("empty.ots"))["file_sha256"] == hashlib.sha256(b"").hexdigest()


@pytest.mark.parametrize("name", ["invalid/bad-major-version.ots", "invalid/exceeds-max-msg-length.ots",
                                  "invalid/invalid-file-digest-type.ots"])
def test_invalid_vectors_give_a_clear_error(name: str) -> None:
    with pytest.raises(StampError, match="not a valid .ots proof"):
        parse_ots(read(name))


@pytest.mark.parametrize("cut", [0, 1, 10, 31, 100, 687])
def test_truncated_proof_gives_a_clear_error(cut: int) -> None:
    with pytest.raises(StampError):
        verify_ots(read("hello-world.txt.ots")[:cut], read("hello-world.txt"))


def test_headers_file_round_trip(tmp_path: Path) -> None:
    f = tmp_path / "headers.json"
    f.write_text(f'[{{"height": 358391, "merkle_root": "{BLOCK_358391.merkle_root}", "time": 1432827678}}]')
    assert load_headers(f) == {358391: BLOCK_358391}
    f.write_text("not json")
    with pytest.raises(StampError, match="unreadable"):
        load_headers(f)

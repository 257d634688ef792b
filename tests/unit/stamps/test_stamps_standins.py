"""The demo's local calendar and Rekor stand-ins speak the real formats the league's backends read."""

from __future__ import annotations

import hashlib
import socket
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from league.stamps.interface import StampError
from league.stamps.ots import OtsBackend, verify_ots
from league.stamps.rekor import RekorBackend, generate_signing_key, leaf_hash, root_from_inclusion, verify_entry
from league.stamps.standins import LOCAL_LOG_ID, LocalCalendar, LocalRekor, audit_path, tree_root

DATA = b"council-book.jsonl: 3 lines, sha256 ab, last link cd\n"
WHEN = datetime(2026, 11, 24, 14, 0, tzinfo=UTC)


@pytest.mark.parametrize("size", range(1, 10))
def test_every_audit_path_leads_to_the_root(size: int) -> None:
    leaves = [leaf_hash(bytes([i])) for i in range(size)]
    for index in range(size):
        assert root_from_inclusion(index, size, leaves[index], audit_path(index, leaves)) == tree_root(leaves)


def test_two_leaf_root_by_hand() -> None:
    a, b = leaf_hash(b"a"), leaf_hash(b"b")
    assert tree_root([a, b]) == hashlib.sha256(b"\x01" + a + b).digest()


def test_rekor_stand_in_entries_verify_offline(tmp_path: Path) -> None:
    key = tmp_path / "k.pem"
    generate_signing_key(key)
    log = LocalRekor(lambda: WHEN)
    with log.serve() as url:
        backend = RekorBackend(url, key)
        arts = [backend.stamp(DATA + bytes([i])) for i in range(3)]
    assert [a.log_index for a in arts] == [0, 1, 2] and arts[2].signed_time == WHEN
    from league.stamps.rekor import parse_response

    entry = parse_response(__import__("json").loads(arts[1].data))
    assert entry.log_id == LOCAL_LOG_ID and entry.inclusion and entry.inclusion["treeSize"] == 2
    assert "logIndex 1" in verify_entry(entry, DATA + b"\x01", key.with_name("k.pub.pem").read_bytes())
    with pytest.raises(StampError, match="logs sha256"):
        verify_entry(entry, DATA, None)


def test_calendar_stand_in_gives_pending_proofs_for_the_digest() -> None:
    cal = LocalCalendar()
    with cal.serve() as url:
        art = OtsBackend((url,)).stamp(DATA)
    result = verify_ots(art.data, DATA, {})
    assert not result.complete and cal.submitted


def test_a_stopped_stand_in_leaves_no_thread_behind() -> None:
    """A client still connected (here one that never sends its request) does not keep a thread alive after the
    stand-in stops: the demo's parent forks to publish only while it runs no other thread."""
    before = set(threading.enumerate())
    with LocalCalendar().serve() as url:
        host, port = url.removeprefix("http://").split(":")
        idle = socket.create_connection((host, int(port)))
        for _ in range(500):  # until the server's loop and the connection's thread both run
            if len(set(threading.enumerate()) - before) >= 2:
                break
            time.sleep(0.01)
        assert len(set(threading.enumerate()) - before) == 2
    try:
        assert set(threading.enumerate()) - before == set()
    finally:
        idle.close()

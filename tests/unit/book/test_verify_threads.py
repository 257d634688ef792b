"""Parallel verify from a process that runs other threads (as the daemon does) uses a fork server
and gives the same verdicts as the serial check."""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from pathlib import Path
from unittest import mock

from league.book import Book
from league.clock import SimulatedClock
from league.verify import chain as verify_fast


def test_parallel_verify_with_threads_running(tmp_path: Path) -> None:
    path = tmp_path / "book.jsonl"
    with Book(path, SimulatedClock(datetime(2026, 11, 24, tzinfo=UTC))) as book:
        for i in range(400):
            book.append("answer", {"i": i, "text": "é" * (i % 7)})
    data = bytearray(path.read_bytes())
    line_start = [0] + [k + 1 for k, b in enumerate(data) if b == 0x0A][:-1]
    data[line_start[250] + 20] ^= 0x01  # inside line 251
    path.write_bytes(bytes(data))
    stop = threading.Event()
    worker = threading.Thread(target=stop.wait, daemon=True)
    worker.start()
    try:
        assert threading.active_count() > 1
        with mock.patch.object(verify_fast, "CHUNK_BYTES", 4096):
            parallel = verify_fast.verify(path, workers=2)
        serial = verify_fast.verify(path, workers=1)
    finally:
        stop.set()
    assert parallel.bad_line == serial.bad_line == 251
    assert parallel.reason == serial.reason

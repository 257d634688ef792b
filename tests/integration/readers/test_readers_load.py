"""A small version of benchmarks/readers_load.py as a test: 20 concurrent readers for 3 s against a live server on
loopback (the read-only API with the readers' service mounted, as ``league serve --readers``). It asserts only
what must hold under load: every forecast answered 200 is sealed exactly once, the counted ones are exactly the
answers that said counted, no reader x market x session counts twice, and no server error. No timing assertion.
"""

from __future__ import annotations

import importlib.util
import json
import socket
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest
import uvicorn

ROOT = Path(__file__).resolve().parents[3]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("readers_load", ROOT / "benchmarks" / "readers_load.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow
def test_twenty_concurrent_readers_every_accepted_forecast_sealed_once_and_no_5xx(tmp_path: Path) -> None:
    bench = _bench()
    data = bench.make_data(tmp_path)
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(bench.build_app(data), log_level="warning", access_log=False,
                                           lifespan="off", timeout_graceful_shutdown=1))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.02)
    try:
        tally = bench.readers_load(f"http://127.0.0.1:{sock.getsockname()[1]}", 20, 3.0)
    finally:
        server.should_exit = True
        thread.join(timeout=20)

    # Counted here from the book itself, not by the benchmark's checker.
    lines = [json.loads(x) for x in (data / "books" / "readers-book.jsonl").read_bytes().splitlines()]
    forecasts = [x for x in lines if x["kind"] == "reader_forecast"]
    assert tally.accepted > 0
    assert all(status < 500 for status in tally.statuses), tally.statuses
    assert len(forecasts) == tally.accepted  # each 200 is one sealed line: none lost, none doubled
    counted = [x for x in forecasts if x["counted"]]
    assert len(counted) == tally.counted_true
    assert max(Counter((x["reader"], x["session"], x["market"]) for x in counted).values()) == 1
    readers = {x["reader"] for x in lines if x["kind"] == "reader_assigned"}
    assert {x["reader"] for x in forecasts} <= readers
    assert bench.sealing_problems([], forecasts, tally) == []

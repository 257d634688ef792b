"""The fetcher's hard cases inside a network namespace the test creates (``unshare -n``, loopback only): a link
fetched once and recorded, a redirect to another host recorded as such, a huge page cut at the size cap, a
dripping page cut at the deadline, and no connection to an inner address (loopback, 10.x, 169.254.x, a host
that re-resolves to loopback) while ``allow_private`` is off: canary sockets listening there see none."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from netns_child import PAGE

CHILD = Path(__file__).with_name("netns_child.py")


@pytest.fixture(scope="module")
def seen() -> dict[str, Any]:
    if os.geteuid() != 0 or shutil.which("unshare") is None or shutil.which("ip") is None:
        pytest.skip("needs root, unshare and ip to make a network namespace")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"cannot make a network namespace here: {probe.stderr.decode()[:200]}")
    root = Path(__file__).resolve().parents[3]
    done = subprocess.run(["unshare", "-n", sys.executable, str(CHILD)], capture_output=True, text=True,
                          timeout=120, cwd=root, env={**os.environ, "PYTHONPATH": str(root)})
    assert done.returncode == 0, done.stderr[-2000:]
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def test_a_cited_link_is_fetched_once_and_recorded(seen: dict[str, Any]) -> None:
    story = seen["story"]
    assert (story["status"], story["host"], story["error"]) == (200, "127.0.0.2", "")
    assert story["sha256"] == hashlib.sha256(PAGE).hexdigest() and story["size"] == len(PAGE)
    assert story["declared_published"] == "2026-11-24T11:00:00Z"
    assert seen["hits"]["127.0.0.2/story"] == 1


def test_a_redirect_to_another_host_is_recorded_with_the_host_reached(seen: dict[str, Any]) -> None:
    away = seen["away"]
    assert away["url"] == f"{seen['a']}/away" and away["host"] == "127.0.0.3" and away["status"] == 200
    assert seen["hits"]["127.0.0.2/away"] == 1 and seen["hits"]["127.0.0.3/landing"] == 1


def test_a_huge_page_is_cut_at_the_cap(seen: dict[str, Any]) -> None:
    huge = seen["huge"]
    assert (huge["status"], huge["size"], huge["sha256"]) == (200, 100_000, None)
    assert huge["error"] == "the body is larger than 100000 bytes: not hashed"
    assert seen["hits"]["127.0.0.2/huge:sent"] < 10_000_000  # the server's write failed: the league hung up


def test_a_dripping_page_is_cut_at_the_deadline(seen: dict[str, Any]) -> None:
    slow = seen["slow"]  # one byte every 50 ms: each read is within the 1 s timeout, the whole is not
    assert slow["status"] == 200 and slow["sha256"] is None and 0 < slow["size"] < 10_000_000
    assert slow["error"] == "the body took longer than the 1 s timeout: cut, not hashed"


@pytest.mark.parametrize("name,address", [("loopback", "127.0.0.1"), ("private", "10.9.8.7"),
                                          ("metadata", "169.254.169.254")])
def test_inner_addresses_are_refused_and_never_connected(seen: dict[str, Any], name: str, address: str) -> None:
    record = seen["refused"][name]
    assert record["status"] is None and record["size"] == 0
    assert record["error"] == f"refused: {address} resolves to a non-public address ({address})"
    assert seen["touched"][name] is False


def test_a_host_that_resolves_again_to_loopback_is_not_connected(seen: dict[str, Any]) -> None:
    """Checked as public, resolved to 127.0.0.1 for the request: the connection is refused (the canary on that
    loopback port, the same as the loopback case's, saw no connection)."""
    record = seen["rebinding"]
    assert record["status"] is None and "refused at connect: rebind.test resolves to 127.0.0.1" in record["error"]
    assert seen["touched"]["loopback"] is False

"""The live path (system clock): replies are sealed by the threads that receive them, and closing
the league waits for every ask in flight, so a one-shot `league run ask` loses no reply."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from league.cli.daemon import open_live
from league.cli.init import init_folder
from league.day import job_ask


def test_by_hand_reference_run_seals_every_reply(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    config_dir, data_dir = init_folder(tmp_path, demo=True)
    lg, store = open_live(config_dir)
    try:
        run_id = job_ask(lg, "2026-11-25", role="not_counted")
    finally:
        lg.close()
    lines = [json.loads(x) for x in (data_dir / "books" / "council-book.jsonl").read_text().splitlines()]
    answers = [x for x in lines if x["kind"] == "answer" and x["run_id"] == run_id]
    roster = {s.name for s in lg.config.roster.seat}
    assert {a["seat"] for a in answers} == roster
    assert all(a["status"] == "answered" for a in answers)
    assert [x["kind"] for x in lines[:3]] == ["opening", "preflight", "run"]

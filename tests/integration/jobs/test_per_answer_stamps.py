"""`[stamps] per_answer = true`: an RFC 3161 token right after every answer seal, so each counted answer
is covered by a signed time before its reference (the reader's step 9)."""

from __future__ import annotations

import shutil
from datetime import date, time
from pathlib import Path

import pytest
from day_helpers import BASELINES, league_dir

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import Stages
from league.jobs.publish import publish_now
from league.jobs.scheduler import run_session
from league.verify.reader import verify_published

SESSION = date(2026, 11, 24)


def test_every_answer_gets_its_own_token(tmp_path: Path) -> None:
    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    config_dir, _, clock = league_dir(tmp_path, BASELINES, et_time(SESSION, time(7, 0)))
    toml = config_dir / "league.toml"
    toml.write_text(toml.read_text().replace("per_answer = false", "per_answer = true"))
    config = load_config(config_dir)
    assert config.settings.stamps.per_answer
    with build_league(config, clock, stages=Stages(publish=False)) as lg:
        run_session(lg, SESSION)
        answers = lg.books.index.of_kind("answer")
        public = publish_now(lg).out_dir
    lists = sorted((public / "proof" / SESSION.isoformat()).glob("[0-9]*Z*.txt"))
    answer_lists = [p for p in lists if "answer seal" in p.read_text()]
    assert len(answer_lists) == len(answers) == 2
    steps = {s.step: s for s in verify_published(public, trust_folder_certs=True)}
    assert steps[9].status == "ok", steps[9].line()

"""A blind season (paper requirement 1): identity hashes sealed before the first ask, answers without
models, then `league reveal` and the reader's check of it (step 5)."""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import date, time
from pathlib import Path

import pytest
from day_helpers import BASELINES, league_dir
from typer.testing import CliRunner

from league.calendar import et_time
from league.cli import app
from league.compose import build_league
from league.config import load_config
from league.jobs.blind import salts_path
from league.jobs.context import Stages
from league.jobs.publish import publish_now
from league.jobs.scheduler import run_session
from league.verify.reader import Checker

SESSION = date(2026, 11, 24)


def book(public: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in (public / "council-book.jsonl").read_text(encoding="utf-8").splitlines()]


@pytest.fixture(scope="module")
def blind(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    tmp = tmp_path_factory.mktemp("blind")
    config_dir, data_dir, clock = league_dir(tmp, "blind = true\n" + BASELINES, et_time(SESSION, time(7, 0)))
    shutil.rmtree(data_dir / "books")  # init sealed the demo roster's opening; this league starts blind
    with build_league(load_config(config_dir), clock, stages=Stages(publish=False, stamps=False)) as lg:
        run_session(lg, SESSION)
        publish_now(lg)
    return config_dir, data_dir


def test_identities_are_sealed_before_the_first_ask_and_answers_name_no_model(blind: tuple[Path, Path]) -> None:
    _, data_dir = blind
    lines = book(data_dir / "public")
    assert [x["kind"] for x in lines[:2]] == ["opening", "blind"]
    assert {s["seat"] for s in lines[1]["seats"]} == {"_coin", "_momentum"}  # type: ignore[index, union-attr]
    answers = [x for x in lines if x["kind"] == "answer"]
    assert answers and {(a["model"], a["version"], a["mode"]) for a in answers} == {("blind", "blind", "blind")}
    assert oct(salts_path(data_dir).stat().st_mode & 0o777) == "0o600"
    status, detail = Checker(data_dir / "public", None).step5()
    assert status == "ok" and "2 identities sealed at line 2, not yet revealed" in detail, detail


def test_the_reveal_opens_every_commitment(blind: tuple[Path, Path]) -> None:
    config_dir, data_dir = blind
    runner = CliRunner()
    first = runner.invoke(app, ["reveal", "--config", str(config_dir)])
    assert first.exit_code == 0 and "sealed reveal line" in first.output, first.output
    again = runner.invoke(app, ["reveal", "--config", str(config_dir)])
    assert again.exit_code != 0 and "already revealed" in str(again.exception)
    lines = [json.loads(x) for x in (data_dir / "books" / "council-book.jsonl").read_text().splitlines()]
    committed = {s["seat"]: s["identity_sha256"] for s in lines[1]["seats"]}
    reveal = next(x for x in lines if x["kind"] == "reveal")
    for s in reveal["seats"]:  # by hand: sha256(salt || model || 0x00 || version || 0x00 || mode)
        raw = bytes.fromhex(s["salt"]) + b"\x00".join(s[k].encode() for k in ("model", "version", "mode"))
        assert hashlib.sha256(raw).hexdigest() == committed[s["seat"]]
    public = data_dir / "public"
    shutil.copyfile(data_dir / "books" / "council-book.jsonl", public / "council-book.jsonl")
    status, detail = Checker(public, None).step5()
    assert status == "ok" and "opens all 2 identities" in detail, detail

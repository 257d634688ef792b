"""The question-set track with the four real vendor CLIs: `league eval questions --roster R
--seat S --policy api` runs each pinned CLI in the real sandbox, its only way out the egress proxy to a
stand-in of its vendor's API on 127.0.0.1; every reply is sealed in the eval book, parsed from its last
\\boxed{} and scored; the run is labelled api-only; nothing of the operator's environment leaks."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import VENDORS, received_nothing_of, seat_table
from standin_models import StandIn
from typer.testing import CliRunner

from league.cli import app

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
REPLY = "Weighing the question against the options.\n\\boxed{A}\n"


@pytest.mark.parametrize("adapter", sorted(VENDORS))
def test_real_cli_answers_an_eval_question_set_under_api(adapter: str, tmp_path: Path, cli_prefix: Path,
                                                         secrets: dict[str, str]) -> None:
    seat = VENDORS[adapter][0]
    with StandIn(REPLY) as standin:
        table = seat_table(adapter, standin.url, cli_prefix)
        table = table.replace("options = { ", 'options = { knowledge_cutoff = "2020-01-01", ', 1)
        roster = tmp_path / "roster.toml"
        roster.write_text(table)
        out = tmp_path / "eval"
        result = CliRunner().invoke(app, ["eval", "questions", "--roster", str(roster), "--seat", seat,
                                          "--policy", "api", "--limit", "2", "--trials", "1", "--out", str(out)])
        assert result.exit_code == 0, result.output
        calls = standin.model_calls()
        leaked = received_nothing_of(standin, secrets)
    lines = [json.loads(x) for x in (out / "eval-book.jsonl").read_text().splitlines()]
    opened = next(x for x in lines if x["kind"] == "eval.open")
    assert opened["seat"] == seat and opened["adapter"] == adapter
    assert opened["retrieval"]["label"] == "api-only"  # what the sandbox enforced: the allow-list only
    replies = [x for x in lines if x["kind"] == "eval.reply"]
    assert len(replies) == 2 and {r["run_id"] for r in replies} == {opened["run_id"]}
    assert all(r["status"] == "answered" and not r["failure"] for r in replies), replies
    assert any(r["verdict"]["letters"] == ["A"] for r in replies)  # parsed from the CLI's last \boxed{}
    prompts = " ".join((out / "public" / "prompts" / f"{r['prompt_sha256']}.txt").read_text() for r in replies)
    bodies = " ".join(c.body.decode("utf-8", "replace") for c in calls)
    assert "Super Bowl" in prompts and "Super Bowl" in bodies  # the sealed prompt is what reached the model
    assert not leaked
    results = json.loads((out / "public" / "runs" / opened["run_id"] / "results.json").read_text())
    assert "api-only" in json.dumps(results)

"""The tracks' stand-ins are seat adapters like any other: registered, checked by their own closed options
model, serving their own track only, built and self-checked through the registry in the real sandbox."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from league.config import load_roster
from league.contest.config import load_config as load_contest
from league.contest.config import parse_config as parse_contest
from league.errors import ConfigError
from league.evals.config import load_config as load_evals
from league_agents.base import Ask
from league_agents.registry import build_seat, takes_hints
from league_agents.selfcheck import preflight
from sandbox.bwrap import BwrapSandbox

NOW = datetime(2026, 12, 7, 6, 0, tzinfo=UTC)


def contest_with(seat: dict[str, Any]) -> dict[str, Any]:
    return {"agents": [{"agent": "a", "name": "A", "seat": {"name": "contest-a", "profile": "scripted", **seat}}]}


def refused(call: Any, *needles: str) -> str:
    with pytest.raises(ConfigError) as info:
        call()
    text = info.value.diagnostics()
    assert "fix:" in text and all(n in text for n in needles), text
    return text


def test_a_stand_in_options_typo_is_a_config_error() -> None:
    """Before, a stand-in's options were checked only for being small JSON: ``skil`` loaded and did nothing."""
    refused(lambda: parse_contest(contest_with({"adapter": "contest-standin", "options": {"skil": 0.3}}), "c.toml"),
            "options.skil is not an option of this adapter")
    refused(lambda: parse_contest(contest_with({"adapter": "contest-standin", "options": {"mode": "loud"}}), "c.toml"),
            "options.mode")


def test_an_eval_stand_in_options_typo_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "evals.toml"
    path.write_text('[[seats]]\nknowledge_cutoff = 2023-12-31\nseat = { name = "s", adapter = "eval-standin", '
                    'options = { seed = 1, think_sec = 2.0 } }\n', encoding="utf-8")
    refused(lambda: load_evals(path), "options.think_sec is not an option of this adapter")


def test_a_stand_in_serves_only_its_own_track(tmp_path: Path) -> None:
    refused(lambda: parse_contest(contest_with({"adapter": "eval-standin"}), "c.toml"),
            "adapter 'eval-standin' serves only the eval track, not the contest track")
    roster = tmp_path / "roster.toml"
    roster.write_text('counting_rule = "x"\n\n[[seat]]\nname = "x"\nadapter = "contest-standin"\n', encoding="utf-8")
    refused(lambda: load_roster(roster), "serves only the contest track, not the council track")


def test_only_a_stand_in_takes_the_recorded_answer() -> None:
    assert takes_hints("eval-standin") and takes_hints("contest-standin")
    assert not any(takes_hints(a) for a in ("claude_code", "codex", "openai_sdk", "scripted", "naive"))


@pytest.mark.sandbox
def test_the_contest_self_check_runs_the_stand_in_roster(sandbox: BwrapSandbox) -> None:
    """The contest's pre-batch self-check asks every agent a trivial question through the registry; before the
    stand-in was registered, the default (stand-in) roster stopped it with an unknown adapter."""
    specs = [a.seat for a in load_contest().agents]
    checks = preflight(specs, lambda: NOW, sandbox=sandbox, ask_each=True)
    assert [c.name for c in checks if c.name.endswith("trivial ask")] == [f"{s.name}: trivial ask" for s in specs]
    assert all(c.ok for c in checks), [c for c in checks if not c.ok]


@pytest.mark.sandbox
def test_a_registered_stand_in_answers_in_the_real_sandbox(sandbox: BwrapSandbox) -> None:
    spec = load_contest().agents[0].seat
    seat = build_seat(spec, sandbox)
    context = {"kind": "sweep", "markets": [{"id": "m1", "outcomes": ["Yes", "No"], "prices": [0.4, 0.6]}]}
    reply = seat.ask(Ask(text="sweep", sha256="0" * 64, session="2026-12-07", context=context), lambda: NOW)
    assert reply.failure is None and reply.version == "contest-standin-1"
    assert reply.raw.startswith(f"model: {spec.options['model']}\n") and '"id": "m1"' in reply.raw
    assert reply.model == spec.options["model"]

"""The evaluation configuration: the default stand-ins, roster seats with their cutoff, clear errors."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from league.errors import ConfigError
from league.evals.config import find_seat, load_config
from league.evals.policy import Policy, retrieval

ROSTER = """
counting_rule = "x"

[[seat]]
name = "claude"
adapter = "claude_code"
model = "claude-fable-5-1"
options = { knowledge_cutoff = 2025-03-31, max_concurrency = 2 }

[[seat]]
name = "codex"
adapter = "codex"
"""


def test_default_configuration() -> None:
    cfg = load_config()
    assert (cfg.trials, cfg.concurrency, cfg.policy) == (3, 4, Policy.NONE)
    sharp = find_seat(cfg, "standin-sharp")
    assert sharp.knowledge_cutoff == date(2023, 12, 31) and sharp.max_concurrency == 16
    assert sharp.seat.adapter == "eval-standin"


def test_a_roster_seat_declares_its_cutoff_in_options(tmp_path: Path) -> None:
    roster = tmp_path / "roster.toml"
    roster.write_text(ROSTER, encoding="utf-8")
    claude = find_seat(load_config(), "claude", roster)
    assert claude.knowledge_cutoff == date(2025, 3, 31) and claude.max_concurrency == 2
    codex = find_seat(load_config(), "codex", roster)
    assert codex.knowledge_cutoff is None and codex.max_concurrency == 1


def test_unknown_seats_and_bad_files_are_config_errors(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="no seat named 'nobody'") as err:
        find_seat(load_config(), "nobody")
    assert err.value.fix and "standin-sharp" in err.value.fix
    bad = tmp_path / "eval.toml"
    bad.write_text("trials = 0\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"eval.toml: trials: Input should be greater than or equal to 1"):
        load_config(bad)
    bad.write_text("policy = 'everything'\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="policy"):
        load_config(bad)


def test_retrieval_labels_say_what_was_enforced() -> None:
    assert retrieval(Policy.NONE).as_json() == {"policy": "none", "enforced": "no network", "label": "closed-book",
                                                "masked": True}
    api = retrieval(Policy.API)
    assert (api.label, api.enforced) == ("api-only", "egress proxy: allow-list only")
    assert (retrieval(Policy.WEB).label, retrieval(Policy.WEB).enforced) == ("unmasked", "egress proxy: public web")
    assert not retrieval(Policy.API).as_json()["masked"] and not retrieval(Policy.WEB).as_json()["masked"]


class Recording:
    """A sandbox port that records what it was asked (the policy wrapper is tested for what it forwards)."""

    def __init__(self) -> None:
        self.calls: list[dict[str, object]] = []

    def exec(self, argv: object, **kwargs: object) -> object:
        self.calls.append(dict(kwargs))
        return None


def test_the_policy_wrapper_decides_the_network_whatever_the_seat_asks() -> None:
    from league.evals.policy import PolicySandbox
    from sandbox.netpolicy import EgressRules, NetworkPolicy

    seat_rules = EgressRules.of("web", ["api.example.com"])
    inner = Recording()
    cases = ((Policy.NONE, seat_rules, None), (Policy.NONE, None, None),
             (Policy.API, seat_rules, NetworkPolicy.API), (Policy.WEB, None, NetworkPolicy.WEB))
    for policy, asked, forwarded in cases:
        PolicySandbox(inner, policy).exec(["x"], timeout=1.0, egress=asked, profile="scripted",  # type: ignore[arg-type]
                                          files_in_home={"a": b"b"}, env={"K": "V"}, stdin=b"in", owner="s")
        call = inner.calls[-1]
        rules = call["egress"]
        assert (rules.policy if isinstance(rules, EgressRules) else rules) == forwarded
        if forwarded is not None:  # the seat's own allow-list is kept, the policy is the run's
            assert isinstance(rules, EgressRules) and rules.allow == (asked.allow if asked else ())
        assert (call["profile"], call["files_in_home"], call["env"], call["stdin"], call["timeout"], call["owner"]) == (
            "scripted", {"a": b"b"}, {"K": "V"}, b"in", 1.0, "s")

"""The real Claude Code CLI (pinned, from the cache) in the contest: one sweep ask and one betting round with
`bench` over the Unix socket, in the real sandbox under policy `api` whose only way out is the egress proxy to
a stand-in of the vendor's API on 127.0.0.1 (the model's part is played by that stand-in: in the round it asks
the CLI to run `bench bet ...`, the CLI runs it through its own Bash tool, and the league seals the bet)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from standin_models import StandIn, _handler, _sse, anthropic_stream

from league.clock import SimulatedClock
from league.contest import ledger as L
from league.contest.config import ContestConfig, load_config
from league.contest.context import ContestContext
from league.contest.ledger import Ledger
from league.contest.markets.recorded import RecordedSource
from league.contest.markets.synthetic import make_venue
from league.contest.rounds import open_rounds
from league.contest.sweep import choose_markets, run_sweep
from league_agents.base import SeatSpec

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]
DAY = datetime(2026, 12, 7, tzinfo=UTC)
RATIONALE = 'Books lean "Yes"; $5 says it holds'
BET_COMMAND = f"bench bet --outcome yes --confidence 0.7 --rationale '{RATIONALE}' --quote 'Sealed before the close'"


def tool_use_stream(command: str, model: str) -> bytes:
    """An Anthropic Messages SSE answer in which the model calls the CLI's Bash tool once."""
    msg = {"id": "msg_tool", "type": "message", "role": "assistant", "model": model, "content": [],
           "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 900, "output_tokens": 1}}
    args = json.dumps({"command": command, "description": "Place the contest bet"})
    return _sse([
        ("message_start", {"type": "message_start", "message": msg}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {
            "type": "tool_use", "id": "toolu_standin_1", "name": "Bash", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "input_json_delta", "partial_json": args}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None},
                           "usage": {"output_tokens": 40}}),
        ("message_stop", {"type": "message_stop"}),
    ])


class Bettor(StandIn):
    """The stand-in model of a round: the first model call asks for the bet; once the tool's result is
    back it answers with a closing sentence."""

    tool_results: list[str]

    def __enter__(self) -> Bettor:
        import threading
        from http.server import ThreadingHTTPServer

        self.tool_results = []
        base = _handler(self)
        outer = self

        class Handler(base):  # type: ignore[misc, valid-type]
            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                body = self._read()
                self._keep(body)
                request = json.loads(body or b"{}")
                results = [c for m in request.get("messages", []) if isinstance(m.get("content"), list)
                           for c in m["content"] if c.get("type") == "tool_result"]
                if results:
                    outer.tool_results.append(json.dumps(results))
                    out = anthropic_stream("Bet placed.", outer.model)
                elif request.get("tools"):
                    out = tool_use_stream(BET_COMMAND, outer.model)
                else:  # a side call without tools (none expected): a plain text answer
                    out = anthropic_stream("ok", outer.model)
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self


def claude_contest(base_url: str, prefix: Path) -> ContestConfig:
    """The default rules with one agent: the real Claude Code behind ``base_url``, allowed to run `bench`."""
    config = load_config()
    spec = SeatSpec(name="contest-claude", adapter="claude_code", model="claude-fable-5-1", effort="high",
                    timeout_s=120, network="api", credentials=(),
                    options={"base_url": base_url, "cli_prefix": str(prefix), "allow_commands": ["bench"]})
    agent = config.agents[0].model_copy(update={"seat": spec})
    return config.model_copy(update={"agents": (agent,)})


@pytest.fixture
def venue(tmp_path: Path) -> Path:
    make_venue(DAY, 1, seed=3, per_day=12).write(tmp_path / "venue")
    return tmp_path / "venue"


@pytest.fixture
def ledger(tmp_path: Path) -> Iterator[Ledger]:
    with Ledger(tmp_path / "contest-book.jsonl", SimulatedClock(DAY.replace(hour=6))) as book:
        yield book


def context(config: ContestConfig, ledger: Ledger, venue: Path, tmp_path: Path) -> ContestContext:
    from sandbox.bwrap import BwrapSandbox

    return ContestContext(config, ledger.clock, ledger, RecordedSource(venue), tmp_path / "public",
                          sandbox=BwrapSandbox())


def test_real_claude_code_answers_the_sweep_and_its_forecasts_are_sealed(
        tmp_path: Path, cli_prefix: Path, venue: Path, ledger: Ledger, secrets: dict[str, str]) -> None:
    with StandIn("") as standin:
        ctx = context(claude_contest(standin.url, cli_prefix), ledger, venue, tmp_path)
        markets, _ = choose_markets(ctx, ctx.clock.now())
        forecasts = [{"id": m.id, "probabilities": dict(zip(m.outcomes, m.prices, strict=True))} for m in markets]
        standin.reply = "I weighed each book.\n" + json.dumps({"forecasts": forecasts})
        result = run_sweep(ctx)
        [reply] = ledger.contents(L.SWEEP_REPLY)
        assert result.status == {"claude": "ok"}, reply["seat_detail"]
        assert result.forecasts == len(markets) > 0
        asked = standin.model_calls()[0].body.decode("utf-8", "replace")
        assert markets[0].id in asked and '{\\"forecasts\\"' in asked  # the sweep's ask reached the model
        assert reply["model"] and received_nothing(standin, secrets)
    doc = json.loads((tmp_path / "public" / "forecasts" / "2026-12-07.json").read_text())
    assert {f["agent"] for f in doc["forecasts"]} == {"claude"} and len(doc["forecasts"]) == len(markets)


def test_real_claude_code_bets_through_bench_in_a_round(
        tmp_path: Path, cli_prefix: Path, venue: Path, ledger: Ledger, secrets: dict[str, str]) -> None:
    with Bettor("") as model:
        ctx = context(claude_contest(model.url, cli_prefix), ledger, venue, tmp_path)
        assert open_rounds(ctx) == []  # the first poll records what is listed
        ctx.clock.advance(timedelta(minutes=10))  # type: ignore[attr-defined]
        [result] = open_rounds(ctx)
        closed = ledger.contents(L.ROUND_CLOSED)
        assert result.state == "closed" and result.bets == {"claude": "Yes"}, closed
        [bet] = ledger.contents(L.BET)
        assert bet["rationale"] == RATIONALE and bet["quote"] == "Sealed before the close"
        assert bet["spent"] > 0 and bet["limit"] == pytest.approx(min(0.99, min(
            float(a["price"]) for a in bet["book"]["asks"]) + 0.05))
        assert model.tool_results and "placed" in model.tool_results[0]  # bench's answer went back to the model
        assert closed[0]["entries"][0]["model"] and received_nothing(model, secrets)


def received_nothing(standin: StandIn, secrets: dict[str, Any]) -> bool:
    seen = standin.everything_received()
    return not [k for k, v in secrets.items() if v in seen or k in seen]

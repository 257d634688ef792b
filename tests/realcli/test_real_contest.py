"""Real vendor CLIs (pinned, from the cache) in the contest: each of the four through one sweep ask and one
betting round with `bench` over the Unix socket, in the real sandbox under policy
`api`, whose only way out is the egress proxy to a stand-in of the vendor's API on 127.0.0.1. The model's part is
played by that stand-in: in the round it asks the CLI to run `bench bet ...`, the CLI runs it with its own shell
tool, and the league seals the bet."""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from standin_models import StandIn, _handler, _sse, anthropic_stream, gemini_stream, responses_stream

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


def chat_tool_call(command: str, model: str) -> bytes:
    """An OpenAI Chat Completions answer (plain JSON, as Grok CLI reads it) that calls the `bash` tool once."""
    call = {"id": "call_standin_1", "type": "function",
            "function": {"name": "bash", "arguments": json.dumps({"command": command})}}
    return json.dumps({"id": "chatcmpl-standin", "object": "chat.completion", "created": 1764460800, "model": model,
                       "choices": [{"index": 0, "finish_reason": "tool_calls",
                                    "message": {"role": "assistant", "content": None, "tool_calls": [call]}}],
                       "usage": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940}}).encode()


def responses_call(name: str, arguments: dict[str, Any], model: str) -> bytes:
    """An OpenAI Responses SSE answer whose one output item calls a function tool of the CLI."""
    item = {"type": "function_call", "id": "fc_standin_1", "call_id": "call_standin_1", "name": name,
            "arguments": json.dumps(arguments), "status": "completed"}
    resp = {"id": "resp_standin_call", "object": "response", "model": model, "status": "completed",
            "usage": {"input_tokens": 900, "output_tokens": 40, "total_tokens": 940,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}
    return _sse([
        ("response.created", {"type": "response.created", "response": {**resp, "status": "in_progress"}}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": resp}),
    ])


def gemini_call(command: str, model: str) -> bytes:
    """A Gemini SSE answer whose one part calls the CLI's shell tool."""
    part = {"functionCall": {"name": "run_shell_command", "args": {"command": command}}}
    return _sse([(None, {"candidates": [{"content": {"role": "model", "parts": [part]}, "finishReason": "STOP",
                                         "index": 0}],
                         "usageMetadata": {"promptTokenCount": 900, "candidatesTokenCount": 40, "totalTokenCount": 940},
                         "modelVersion": model})])


def gemini_json(text: str, model: str) -> bytes:
    """A plain ``generateContent`` answer (the CLI's own side calls, e.g. whose turn is next)."""
    return json.dumps({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]},
                                       "finishReason": "STOP", "index": 0}],
                       "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15},
                       "modelVersion": model}).encode()


def chat_text(text: str, model: str) -> bytes:
    return json.dumps({"id": "chatcmpl-standin-2", "object": "chat.completion", "created": 1764460801, "model": model,
                       "choices": [{"index": 0, "finish_reason": "stop",
                                    "message": {"role": "assistant", "content": text}}],
                       "usage": {"prompt_tokens": 950, "completion_tokens": 5, "total_tokens": 955}}).encode()


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
                if self.path.startswith("/v1/responses"):
                    out, ctype = outer.responses(request), "text/event-stream"
                elif self.path.startswith("/v1/chat/completions"):
                    out, ctype = outer.chat(request), "application/json"
                elif ":streamGenerateContent" in self.path:
                    out, ctype = outer.gemini(request), "text/event-stream"
                elif ":generateContent" in self.path:
                    out, ctype = gemini_json('{"next_speaker": "user", "reasoning": "done"}', outer.model), \
                        "application/json"
                else:
                    out, ctype = outer.messages(request), "text/event-stream"
                self.send_response(200)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(out)))
                self.end_headers()
                self.wfile.write(out)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def messages(self, request: dict[str, Any]) -> bytes:
        """Anthropic Messages (Claude Code): the Bash tool call, then a closing sentence after its result."""
        results = [c for m in request.get("messages", []) if isinstance(m.get("content"), list)
                   for c in m["content"] if c.get("type") == "tool_result"]
        if results:
            self.tool_results.append(json.dumps(results))
            return anthropic_stream("Bet placed.", self.model)
        if request.get("tools"):
            return tool_use_stream(BET_COMMAND, self.model)
        return anthropic_stream("ok", self.model)  # a side call without tools (none expected)

    def responses(self, request: dict[str, Any]) -> bytes:
        """OpenAI Responses (Codex): the `exec_command` tool call, then a closing sentence after its output."""
        items = request.get("input") or []
        results = [i for i in items if isinstance(i, dict) and i.get("type") == "function_call_output"]
        if results:
            self.tool_results.append(json.dumps(results))
            return responses_stream("Bet placed.", self.model)
        return responses_call("exec_command", {"cmd": BET_COMMAND}, self.model)

    def gemini(self, request: dict[str, Any]) -> bytes:
        """Gemini (Gemini CLI): the shell tool call, then a closing sentence after its function response."""
        results = [p for c in request.get("contents", []) for p in c.get("parts", []) if "functionResponse" in p]
        if results:
            self.tool_results.append(json.dumps(results))
            return gemini_stream("Bet placed.", self.model)
        return gemini_call(BET_COMMAND, self.model)

    def chat(self, request: dict[str, Any]) -> bytes:
        """Chat Completions (Grok CLI): the `bash` tool call, then a closing sentence after its result."""
        results = [str(m.get("content")) for m in request.get("messages", []) if m.get("role") == "tool"]
        if results:
            self.tool_results.append(json.dumps(results))
            return chat_text("Bet placed.", self.model)
        return chat_tool_call(BET_COMMAND, self.model)


#: adapter -> (contest agent, seat model, base URL suffix, extra options)
CLIS: dict[str, tuple[str, str, str, dict[str, Any]]] = {
    "claude_code": ("claude", "claude-fable-5-1", "", {}),
    "gemini_cli": ("gemini", "gemini-3.1-pro-high", "", {}),
    # the pinned Codex offers its shell tool only to a model it knows (an unknown name gets no tools at all)
    "codex": ("codex", "gpt-5-codex", "/v1", {}),
    "grok_cli": ("grok", "grok-4.7", "/v1", {"max_tool_rounds": 2}),  # one round to bet, one to answer
}


def one_agent(adapter: str, base_url: str, prefix: Path) -> ContestConfig:
    """The default rules with one agent: the real CLI behind ``base_url``, allowed to run `bench`."""
    config = load_config()
    key, model, suffix, extra = CLIS[adapter]
    spec = SeatSpec(name=f"contest-{key}", adapter=adapter, model=model, effort="high", timeout_s=120,
                    network="api", credentials=(),
                    options={"base_url": base_url + suffix, "cli_prefix": str(prefix), "allow_commands": ["bench"],
                             **extra})
    agent = next(a for a in config.agents if a.agent == key).model_copy(update={"seat": spec})
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


@pytest.mark.parametrize("adapter", sorted(CLIS))
def test_real_cli_answers_the_sweep_and_its_forecasts_are_sealed(adapter: str, tmp_path: Path, cli_prefix: Path,
                                                                venue: Path, ledger: Ledger,
                                                                secrets: dict[str, str]) -> None:
    agent = CLIS[adapter][0]
    with StandIn("") as standin:
        ctx = context(one_agent(adapter, standin.url, cli_prefix), ledger, venue, tmp_path)
        markets, _ = choose_markets(ctx, ctx.clock.now())
        forecasts = [{"id": m.id, "probabilities": dict(zip(m.outcomes, m.prices, strict=True))} for m in markets]
        standin.reply = "I weighed each book.\n" + json.dumps({"forecasts": forecasts})
        result = run_sweep(ctx)
        [reply] = ledger.contents(L.SWEEP_REPLY)
        assert result.status == {agent: "ok"}, reply["seat_detail"]
        assert result.forecasts == len(markets) > 0
        asked = standin.model_calls()[0].body.decode("utf-8", "replace")
        assert markets[0].id in asked and '{\\"forecasts\\"' in asked  # the sweep's ask reached the model
        assert reply["model"] and received_nothing(standin, secrets)
    doc = json.loads((tmp_path / "public" / "forecasts" / "2026-12-07.json").read_text())
    assert {f["agent"] for f in doc["forecasts"]} == {agent} and len(doc["forecasts"]) == len(markets)


@pytest.mark.parametrize("adapter", sorted(CLIS))
def test_real_cli_bets_through_bench_in_a_round(adapter: str, tmp_path: Path, cli_prefix: Path, venue: Path,
                                               ledger: Ledger, secrets: dict[str, str]) -> None:
    agent = CLIS[adapter][0]
    with Bettor("") as model:
        ctx = context(one_agent(adapter, model.url, cli_prefix), ledger, venue, tmp_path)
        assert open_rounds(ctx) == []  # the first poll records what is listed
        ctx.clock.advance(timedelta(minutes=10))  # type: ignore[attr-defined]
        [result] = open_rounds(ctx)
        closed = ledger.contents(L.ROUND_CLOSED)
        assert result.state == "closed" and result.bets == {agent: "Yes"}, model.tool_results
        [bet] = ledger.contents(L.BET)
        assert bet["rationale"] == RATIONALE and bet["quote"] == "Sealed before the close"
        assert bet["spent"] > 0 and bet["limit"] == pytest.approx(min(0.99, min(
            float(a["price"]) for a in bet["book"]["asks"]) + 0.05))
        assert model.tool_results and "placed" in model.tool_results[0]  # bench's answer went back to the model
        assert closed[0]["entries"][0]["model"] and received_nothing(model, secrets)


def received_nothing(standin: StandIn, secrets: dict[str, Any]) -> bool:
    seen = standin.everything_received()
    return not [k for k, v in secrets.items() if v in seen or k in seen]

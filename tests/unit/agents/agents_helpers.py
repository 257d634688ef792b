"""Helpers shared by the agents tests (a local vendor-API stand-in, a stepping clock, asks)."""

from __future__ import annotations

import json
import threading
from collections import defaultdict, deque
from datetime import UTC, datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from league_agents.base import Ask

CLIS = Path(__file__).resolve().parents[2] / "assets" / "clis"
T0 = datetime(2026, 11, 30, 13, 30, tzinfo=UTC)


class FakeClock:
    """Advances one second per read, so started < finished is observable without sleeping."""

    def __init__(self) -> None:
        self.t = T0

    def __call__(self) -> datetime:
        self.t += timedelta(seconds=1)
        return self.t


def make_ask(text: str = "Forecast the markets.", **context: Any) -> Ask:
    return Ask(text=text, sha256="a" * 64, session="2026-11-30", context=context)


class StandIn:
    """A local HTTP stand-in for the vendors' APIs: queued (status, body) per path suffix, else success."""

    def __init__(self) -> None:
        self.queue: dict[str, deque[tuple[int, dict[str, Any]]]] = defaultdict(deque)
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def fail(self, suffix: str, status: int, body: dict[str, Any], times: int = 1) -> None:
        for _ in range(times):
            self.queue[suffix].append((status, body))

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        stand_in = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                return

            def do_POST(self) -> None:  # noqa: N802
                body = json.loads(self.rfile.read(int(self.headers.get("content-length", 0))) or b"{}")
                stand_in.requests.append((self.path, body))
                status, payload = stand_in.respond(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("content-type", "application/json")
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        return Handler

    def respond(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        for suffix, queued in self.queue.items():
            if path.endswith(suffix) and queued:
                return queued.popleft()
        if path.endswith("/messages"):
            return 200, ANTHROPIC_OK
        if path.endswith("/responses"):
            return 200, OPENAI_OK
        return 200, GENAI_OK


REPLY = 'Reasoned.\n```json\n{"forecast": {"SPX": {"1d": {"prob_up": 58, "action": "hold"}}}}\n```'
ANTHROPIC_OK: dict[str, Any] = {
    "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
    "type": "message",
    "role": "assistant",
    "model": "claude-fable-5-1-20261001",
    "content": [
        {"type": "thinking", "thinking": "Weighing.", "signature": "EqQBCgIYAhIM"},
        {"type": "text", "text": REPLY},
    ],
    "stop_reason": "end_turn",
    "stop_sequence": None,
    "usage": {
        "input_tokens": 2095,
        "output_tokens": 503,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
    },
}
OPENAI_OK: dict[str, Any] = {
    "id": "resp_67ccd2bed1ec8190b14f964abc054267",
    "object": "response",
    "created_at": 1764500000,
    "status": "completed",
    "model": "gpt-6-luna-2026-10-01",
    "error": None,
    "incomplete_details": None,
    "instructions": None,
    "metadata": {},
    "parallel_tool_calls": True,
    "temperature": 1.0,
    "top_p": 1.0,
    "tool_choice": "auto",
    "tools": [],
    "output": [
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {
            "type": "message",
            "id": "msg_1",
            "status": "completed",
            "role": "assistant",
            "content": [{"type": "output_text", "text": REPLY, "annotations": []}],
        },
    ],
    "usage": {
        "input_tokens": 2100,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": 900,
        "output_tokens_details": {"reasoning_tokens": 640},
        "total_tokens": 3000,
    },
}
GENAI_OK: dict[str, Any] = {
    "candidates": [{"content": {"parts": [{"text": REPLY}], "role": "model"}, "finishReason": "STOP", "index": 0}],
    "usageMetadata": {
        "promptTokenCount": 2000,
        "candidatesTokenCount": 300,
        "totalTokenCount": 3900,
        "thoughtsTokenCount": 1600,
    },
    "modelVersion": "gemini-3.1-pro-preview-11-2026",
    "responseId": "Ws0maP3YBtWY",
}

"""A stand-in model server on 127.0.0.1 that speaks the four vendors' wire protocols.

It answers every model call with one fixed reply text (a full council answer), in the shape the
vendor's CLI expects (facts in docs/seats.md, "Gateways"): Anthropic Messages SSE, OpenAI Responses
SSE, Gemini ``streamGenerateContent?alt=sse`` and OpenAI Chat Completions (plain JSON, or SSE when
the request asks ``stream: true``). Every request is kept (method, path, headers, body) so tests can
assert that nothing of the operator reached it. ``mode`` makes it misbehave: ``hang`` (never
answers), ``garbage`` (200 with bytes no client can read), ``error401`` (authentication refused),
``error404`` (model unknown).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: bytes


@dataclass
class StandIn:
    reply: str
    model: str = "standin-model-1"
    mode: str = "ok"
    requests: list[Seen] = field(default_factory=list)
    #: When set, the reply text for a model call's request body (a test whose seats are asked several kinds of
    #: question, the council talk's chair and critiqued seats among them); else :attr:`reply` every time.
    respond: Callable[[bytes], str] | None = None
    server: ThreadingHTTPServer | None = None

    def __enter__(self) -> StandIn:
        handler = _handler(self)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        return self

    def __exit__(self, *exc: Any) -> None:
        assert self.server is not None
        self.server.shutdown()
        self.server.server_close()

    @property
    def port(self) -> int:
        assert self.server is not None
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def model_calls(self) -> list[Seen]:
        return [r for r in self.requests if r.method == "POST"]

    def everything_received(self) -> str:
        """All headers and bodies received, as one text (for "no secret reached it" checks)."""
        parts = []
        for r in self.requests:
            parts.append(f"{r.method} {r.path}")
            parts += [f"{k}: {v}" for k, v in r.headers.items()]
            parts.append(r.body.decode("utf-8", "replace"))
        return "\n".join(parts)


def _sse(events: list[tuple[str | None, dict[str, Any]]]) -> bytes:
    out = []
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        out.append(f"{head}data: {json.dumps(data)}\n\n")
    return "".join(out).encode()


def anthropic_stream(reply: str, model: str) -> bytes:
    msg = {"id": "msg_standin", "type": "message", "role": "assistant", "model": model, "content": [],
           "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 1200, "output_tokens": 1}}
    return _sse([
        ("message_start", {"type": "message_start", "message": msg}),
        ("content_block_start", {"type": "content_block_start", "index": 0,
                                 "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                 "delta": {"type": "text_delta", "text": reply}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None},
                           "usage": {"output_tokens": 800}}),
        ("message_stop", {"type": "message_stop"}),
    ])


def responses_stream(reply: str, model: str) -> bytes:
    item = {"type": "message", "role": "assistant", "id": "msg_standin", "status": "completed",
            "content": [{"type": "output_text", "text": reply, "annotations": []}]}
    resp = {"id": "resp_standin", "object": "response", "model": model, "status": "completed",
            "usage": {"input_tokens": 1200, "output_tokens": 800, "total_tokens": 2000,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}
    return _sse([
        ("response.created", {"type": "response.created", "response": {**resp, "status": "in_progress"}}),
        ("response.output_item.done", {"type": "response.output_item.done", "output_index": 0, "item": item}),
        ("response.completed", {"type": "response.completed", "response": resp}),
    ])


def gemini_stream(reply: str, model: str) -> bytes:
    return _sse([(None, {"candidates": [{"content": {"role": "model", "parts": [{"text": reply}]},
                                          "finishReason": "STOP", "index": 0}],
                         "usageMetadata": {"promptTokenCount": 1200, "candidatesTokenCount": 800,
                                           "totalTokenCount": 2000},
                         "modelVersion": model})])


def chat_completion(reply: str, model: str, stream: bool) -> tuple[bytes, str]:
    if stream:
        chunk = {"id": "chatcmpl-standin", "object": "chat.completion.chunk", "created": 1764460800, "model": model,
                 "choices": [{"index": 0, "delta": {"role": "assistant", "content": reply}, "finish_reason": None}]}
        end = {**chunk, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
        body = _sse([(None, chunk), (None, end)]) + b"data: [DONE]\n\n"
        return body, "text/event-stream"
    doc = {"id": "chatcmpl-standin", "object": "chat.completion", "created": 1764460800, "model": model,
           "choices": [{"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 1200, "completion_tokens": 800, "total_tokens": 2000}}
    return json.dumps(doc).encode(), "application/json"


def _answer(standin: StandIn, path: str, body: bytes) -> tuple[int, bytes, str]:
    if standin.respond is not None:
        standin = StandIn(reply=standin.respond(body), model=standin.model, mode=standin.mode)
    try:
        request = json.loads(body) if body else {}
    except ValueError:
        request = {}
    if standin.mode == "error401":
        return 401, json.dumps({"type": "error", "error": {"type": "authentication_error", "code": 401,
                                                          "message": "invalid x-api-key"}}).encode(), \
            "application/json"
    if standin.mode == "error404":
        return 404, json.dumps({"type": "error", "error": {"type": "not_found_error", "code": 404,
                                                          "message": "model: no-such-model not found"}}).encode(), \
            "application/json"
    if standin.mode == "garbage":
        return 200, b"\x00\x01 this is not a model answer \xff\xfe", "application/octet-stream"
    if path.startswith("/v1/messages"):
        return 200, anthropic_stream(standin.reply, standin.model), "text/event-stream"
    if path.startswith("/v1/responses"):
        return 200, responses_stream(standin.reply, standin.model), "text/event-stream"
    if ":streamGenerateContent" in path:
        return 200, gemini_stream(standin.reply, standin.model), "text/event-stream"
    if path.startswith("/v1/chat/completions"):
        body_out, ctype = chat_completion(standin.reply, standin.model, bool(request.get("stream")))
        return 200, body_out, ctype
    return 404, b'{"error": {"message": "no such route on the stand-in"}}', "application/json"


def _handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args: Any) -> None:
            return

        def _read(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            if length:
                return self.rfile.read(length)
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                data = b""
                while True:
                    size = int(self.rfile.readline().strip() or b"0", 16)
                    if size == 0:
                        self.rfile.readline()
                        return data
                    data += self.rfile.read(size)
                    self.rfile.readline()
            return b""

        def _keep(self, body: bytes) -> None:
            standin.requests.append(Seen(self.command, self.path, dict(self.headers.items()), body))

        def do_HEAD(self) -> None:  # noqa: N802 - http.server's naming
            self._keep(b"")
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_GET(self) -> None:  # noqa: N802
            self._keep(b"")
            body = b'{"data": []}'
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_POST(self) -> None:  # noqa: N802
            body = self._read()
            self._keep(body)
            if standin.mode == "hang":
                time.sleep(3600)
                return
            status, out, ctype = _answer(standin, self.path, body)
            self.send_response(status)
            if status >= 400:  # as the vendors' APIs say for errors a retry cannot fix (SDKs honour it)
                self.send_header("x-should-retry", "false")
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(out)))
            self.end_headers()
            self.wfile.write(out)

    return Handler

"""Codex (``@openai/codex``) as a seat.

Headless call ``codex exec --json … PROMPT`` (vendors.md): JSON lines of events —
``thread.started``, ``item.completed`` (the reply is the last ``agent_message`` item's ``text``),
``turn.completed`` with ``usage``, ``turn.failed``/``error`` on failure. The events do not name the
model, so the roster's model is recorded with ``version: unreported``. ``-o FILE`` is not used: the
home vanishes after the run, so the reply is read from the event stream instead.
"""

from __future__ import annotations

import json
from typing import Any

from agents.base import Ask
from agents.cli_seat import CliSeat, Parsed
from sandbox.interface import ExecResult


def _jsonl(stdout: str) -> list[dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict):
            out.append(item)
    return out


def _error_message(ev: dict[str, Any]) -> str | None:
    if ev.get("type") == "turn.failed":
        return str((ev.get("error") or {}).get("message", "turn failed"))
    if ev.get("type") == "error":
        return str(ev.get("message", "error"))
    return None


class CodexSeat(CliSeat):
    binary = "codex"
    profile_name = "codex"

    def argv(self, ask: Ask) -> list[str]:
        argv = [self.command, "exec", "--json", "-m", self.spec.model, "--skip-git-repo-check", "--ephemeral"]
        argv += ["-s", "read-only", "-c", f"model_reasoning_effort={self.effort}"]
        if not self.spec.net:
            argv += ["-c", 'web_search="disabled"']
        return [*argv, ask.text]

    def parse(self, result: ExecResult) -> Parsed:
        events = _jsonl(result.text)
        errors = [m for m in map(_error_message, events) if m]
        messages = [
            str(ev["item"].get("text", ""))
            for ev in events
            if ev.get("type") == "item.completed" and (ev.get("item") or {}).get("type") == "agent_message"
        ]
        if errors and not messages:
            raise self.fail_from_output(result, "codex: " + "; ".join(errors))
        if not messages:
            raise self.fail_from_output(result, f"codex printed no agent message (exit {result.exit_code})")
        usage: dict[str, Any] = {}
        for ev in events:
            if ev.get("type") == "turn.completed":
                usage = dict(ev.get("usage") or {})
        return Parsed(text=messages[-1], usage=usage)

"""Codex (``@openai/codex``) as a seat.

Headless call ``codex exec --json … PROMPT`` (vendors.md): JSON lines of events —
``thread.started``, ``item.completed`` (the reply is the last ``agent_message`` item's ``text``),
``turn.completed`` with ``usage``, ``turn.failed``/``error`` on failure. The events do not name the
model, so the roster's model is recorded with ``version: unreported``. ``-o FILE`` is not used: the
home vanishes after the run, so the reply is read from the event stream instead.

A turn may print several agent messages (progress before the last one): the turn's final message is
its last. ``codex exec`` runs one turn; a stream with several completed turns, each with a final
message (or a final message whose ``text`` key is repeated), is read as the shared rule says
(``cli_seat.results_text``): every final text, in order, is the raw reply.
"""

from __future__ import annotations

import json
from typing import Any

from league_agents.base import Ask
from league_agents.cli_seat import CliSeat, Parsed, loads, results_text, values_of
from league_agents.options import CodexOptions
from sandbox.interface import ExecResult


def _jsonl(stdout: str) -> list[dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        try:
            item = loads(line)
        except (ValueError, RecursionError):
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


#: Settings that keep Codex from calling anything but its model (plugin sync, analytics, update check).
QUIET = ("features.plugins=false", "analytics.enabled=false", "check_for_update_on_startup=false")


def gateway_overrides(base_url: str, key_env: str) -> list[str]:
    """``-c`` overrides for a custom provider: Codex ignores ``OPENAI_BASE_URL`` for its built-in one."""
    table = "model_providers.league"
    return ['model_provider="league"', f'{table}.name="league gateway"', f"{table}.base_url={_toml(base_url)}",
            f"{table}.env_key={_toml(key_env)}", f'{table}.wire_api="responses"',
            f"{table}.supports_websockets=false"]


def _toml(text: str) -> str:
    return json.dumps(text)  # a JSON string is a valid TOML basic string


class CodexSeat(CliSeat):
    """Gateway: a ``league`` model provider (``options.base_url`` ending in ``/v1``, key in
    ``options.api_key_env``, default ``OPENAI_API_KEY``); the CLI calls ``POST /v1/responses`` with
    SSE. Given as ``-c`` overrides, so the operator's own ``config.toml`` is left as it is."""

    binary = "codex"
    npm_package = "@openai/codex"
    options_model = CodexOptions
    profile_name = "codex"
    api_hosts = ("api.openai.com", "chatgpt.com", "auth.openai.com")

    def argv(self, ask: Ask) -> list[str]:
        argv = [self.command, "exec", "--json", "-m", self.spec.model, "--skip-git-repo-check", "--ephemeral"]
        argv += ["-s", self.inner_sandbox, "-c", f"model_reasoning_effort={self.effort}"]
        settings = list(QUIET) + ([] if self.web else ['web_search="disabled"'])
        if self.base_url:
            settings += gateway_overrides(self.base_url, str(self.spec.options.get("api_key_env") or "OPENAI_API_KEY"))
        for setting in settings:
            argv += ["-c", setting]
        return [*argv, ask.text]

    @property
    def inner_sandbox(self) -> str:
        """Codex's own sandbox mode inside ours. ``read-only`` by default; a seat that must run a command
        (``options.allow_commands``, the contest's `bench`) gets ``danger-full-access``, because Codex's
        read-only seccomp filter refuses even the Unix socket `bench` talks through (EPERM). Bubblewrap stays
        the boundary either way: a read-only system, a throw-away home and the egress proxy."""
        return "danger-full-access" if self.spec.options.get("allow_commands") else "read-only"

    def parse(self, result: ExecResult) -> Parsed:
        events = _jsonl(result.text)
        errors = [m for m in map(_error_message, events) if m]
        finals = _final_messages(events)
        if errors and not finals:
            raise self.fail_from_output(result, "codex: " + "; ".join(errors))
        if not finals:
            raise self.fail_from_output(result, f"codex printed no agent message (exit {result.exit_code})")
        usage: dict[str, Any] = {}
        for ev in events:
            if ev.get("type") == "turn.completed":
                usage = dict(ev.get("usage") or {})
        return Parsed(text=results_text(finals), usage=usage)


def _final_messages(events: list[dict[str, Any]]) -> list[str]:
    """The text of each turn's last agent message (every value of a repeated ``text`` key), in order."""
    finals: list[str] = []
    last: list[str] = []
    for ev in events:
        item = ev.get("item")
        if ev.get("type") == "item.completed" and isinstance(item, dict) and item.get("type") == "agent_message":
            last = [str(t) for t in values_of(item, "text")] or [""]
        elif ev.get("type") == "turn.completed":
            finals += last
            last = []
    return finals + last

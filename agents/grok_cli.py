"""Grok CLI (``@vibe-kit/grok-cli``) as a seat.

Headless call ``grok -p PROMPT -m MODEL --max-tool-rounds N`` (vendors.md): OpenAI-style message
objects, one per line (``{"role": "assistant", "content": …}``, tool calls and tool results);
no model id and no usage are printed, and no reasoning setting is exposed, so the roster's model
is recorded with ``version: unreported`` and mode ``cli-default``.

The assistant speaks once per tool round; its last message is the reply. A last message whose
``content`` key is repeated is read as the shared rule says (``cli_seat.results_text``): every value of
it, in order, is the raw reply.
"""

from __future__ import annotations

from typing import Any

from league_agents.base import Ask
from league_agents.cli_seat import CliSeat, Parsed, loads, results_text, values_of
from league_agents.options import GrokCliOptions
from sandbox.interface import ExecResult

#: How Grok CLI 0.0.x reports a failed model call (agent/grok-agent.js): as the assistant's message.
ERROR_PREFIX = "Sorry, I encountered an error: "


def _messages(stdout: str) -> list[dict[str, Any]]:
    out = []
    for line in stdout.splitlines():
        try:
            item = loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(item, dict) and "role" in item:
            out.append(item)
    return out


class GrokCliSeat(CliSeat):
    """Gateway: ``GROK_BASE_URL`` (ending in ``/v1``; the CLI calls ``POST /v1/chat/completions``,
    not streamed in ``-p`` mode). Its fetch() ignores HTTPS_PROXY on Node 20, hence the preload."""

    binary = "grok"
    npm_package = "@vibe-kit/grok-cli"
    options_model = GrokCliOptions
    profile_name = "grok"
    api_hosts = ("api.x.ai",)
    node_fetch_proxy = True

    def argv(self, ask: Ask) -> list[str]:
        rounds = int(self.spec.options.get("max_tool_rounds", 8 if self.web else 1))
        return [self.command, "-p", ask.text, "-m", self.spec.model, "--max-tool-rounds", str(rounds)]

    def env(self) -> dict[str, str]:
        return {"GROK_BASE_URL": self.base_url} if self.base_url else {}

    def parse(self, result: ExecResult) -> Parsed:
        replies = [m for m in _messages(result.text) if m.get("role") == "assistant" and m.get("content")]
        if result.exit_code != 0 or not replies:
            first = result.err_text.strip() or result.text.strip()
            raise self.fail_from_output(result, f"grok failed (exit {result.exit_code}): {first[:500]}")
        texts = [str(t or "") for t in values_of(replies[-1], "content")]
        if texts[-1].startswith(ERROR_PREFIX):  # its API errors come back as an assistant line, exit 0
            raise self.fail_from_output(result, f"grok: {texts[-1][:500]}")
        return Parsed(text=results_text(texts), mode="cli-default")

"""Claude Code (``@anthropic-ai/claude-code``) as a seat.

Headless call ``claude -p PROMPT --output-format json`` (vendors.md). The JSON result carries
``result`` (the reply text), ``is_error``/``subtype``, ``usage``, ``total_cost_usd`` and
``modelUsage`` keyed by model id; some versions print an array of events whose last
``type == "result"`` element is that object, and ``stream-json`` prints one event per line with a
``system/init`` event naming the model. All three shapes are read.

A run prints one result. Output with several (or one whose ``result`` key is repeated) is read as the
shared rule says (``cli_seat.results_text``): the last result decides whether the run failed; the texts
of all successful ones, in order, are the raw reply, so that two different answers are refused by the
parser instead of the last one winning silently.
"""

from __future__ import annotations

from typing import Any

from league_agents.base import Ask
from league_agents.cli_seat import CliSeat, Parsed, loads, results_text, values_of
from league_agents.options import ClaudeCodeOptions
from sandbox.interface import ExecResult


def _events(stdout: str) -> list[dict[str, Any]]:
    """Whatever shape the CLI printed, as a list of JSON objects (non-JSON lines are skipped)."""
    text = stdout.strip()
    try:
        doc = loads(text)
    except (ValueError, RecursionError):
        doc = None
    if isinstance(doc, dict):
        return [doc]
    if isinstance(doc, list):
        return [d for d in doc if isinstance(d, dict)]
    events = []
    for line in text.splitlines():
        try:
            item = loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(item, dict):
            events.append(item)
    return events


def _reported_model(events: list[dict[str, Any]], result: dict[str, Any]) -> str:
    """The main model: the ``modelUsage`` key with most output tokens, else the init event's."""
    usage = result.get("modelUsage")
    if isinstance(usage, dict) and usage:
        return str(max(usage, key=lambda k: (usage[k] or {}).get("outputTokens", 0)))
    for ev in events:
        if ev.get("type") == "system" and ev.get("subtype") == "init" and ev.get("model"):
            return str(ev["model"])
    return ""


class ClaudeCodeSeat(CliSeat):
    """Gateway: ``ANTHROPIC_BASE_URL`` (the CLI calls ``POST /v1/messages`` with SSE, key as
    ``x-api-key``); ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`` always, so it contacts nothing but
    its model (no telemetry, update check or title-generation call)."""

    binary = "claude"
    npm_package = "@anthropic-ai/claude-code"
    options_model = ClaudeCodeOptions
    profile_name = "claude"
    api_hosts = ("api.anthropic.com", "console.anthropic.com", "platform.claude.com")

    def argv(self, ask: Ask) -> list[str]:
        argv = [self.command, "-p", ask.text, "--output-format", "json", "--model", self.spec.model]
        argv += ["--effort", self.effort, "--permission-mode", "default", "--no-session-persistence"]
        if budget := self.spec.options.get("max_budget_usd"):
            argv += ["--max-budget-usd", str(budget)]
        # headless mode denies tools that would ask for permission: allow the web ones explicitly under `web`
        argv += ["--allowedTools" if self.web else "--disallowedTools", "WebSearch", "WebFetch"]
        # ``options.allow_commands``: shell commands the seat may run, e.g. the contest's `bench` (a prefix rule)
        commands = [f"Bash({c}:*)" for c in self.spec.options.get("allow_commands", ())]
        return argv + (["--allowedTools", *commands] if commands else [])

    def env(self) -> dict[str, str]:
        env = {"CLAUDE_CODE_EFFORT_LEVEL": self.effort, "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
        if self.base_url:
            env["ANTHROPIC_BASE_URL"] = self.base_url
        return env

    def parse(self, result: ExecResult) -> Parsed:
        events = _events(result.text)
        results = [e for e in events if e.get("type") == "result"]
        if not results:
            raise self.fail_from_output(result, f"claude printed no result object (exit {result.exit_code})")
        final = results[-1]
        if not _succeeded(final):
            raise self.fail_from_output(result, f"claude {final.get('subtype')}: {final.get('result', '')}")
        usage = dict(final.get("usage") or {})
        usage["total_cost_usd"] = final.get("total_cost_usd")
        usage["model_usage"] = final.get("modelUsage") or {}
        texts = [str(t or "") for e in results if _succeeded(e) for t in values_of(e, "result")]
        return Parsed(text=results_text(texts), model=_reported_model(events, final), usage=usage)


def _succeeded(event: dict[str, Any]) -> bool:
    return not event.get("is_error") and event.get("subtype") == "success"

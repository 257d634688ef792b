"""Gemini CLI (``@google/gemini-cli``) as a seat.

Headless call ``gemini -p PROMPT -m MODEL -o json`` (vendors.md): one JSON object with
``response`` (the reply), ``stats.models.<id>.tokens`` and, on failure, ``error``. There is no
reasoning flag: the thinking level is set in ``~/.gemini/settings.json`` under
``modelConfigs`` (both the current ``overrides`` and the older ``customOverrides`` keys), merged
into the operator's own settings file, which also switches web search off for closed-book runs.

A run prints one object. Objects printed one after the other (or one whose ``response`` key is repeated)
are read as the shared rule says (``cli_seat.results_text``): the last decides whether the run failed, the
responses of all those without an ``error`` are the raw reply, in order.
"""

from __future__ import annotations

import json
import os
from typing import Any

from league_agents.base import Ask
from league_agents.cli_seat import CliSeat, Parsed, decoder, results_text, values_of
from sandbox.interface import ExecResult
from sandbox.profiles import credentials_home

_LEVELS = {"max": "HIGH", "xhigh": "XHIGH", "high": "HIGH", "medium": "MEDIUM", "low": "LOW", "minimal": "MINIMAL"}


def merged_settings(base: dict[str, Any], model: str, level: str, web: bool, api_key: bool = False) -> dict[str, Any]:
    """The operator's settings plus the seat's thinking level, no web search unless ``web``, no usage
    statistics, telemetry or auto-update, and API-key authentication when the seat uses a key."""
    settings: dict[str, Any] = json.loads(json.dumps(base))
    override = {
        "match": {"model": model},
        "modelConfig": {"generateContentConfig": {"thinkingConfig": {"thinkingLevel": level}}},
    }
    configs = settings.setdefault("modelConfigs", {})
    for key in ("overrides", "customOverrides"):
        kept = [o for o in configs.get(key, []) if (o.get("match") or {}).get("model") != model]
        configs[key] = [*kept, override]
    if not web:
        tools = settings.setdefault("tools", {})
        tools["exclude"] = sorted({*tools.get("exclude", []), "google_web_search", "web_fetch"})
    settings.setdefault("privacy", {})["usageStatisticsEnabled"] = False
    settings.setdefault("telemetry", {})["enabled"] = False
    settings.setdefault("general", {})["enableAutoUpdate"] = False
    if api_key:  # else the CLI stops with exit 41 "Invalid auth method selected"
        settings.setdefault("security", {}).setdefault("auth", {})["selectedType"] = "gemini-api-key"
    return settings


class GeminiCliSeat(CliSeat):
    """Gateway: ``GOOGLE_GEMINI_BASE_URL`` (the CLI calls
    ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``, key as ``x-goog-api-key``);
    ``GEMINI_CLI_TRUST_WORKSPACE=true`` (else exit 55 in the fresh home)."""

    binary = "gemini"
    npm_package = "@google/gemini-cli"
    profile_name = "gemini"
    api_hosts = ("generativelanguage.googleapis.com", "cloudcode-pa.googleapis.com", "oauth2.googleapis.com",
                 "www.googleapis.com")

    @property
    def level(self) -> str:
        return _LEVELS.get(self.effort.lower(), self.effort.upper())

    def argv(self, ask: Ask) -> list[str]:
        argv = [self.command, "-p", ask.text, "-m", self.spec.model, "-o", "json", "--approval-mode", "default"]
        # ``options.allow_commands``: shell commands the seat may run without confirmation (the contest's `bench`)
        commands = [f"run_shell_command({c})" for c in self.spec.options.get("allow_commands", ())]
        return argv + (["--allowed-tools", ",".join(commands)] if commands else [])

    def files(self, ask: Ask) -> dict[str, bytes]:
        path = credentials_home() / ".gemini/settings.json"
        try:
            base = json.loads(path.read_text()) if path.is_file() else {}
        except ValueError:
            base = {}
        settings = merged_settings(base if isinstance(base, dict) else {}, self.spec.model, self.level, self.web,
                                   api_key=self.uses_api_key)
        return {".gemini/settings.json": json.dumps(settings, indent=2).encode()}

    @property
    def uses_api_key(self) -> bool:
        """A gateway, or a key variable of the profile set in the league's environment."""
        return bool(self.base_url) or any(os.environ.get(k) for k in self.profile().env_keys)

    def env(self) -> dict[str, str]:
        env = {"GEMINI_CLI_TRUST_WORKSPACE": "true"}
        if self.base_url:
            env["GOOGLE_GEMINI_BASE_URL"] = self.base_url
        return env

    def parse(self, result: ExecResult) -> Parsed:
        docs = _objects(result.text)
        if not docs:
            raise self.fail_from_output(result, f"gemini printed no JSON object (exit {result.exit_code})")
        doc = docs[-1]
        if doc.get("error"):
            err = doc["error"]
            msg = err.get("message", err) if isinstance(err, dict) else err
            raise self.fail_from_output(result, f"gemini error: {msg}")
        models = ((doc.get("stats") or {}).get("models") or {}) if isinstance(doc.get("stats"), dict) else {}
        model = max(models, key=lambda m: ((models[m] or {}).get("tokens") or {}).get("candidates", 0), default="")
        usage = {"models": models}
        texts = [str(t or "") for d in docs if not d.get("error") for t in values_of(d, "response")]
        return Parsed(text=results_text(texts), model=model, mode=self.level, usage=usage)


def _objects(stdout: str) -> list[dict[str, Any]]:
    """The JSON objects printed from the first ``{`` to the end, one after the other (whitespace between);
    none when anything else is printed there (as for one object followed by anything but whitespace).
    Each is decoded once, so the work is linear in the output."""
    start = stdout.find("{")
    if start < 0:
        return []
    read = decoder()
    docs: list[dict[str, Any]] = []
    pos, end = start, len(stdout.rstrip())
    try:
        while pos < end:
            doc, pos = read.raw_decode(stdout, pos)
            if not isinstance(doc, dict):
                return []
            docs.append(doc)
            while pos < end and stdout[pos].isspace():
                pos += 1
    except (ValueError, RecursionError):
        return []
    return docs

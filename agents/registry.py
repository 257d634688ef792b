"""Seat adapters registered by name and imported lazily.

The roster names an adapter (``adapter = "claude_code"``); only when a seat is built is its module
imported, so no vendor SDK is imported until a seat that needs it is used (and a missing optional
SDK only breaks that seat).
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from league_agents.base import FailureClass, Seat, SeatError, SeatSpec
from sandbox.interface import Sandbox

ADAPTERS: dict[str, str] = {
    "scripted": "league_agents.scripted:ScriptedSeat",
    "coin": "league_agents.baselines:CoinSeat",
    "momentum": "league_agents.baselines:MomentumSeat",
    "climatology": "league_agents.baselines:ClimatologySeat",
    "claude_code": "league_agents.claude_code:ClaudeCodeSeat",
    "codex": "league_agents.codex:CodexSeat",
    "gemini_cli": "league_agents.gemini_cli:GeminiCliSeat",
    "grok_cli": "league_agents.grok_cli:GrokCliSeat",
    "anthropic_sdk": "league_agents.anthropic_sdk:AnthropicSeat",
    "openai_sdk": "league_agents.openai_sdk:OpenAISeat",
    "genai_sdk": "league_agents.genai_sdk:GenAISeat",
}
SANDBOXED = frozenset({"scripted", "claude_code", "codex", "gemini_cli", "grok_cli"})


class UnknownAdapter(SeatError):
    """The roster names an adapter that is not registered (a configuration mistake)."""

    def __init__(self, name: str) -> None:
        known = ", ".join(sorted(ADAPTERS))
        super().__init__(f"unknown seat adapter {name!r}; registered adapters: {known}", FailureClass.SEAT_FAULT)


def spec_problems(spec: SeatSpec) -> list[str]:
    """What is wrong with a roster entry, found when the roster is loaded rather than at the first ask
    (where it became a sandbox incident or a traceback). Imports no adapter module."""
    if spec.adapter not in ADAPTERS:
        return [f"unknown adapter {spec.adapter!r}; registered adapters: {', '.join(sorted(ADAPTERS))}"]
    problems = _sandbox_problems(spec)
    if spec.adapter == "scripted":
        problems += _scripted_problems(spec.options)
    for key in ("executable", "bin_files"):
        for src in _paths(spec.options.get(key)):
            if not Path(src).is_file():
                problems.append(f"options.{key}: {src!r} is not a file (a lab's own CLI and its helper files "
                                "must exist on the league's host; they are copied into the sandbox)")
    return problems


def _sandbox_problems(spec: SeatSpec) -> list[str]:
    from sandbox.interface import SandboxError
    from sandbox.profiles import get_profile, home_relative

    problems = []
    try:
        get_profile(spec.profile).with_env_keys(spec.env)
    except SandboxError as exc:
        problems.append(exc.message)
    for rel in spec.credentials:
        try:
            home_relative(rel)
        except SandboxError as exc:
            problems.append(f"credentials: {exc.message}")
    return problems


def _scripted_problems(options: Any) -> list[str]:
    from league_agents.scripted import MODES

    problems = []
    if str(options.get("mode", "normal")) not in MODES:
        problems.append(f"options.mode {options.get('mode')!r} is not one of {', '.join(MODES)}")
    latency = options.get("latency_s", 0)
    if isinstance(latency, bool) or not isinstance(latency, int | float) or not 0 <= latency <= 86400:
        problems.append(f"options.latency_s {latency!r} is not a number of seconds between 0 and 86400 "
                        "(a negative latency would book an answer before its run line)")
    return problems


def _paths(value: Any) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list | tuple) else [str(value)]


def adapter_names() -> list[str]:
    return sorted(ADAPTERS)


def load_adapter(name: str) -> type[Any]:
    """Import ``module:Class`` for ``name`` now (and only now)."""
    if name not in ADAPTERS:
        raise UnknownAdapter(name)
    module, _, cls = ADAPTERS[name].partition(":")
    try:
        return getattr(importlib.import_module(module), cls)  # type: ignore[no-any-return]
    except ImportError as exc:
        extra = {"anthropic_sdk": "anthropic", "openai_sdk": "openai", "genai_sdk": "genai"}.get(name, "")
        hint = f"; install it with pip install 'forecast-league[{extra}]'" if extra else ""
        raise SeatError(f"adapter {name!r} cannot be imported: {exc}{hint}", FailureClass.SEAT_FAULT) from exc


def build_seat(spec: SeatSpec, *, sandbox: Sandbox | None = None) -> Seat:
    """The seat for one roster entry; CLI and scripted seats share ``sandbox`` (default: bubblewrap)."""
    cls = load_adapter(spec.adapter)
    seat: Seat = cls(spec, sandbox=sandbox)
    return seat


def build_roster(specs: list[SeatSpec] | tuple[SeatSpec, ...], *, sandbox: Sandbox | None = None) -> list[Seat]:
    return [build_seat(s, sandbox=sandbox) for s in specs]

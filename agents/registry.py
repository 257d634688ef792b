"""Seat adapters, registered by entry point (group ``forecast_league.seats``) and imported lazily.

The roster names an adapter (``adapter = "claude_code"``); only when a seat is checked or built is
its module imported, and no vendor SDK is imported until a seat that needs it asks. A lab ships its
own adapter as a package declaring an entry point in the group (docs/seats.md). An adapter whose
optional library is missing is a roster error with the install command, found when the roster loads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from league_agents.base import FailureClass, Seat, SeatError, SeatSpec
from league_agents.plugins import PluginError, Plugins, UnknownPlugin
from sandbox.interface import Sandbox

#: The seat adapters: entry-point group ``forecast_league.seats`` (this project's in pyproject.toml).
SEATS = Plugins("forecast_league.seats", "seat adapter")


class UnknownAdapter(SeatError):
    """The roster names an adapter that is not registered (a configuration mistake)."""

    def __init__(self, name: str) -> None:
        known = ", ".join(SEATS.names())
        super().__init__(f"unknown seat adapter {name!r}; registered adapters: {known}", FailureClass.SEAT_FAULT)


def spec_problems(spec: SeatSpec, *, files_here: bool = True) -> list[str]:
    """What is wrong with a roster entry, found when the roster is loaded rather than at the first ask
    (where it became a sandbox incident or a traceback). Imports no adapter module.

    ``files_here=False`` for a seat that runs on a lab's worker (``worker = "lab-a"``): its executable
    and helper files live on the lab's machine, where the worker checks them before each run."""
    if spec.adapter not in SEATS:
        return [f"unknown adapter {spec.adapter!r}; registered adapters: {', '.join(SEATS.names())}"]
    try:
        load_adapter(spec.adapter)
    except SeatError as exc:
        return [str(exc)]
    problems = _sandbox_problems(spec)
    if spec.adapter == "scripted":
        problems += _scripted_problems(spec.options)
    for key in ("executable", "bin_files") if files_here else ():
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
    return SEATS.names()


def load_adapter(name: str) -> type[Any]:
    """The adapter class registered as ``name``, imported now (and only now)."""
    try:
        cls = SEATS.load(name)
    except UnknownPlugin:
        raise UnknownAdapter(name) from None
    except PluginError as exc:
        raise SeatError(f"{exc.message}; install it with {exc.fix}", FailureClass.SEAT_FAULT) from exc
    if not isinstance(cls, type):
        raise SeatError(f"seat adapter {name!r} is registered as {cls!r}, which is not a class",
                        FailureClass.SEAT_FAULT)
    return cls


def is_sandboxed(adapter: str) -> bool:
    """Whether seats of this adapter run inside the bubblewrap sandbox (CLI and scripted seats)."""
    return bool(getattr(load_adapter(adapter), "sandboxed", False))


def build_seat(spec: SeatSpec, *, sandbox: Sandbox | None = None) -> Seat:
    """The seat for one roster entry; CLI and scripted seats share ``sandbox`` (default: bubblewrap)."""
    cls = load_adapter(spec.adapter)
    seat: Seat = cls(spec, sandbox=sandbox)
    return seat


def build_roster(specs: list[SeatSpec] | tuple[SeatSpec, ...], *, sandbox: Sandbox | None = None) -> list[Seat]:
    return [build_seat(s, sandbox=sandbox) for s in specs]

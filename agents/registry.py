"""Seat adapters and the sandbox they run in, registered by entry point and imported lazily.

The roster names an adapter (``adapter = "claude_code"``, group ``forecast_league.seats``); only when a
seat is checked or built is its module imported, and no vendor SDK is imported until a seat that needs
it asks. A lab ships its own adapter as a package declaring an entry point in the group (docs/seats.md).
An adapter whose optional library is missing is a roster error with the install command, found when the
roster loads. The council, the contest and the evaluation tracks build their seats here, the tracks'
stand-ins included: a stand-in is an adapter like any other, and says which tracks it serves.

The sandbox is a port too (group ``forecast_league.sandboxes``): every seat, check and command that runs
something sandboxed gets it from :func:`make_sandbox`, never by naming the implementation.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

from league_agents.base import FailureClass, Seat, SeatError, SeatSpec
from league_agents.options import generic_problems, options_problems
from league_agents.plugins import PluginError, Plugins, UnknownPlugin
from sandbox.interface import Sandbox, SandboxError
from sandbox.profiles import get_profile, home_relative

#: The seat adapters: entry-point group ``forecast_league.seats`` (this project's in pyproject.toml).
SEATS = Plugins("forecast_league.seats", "seat adapter")
#: The sandboxes seats run in: entry-point group ``forecast_league.sandboxes``; each is a class whose
#: constructor takes no argument (the settings come from its ``LEAGUE_*`` variables).
SANDBOXES = Plugins("forecast_league.sandboxes", "sandbox")
#: The sandbox every seat runs in unless it is given another (bubblewrap, docs/sandbox.md).
DEFAULT_SANDBOX = "bwrap"
#: The tracks a roster entry can belong to: the daily council, the CLI contest, the offline evaluations.
TRACKS = ("council", "contest", "eval")
#: How the contest and the evaluations build a seat on the sandbox of their run (:func:`build_seat`).
SeatFactory = Callable[[SeatSpec, Sandbox], Seat]


class UnknownAdapter(SeatError):
    """The roster names an adapter that is not registered (a configuration mistake)."""

    def __init__(self, name: str) -> None:
        known = ", ".join(SEATS.names())
        super().__init__(f"unknown seat adapter {name!r}; registered adapters: {known}", FailureClass.SEAT_FAULT)


def spec_problems(spec: SeatSpec, *, track: str = "council", files_here: bool = True) -> list[str]:
    """What is wrong with a roster entry of ``track`` (one of :data:`TRACKS`), found when the roster is
    loaded rather than at the first ask (where it became a sandbox incident, a traceback or a silently
    ignored setting). Imports the adapter's module (never a vendor SDK: those are imported when a seat
    first asks).

    ``files_here=False`` for a seat that runs on a lab's worker (``worker = "lab-a"``): its executable
    and helper files live on the lab's machine, where the worker checks them before each run."""
    if spec.adapter not in SEATS:
        return [f"unknown adapter {spec.adapter!r}; registered adapters: {', '.join(SEATS.names())}"]
    try:
        cls = load_adapter(spec.adapter)
    except SeatError as exc:
        return [str(exc)]
    problems = _track_problems(spec, cls, track) + _class_problems(spec, cls) + _sandbox_problems(spec)
    if files_here:
        problems += _file_problems(spec.options)
    return problems


def _track_problems(spec: SeatSpec, cls: type[Any], track: str) -> list[str]:
    """A track's stand-in answers only that track's asks (a contest stand-in in the council's roster would
    be asked what it cannot read): its class names the tracks it serves (``tracks``; ``None``: every one)."""
    tracks = getattr(cls, "tracks", None)
    if tracks is None or track in tracks:
        return []
    return [f"adapter {spec.adapter!r} serves only the {' and '.join(sorted(tracks))} track, not the {track} track "
            f"(docs/seats.md lists each adapter's tracks)"]


def _class_problems(spec: SeatSpec, cls: type[Any]) -> list[str]:
    """What the adapter class says of its seats: the options it takes, the network policies it can
    enforce, and whether its seats are the history-only baselines (only they may be named with a leading ``_``)."""
    model = getattr(cls, "options_model", None)
    problems = options_problems(model, spec.options) if model is not None else generic_problems(spec.options)
    networks = getattr(cls, "networks", None)
    if networks is not None and "network" in spec.model_fields_set and spec.network not in networks:
        allowed = (f"it enforces only {', '.join(sorted(networks))}" if networks else
                   "it runs in the league's own process, where no sandbox policy applies; remove the key")
        problems.append(f"network = {spec.network!r} cannot be honoured by adapter {spec.adapter!r}: {allowed} "
                        "(a policy is never silently cut; docs/seats.md §1a)")
    if spec.name.startswith("_") and not getattr(cls, "baseline", False):
        problems.append(f"name {spec.name!r}: a leading '_' is reserved for the history-only baselines "
                        f"(coin, momentum, climatology, naive, ets), which are scored but never counted in the "
                        f"consensus; adapter {spec.adapter!r} is not one")
    return problems


def _sandbox_problems(spec: SeatSpec) -> list[str]:
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


def _file_problems(options: Any) -> list[str]:
    """A lab's own CLI (``executable``) is an executable regular file, its helper files regular files, and
    ``cli_prefix`` a folder: each is copied or bound into the sandbox, where a wrong kind of file became an
    incident at the first ask."""
    problems = []
    for src in _paths(options.get("executable")):
        if not Path(src).is_file() or not os.access(src, os.X_OK):
            problems.append(f"options.executable: {src!r} is not an executable file (a lab's own CLI must exist on "
                            "the league's host, with its execute bit set; it is copied into the sandbox)")
    for src in _paths(options.get("bin_files")):
        if not Path(src).is_file():
            problems.append(f"options.bin_files: {src!r} is not a file (a lab's helper files are copied into the "
                            "sandbox)")
    prefix = options.get("cli_prefix")
    if prefix and not Path(str(prefix)).is_dir():
        problems.append(f"options.cli_prefix: {str(prefix)!r} is not a folder (made by `npm install --prefix DIR`)")
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


def takes_hints(adapter: str) -> bool:
    """Whether seats of this adapter may be handed the recorded answer in their ask's context (a stand-in's
    ``skill`` leans toward it); a real seat's ask never carries it."""
    return bool(getattr(load_adapter(adapter), "hinted", False))


def reads_history(adapter: str) -> bool:
    """Whether seats of this adapter read each market's daily closes from their ask's context."""
    return bool(getattr(load_adapter(adapter), "reads_history", False))


def build_seat(spec: SeatSpec, sandbox: Sandbox | None = None) -> Seat:
    """The seat for one roster entry; CLI and scripted seats share ``sandbox`` (default: :func:`make_sandbox`,
    made when the seat first runs)."""
    cls = load_adapter(spec.adapter)
    seat: Seat = cls(spec, sandbox=sandbox)
    return seat


def build_roster(specs: list[SeatSpec] | tuple[SeatSpec, ...], *, sandbox: Sandbox | None = None) -> list[Seat]:
    return [build_seat(s, sandbox=sandbox) for s in specs]


def make_sandbox(name: str = DEFAULT_SANDBOX) -> Sandbox:
    """A new sandbox of the implementation registered as ``name`` (default: bubblewrap). A missing one is a
    :class:`sandbox.interface.SandboxError` naming the registered sandboxes, as an uninstalled bwrap is."""
    try:
        cls = SANDBOXES.load(name)
    except PluginError as exc:
        raise SandboxError(exc.message, fix=exc.fix) from None
    return cast(Callable[[], Sandbox], cls)()


def sandbox_installed(name: str = DEFAULT_SANDBOX) -> bool:
    """Whether the sandbox's own tools are installed here (its class's ``available()``), without making one
    (which would also need the cgroup and the uid range)."""
    try:
        cls = SANDBOXES.load(name)
    except PluginError:
        return False
    available = getattr(cls, "available", None)
    return bool(available()) if callable(available) else True

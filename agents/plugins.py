"""Adapters are registered ONE way: entry points, loaded lazily by name.

Every port with several implementations — seats (``forecast_league.seats``), price providers
(``forecast_league.prices``), crowd providers (``forecast_league.crowd``), stamp backends
(``forecast_league.stamps``) — is a :class:`Plugins` over one entry-point group. This project
declares its own adapters in ``pyproject.toml``; a lab ships a seat adapter as its own package
that declares an entry point in the same group, and it is found without editing this repository.

Nothing is imported until an adapter is asked for by name. An unknown name is an error listing the
names that are registered. An adapter whose entry point names extras (``module:Class [genai]``)
needs them installed: when a requirement of those extras is missing, loading fails with the install
command (``pip install 'forecast-league[genai]'``) instead of leaving a seat that breaks at its
first ask. It lives in the lowest layer that has adapters, so the league's ports use it too.
"""

from __future__ import annotations

import importlib.metadata as md
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from packaging.requirements import InvalidRequirement, Requirement


class PluginError(Exception):
    """An adapter could not be found or loaded; ``fix`` says what to do (same shape as LeagueError)."""

    def __init__(self, message: str, *, fix: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def diagnostics(self) -> str:
        return self.message + (f"\n  fix: {self.fix}" if self.fix else "")


class UnknownPlugin(PluginError):
    """No adapter of that name is registered in the group."""


class MissingDependency(PluginError):
    """The adapter is registered but a library it needs (an optional extra) is not installed."""


#: This project's own top-level packages: a module of theirs that is missing is a bug, not a missing extra.
OWN = ("league", "league_agents", "sandbox")


@contextmanager
def extra(name: str) -> Iterator[None]:
    """Around the imports of what needs the optional extra ``name``, in an adapter that must import without it
    (the `_ets` seat's fits, league_agents.ets_fit): a missing library becomes :class:`MissingDependency`
    naming the install command, the seat's ordinary failure. The adapters' counterpart of league.extras.extra
    (the layers keep league_agents from importing the league); tests/unit/architecture/test_function_imports.py
    checks both the same way."""
    try:
        yield
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] in OWN:
            raise
        raise MissingDependency(f"{exc.name} is not installed: the `{name}` extra installs it",
                                fix=f"pip install 'forecast-league[{name}]'") from exc


class Plugins:
    """The adapters of one entry-point group, by name."""

    def __init__(self, group: str, what: str) -> None:
        self.group = group
        self.what = what
        self._seen: tuple[tuple[str, ...], dict[str, md.EntryPoint]] | None = None

    def _points(self) -> dict[str, md.EntryPoint]:
        """The group's entry points, read once per import path: reading them walks every installed
        distribution's metadata (~18 ms here), and opening a league asks ~40 times (each seat's adapter, the
        price, crowd and stamp backends). A changed ``sys.path`` reads them again."""
        path = tuple(sys.path)
        if self._seen is not None and self._seen[0] == path:
            return self._seen[1]
        points: dict[str, md.EntryPoint] = {}
        for ep in md.entry_points(group=self.group):
            points.setdefault(ep.name, ep)  # the same distribution seen twice on the path counts once
        self._seen = (path, points)
        return points

    def names(self) -> list[str]:
        return sorted(self._points())

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and name in self._points()

    def entry_point(self, name: str) -> md.EntryPoint:
        points = self._points()
        if name not in points:
            known = ", ".join(sorted(points)) or "none"
            raise UnknownPlugin(f"unknown {self.what} {name!r}; registered: {known}",
                                fix=f"use one of: {known} (or install the package that registers {name!r} "
                                    f"in the entry-point group {self.group})")
        return points[name]

    def load(self, name: str) -> object:
        """Import the adapter registered as ``name`` now (and only now)."""
        ep = self.entry_point(name)
        missing = list(_missing(ep))
        if missing:
            raise MissingDependency(f"{self.what} {name!r} needs {', '.join(missing)}, which is not installed",
                                    fix=_install_hint(ep))
        try:
            return ep.load()
        except ImportError as exc:
            raise MissingDependency(f"{self.what} {name!r} cannot be imported: {exc}", fix=_install_hint(ep)) from exc


def _requirements(ep: md.EntryPoint) -> Iterable[Requirement]:
    """The requirements of the extras an entry point names, from its own distribution's metadata."""
    if not ep.extras or ep.dist is None:
        return
    for text in ep.dist.requires or ():
        try:
            req = Requirement(text)
        except InvalidRequirement:
            continue
        if req.marker is not None and any(req.marker.evaluate({"extra": extra}) for extra in ep.extras):
            yield req


def _missing(ep: md.EntryPoint) -> Iterable[str]:
    for req in _requirements(ep):
        try:
            md.version(req.name)
        except md.PackageNotFoundError:
            yield req.name


def _install_hint(ep: md.EntryPoint) -> str:
    dist = ep.dist.metadata["Name"] if ep.dist is not None else "the package that provides it"
    extras = f"[{','.join(ep.extras)}]" if ep.extras else ""
    return f"pip install '{dist}{extras}'"

"""The entry points of a group are read once per import path (opening a league asks ~40 times)."""

from __future__ import annotations

import importlib.metadata as md
import sys
from typing import Any

import pytest

from league_agents import plugins
from league_agents.plugins import Plugins


def test_entry_points_are_read_once_per_import_path(monkeypatch: pytest.MonkeyPatch) -> None:
    reads: list[str] = []
    real = md.entry_points

    def counting(**kw: Any) -> Any:
        reads.append(kw["group"])
        return real(**kw)

    monkeypatch.setattr(plugins.md, "entry_points", counting)
    seats = Plugins("forecast_league.seats", "seat adapter")
    first = seats.names()
    assert "coin" in first and "scripted" in seats and seats.entry_point("coin").name == "coin"
    assert reads == ["forecast_league.seats"]
    monkeypatch.setattr(sys, "path", [*sys.path, "/nonexistent-plugin-dir"])
    assert seats.names() == first
    assert reads == ["forecast_league.seats"] * 2  # a changed path is read again

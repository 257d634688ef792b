"""Adapters are registered one way (entry points), and a lab's seat adapter needs no edit of this repo.

A tiny package ``lab-echo-seat`` is written here, built and installed by pip into a folder of its
own; with that folder on the path the league finds its seat by name: the roster loads, the seat is
built and answers. An unknown name is a configuration error listing the registered names, and an
adapter whose optional library is missing is an error carrying the install command.
"""

from __future__ import annotations

import importlib.metadata as md
import os
import subprocess
import sys
from pathlib import Path

import pytest

from league.config import PriceSettings, load_roster
from league.errors import ConfigError
from league_agents.base import SeatError
from league_agents.plugins import MissingDependency, Plugins
from league_agents.registry import load_adapter

PYPROJECT = """
[build-system]
requires = ["setuptools>=69"]
build-backend = "setuptools.build_meta"

[project]
name = "lab-echo-seat"
version = "1.0"
dependencies = []

[project.optional-dependencies]
fancy = ["no-such-distribution-for-league-tests>=1"]

[project.entry-points."forecast_league.seats"]
lab_echo = "lab_echo_seat:EchoSeat"
lab_fancy = "lab_echo_seat:EchoSeat [fancy]"
"""
MODULE = '''
from league_agents.base import SeatReply


class EchoSeat:
    """A lab's own seat: it answers every ask with a fixed forecast."""

    def __init__(self, spec, *, sandbox=None):
        self.spec = spec

    def ask(self, ask, now):
        started = now()
        raw = '{"forecast": {"SPX": {"1d": {"prob_up": 57}}}}'
        return SeatReply(seat=self.spec.name, raw=raw, model="echo-1", version="1.0", mode="",
                         started_at=started, finished_at=now())
'''
PROBE = """
import sys
from datetime import UTC, datetime
from pathlib import Path
from league.config import load_roster
from league_agents.base import Ask
from league_agents.registry import adapter_names, build_seat
roster = load_roster(Path(sys.argv[1]))
seat = build_seat(roster.seat[0])
reply = seat.ask(Ask(text="ask", sha256="0" * 64, session="2026-11-25"), lambda: datetime.now(UTC))
print("lab_echo" in adapter_names(), type(seat).__module__, reply.raw)
"""
ROSTER = ('counting_rule = "The scheduled 08:30 ET morning run counts."\n'
          '[[seat]]\nname = "echo"\nadapter = "{adapter}"\n')


@pytest.fixture(scope="module")
def lab_package(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The lab's package, built from its own source by pip and installed into a folder of its own."""
    root = tmp_path_factory.mktemp("lab")
    src = root / "src"
    src.mkdir()
    (src / "pyproject.toml").write_text(PYPROJECT)
    (src / "lab_echo_seat.py").write_text(MODULE)
    target = root / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(target), str(src)],
                   check=True, capture_output=True, text=True, timeout=600)
    return target


def _roster(tmp_path: Path, adapter: str) -> Path:
    path = tmp_path / "roster.toml"
    path.write_text(ROSTER.format(adapter=adapter))
    return path


def test_a_lab_seat_package_is_found_without_editing_the_league(lab_package: Path, tmp_path: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(lab_package)}
    done = subprocess.run([sys.executable, "-c", PROBE, str(_roster(tmp_path, "lab_echo"))], env=env,
                          capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split(" ", 2) == ["True", "lab_echo_seat", '{"forecast": {"SPX": {"1d": {"prob_up": 57}}}}\n']


def test_without_the_package_the_roster_names_the_registered_adapters(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="unknown adapter 'lab_echo'; registered adapters: .*claude_code"):
        load_roster(_roster(tmp_path, "lab_echo"))


def test_a_missing_optional_library_is_an_error_with_the_install_command(lab_package: Path,
                                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(lab_package))
    with pytest.raises(MissingDependency) as info:
        Plugins("forecast_league.seats", "seat adapter").load("lab_fancy")
    assert "no-such-distribution-for-league-tests" in info.value.message
    assert info.value.fix == "pip install 'lab-echo-seat[fancy]'"


def test_our_sdk_seat_without_its_sdk_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    real = md.version

    def version(name: str) -> str:
        if name == "google-genai":
            raise md.PackageNotFoundError(name)
        return real(name)

    monkeypatch.setattr(md, "version", version)
    with pytest.raises(SeatError, match=r"pip install 'forecast-league\[genai\]'"):
        load_adapter("genai_sdk")


def test_an_unknown_price_provider_is_a_config_error_listing_the_registered_ones() -> None:
    with pytest.raises(ValueError, match="unknown price provider 'bloomberg'; registered: replay, yahoo"):
        PriceSettings(provider="bloomberg")

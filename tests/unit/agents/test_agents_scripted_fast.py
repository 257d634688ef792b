"""The scripted seat's cheaper runs: the child started with CHILD_FLAGS (isolated, no ``site``) prints what
it prints without them, byte for byte, in every mode; its source is read once and is the file's."""

from __future__ import annotations

import json
import subprocess
from importlib import resources
from pathlib import Path

import pytest
from agents_helpers import make_ask

from league_agents.base import SeatSpec
from league_agents.scripted import CHILD_FLAGS, MODES, SYSTEM_PYTHON, ScriptedSeat, child_source

MARKETS = {
    "SPX": {"horizons": ["1d", "1w", "1m", "6m"], "last_change_pct": 0.4, "price": 6000.0},
    "BTC": {"horizons": ["1d", "1w"], "last_change_pct": None, "price": 91000.0},
}
HINT = {"SPX": {"1d": 80.0, "1w": 20.0}}


def run(flags: tuple[str, ...], request: bytes, tmp_path: Path) -> tuple[bytes, bytes, int]:
    script = tmp_path / "scripted_child.py"
    script.write_bytes(child_source())
    proc = subprocess.run([SYSTEM_PYTHON, *flags, str(script)], input=request, capture_output=True, timeout=60,
                          check=False, cwd=tmp_path)
    return proc.stdout, proc.stderr, proc.returncode


@pytest.mark.skipif(not Path(SYSTEM_PYTHON).exists(), reason="the system python runs the child")
@pytest.mark.parametrize("mode", MODES)
def test_the_flags_change_nothing_the_child_prints(mode: str, tmp_path: Path) -> None:
    seat = ScriptedSeat(SeatSpec(name="s1", adapter="scripted", options={"seed": 7, "skill": 0.3, "mode": mode}))
    for attempt in (1, 2):
        ask = make_ask(markets=MARKETS, hint=HINT)
        ask = type(ask)(text=ask.text, sha256=ask.sha256, session=ask.session, attempt=attempt, context=ask.context)
        request = json.dumps(seat.request(ask)).encode()
        assert run(CHILD_FLAGS, request, tmp_path) == run((), request, tmp_path)


def test_the_child_source_is_read_once_and_is_the_file() -> None:
    assert child_source() is child_source()
    assert child_source() == resources.files("league_agents").joinpath("scripted_child.py").read_bytes()

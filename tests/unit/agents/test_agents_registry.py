from __future__ import annotations

import os
import subprocess
import sys

import pytest

from league_agents.base import FailureClass, Seat, SeatSpec
from league_agents.registry import UnknownAdapter, adapter_names, build_seat, load_adapter

EXPECTED = {
    "scripted",
    "coin",
    "momentum",
    "climatology",
    "naive",
    "ets",
    "claude_code",
    "codex",
    "gemini_cli",
    "grok_cli",
    "anthropic_sdk",
    "openai_sdk",
    "genai_sdk",
    "contest-standin",
    "eval-standin",
}


def test_all_adapters_registered_and_importable() -> None:
    assert set(adapter_names()) == EXPECTED
    for name in EXPECTED:
        cls = load_adapter(name)
        assert callable(getattr(cls, "ask", None)), name


def test_every_adapter_builds_a_seat() -> None:
    for name in EXPECTED:
        seat = build_seat(SeatSpec(name="x", adapter=name, model="m"))
        assert isinstance(seat, Seat)


def test_unknown_adapter_names_the_known_ones() -> None:
    with pytest.raises(UnknownAdapter, match="claude_code") as info:
        build_seat(SeatSpec(name="x", adapter="chatgpt"))
    assert info.value.failure is FailureClass.SEAT_FAULT


def test_no_vendor_sdk_imported_until_used() -> None:
    code = (
        "import sys\nfrom league_agents.registry import build_seat\nfrom league_agents.base import SeatSpec\n"
        "build_seat(SeatSpec(name='c', adapter='claude_code'))\n"
        "build_seat(SeatSpec(name='_coin', adapter='coin'))\n"
        "print(sorted(m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules))\n"
        "build_seat(SeatSpec(name='o', adapter='openai_sdk')).client\n"
        "print(sorted(m for m in ('anthropic', 'openai', 'google.genai') if m in sys.modules))\n"
    )
    env_out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        # a bare environment, but for where byte code goes (tests/conftest.py: never into the checkout)
        env={"OPENAI_API_KEY": "k", "PATH": "/usr/bin:/bin", **{
            k: os.environ[k] for k in ("PYTHONPYCACHEPREFIX", "PYTHONDONTWRITEBYTECODE") if k in os.environ}},
    )
    assert env_out.stdout.splitlines() == ["[]", "['openai']"]

"""Configuration mistakes: each is a ConfigError naming the file and a fix,
never a traceback, a silent default or an incident at the first ask."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from league.config import load_config, load_roster, shipped_config_dir
from league.errors import ConfigError

BASE = 'counting_rule = "test"\n'


def config(tmp_path: Path) -> Path:
    target = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), target)
    return target


def refused(folder: Path, *needles: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(folder)
    text = info.value.diagnostics()
    assert "fix:" in text
    for needle in needles:
        assert needle in text, text
    return text


def test_league_toml_that_is_a_folder(tmp_path: Path) -> None:
    folder = config(tmp_path)
    (folder / "league.toml").unlink()
    (folder / "league.toml").mkdir()
    refused(folder, "is a folder")


def test_league_toml_that_is_not_utf8(tmp_path: Path) -> None:
    folder = config(tmp_path)
    (folder / "league.toml").write_bytes(b'[paths]\ndata = "d\xff\xfe"\n')
    refused(folder, "not UTF-8")


@pytest.mark.parametrize("text", ["", "[paths]\ndata = 'data'\n"], ids=["empty", "no-provider"])
def test_league_toml_must_name_its_price_provider(tmp_path: Path, text: str) -> None:
    folder = config(tmp_path)
    (folder / "league.toml").write_text(text)
    refused(folder, "prices.provider", "replay")


@pytest.mark.parametrize("clamp", ["[98, 2]", "[-5, 50]", "[2, 120]", "[50, 50]"])
def test_consensus_clamp_must_be_an_ordered_percent_range(tmp_path: Path, clamp: str) -> None:
    folder = config(tmp_path)
    path = folder / "league.toml"
    path.write_text(path.read_text().replace("consensus_clamp = [2, 98]", f"consensus_clamp = {clamp}"))
    refused(folder, "methodology.consensus_clamp")


SEATS = {
    "unknown adapter": ('adapter = "telepathy"', "unknown adapter 'telepathy'"),
    "absolute credential": ('adapter = "claude_code"\ncredentials = ["/etc/shadow"]', "credentials"),
    "dotdot credential": ('adapter = "claude_code"\ncredentials = ["~/../../etc/shadow"]', "inside the home"),
    "bad env name": ('adapter = "claude_code"\nenv = ["lower-case"]', "bad env key names"),
    "base env name": ('adapter = "claude_code"\nenv = ["PATH"]', "bad env key names"),
    "unknown profile": ('adapter = "claude_code"\nprofile = "nope"', "unknown sandbox profile"),
    "bad scripted mode": ('adapter = "scripted"\noptions = { mode = "chaos" }', "options.mode"),
    "negative latency": ('adapter = "scripted"\noptions = { latency_s = -100 }', "options.latency_s"),
    "missing executable": ('adapter = "claude_code"\noptions = { executable = "/nonexistent/claude" }',
                           "options.executable"),
}


@pytest.mark.parametrize("case", sorted(SEATS))
def test_seat_mistakes_are_config_errors(tmp_path: Path, case: str) -> None:
    body, needle = SEATS[case]
    path = tmp_path / "roster.toml"
    path.write_text(BASE + f'[[seat]]\nname = "s1"\n{body}\n')
    with pytest.raises(ConfigError) as info:
        load_roster(path)
    text = info.value.diagnostics()
    assert needle in text and "seat 1 ('s1')" in text and "fix:" in text, text


def test_a_good_roster_still_loads(tmp_path: Path) -> None:
    path = tmp_path / "roster.toml"
    path.write_text(BASE + '[[seat]]\nname = "s1"\nadapter = "scripted"\noptions = { mode = "late", latency_s = 60 }\n'
                    '[[seat]]\nname = "c"\nadapter = "claude_code"\ncredentials = ["~/.claude.json"]\n'
                    'env = ["MY_KEY"]\n')
    assert [s.name for s in load_roster(path).seat] == ["s1", "c"]


def test_a_key_of_any_length_is_named_by_its_start(tmp_path: Path) -> None:
    """An unknown key is quoted in the error cut to its start: a 5,000-character key named whole made the
    error as long."""
    folder = config(tmp_path)
    with open(folder / "league.toml", "a", encoding="utf-8") as fh:
        fh.write(f"\n[clock.{'k' * 5000}]\nx = 1\n")
    text = refused(folder, "key `clock.kkkk", "…")
    assert len(text) < 1000

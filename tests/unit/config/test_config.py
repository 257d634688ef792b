"""Configuration: the shipped files load; a bad file names the file, the key and a fix."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from league.config import load_config, shipped_config_dir
from league.errors import ConfigError


def copy_config(tmp_path: Path) -> Path:
    target = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), target)
    return target


def test_shipped_config_has_the_twelve_markets() -> None:
    cfg = load_config(shipped_config_dir())
    assert cfg.markets.codes == ["SPX", "NDX", "DJI", "SOX", "TNX", "DXY", "VIX", "GOLD", "WTI", "BRENT", "COPPER",
                                 "BTC"]
    by = cfg.markets.by_code()
    assert by["TNX"].end_time == "15:00" and by["TNX"].fund_inverse
    assert not by["BTC"].daily and by["SPX"].daily
    assert by["GOLD"].symbol == "GC=F"


def test_demo_roster_loads() -> None:
    cfg = load_config(shipped_config_dir(), roster_file="roster.demo.toml")
    assert any(s.is_baseline for s in cfg.roster.seat)
    assert cfg.roster.families["aurora"] == cfg.roster.families["aurora-mini"]


@pytest.mark.parametrize(
    ("file", "old", "new", "key"),
    [
        ("league.toml", 'snapshot = "08:25"', 'snapshot = "8h25"', "schedule.snapshot"),
        ("league.toml", 'provider = "yahoo" ', 'provider = "bloomberg" ', "prices.provider"),
        ("league.toml", "[clock]", "[clock]\nspeed = 3", "clock.speed"),
        ("markets.toml", 'code = "SPX"', 'code = "spx"', "markets.0.code"),
        ("roster.toml", 'name = "_coin"', 'name = "claude"', "seat"),
    ],
)
def test_bad_value_names_file_key_and_fix(tmp_path: Path, file: str, old: str, new: str, key: str) -> None:
    folder = copy_config(tmp_path)
    path = folder / file
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))
    with pytest.raises(ConfigError) as err:
        load_config(folder)
    message = err.value.diagnostics()
    assert str(path) in message and key in message and "fix:" in message


def test_broken_toml_syntax(tmp_path: Path) -> None:
    folder = copy_config(tmp_path)
    (folder / "league.toml").write_text("[paths\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_config(folder)


def test_job_in_dst_hours_is_refused(tmp_path: Path) -> None:
    folder = copy_config(tmp_path)
    path = folder / "league.toml"
    path.write_text(path.read_text().replace('publish = "20:00"', 'publish = "01:30"'))
    with pytest.raises(ConfigError, match="DST"):
        load_config(folder)


@pytest.mark.parametrize(
    ("file", "old", "new", "needle"),
    [
        ("roster.toml", 'deadline = "09:30"', 'deadline = "10:15"', "deadline"),
        ("roster.toml", 'second_wave = "09:00"', 'second_wave = "09:10"', "second_wave"),
        ("league.toml", 'score = "16:05"', 'score = "15:55"', "schedule.score"),
    ],
)
def test_times_stated_twice_must_agree(tmp_path: Path, file: str, old: str, new: str, needle: str) -> None:
    folder = copy_config(tmp_path)
    path = folder / file
    path.write_text(path.read_text().replace(old, new, 1))
    with pytest.raises(ConfigError) as err:
        load_config(folder)
    assert needle in err.value.diagnostics() and "fix:" in err.value.diagnostics()


def test_shipped_cli_seats_run_with_web_policy() -> None:
    seats = {s.name: s for s in load_config(shipped_config_dir()).roster.seat}
    assert {n: seats[n].network for n in ("claude", "codex", "gemini", "grok")} == dict.fromkeys(
        ("claude", "codex", "gemini", "grok"), "web")
    assert seats["_coin"].network == "none"


@pytest.mark.parametrize(("old", "new", "says", "fix"), [
    ('network = "web"', "net = true", "`net` was replaced by `network`", 'network = "web"'),
    ('network = "web"', 'network = "lan"', "'none', 'api' or 'web'", "allowed values"),
    ('network = "web"', 'network = "api"\nallow = ["http://api.x.ai"]', "allow", "host:port"),
])
def test_network_policy_is_strictly_validated(tmp_path: Path, old: str, new: str, says: str, fix: str) -> None:
    folder = copy_config(tmp_path)
    path = folder / "roster.toml"
    path.write_text(path.read_text().replace(old, new, 1))
    with pytest.raises(ConfigError) as err:
        load_config(folder)
    message = err.value.diagnostics()
    assert str(path) in message and "seat.0" in message and says in message
    assert fix in message

"""Every roster and league value bounded at load: each value a hostile-input probe found accepted (and the
run then died on, or silently ignored) is one ConfigError naming the file, the key, the value and the fix."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from league.config import load_config, shipped_config_dir
from league.errors import ConfigError

SCRIPTED = '[[seat]]\nname = "aurora"\nadapter = "scripted"\noptions = { seed = 11, skill = 0.35 }\n'


def folder(tmp_path: Path) -> Path:
    target = tmp_path / "config"
    shutil.copytree(shipped_config_dir(), target)
    (target / "league.toml").write_text((target / "league.toml").read_text().replace(
        'provider = "yahoo"', 'provider = "replay"'))
    return target


def with_seat(tmp_path: Path, entry: str) -> Path:
    target = folder(tmp_path)
    (target / "roster.toml").write_text((target / "roster.toml").read_text() + "\n" + entry)
    return target


def set_key(text: str, key: str, value: str) -> str:
    """``text`` with the first line assigning ``key`` replaced by ``key = value``."""
    new, n = re.subn(rf"^{re.escape(key)} = .*$", f"{key} = {value}", text, count=1, flags=re.M)
    assert n == 1, key
    return new


def refused(target: Path, *needles: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(target)
    text = info.value.diagnostics()
    assert "fix:" in text, text
    for needle in needles:
        assert needle in text, text
    return text


@pytest.mark.parametrize("value", ["inf", "1e12", "nan", "0", "-5"])
def test_a_seat_timeout_is_a_finite_number_of_seconds_up_to_a_day(tmp_path: Path, value: str) -> None:
    refused(with_seat(tmp_path, SCRIPTED + f"timeout_s = {value}\n"), "roster.toml", "timeout_s")


def test_a_ten_thousand_character_seat_name_is_refused_and_not_echoed_whole(tmp_path: Path) -> None:
    text = refused(with_seat(tmp_path, SCRIPTED.replace("aurora", "a" * 10_000)), "seat.", "name")
    assert len(text) < 1_000


def test_the_web_policy_on_a_scripted_seat_is_an_error_not_a_silent_cut(tmp_path: Path) -> None:
    refused(with_seat(tmp_path, SCRIPTED + 'network = "web"\n'), "network = 'web'", "scripted")


def test_a_policy_stated_for_an_sdk_seat_is_refused(tmp_path: Path) -> None:
    refused(with_seat(tmp_path, '[[seat]]\nname = "sdk"\nadapter = "openai_sdk"\nnetwork = "api"\n'),
            "network = 'api'", "own process")


@pytest.mark.parametrize(("entry", "needle"), [
    ('[[seat]]\nname = "_mine"\nadapter = "scripted"\n', "reserved for the history-only baselines"),
    (SCRIPTED.replace("skill = 0.35", "skill = 5"), "options.skill"),
    (SCRIPTED.replace("seed = 11", 'seed = "x"'), "options.seed"),
    (SCRIPTED.replace("seed = 11", "seed = 11, skil = 0.2"), "options.skil is not an option"),
    (SCRIPTED + 'side = "mars"\n', "side"),
    (SCRIPTED + 'model = "evil\\u202emodel"\n', "model"),
    ('[[seat]]\nname = "lab"\nadapter = "claude_code"\noptions = { executable = "/etc/shadow" }\n',
     "is not an executable file"),
    ('[[seat]]\nname = "lab"\nadapter = "claude_code"\noptions = { base_url = "ftp://x" }\n', "options.base_url"),
    ('[[seat]]\nname = "_naive"\nadapter = "naive"\noptions = { season = 0 }\n', "options.season"),
])
def test_seat_values_accepted_before_are_refused(tmp_path: Path, entry: str, needle: str) -> None:
    refused(with_seat(tmp_path, entry), "roster.toml", needle)


@pytest.mark.parametrize(("key", "value", "needle"), [
    ("draw_band_k", "1e308", "methodology.draw_band_k"),
    ("calib_min", str(2**70), "methodology.calib_min"),
    ("version", '""', "methodology.version"),
    ("bill_rate_default", '"abc"', "portfolio.bill_rate_default"),
    ("bill_rates", '"../../etc/passwd"', "portfolio.bill_rates"),
    ("seed", "-1", "prices.seed"),
    ("rekor_url", '"file:///etc/passwd"', "stamps.rekor_url"),
    ("url", '"mysql://x"', "database.url"),
])
def test_league_values_accepted_before_are_refused(tmp_path: Path, key: str, value: str, needle: str) -> None:
    target = folder(tmp_path)
    (target / "league.toml").write_text(set_key((target / "league.toml").read_text(), key, value))
    refused(target, "league.toml", needle)


def test_the_signing_key_must_be_a_pem_private_key(tmp_path: Path) -> None:
    target = folder(tmp_path)
    (target / "league.toml").write_text(set_key((target / "league.toml").read_text(), "key", '"/etc/shadow"'))
    refused(target, "stamps.key", "not a PEM private key")


@pytest.mark.parametrize(("key", "value", "needle"), [
    ("horizons", "[]", "horizons"),
    ("history", '"nosuch"', "history"),
    ("provider", '"bogus"', "provider"),
    ("reference_rule", '"made_up"', "reference_rule"),
])
def test_market_values_accepted_before_are_refused(tmp_path: Path, key: str, value: str, needle: str) -> None:
    target = folder(tmp_path)
    (target / "markets.toml").write_text(set_key((target / "markets.toml").read_text(), key, value))
    refused(target, "markets.toml", needle)


def test_ten_thousand_seats_are_refused(tmp_path: Path) -> None:
    seats = "".join(f'[[seat]]\nname = "s{i}"\nadapter = "scripted"\n' for i in range(10_000))
    target = folder(tmp_path)
    (target / "roster.toml").write_text('counting_rule = "x"\n' + seats)
    refused(target, "roster.toml", "seat")


def test_five_thousand_markets_are_refused(tmp_path: Path) -> None:
    target = folder(tmp_path)
    text = (target / "markets.toml").read_text()
    extra = "".join(f'[[market]]\ncode = "M{i}"\nname = "m"\nsymbol = "M{i}"\nkind = "index"\ngroup = "g"\n'
                    for i in range(5_000))
    (target / "markets.toml").write_text(text + extra)
    refused(target, "markets.toml", "markets")

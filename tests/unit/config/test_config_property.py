"""A property of every configuration file: whatever value any key holds, loading gives either a valid
configuration or exactly one ConfigError — never a traceback, and never a value that fails later.

"Fails later" is checked by doing with a loaded configuration what the league does with it before and at
the first ask, without running a seat: sealing each seat's roster entry and the run line's methodology,
building every seat, every market's event contract for a session, the bill rate, the stamp backends' file
paths and the schedule's times. Hostile values go into one key at a time (the shipped files' keys, and
the optional keys every model declares), written as TOML and loaded from disk as the daemon loads them.
"""

from __future__ import annotations

import json
import math
import shutil
import tempfile
import tomllib
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.asks import unsealable
from league.book.chain import sealable
from league.calendar import default_calendar, event_contract
from league.config import (
    HORIZON_SESSIONS,
    Config,
    LeagueSettings,
    MarketSpec,
    as_time,
    load_config,
    shipped_config_dir,
)
from league.contest.config import parse_config as parse_contest
from league.errors import ConfigError
from league.evals.config import load_config as load_evals
from league.portfolio.bills import BillRates
from league.stamping.stamper import config_from_settings
from league_agents import options as seat_options
from league_agents.base import SeatBudget, SeatSpec
from league_agents.registry import build_seat

SESSION = date(2026, 11, 24)
SHIPPED = shipped_config_dir()

# ------------------------------------------------------------------------------ hostile values
_TEXTS = st.one_of(
    st.sampled_from(["", " ", "/etc/shadow", "../../etc/passwd", "a" * 10_000, "\x00", "evil\u202emodel",
                     "\x1b[31mred", "none", "web", "09:30", "25:99", "sqlite:///x", "https://x", "ftp://x",
                     "_coin", "scripted", "coin", "1e999", "NaN", "-1", "4.0", "x" * 300]),
    st.text(max_size=40),
)
_NUMBERS = st.one_of(
    st.sampled_from([0, -1, 1, 2**63, 2**70, -(2**70), 10**12]),
    st.integers(),
    st.sampled_from([math.inf, -math.inf, math.nan, 1e308, -0.0, 5e-324, 0.5, 1e12]),
    st.floats(),
)
_SCALARS = st.one_of(_TEXTS, _NUMBERS, st.booleans(), st.dates(), st.just([]), st.just({}))
HOSTILE = st.recursive(_SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                         st.dictionaries(_TEXTS, inner, max_size=3)), max_leaves=6)


# ------------------------------------------------------------------------------ TOML of any value
def toml_value(value: Any) -> str:
    """``value`` as a TOML inline value (tables inline, strings as JSON-escaped basic strings)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, int | date):
        return str(value) if isinstance(value, int) else value.isoformat()
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"


def toml_document(doc: dict[str, Any]) -> str:
    return "".join(f"{json.dumps(k)} = {toml_value(v)}\n" for k, v in doc.items())


# ------------------------------------------------------------------------------ every key
def _read(name: str) -> dict[str, Any]:
    with open(SHIPPED / name, "rb") as fh:
        return tomllib.load(fh)


BASE = {"league.toml": _read("league.toml"), "markets.toml": _read("markets.toml"),
        "roster.toml": _read("roster.demo.toml")}
BASE["league.toml"]["prices"]["provider"] = "replay"


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list) and value and isinstance(value[0], dict):
        out += _paths(value[0], (*prefix, 0))
    return out


def _declared(model: Any, prefix: tuple[Any, ...]) -> list[tuple[Any, ...]]:
    return [(*prefix, name) for name in model.model_fields]


KEYS: list[tuple[str, tuple[Any, ...]]] = [(f, p) for f, doc in BASE.items() for p in _paths(doc)]
KEYS += [("league.toml", p) for section, field in LeagueSettings.model_fields.items()
         for p in _declared(field.annotation, (section,))]
KEYS += [("markets.toml", ("market", 0, k)) for k in MarketSpec.model_fields]
KEYS += [("roster.toml", ("seat", 0, k)) for k in SeatSpec.model_fields]
KEYS += [("roster.toml", ("seat", 0, "budget", k)) for k in SeatBudget.model_fields]
KEYS += [("roster.toml", ("seat", 0, "options", k)) for k in seat_options.ScriptedOptions.model_fields]
KEYS += [("roster.toml", ("seat", i, "options", k)) for i, model in ((6, seat_options.NoOptions),)
         for k in model.model_fields]
KEYS = sorted(set(KEYS), key=repr)


def _set(doc: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = json.loads(json.dumps(doc, default=str))  # a deep copy (dates become strings; none are in the base)
    node = out
    for step in path[:-1]:
        if isinstance(node, dict):
            node = node.setdefault(step, {}) if not isinstance(node.get(step), list | dict) else node[step]
        else:
            node = node[step]
    if isinstance(node, dict | list):
        node[path[-1]] = value
    return out


def _folder(changed: str, doc: dict[str, Any]) -> Path:
    target = Path(tempfile.mkdtemp(prefix="league-prop-")) / "config"
    target.mkdir()
    for name, base in BASE.items():
        (target / name).write_text(toml_document(doc if name == changed else base), encoding="utf-8")
    return target


# ------------------------------------------------------------------------------ "never fails later"
def use(config: Config) -> None:
    """What the league does with a configuration before and at the first ask (no seat is run)."""
    asked = {m.code: list(m.horizons) for m in config.markets.markets}
    deadline = datetime.fromisoformat("2026-11-24T14:30:00+00:00")
    assert unsealable(config.roster.seat, asked, deadline) == {}
    sealable({"methodology": config.settings.methodology.as_json()})
    for spec in config.roster.seat:
        build_seat(spec)
    calendar = default_calendar()
    for market in config.markets.markets:
        for horizon in market.horizons:
            assert horizon in HORIZON_SESSIONS
            event_contract(calendar, market, SESSION, horizon, None if market.daily else deadline)
    assert Decimal(config.settings.portfolio.bill_rate_default).is_finite()
    BillRates.constant(config.settings.portfolio.bill_rate_default)
    config_from_settings(config.settings.stamps, config.data_dir)
    for name in type(config.settings.schedule).model_fields:
        as_time(getattr(config.settings.schedule, name))
    json.dumps(config.settings.model_dump(mode="json"), allow_nan=False)


def check(name: str, path: tuple[Any, ...], value: Any) -> None:
    """Load the files with ``value`` at ``path`` of ``name``: valid and usable, or one ConfigError."""
    target = _folder(name, _set(BASE[name], path, value))
    try:
        try:
            config = load_config(target)
        except ConfigError as exc:
            text = exc.diagnostics()
            assert str(target) in text or name in text, text  # names the file
            assert "fix:" in text and len(text) < 4_000, text
            return
        use(config)
    finally:
        shutil.rmtree(target.parent, ignore_errors=True)


#: The values a hostile user tries first, each tried at every key.
EDGES: list[Any] = [math.inf, -math.inf, math.nan, 1e308, -1e308, 1e12, 2**70, -(2**70), -1, 0, 0.5, True, "", " ",
                    "a" * 10_000, "/etc/shadow", "../../x", "evil\u202emodel", "\x1b[2J", "nosuch", "_coin", [], [[[]]],
                    {}, {"x": 1}, date(9999, 12, 31)]


@pytest.mark.parametrize("key", KEYS, ids=["/".join(map(str, (k[0], *k[1]))) for k in KEYS])
def test_every_edge_value_of_every_key_loads_valid_or_is_one_config_error(key: tuple[str, tuple[Any, ...]]) -> None:
    for value in EDGES:
        check(key[0], key[1], value)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(key=st.sampled_from(KEYS), value=HOSTILE)
def test_any_value_of_any_key_loads_valid_or_is_one_config_error(key: tuple[str, tuple[Any, ...]], value: Any) -> None:
    check(key[0], key[1], value)


CONTEST_KEYS = [("sweep", "time_limit_s"), ("rounds", "decision_s"), ("stats", "resamples"), ("venue", "timeout_s"),
                ("season_start",), ("agents", 0, "seat", "timeout_s"), ("agents", 0, "seat", "name"),
                ("agents", 0, "seat", "options"), ("agents", 0, "agent"), ("categories",),
                ("eligibility", "max_spread")]


@settings(max_examples=100, derandomize=True)
@given(key=st.sampled_from(CONTEST_KEYS), value=HOSTILE)
def test_the_contest_configuration_is_valid_or_one_config_error(key: tuple[Any, ...], value: Any) -> None:
    base = {"agents": [{"agent": "a", "name": "A", "seat": {"name": "contest-a", "adapter": "contest-standin",
                                                           "profile": "scripted", "options": {"seed": 1}}}]}
    doc = _set(base, key, value)
    text = toml_document(doc)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return  # not TOML at all: load_config refuses it by its own parser (tested in test_inputs)
    try:
        config = parse_contest(data, "contest.toml")
    except ConfigError as exc:
        assert "fix:" in exc.diagnostics()
        return
    json.dumps(config.model_dump(mode="json"), allow_nan=False)


EVAL_KEYS = [("trials",), ("concurrency",), ("seats", 0, "max_concurrency"), ("seats", 0, "knowledge_cutoff"),
             ("seats", 0, "seat", "timeout_s"), ("seats", 0, "seat", "options"), ("seats", 0, "seat", "adapter")]


@settings(max_examples=100, derandomize=True)
@given(key=st.sampled_from(EVAL_KEYS), value=HOSTILE)
def test_the_evaluation_configuration_is_valid_or_one_config_error(key: tuple[Any, ...], value: Any,
                                                                   tmp_path_factory: pytest.TempPathFactory) -> None:
    base = {"seats": [{"knowledge_cutoff": "2023-12-31", "seat": {"name": "s", "adapter": "eval-standin",
                                                                   "options": {"seed": 1}}}]}
    path = tmp_path_factory.mktemp("evals") / "evals.toml"
    path.write_text(toml_document(_set(base, key, value)), encoding="utf-8")
    try:
        config = load_evals(path)
    except ConfigError as exc:
        assert "fix:" in exc.diagnostics()
        return
    json.dumps(config.model_dump(mode="json"), allow_nan=False)

"""The contest's configuration: rules, statistics, roster and venues, loaded from TOML and frozen.

Everything bench.md leaves to "configuration, not code" is here: the roster, the excluded topics,
the category map, the bootstrap seed. The *rules* (sweep, eligibility, rounds, statistics,
categories) hash to one SHA-256; from season 2 on that hash must equal ``frozen_rules_sha256``,
so a rule can only change in season 1, and then with a changelog entry (bench.md "What counts").
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from datetime import UTC, date, datetime
from importlib import resources
from pathlib import Path

from pydantic import Field, ValidationError, field_validator, model_validator

from league import inputs
from league.config import MAX_CONFIG_BYTES, Frozen, error_key
from league.contest.errors import RulesFrozen
from league.errors import ConfigError
from league.jsonvalue import JsonObject
from league_agents.base import SeatSpec
from league_agents.registry import spec_problems


class SweepRules(Frozen):
    markets: int = Field(default=30, ge=1, le=200)
    time_limit_s: float = Field(default=900.0, gt=0)
    # A market's probabilities may sum to 1 ± this and still be renormalised; further off, refused.
    sum_tolerance: float = Field(default=0.05, ge=0, le=0.5)


class EligibilityRules(Frozen):
    max_days_to_close: float = Field(default=7.0, gt=0)
    min_minutes_left: float = Field(default=30.0, ge=0)
    max_favourite: float = Field(default=0.85, gt=0, le=1)
    # A real two-sided book: a bid and an ask on every outcome, spread at most this wide.
    max_spread: float = Field(default=0.10, gt=0, le=1)
    excluded_tags: tuple[str, ...] = ("death", "deaths", "violence", "war", "terrorism", "disaster", "disasters",
                                      "shooting", "natural-disasters")
    # A keyword ending in a space must end a word there ("war " is not "warriors"); others are stems.
    excluded_keywords: tuple[str, ...] = ("die ", "dies ", "death", "dead ", "killed ", "kill ", "assassinat", "murder",
                                          "shooting", "terror", "war ", "bomb", "missile strike", "earthquake",
                                          "hurricane", "tsunami", "wildfire", "disaster", "casualt", "fatalit")
    max_category_share: float = Field(default=0.40, gt=0, le=1)
    category_window_days: int = Field(default=7, ge=1)
    rounds_per_day: int = Field(default=5, ge=0)
    rounds_at_once: int = Field(default=3, ge=1)


class RoundRules(Frozen):
    stake: float = Field(default=100.0, gt=0)
    decision_s: float = Field(default=300.0, gt=0)
    slippage: float = Field(default=0.05, ge=0, le=0.5)
    price_cap: float = Field(default=0.99, gt=0, lt=1)
    quote_max_chars: int = Field(default=120, ge=1)
    big_bet_weekday: int = Field(default=4, ge=0, le=6)  # Friday
    big_bet_stake: float = Field(default=500.0, gt=0)


class StatsRules(Frozen):
    resamples: int = Field(default=2000, ge=100)
    seed: int = Field(default=20261009, ge=0)
    level: float = Field(default=0.95, gt=0, lt=1)


class ContestAgent(Frozen):
    """One contestant: the agent key used in every file, its display name and its seat."""

    agent: str = Field(pattern=r"^[a-z][a-z0-9_-]*$")
    name: str
    model: str = ""
    model_id: str = ""
    reasoning: str = ""
    seat: SeatSpec


class Venue(Frozen):
    gamma_url: str = "https://gamma-api.polymarket.com"
    clob_url: str = "https://clob.polymarket.com"
    page_size: int = Field(default=500, ge=1, le=1000)
    max_pages: int = Field(default=20, ge=1)
    attempts: int = Field(default=3, ge=1, le=10)
    retry_wait_s: float = Field(default=1.0, ge=0)
    timeout_s: float = Field(default=15.0, gt=0)
    live_trading: bool = False
    chain_id: int = 137
    signature_type: int | None = None
    funder: str | None = None
    key_env: str = "LEAGUE_CONTEST_WALLET_KEY"


class ContestSchedule(Frozen):
    """When the scheduler polls for new rounds and runs the nightly resolve + publish (not "the rules":
    the sweep's own time is the league's ``[schedule] contest_sweep_utc``)."""

    poll_minutes: int = Field(default=5, ge=1, le=60)
    nightly_utc: str = Field(default="23:30", pattern=r"^([01][0-9]|2[0-3]):[0-5][0-9]$")
    rounds_in_parallel: int = Field(default=3, ge=1)


class ChangelogEntry(Frozen):
    date: date
    change: str


class ContestConfig(Frozen):
    benchmark: str = "forecast-league CLI contest"
    methodology_version: str = "1.0"
    season: int = Field(default=1, ge=1)
    season_start: datetime = datetime(2026, 12, 1, tzinfo=UTC)
    frozen_rules_sha256: str | None = None
    sweep: SweepRules = SweepRules()
    eligibility: EligibilityRules = EligibilityRules()
    rounds: RoundRules = RoundRules()
    stats: StatsRules = StatsRules()
    categories: dict[str, tuple[str, ...]] = Field(default_factory=dict)
    agents: tuple[ContestAgent, ...] = ()
    venue: Venue = Venue()
    schedule: ContestSchedule = ContestSchedule()
    changelog: tuple[ChangelogEntry, ...] = ()

    @field_validator("season_start")
    @classmethod
    def _aware(cls, value: datetime) -> datetime:
        if value.tzinfo is None:
            raise ValueError("season_start needs a time zone, e.g. 2026-12-01T00:00:00Z")
        return value.astimezone(UTC)

    @model_validator(mode="after")
    def _unique_agents(self) -> ContestConfig:
        names = [a.agent for a in self.agents]
        if len(set(names)) != len(names):
            raise ValueError(f"agents: duplicate agent keys in {names}")
        return self

    def rules(self) -> JsonObject:
        """The part of the configuration that is "the rules" (hashed, frozen from season 2)."""
        return {
            "sweep": self.sweep.model_dump(mode="json"),
            "eligibility": self.eligibility.model_dump(mode="json"),
            "rounds": self.rounds.model_dump(mode="json"),
            "stats": self.stats.model_dump(mode="json"),
            "categories": {k: [*v] for k, v in sorted(self.categories.items())},
        }

    def rules_sha256(self) -> str:
        text = json.dumps(self.rules(), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def agent(self, key: str) -> ContestAgent:
        for a in self.agents:
            if a.agent == key:
                return a
        raise ConfigError(f"contest agent {key!r} is not in the roster", fix="add it under [[agents]]")


def check_rules_frozen(config: ContestConfig) -> None:
    """From season 2 the rules hash must be the registered one; season 1 may change with a changelog."""
    if config.season < 2:
        return
    actual = config.rules_sha256()
    if config.frozen_rules_sha256 is None:
        raise RulesFrozen(
            f"season {config.season}: the rules are frozen from season 2 but no frozen_rules_sha256 is registered",
            fix=f"register the season-2 rules: frozen_rules_sha256 = \"{actual}\"",
        )
    if actual != config.frozen_rules_sha256:
        raise RulesFrozen(
            f"season {config.season}: the rules changed (sha256 {actual}, frozen {config.frozen_rules_sha256})",
            fix="restore the frozen rules; rules only change during season 1, with a changelog entry",
        )


def parse_config(data: Mapping[str, object], source: str) -> ContestConfig:
    """Validate a mapping; a bad key becomes a ConfigError naming the file, the key and the fix."""
    try:
        config = ContestConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(f"{source}: {error_key(first)}: {first['msg']}",
                          fix="see docs/contest.md for every key of the contest configuration") from None
    for agent in config.agents:
        problems = spec_problems(agent.seat, track="contest", files_here=not agent.seat.worker)
        if problems:
            raise ConfigError(f"{source}: agent {agent.agent!r}: seat {agent.seat.name!r}: {problems[0]}",
                              fix="correct that agent's seat (docs/seats.md lists what each adapter takes)")
    check_rules_frozen(config)
    return config


def load_config(path: Path | None = None) -> ContestConfig:
    """Read ``path`` (TOML), or the packaged default (a four-agent roster of scripted stand-ins)."""
    if path is None:
        text = resources.files("league.contest").joinpath("default.toml").read_text(encoding="utf-8")
        source = "league/contest/default.toml"
    else:
        try:
            text = inputs.read_text(path, what="contest configuration", max_bytes=MAX_CONFIG_BYTES)
        except inputs.InputError as exc:
            raise ConfigError(exc.message, fix="pass --contest-config or set LEAGUE_CONTEST_CONFIG to a readable "
                              f"TOML file ({exc.fix})") from None
        source = str(path)
    try:
        data = inputs.parse_toml(text, where=source)
    except inputs.InputError as exc:
        raise ConfigError(exc.message, fix=exc.fix) from None
    return parse_config(data, source)

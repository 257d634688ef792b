"""Configuration: TOML files loaded into frozen, validated models.

A bad file never surfaces as a traceback: :func:`load_toml_model` turns a pydantic validation error
into a :class:`ConfigError` that names the file, the key and the fix. Markets, seats, schedules and
methodology live in configuration so an operator can swap a symbol or a fund without touching code.
"""

from __future__ import annotations

import os
import re
import site
import sys
from collections.abc import Mapping
from datetime import UTC, datetime, time
from pathlib import Path, PurePosixPath
from typing import Annotated, Any, Literal, TypeVar

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator
from pydantic_core import ErrorDetails

from league import inputs
from league.errors import ConfigError
from league.jsonvalue import Json
from league.registry import CROWD, NEWS, NO_CROWD, NO_NEWS, PRICES
from league_agents.base import SeatSpec
from league_agents.options import Text, Url, printable
from league_agents.registry import spec_problems

HORIZON_SESSIONS = {"1d": 1, "1w": 5, "1m": 21, "6m": 126}
HORIZON_DAYS_24X7 = {"1d": 1, "1w": 7, "1m": 30, "6m": 182}
_HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")

M = TypeVar("M", bound=BaseModel)


def _hhmm(value: str) -> str:
    if not _HHMM.match(value):
        raise ValueError(f"{value!r} is not a time HH:MM (24-hour, e.g. \"09:30\")")
    return value


def as_time(value: str) -> time:
    hour, minute = value.split(":")
    return time(int(hour), int(minute))


class Frozen(BaseModel):
    """Closed (an unknown key is refused), frozen, and without NaN or infinities: a float the league
    accepts is one it can write into a sealed line."""

    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False)


#: The real daily series the offline replay can lay under a market (they ship inside the ``arch`` package).
HistorySeries = Literal["none", "sp500", "nasdaq", "vix", "wti", "crude"]
#: The price sources an event contract may name: the live Yahoo chart API and the offline replay's synthesizer.
PriceSource = Literal["yahoo_finance_chart_v8_1m", "replay_synthetic_v1"]
#: The reference rules the scoring implements (docs/protocol.md §2); a contract may name no other.
ReferenceRule = Literal["first_1m_bar_at_or_after_reference_at__last_1m_bar_at_or_before_end_at__v1"]
REFERENCE_RULE: ReferenceRule = "first_1m_bar_at_or_after_reference_at__last_1m_bar_at_or_before_end_at__v1"
#: At most this many markets and seats: far above the twelve indicators and the hundred seats the league is
#: sized for, low enough that a pasted list does not turn one morning into hours.
MAX_MARKETS, MAX_SEATS = 64, 500
#: A configuration file larger than this is not a configuration file.
MAX_CONFIG_BYTES = 1024 * 1024
_NAME = r"^[a-z0-9][a-z0-9_.-]{0,62}$"


def _relative_inside(value: str) -> str:
    """A path relative to the data folder that stays inside it (no absolute path, no ``..``)."""
    path = PurePosixPath(value)
    if not value or path.is_absolute() or ".." in path.parts:
        raise ValueError(f"{value[:120]!r} is not a path inside the data folder (relative, without '..')")
    return value


InData = Annotated[str, Field(max_length=1024), AfterValidator(printable), AfterValidator(_relative_inside)]


class MarketSpec(Frozen):
    """One indicator of docs/protocol.md §1."""

    code: str = Field(pattern=r"^[A-Z][A-Z0-9]{1,9}$")
    name: Annotated[str, Field(min_length=1, max_length=100), AfterValidator(printable)]
    symbol: str = Field(pattern=r"^[A-Za-z0-9^=._-]{1,32}$")
    fund: str = Field(default="", pattern=r"^([A-Za-z0-9^=._-]{1,32})?$")
    fund_inverse: bool = False
    kind: Literal["index", "yield", "fx", "volatility", "future", "crypto"]
    group: str = Field(pattern=_NAME)
    history: HistorySeries = "none"
    provider: PriceSource
    reference_rule: ReferenceRule
    horizons: tuple[str, ...] = Field(min_length=1, max_length=len(HORIZON_SESSIONS))
    end_time: str
    trading: Literal["session", "24x7"]

    _check_end = field_validator("end_time")(classmethod(lambda cls, v: _hhmm(v)))

    @field_validator("horizons")
    @classmethod
    def _known_horizons(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        unknown = [h for h in value if h not in HORIZON_SESSIONS]
        if unknown:
            raise ValueError(f"unknown horizons {unknown}; use some of {list(HORIZON_SESSIONS)}")
        if len(set(value)) != len(value):
            raise ValueError(f"a horizon appears twice in {list(value)}")
        return value

    @property
    def daily(self) -> bool:
        """True for markets whose reference is the common 09:30 bar (everything but bitcoin)."""
        return self.trading == "session"


class Markets(Frozen):
    markets: tuple[MarketSpec, ...] = Field(min_length=1, max_length=MAX_MARKETS)

    @model_validator(mode="after")
    def _unique(self) -> Markets:
        codes = [m.code for m in self.markets]
        dupes = sorted({c for c in codes if codes.count(c) > 1})
        if dupes:
            raise ValueError(f"market codes appear twice: {dupes}")
        return self

    def by_code(self) -> dict[str, MarketSpec]:
        return {m.code: m for m in self.markets}

    @property
    def codes(self) -> list[str]:
        return [m.code for m in self.markets]


class Schedule(Frozen):
    snapshot: str = "08:25"
    ask: str = "08:30"
    second_wave: str = "09:00"
    #: the arms beside the counted run ([arms]): after its ask, before ingest closes, so that an arm's answers
    #: can be sealed before the same common reference as the counted ones (docs/experiments.md)
    arms: str = "08:40"
    ingest_close: str = "09:30"
    score: str = "16:05"
    #: the extra reference runs ([arms] extra_runs): after a session's close, on Saturdays and Sundays, and on
    #: Sunday evenings, each asked about the next session (docs/experiments.md, "Extra reference runs")
    evening: str = "18:30"
    weekend_btc: str = "12:00"
    sunday_radar: str = "18:00"
    #: the council talk ([talk]): the chair asked after the score's portfolio stage on the talk day, the critiqued
    #: seats asked once the chair has answered (docs/experiments.md, "Council talk")
    talk: str = "16:30"
    talk_replies: str = "18:00"
    publish: str = "20:00"
    stamp_upgrade: str = "21:00"
    verify_book: str = "22:00"  # the nightly full verification of the council book (every day, in the background)
    contest_sweep_utc: str = "06:00"

    @field_validator("*")
    @classmethod
    def _times(cls, value: str) -> str:
        return _hhmm(value)

    @model_validator(mode="after")
    def _order_and_dst(self) -> Schedule:
        day = [self.snapshot, self.ask, self.second_wave, self.ingest_close, self.score]
        if day != sorted(day):
            raise ValueError("the day's jobs must run in order snapshot < ask < second_wave < ingest_close < score")
        if not self.ask < self.arms < self.ingest_close:
            raise ValueError("arms must run after ask and before ingest_close (its answers are compared only when "
                             "sealed before the common reference)")
        if self.evening <= self.score:
            raise ValueError("evening must run after score (the evening run is asked after the session's close)")
        for name in ("snapshot", "ask", "arms", "second_wave", "ingest_close", "score", "evening", "weekend_btc",
                     "sunday_radar", "talk", "talk_replies", "publish", "stamp_upgrade", "verify_book"):
            if "01:00" <= getattr(self, name) < "03:00":
                raise ValueError(f"{name} falls in 01:00-03:00 ET, where DST makes times repeat or vanish")
        return self


class Methodology(Frozen):
    version: str = Field(default="m1", pattern=r"^[A-Za-z0-9][A-Za-z0-9._-]{0,31}$")
    draw_band_k: float = Field(default=0.1, gt=0, le=5)
    consensus_clamp: tuple[float, float] = (2.0, 98.0)
    consensus_trim_from: int = Field(default=5, ge=3, le=1000)
    family_weight: float = Field(default=1 / 3, gt=0, le=1)
    calib_min: int = Field(default=20, ge=1, le=100_000)

    @field_validator("consensus_clamp")
    @classmethod
    def _clamp(cls, value: tuple[float, float]) -> tuple[float, float]:
        low, high = value
        if not 0 <= low < high <= 100:
            raise ValueError(f"{list(value)} is not [low, high] with 0 <= low < high <= 100 (percent)")
        return value

    def as_json(self) -> dict[str, Json]:
        return self.model_dump(mode="json")


class TsaEntry(Frozen):
    """One RFC 3161 authority; its root (``ca_file``) and signing certificate (``cert_file``) let
    every token be verified in process and published for ``openssl ts -verify``."""

    name: str = Field(pattern=r"^[a-z0-9][a-z0-9_-]{0,62}$")
    url: Url = Field(min_length=1)
    ca_file: Text | None = None
    cert_file: Text | None = None


class StampSettings(Frozen):
    """``[stamps]``. ``key`` (and each authority's ``ca_file``/``cert_file``) is a path relative to the data
    folder, or absolute; when ``rekor_url`` is set the key must be a PEM private key file (checked at load)."""

    tsa: tuple[TsaEntry, ...] = Field(default=(), max_length=16)
    ots_calendars: tuple[Url, ...] = Field(default=(), max_length=16)
    rekor_url: Url = ""
    key: Text = Field(default="keys/league-signing.pem", min_length=1)
    local_tsa: bool = False
    per_answer: bool = False


class PriceSettings(Frozen):
    """Where prices come from: a price provider registered under ``forecast_league.prices`` ("yahoo"
    live, "replay" offline, or a package's own)."""

    provider: str = "yahoo"
    seed: int = Field(default=7, ge=0, le=2**63 - 1)
    retries: int = Field(default=4, ge=0, le=10)

    @field_validator("provider")
    @classmethod
    def _registered(cls, value: str) -> str:
        if value not in PRICES:
            raise ValueError(f"unknown price provider {shown(value)}; registered: {', '.join(PRICES.names())}")
        return value


class PortfolioSettings(Frozen):
    """Where cash's 13-week bill rate comes from: a recorded series file in DATA ({"YYYY-MM-DD": "3.60"}),
    else a stated constant (named as such on every mark)."""

    bill_rates: InData = "bill-rates.json"
    bill_rate_default: str = Field(default="4.0", pattern=r"^(100(\.0{1,4})?|\d{1,2}(\.\d{1,4})?)$")


#: The venue asked for the markets a provider lacks when ``[crowd] fallback`` is not given.
DEFAULT_CROWD_FALLBACK = {"polymarket": "kalshi"}


class CrowdSettings(Frozen):
    """Prediction-market prices recorded at ask time (scoring.md §8). "none" until the operator has
    checked the venue's contract names (docs/crowd.md); "recorded" replays DATA/crowd/<day>.json.
    ``fallback`` is the provider asked for the markets ``provider`` lacks ("none": no other venue);
    unset, Polymarket falls back to Kalshi and every other provider to none."""

    provider: str = "none"
    fallback: str | None = None

    @field_validator("provider", "fallback")
    @classmethod
    def _registered(cls, value: str | None) -> str | None:
        if value is not None and value != NO_CROWD and value not in CROWD:
            raise ValueError(f"unknown crowd provider {shown(value)}; registered: "
                             f"{', '.join([NO_CROWD, *CROWD.names()])}")
        return value

    @model_validator(mode="after")
    def _not_itself(self) -> CrowdSettings:
        if self.fallback is not None and self.fallback != NO_CROWD and self.fallback == self.provider:
            raise ValueError(f"fallback {shown(self.fallback)} is the provider itself; name another venue or \"none\"")
        return self

    @property
    def fallback_provider(self) -> str:
        """The fallback in force: the one given, else the provider's usual one, else none."""
        if self.fallback is not None:
            return self.fallback
        return DEFAULT_CROWD_FALLBACK.get(self.provider, NO_CROWD)


class NewsFeed(Frozen):
    """One publisher's RSS or Atom feed, named as its headlines are shown in a packet."""

    name: Annotated[str, Field(min_length=1, max_length=80), AfterValidator(printable)]
    url: Url = Field(min_length=1)


RELATIVE_DIR = r"^[A-Za-z0-9_-][A-Za-z0-9._-]*(/[A-Za-z0-9_-][A-Za-z0-9._-]*)*$"


class NewsSettings(Frozen):
    """Where the closed-book arm's headlines come from (docs/experiments.md, "News packets").

    ``provider``: "none" (no packet: the closed-book arm is not run), "feeds" (the ``feeds`` listed here,
    fetched at packet time) or "recorded" (feed files kept in ``DATA/<recorded_dir>``, the demo's and the
    tests'). A packet holds at most ``max_items`` headlines published in the ``lookback_hours`` before its
    cutoff (the counted run's ask time)."""

    provider: str = NO_NEWS
    feeds: tuple[NewsFeed, ...] = Field(default=(), max_length=64)
    recorded_dir: Annotated[str, Field(min_length=1, max_length=200, pattern=RELATIVE_DIR)] = "news"
    lookback_hours: float = Field(default=36.0, gt=0, le=24 * 14)
    max_items: int = Field(default=30, ge=1, le=200)
    timeout_s: float = Field(default=10.0, gt=0, le=120)

    @field_validator("provider")
    @classmethod
    def _registered(cls, value: str) -> str:
        if value != NO_NEWS and value not in NEWS:
            raise ValueError(f"unknown news provider {shown(value)}; registered: {', '.join([NO_NEWS, *NEWS.names()])}")
        return value

    @model_validator(mode="after")
    def _feeds_named(self) -> NewsSettings:
        if self.provider == "feeds" and not self.feeds:
            raise ValueError('provider "feeds" needs at least one [[news.feeds]] entry (name and url)')
        names = [f.name for f in self.feeds]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"feed names must be unique; repeated: {', '.join(dupes)}")
        return self


ArmName = Literal["closed_book", "price_only"]
ExtraRun = Literal["evening", "weekend_btc", "sunday_radar"]
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri")


def listed_once(value: tuple[str, ...]) -> tuple[str, ...]:
    """A list of names, refused when a name repeats."""
    dupes = sorted({v for v in value if value.count(v) > 1})
    if dupes:
        raise ValueError(f"listed twice: {', '.join(dupes)}")
    return value


class ArmsSettings(Frozen):
    """The arms beside the counted run and the repeats (docs/experiments.md). Nothing here changes the daily
    council: arms seal in their own book and publish their own files.

    ``arms``: the variants asked after each counted run (empty: none); ``seats``: the roster seats they ask
    (empty: every roster seat); ``repeat_seats``: the models asked the repeats (three or four; empty: no
    repeats), ``repeats`` times each, on ``repeat_day``; ``seed``: the seeded order of the arms across days
    (sealed with the schedule before the first arm ask)."""

    arms: tuple[ArmName, ...] = Field(default=(), max_length=2)
    seats: tuple[str, ...] = Field(default=(), max_length=MAX_SEATS)
    repeat_seats: tuple[str, ...] = Field(default=(), max_length=8)
    repeats: int = Field(default=3, ge=1, le=10)
    repeat_day: Literal["mon", "tue", "wed", "thu", "fri"] = "fri"
    seed: int = Field(default=20261206, ge=0, le=2**63 - 1)
    #: the extra reference runs: never counted, each scored on its own reference (docs/experiments.md)
    extra_runs: tuple[ExtraRun, ...] = Field(default=(), max_length=3)

    @field_validator("arms", "seats", "repeat_seats", "extra_runs")
    @classmethod
    def _unique(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return listed_once(value)

    @property
    def active(self) -> bool:
        return bool(self.arms or self.repeat_seats or self.extra_runs)


class TalkSettings(Frozen):
    """The council talk (docs/experiments.md, "Council talk"): a weekly track beside the daily council, in the
    arms' book. Off by default. ``weekday``: the session of the week it runs on (a holiday skips that week);
    ``seats``: the council seats that take part (empty: every roster seat but the history-only baselines, which
    cannot write a portfolio); ``seed``: the chairs' rotation, sealed before the first week."""

    enabled: bool = False
    weekday: Literal["mon", "tue", "wed", "thu", "fri"] = "fri"
    seats: tuple[str, ...] = Field(default=(), max_length=MAX_SEATS)
    seed: int = Field(default=20261206, ge=0, le=2**63 - 1)

    @field_validator("seats")
    @classmethod
    def _unique(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return listed_once(value)


class SourcesSettings(Frozen):
    """The fetch records of cited links (docs/experiments.md, "Fetch records"): after counted ingest closes, the
    league fetches each link the session's counted answers cite, once, and seals what it got. Off by default: it
    makes the league's host fetch URLs that models chose (bounded: public addresses only, a timeout, a size cap).
    ``allow_private`` lets a test or an offline demo fetch from a stand-in on loopback."""

    fetch: bool = False
    timeout_s: float = Field(default=10.0, gt=0, le=120)
    max_bytes: int = Field(default=2_000_000, ge=1024, le=50_000_000)
    max_links: int = Field(default=500, ge=1, le=10_000)
    allow_private: bool = False
    #: the league's own data sources (its snapshot's price hosts): a citation of one is what the ask gave the
    #: seats, removed before the shared-sources figures (council-sources.json) are counted
    ask_sites: tuple[Annotated[str, Field(min_length=1, max_length=253)], ...] = (
        "finance.yahoo.com", "query1.finance.yahoo.com", "query2.finance.yahoo.com")


class Paths(Frozen):
    data: Text = Field(default="data", min_length=1)


class Database(Frozen):
    """``[database] url``: empty (SQLite in the data folder), ``sqlite:///PATH`` or ``postgresql…://``."""

    url: Text = Field(default="", pattern=r"^(|sqlite:///.+|postgresql(\+[a-z0-9]+)?://.+)$")


class ClockSettings(Frozen):
    mode: Literal["system", "simulated"] = "system"


def _env(name: str) -> Any:
    """A default read from the environment when the file leaves the key out (``LEAGUE_*``, as the CLI flags)."""
    return Field(default_factory=lambda: os.environ.get(name, ""))


class WorkersSettings(Frozen):
    """How the league reaches the broker of its remote seats (docs/workers.md): its own broker user,
    which enters every lab's vhost. Only needed when a roster entry names a ``worker``; the password
    comes from a file (a systemd credential), never from this file. Relative paths are read from the
    config folder. ``grace_s``: how long past an ask's cut-off the league still waits for its reply;
    ``run_margin_s``: what a run may take beyond the seat's own timeout (sandbox start, publication)."""

    broker_url: str = _env("LEAGUE_BROKER_URL")
    password_file: str = _env("LEAGUE_BROKER_PASSWORD_FILE")
    ca_file: str = _env("LEAGUE_BROKER_CA_FILE")
    cert_file: str = _env("LEAGUE_BROKER_CERT_FILE")
    key_file: str = _env("LEAGUE_BROKER_KEY_FILE")
    grace_s: float = Field(default=30.0, ge=0, le=3600)
    run_margin_s: float = Field(default=30.0, ge=0, le=3600)

    @field_validator("broker_url")
    @classmethod
    def _no_password(cls, value: str) -> str:
        if re.match(r"^[a-z][a-z0-9+.-]*://[^/@\s]*:[^/@\s]*@", value.strip(), re.I):
            raise ValueError("the broker URL holds a password; put it in password_file (LEAGUE_BROKER_PASSWORD_FILE)")
        return value


class LeagueSettings(Frozen):
    paths: Paths = Paths()
    database: Database = Database()
    clock: ClockSettings = ClockSettings()
    prices: PriceSettings = PriceSettings()
    schedule: Schedule = Schedule()
    methodology: Methodology = Methodology()
    stamps: StampSettings = StampSettings()
    portfolio: PortfolioSettings = PortfolioSettings()
    crowd: CrowdSettings = CrowdSettings()
    news: NewsSettings = NewsSettings()
    arms: ArmsSettings = ArmsSettings()
    talk: TalkSettings = TalkSettings()
    sources: SourcesSettings = SourcesSettings()
    workers: WorkersSettings = Field(default_factory=WorkersSettings)


class Roster(Frozen):
    counting_rule: Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(printable)]
    deadline: str = "09:30"
    second_wave: str = "09:00"
    retry_policy: Annotated[str, Field(min_length=1, max_length=2000), AfterValidator(printable)] = (
        "one re-ask at the second wave for a silent seat")
    #: a blind season (league/blind.py): identities sealed as hashes until `league reveal`
    blind: bool = False
    seat: tuple[SeatSpec, ...] = Field(min_length=1, max_length=MAX_SEATS)

    @model_validator(mode="after")
    def _unique(self) -> Roster:
        names = [s.name for s in self.seat]
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"seat names appear twice: {dupes}")
        _hhmm(self.deadline)
        _hhmm(self.second_wave)
        return self

    @property
    def families(self) -> dict[str, str]:
        return {s.name: s.family or s.name for s in self.seat}


# ----------------------------------------------------------------------------- loading
def read_toml(path: Path) -> dict[str, Any]:
    """A configuration file, bounded (league.inputs: at most 1 MiB, nested at most 64 levels, UTF-8, a
    regular file): whatever the file holds, the result is a table or one ConfigError with the fix."""
    if not Path(path).exists() and not Path(path).is_symlink():
        raise ConfigError(f"{path}: file not found", fix="run `league init DIR` to write a working config")
    try:
        return inputs.read_toml(path, what="configuration file", max_bytes=MAX_CONFIG_BYTES)
    except inputs.InputError as exc:
        raise ConfigError(exc.message, fix=exc.fix) from None


def load_toml_model(model: type[M], path: Path, data: Mapping[str, object] | None = None) -> M:
    raw = read_toml(path) if data is None else data
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise _config_error(path, exc) from None


def error_key(error: ErrorDetails) -> str:
    """Where a validation error is, as a dotted key; a key may be any length, so it is cut to its start."""
    return _cut(".".join(str(p) for p in error.get("loc", ())) or "(top level)", 200)


def _config_error(path: Path, exc: ValidationError) -> ConfigError:
    first = exc.errors()[0]
    key = error_key(first)
    fix = _fix_for(first)
    more = f" (and {exc.error_count() - 1} more problems)" if exc.error_count() > 1 else ""
    value = "" if first.get("type") in ("missing", "extra_forbidden") else f" = {shown(first.get('input'))}"
    return ConfigError(f"{path}: key `{key}`{value}: {_cut(first['msg'])}{more}", fix=fix)


def _cut(message: str, limit: int = 400) -> str:
    return message if len(message) <= limit else message[:limit] + "…"


def shown(value: object, limit: int = 80) -> str:
    """A value as an error may quote it: its repr, cut to ``limit`` characters (a 10,000-character name is
    named by its start and its length, not echoed whole)."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def _fix_for(err: Any) -> str:
    kind = err.get("type", "")
    if kind == "missing":
        return "add the key; see the commented example written by `league init`"
    if kind == "extra_forbidden":
        return "remove or rename the key (it is not a setting the league knows)"
    if kind == "net_replaced":
        return ('replace `net = true` by `network = "web"` and `net = false` by `network = "api"` or "none" '
                "(docs/seats.md)")
    if kind.startswith("literal"):
        return f"use one of the allowed values: {err.get('ctx', {}).get('expected', '')}"
    return "set a valid value (docs/configuration.md gives each key's type and range)"


class Roll(Frozen):
    """One recorded front-month roll of a futures market's continuous price symbol (e.g. ``CL=F`` moving
    from the July to the August contract): the instant the price source's series switched contracts.
    A one-minute return across it is a jump between two contracts, not market noise, so the draw band
    leaves it out (scoring.md §1, ``noise_rolls``)."""

    market: str = Field(pattern=r"^[A-Z][A-Z0-9]{1,9}$")
    at: str = Field(max_length=64)
    from_contract: str = Field(default="", max_length=64)
    to_contract: str = Field(default="", max_length=64)

    @field_validator("at")
    @classmethod
    def _aware(cls, value: str) -> str:
        try:
            moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"{value!r} is not an ISO 8601 time") from None
        if moment.tzinfo is None:
            raise ValueError(f"{value!r} has no UTC offset; write e.g. 2026-06-22T13:30:00Z")
        return value

    @property
    def instant(self) -> datetime:
        return datetime.fromisoformat(self.at.replace("Z", "+00:00")).astimezone(UTC)


class Rolls(Frozen):
    """``rolls.toml``: every recorded roll (none recorded: an empty list, and no minute is excluded)."""

    roll: tuple[Roll, ...] = Field(default=(), max_length=100_000)

    def of(self, market: str) -> tuple[datetime, ...]:
        return tuple(sorted(r.instant for r in self.roll if r.market == market))


def load_rolls(path: Path) -> Rolls:
    """The recorded futures rolls; a league without ``rolls.toml`` has none."""
    return load_toml_model(Rolls, path) if path.exists() else Rolls()


def load_markets(path: Path) -> Markets:
    raw = read_toml(path)
    defaults, tables = raw.get("defaults", {}), raw.get("market", [])
    if not isinstance(defaults, dict):
        raise ConfigError(f"{path}: key `defaults` is not a table", fix="write [defaults] followed by its keys")
    if not isinstance(tables, list) or not all(isinstance(m, dict) for m in tables):
        raise ConfigError(f"{path}: key `market` is not a list of [[market]] tables",
                          fix="write each market as a [[market]] table")
    if not tables:
        raise ConfigError(f"{path}: key `market`: no [[market]] tables", fix="list the twelve indicators")
    unknown = sorted(set(raw) - {"defaults", "market"})
    if unknown:
        raise ConfigError(f"{path}: key `{unknown[0]}` is not a key of markets.toml",
                          fix="remove or rename it: the file holds [defaults] and [[market]] tables")
    return load_toml_model(Markets, path, {"markets": [{**defaults, **m} for m in tables]})


def load_settings(path: Path) -> LeagueSettings:
    return load_toml_model(LeagueSettings, path)


def load_league_settings(path: Path) -> LeagueSettings:
    """league.toml of a league: it must state its price provider. An empty file used to mean live
    Yahoo prices and the wall clock without a word (and, offline, a snapshot retrying for minutes)."""
    raw = read_toml(path)
    prices = raw.get("prices")
    if not isinstance(prices, dict) or "provider" not in prices:
        empty = " (the file is empty)" if not raw else ""
        raise ConfigError(
            f"{path}: key `prices.provider` is missing{empty}: a league must say where its prices come from",
            fix='add [prices] provider = "yahoo" (live, needs the network) or "replay" (offline); '
                "`league init DIR` writes a complete file",
        )
    return load_toml_model(LeagueSettings, path, raw)


def load_roster(path: Path) -> Roster:
    """The roster, with each seat checked the way it will run (adapter, profile, credential paths,
    key variables, adapter options, a lab's executable): a mistake is a ConfigError now, not a
    traceback or a sandbox incident at the first ask."""
    roster = load_toml_model(Roster, path)
    for i, spec in enumerate(roster.seat):
        problems = spec_problems(spec, track="council", files_here=not spec.worker)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise ConfigError(f"{path}: seat {i + 1} ({spec.name!r}): {problems[0]}{more}",
                              fix="correct that [[seat]] entry (docs/seats.md lists what each adapter takes)")
    return roster


class Config(Frozen):
    """Everything loaded from one config folder, with paths resolved."""

    folder: Path
    settings: LeagueSettings
    markets: Markets
    roster: Roster
    rolls: Rolls = Rolls()

    @property
    def data_dir(self) -> Path:
        data = Path(self.settings.paths.data)
        return data if data.is_absolute() else (self.folder.parent / data).resolve()

    @property
    def database_url(self) -> str:
        return self.settings.database.url or f"sqlite:///{self.data_dir / 'league.db'}"


def load_config(folder: Path, *, roster_file: str = "roster.toml") -> Config:
    folder = Path(folder)
    if not folder.is_dir():
        raise ConfigError(f"{folder}: config folder not found", fix="run `league init DIR` or pass --config")
    config = Config(
        folder=folder.resolve(),
        settings=load_league_settings(folder / "league.toml"),
        markets=load_markets(folder / "markets.toml"),
        roster=load_roster(folder / roster_file),
        rolls=load_rolls(folder / "rolls.toml"),
    )
    _cross_check(config, folder / roster_file)
    _check_rolls(config, folder / "rolls.toml")
    _check_stamp_files(config.settings.stamps, config.data_dir, folder / "league.toml")
    return config


def _cross_check(config: Config, roster_path: Path) -> None:
    """Times that two files state must agree, and the score job must follow every market's end."""
    sch, roster = config.settings.schedule, config.roster
    league_toml = config.folder / "league.toml"
    for key, ours, theirs in (("deadline", roster.deadline, sch.ingest_close),
                              ("second_wave", roster.second_wave, sch.second_wave)):
        if ours != theirs:
            raise ConfigError(
                f"{roster_path}: key `{key}` = {ours!r} but {league_toml} [schedule] says {theirs!r}",
                fix="make the roster's deadline equal [schedule] ingest_close and its second_wave equal "
                    "[schedule] second_wave",
            )
    remote = [s.name for s in roster.seat if s.worker]
    if remote and not config.settings.workers.broker_url:
        raise ConfigError(f"{roster_path}: seats {remote[:5]} run on a lab's worker (`worker = ...`) but {league_toml} "
                          "names no broker", fix="set [workers] broker_url and password_file in league.toml (or "
                          "LEAGUE_BROKER_URL / LEAGUE_BROKER_PASSWORD_FILE); docs/workers.md")
    names = {s.name for s in roster.seat}
    arms = config.settings.arms
    talk = config.settings.talk
    for key, listed in (("arms.seats", arms.seats), ("arms.repeat_seats", arms.repeat_seats),
                        ("talk.seats", talk.seats)):
        unknown = [n for n in listed if n not in names]
        if unknown:
            raise ConfigError(f"{league_toml}: key `{key}` names {', '.join(map(shown, unknown[:5]))}, "
                              "not a roster seat",
                              fix=f"name seats of {roster_path.name} ({', '.join(sorted(names)[:8])})")
    baselines = [n for n in talk.seats if n.startswith("_")]
    if baselines:
        raise ConfigError(f"{league_toml}: key `talk.seats` names {', '.join(map(shown, baselines[:5]))}, a "
                          "history-only baseline", fix="name seats that answer in text; a baseline cannot write a "
                          "portfolio or a critique")
    if talk.enabled and not sch.score < sch.talk < sch.talk_replies < sch.publish:
        raise ConfigError(f"{league_toml}: [talk] is enabled but [schedule] talk = {sch.talk!r} and talk_replies = "
                          f"{sch.talk_replies!r} do not fall in order between score ({sch.score}) and publish "
                          f"({sch.publish})", fix="the chair reads the portfolios the score marked and the day's "
                          "publication shows the replies: set score < talk < talk_replies < publish")
    if talk.enabled and len([s for s in roster.seat if not s.name.startswith("_")
                             and (not talk.seats or s.name in talk.seats)]) < 2:
        raise ConfigError(f"{league_toml}: [talk] is enabled with fewer than two seats",
                          fix="a chair critiques the others: list two seats or more in `talk.seats`, or leave it "
                              "empty for every roster seat but the baselines")
    if "closed_book" in arms.arms and config.settings.news.provider == NO_NEWS:
        raise ConfigError(f"{league_toml}: key `arms.arms` runs closed_book but [news] names no provider",
                          fix='set [news] provider = "feeds" (with [[news.feeds]]) or "recorded"; docs/experiments.md')
    latest = max(m.end_time for m in config.markets.markets)
    if sch.score <= latest:
        raise ConfigError(f"{league_toml}: key `schedule.score` = {sch.score!r} is not after the latest market "
                          f"end ({latest} ET)", fix=f"set [schedule] score later than {latest}, e.g. 16:05")


def _check_rolls(config: Config, path: Path) -> None:
    """A roll belongs to a futures market of markets.toml."""
    futures = {m.code for m in config.markets.markets if m.kind == "future"}
    for i, roll in enumerate(config.rolls.roll):
        if roll.market not in futures:
            raise ConfigError(f"{path}: roll {i + 1}: market {roll.market!r} is not a futures market of markets.toml",
                              fix=f"use one of {', '.join(sorted(futures))}")


#: The first line of a PEM file of each kind ``[stamps]`` names.
PEM_PRIVATE_KEY, PEM_CERTIFICATE = "PRIVATE KEY-----", "-----BEGIN CERTIFICATE-----"


def _check_stamp_files(stamps: StampSettings, data_dir: Path, path: Path) -> None:
    """The files ``[stamps]`` names are of the right kind where they are used: the signing key of the
    transparency log a PEM private key, each authority's ``ca_file``/``cert_file`` a PEM certificate (a
    key or certificate that is not one failed only at the evening's stamp, or read a system file). A key
    not made yet is not an error here (`league init` makes it; `league doctor` reports it missing)."""
    wanted = [("stamps.key", stamps.key, PEM_PRIVATE_KEY)] if stamps.rekor_url else []
    for i, tsa in enumerate(stamps.tsa):
        wanted += [(f"stamps.tsa.{i}.{k}", v, PEM_CERTIFICATE) for k, v in (("ca_file", tsa.ca_file),
                                                                          ("cert_file", tsa.cert_file)) if v]
    for key, value, marker in wanted:
        file = data_dir / value  # an absolute value stays absolute
        if marker == PEM_PRIVATE_KEY and not file.exists() and not file.is_symlink():
            continue  # not made yet: `league init` makes it, and `league doctor` says it is missing
        problem = _pem_problem(file, marker)
        if problem:
            raise ConfigError(f"{path}: key `{key}` = {shown(value)}: {problem}",
                              fix="name the PEM file (relative paths are read from the data folder); "
                                  "`league init` makes the signing key")


def _pem_problem(path: Path, marker: str) -> str:
    kind = "private key" if marker == PEM_PRIVATE_KEY else "certificate"
    if not path.is_file():
        return f"{path} is not a file"
    try:
        with open(path, "rb") as fh:
            head = fh.read(64 * 1024)
    except OSError as exc:
        return f"{path} cannot be read ({exc.strerror or exc})"
    if not head.startswith(b"-----BEGIN ") or marker.encode() not in head:
        return f"{path} is not a PEM {kind}"
    return ""


#: Where a release installs the example config, under the environment's prefix (pyproject.toml's data-files).
INSTALLED_CONFIG = Path("share") / "forecast-league" / "config"


def shipped_config_dir() -> Path:
    """The example config folder that ``league init`` copies: ``config/`` beside the packages in a checkout
    (an editable install, where the operator reads and edits it in the repository), else where a release (the
    wheel) installs it, PREFIX/share/forecast-league/config (pyproject.toml's data-files), in the environment's
    prefix or the user's base (``pip install --user``)."""
    checkout = Path(__file__).resolve().parent.parent / "config"
    places = [checkout, Path(sys.prefix) / INSTALLED_CONFIG, Path(site.getuserbase()) / INSTALLED_CONFIG]
    for here in places:
        if (here / "markets.toml").is_file():
            return here
    raise ConfigError(f"no example config folder (looked in {', '.join(str(p) for p in places)})",
                      fix="reinstall the package (pip install --force-reinstall forecast-league), or install from "
                          "a checkout: pip install -e .")

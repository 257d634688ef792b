"""The evaluation configuration: defaults of a run and the seats it knows, each with its knowledge cutoff.

``league/evals/default.toml`` holds the defaults and a roster of stand-in seats; ``--eval-config`` names another
file. A seat may also come from the league's roster (``--roster``, a ``roster.toml`` with ``[[seat]]`` entries);
such a seat declares its knowledge cutoff as ``options.knowledge_cutoff`` and its concurrency limit as
``options.max_concurrency`` (default 1: a vendor account is not asked sixteen things at once unless the operator
says so). ``--cutoff`` overrides the declared cutoff; a seat with none is refused, because the leakage rule
cannot be applied without it.
"""

from __future__ import annotations

from datetime import date
from importlib import resources
from pathlib import Path

from pydantic import Field, ValidationError

from league import inputs
from league.config import MAX_CONFIG_BYTES, MAX_SEATS, Frozen, error_key
from league.errors import ConfigError
from league.evals.policy import Policy
from league_agents.base import SeatSpec
from league_agents.options import SeatOptions
from league_agents.registry import spec_problems

CONFIG_FIX = "see docs/evals.md for every key of the evaluation configuration"


class EvalSeat(Frozen):
    """A seat an evaluation may run: its roster entry, knowledge cutoff and concurrency limit."""

    knowledge_cutoff: date | None = None
    max_concurrency: int = Field(default=1, ge=1, le=64)
    seat: SeatSpec

    @property
    def name(self) -> str:
        return self.seat.name


class EvalConfig(Frozen):
    trials: int = Field(default=3, ge=1, le=20)
    concurrency: int = Field(default=4, ge=1, le=64)
    policy: Policy = Policy.NONE
    probabilities: bool = False
    seats: tuple[EvalSeat, ...] = Field(default=(), max_length=MAX_SEATS)


def _read_toml(path: Path | None, package_file: str) -> tuple[dict[str, object], str]:
    if path is None:
        text = resources.files("league.evals").joinpath(package_file).read_text(encoding="utf-8")
        source = f"league/evals/{package_file}"
    else:
        source = str(path)
        try:
            text = inputs.read_text(Path(path), what="TOML file", max_bytes=MAX_CONFIG_BYTES)
        except inputs.InputError as exc:
            raise ConfigError(exc.message, fix=exc.fix) from None
    try:
        return inputs.parse_toml(text, where=source), source
    except inputs.InputError as exc:
        raise ConfigError(exc.message, fix=exc.fix) from None


def load_config(path: Path | None = None) -> EvalConfig:
    data, source = _read_toml(path, "default.toml")
    try:
        config = EvalConfig.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        raise ConfigError(f"{source}: {error_key(first)}: {first['msg']}", fix=CONFIG_FIX) from None
    for seat in config.seats:
        _check_seat(seat.seat, source)
    return config


def _check_seat(spec: SeatSpec, source: str) -> None:
    problems = spec_problems(spec, track="eval", files_here=not spec.worker)
    if problems:
        raise ConfigError(f"{source}: seat {spec.name!r}: {problems[0]}",
                          fix="correct that seat (docs/seats.md lists what each adapter takes)")


def _roster_seat(roster: Path, name: str) -> EvalSeat | None:
    data, source = _read_toml(roster, "")
    entries = data.get("seat", [])
    for entry in entries if isinstance(entries, list) else []:
        if isinstance(entry, dict) and entry.get("name") == name:
            try:
                spec = SeatSpec.model_validate(entry)
                opts = SeatOptions.model_validate({k: v for k, v in spec.options.items()
                                                   if k in SeatOptions.model_fields})
                seat = EvalSeat(knowledge_cutoff=opts.knowledge_cutoff, max_concurrency=opts.max_concurrency, seat=spec)
            except ValidationError as exc:
                first = exc.errors()[0]
                raise ConfigError(f"{source}: seat {name!r} is not a valid eval seat ({error_key(first)}: "
                                  f"{first['msg']})", fix="options.knowledge_cutoff is a date, "
                                  "options.max_concurrency an integer from 1 to 64") from None
            _check_seat(spec, source)
            return seat
    return None


def find_seat(config: EvalConfig, name: str, roster: Path | None = None) -> EvalSeat:
    """The named seat from the evaluation configuration, else from the league roster."""
    for s in config.seats:
        if s.name == name:
            return s
    found = _roster_seat(roster, name) if roster is not None and roster.is_file() else None
    if found is None:
        known = ", ".join(s.name for s in config.seats)
        raise ConfigError(f"no seat named {name!r} in the evaluation configuration"
                          + (f" or in {roster}" if roster is not None else ""),
                          fix=f"one of: {known}; or a [[seat]] of the roster given with --roster")
    return found

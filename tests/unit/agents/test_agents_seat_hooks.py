"""The seat hooks beyond ``ask`` (league_agents.base.SeatBase): every seat class of the project has them with
their defaults, only a seat that overrides ``prefetch`` makes the league read the coming history, a lab's
plugin written to the minimal contract (``ask`` alone) is neither prefetched nor closed, and the runner
closes every seat that has the hook."""

from __future__ import annotations

from collections.abc import Mapping
from types import SimpleNamespace
from typing import Any

import pytest

from league.jobs import ask as ask_job
from league.runner import ThreadRunner
from league_agents import base
from league_agents.base import SeatBase, SeatSpec
from league_agents.registry import SEATS, load_adapter


class Plugin:
    """A lab's seat as docs/seats.md describes it: a spec and ``ask``, nothing else."""

    def __init__(self, spec: SeatSpec) -> None:
        self.spec = spec

    def ask(self, ask: Any, now: Any) -> Any:
        raise AssertionError("not asked here")


class Holder(SeatBase):
    """A seat that keeps something of its own and starts work early."""

    def __init__(self, spec: SeatSpec) -> None:
        self.spec = spec
        self.closed = 0
        self.seen: list[Mapping[str, Any]] = []

    def ask(self, ask: Any, now: Any) -> Any:
        raise AssertionError("not asked here")

    def prefetch(self, history: Mapping[str, Any]) -> int:
        self.seen.append(history)
        return len(history)

    def close(self) -> None:
        self.closed += 1


def spec(name: str, adapter: str = "coin") -> SeatSpec:
    return SeatSpec(name=name, adapter=adapter)


def project_adapters() -> list[str]:
    """The adapters this project registers whose optional libraries are installed here."""
    names = []
    for name in SEATS.names():
        try:
            cls = load_adapter(name)
        except Exception:  # noqa: BLE001 - an SDK extra not installed: that adapter is not checked here
            continue
        if cls.__module__.startswith(("league_agents.", "league.")):
            names.append(name)
    return names


@pytest.mark.parametrize("adapter", project_adapters())
def test_every_project_seat_class_has_the_hooks(adapter: str) -> None:
    assert issubclass(load_adapter(adapter), SeatBase)


def test_only_an_overriding_seat_prefetches() -> None:
    assert base.prefetches(load_adapter("ets").__new__(load_adapter("ets")))
    assert not base.prefetches(load_adapter("coin")(spec("_coin")))
    assert not base.prefetches(Plugin(spec("lab")))
    assert base.prefetches(Holder(spec("h")))


def test_defaults_do_nothing_and_a_plugin_without_hooks_is_left_alone() -> None:
    coin, plugin = load_adapter("coin")(spec("_coin")), Plugin(spec("lab"))
    assert base.prefetch(coin, {"SPX": [1.0]}) == 0
    assert base.prefetch(plugin, {"SPX": [1.0]}) == 0
    base.close_seat(coin)
    base.close_seat(plugin)  # no hook: nothing to call, no AttributeError


def test_a_seat_with_hooks_gets_the_history_and_its_count_back() -> None:
    holder = Holder(spec("h"))
    assert base.prefetch(holder, {"SPX": [1.0], "NDX": [2.0]}) == 2
    assert holder.seen == [{"SPX": [1.0], "NDX": [2.0]}]


def test_the_runner_closes_every_seat_with_the_hook() -> None:
    holders = {"a": Holder(spec("a")), "b": Holder(spec("b"))}
    ThreadRunner({**holders, "lab": Plugin(spec("lab"))}).close()  # type: ignore[dict-item]
    assert [h.closed for h in holders.values()] == [1, 1]


class _League:
    """Just what prefetch_fits reads: the seats (and, were it reached, the calendar)."""

    def __init__(self, seats: Mapping[str, object]) -> None:
        self.asking = SimpleNamespace(seats=seats)


def test_prefetch_stage_reads_no_history_when_no_seat_prefetches(monkeypatch: pytest.MonkeyPatch) -> None:
    def history_read(*args: object) -> None:
        raise AssertionError("the coming history was read although no seat prefetches")

    monkeypatch.setattr(ask_job, "history_context", history_read)
    lg = _League({"_coin": load_adapter("coin")(spec("_coin")), "lab": Plugin(spec("lab"))})
    assert ask_job.prefetch_fits(lg, "2026-06-01") == 0  # type: ignore[arg-type]

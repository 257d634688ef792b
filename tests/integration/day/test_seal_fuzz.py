"""Fuzz of seal_reply over arbitrary bytes, text and self-reports (issue 11, "Done means"): every
reply yields exactly one sealed line, its raw bytes are kept losslessly, and the chain verifies."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from concurrent.futures import Future
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest
from day_helpers import BASELINES, league_dir
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE, League, Pending
from league.jobs.scheduler import session_start
from league.jobs.seal import RAW_UTF8, raw_bytes, read_reply, seal_reply
from league.verify.chain import verify
from league_agents.base import SeatReply

SESSION = date(2026, 11, 24)
MARKETS = {"SPX": ["1d", "1w"], "BTC": ["1d"]}
_n = itertools.count(1)

json_like = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(alphabet=st.characters(codec=None)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20,
)
replies = (
    st.binary(max_size=3000).map(lambda b: b.decode("utf-8", "surrogateescape"))
    | st.text(alphabet=st.characters(codec=None) | st.sampled_from(["\ud800", "\udfff", "{", '"', "["]),
              max_size=3000)
    | st.builds(lambda pre, inner: pre + '{"forecast": {"SPX": {"1d": ' + inner + "}}}",
                st.text(max_size=50), st.text(alphabet=st.sampled_from(list('{}[]":,0123456789.\\u') + ["\ud800"]),
                                              max_size=300))
)


@pytest.fixture(scope="module")
def league(tmp_path_factory: pytest.TempPathFactory) -> Iterator[League]:
    config_dir, _, clock = league_dir(tmp_path_factory.mktemp("fuzz"), BASELINES, session_start(SESSION))
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        yield lg


def _pending(seat: str) -> Pending:
    return Pending(run_id=f"{SESSION}-r1", session=str(SESSION), seat=seat, attempt=1, common_sha256="0" * 64,
                   seat_ask_sha256="1" * 64, markets=MARKETS, future=Future())


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(raw=replies, model=st.text(alphabet=st.characters(codec=None), max_size=20), usage=json_like)
def test_fuzz_every_reply_is_one_line(league: League, raw: str, model: str, usage: Any) -> None:
    seat = f"fuzz-{next(_n)}"
    now = league.clock.now()
    reply = SeatReply(seat=seat, raw=raw, model=model, version=model, mode="", started_at=now,
                      finished_at=now + timedelta(seconds=1), usage={"seat_said": usage}, detail=model)
    before = league.book.lines
    seal_reply(league, _pending(seat), reply)
    assert league.book.lines == before + 1
    line = league.index.lines[league.book.lines]
    assert line["seat"] == seat
    if raw.strip():
        assert line["kind"] == "answer" and line["status"] in ("answered", "refused_shape")
        assert read_reply(Path(league.data_dir), line) == raw  # kept losslessly
        _, encoding = raw_bytes(raw)
        assert (encoding == RAW_UTF8) == ("raw_encoding" not in line)
    else:
        assert line["kind"] == "silence"


def test_the_fuzzed_book_verifies(league: League) -> None:
    """Runs after the fuzz (same module league): every line written above holds in the chain."""
    report = verify(league.book.path)
    assert report.ok, report.reason
    assert report.lines == league.book.lines

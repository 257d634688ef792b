"""Fuzz of seal_reply over arbitrary bytes, text and self-reports (docs/hostile-inputs.md): every
reply yields exactly one sealed line, its raw bytes are kept losslessly, what the seat reports about
itself is sealed escaped, a reply with a repeated key is never answered without a note, and the chain
verifies."""

from __future__ import annotations

import itertools
import json
import re
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


#: What may not appear in a sealed label (model, version, mode): C0 with tab and newline, DEL, C1, the
#: bidirectional controls, zero-width characters, the BOM, line separators, tag characters, lone surrogates.
UNSHOWABLE = re.compile("[\x00-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff"
                        "\ud800-\udfff\U000e0000-\U000e007f]")
#: The same in multi-line text (a failure's detail), where tab and newline are kept.
UNSHOWABLE_TEXT = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069"
                             "\ufeff\ud800-\udfff\U000e0000-\U000e007f]")
labels = st.lists(st.characters(codec=None) | st.sampled_from(
    ["\x1b[31m", "\u202e", "\u2066", "\x00", "\n", "\t", "\x85", "\ufeff", "\U000e0041", "\ud800", "m" * 40]),
    max_size=60).map("".join)

# A reply that gives a key twice, at each level the parser reads and at one it does not.
REPEATED_AT = {
    "cell": '{"forecast": {"SPX": {"1d": {"prob_up": A, "prob_up": B}}}}',
    "cell text": '{"forecast": {"SPX": {"1d": {"prob_up": 60, "risk": A, "risk": B}}}}',
    "horizon": '{"forecast": {"SPX": {"1w": {"prob_up": A}, "1w": {"prob_up": B}}}}',
    "market": '{"forecast": {"BTC": {"1d": {"prob_up": A}}, "BTC": {"1d": {"prob_up": B}}}}',
    "forecast": '{"forecast": {"SPX": {"1d": {"prob_up": A}}}, "forecast": {"SPX": {"1d": {"prob_up": B}}}}',
    "elsewhere": '{"note": A, "forecast": {"SPX": {"1d": {"prob_up": 55}}}, "note": B}',
}
prob_like = st.integers(-5, 150) | st.floats(0, 100) | st.sampled_from(["55", "x", None, True])


@st.composite
def repeated_replies(draw: st.DrawFn) -> str:
    template = REPEATED_AT[draw(st.sampled_from(sorted(REPEATED_AT)))]
    a = draw(prob_like | json_like)
    b = a if draw(st.booleans()) else draw(prob_like | json_like)
    body = template.replace("A", json.dumps(a)).replace("B", json.dumps(b))
    return draw(st.sampled_from(["{}", "Prose first.\n```json\n{}\n```\n", "x {}"])).replace("{}", body)


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
@given(raw=replies, model=labels, usage=json_like)
def test_fuzz_every_reply_is_one_line(league: League, raw: str, model: str, usage: Any) -> None:
    seat = f"fuzz-{next(_n)}"
    now = league.clock.now()
    reply = SeatReply(seat=seat, raw=raw, model=model, version=model, mode="", started_at=now,
                      finished_at=now + timedelta(seconds=1), usage={"seat_said": usage}, detail=model)
    before = league.books.book.lines
    seal_reply(league, _pending(seat), reply)
    assert league.books.book.lines == before + 1
    line = _last_line(league)
    assert line["seat"] == seat
    if raw.strip():
        assert line["kind"] == "answer" and line["status"] in ("answered", "refused_shape")
        kept = read_reply(Path(league.data_dir), line["own_sha256"], line.get("raw_encoding", ""))
        assert kept == raw  # kept losslessly
        _, encoding = raw_bytes(raw)
        assert (encoding == RAW_UTF8) == ("raw_encoding" not in line)
        for key in ("model", "version"):  # one line, escaped, at most 200 characters as shown
            assert not UNSHOWABLE.search(line[key]) and len(line[key]) <= 200, line[key]
    else:
        assert line["kind"] == "silence"
        assert not UNSHOWABLE_TEXT.search(line["detail"]) and len(line["detail"]) <= 500


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                    HealthCheck.too_slow])
@given(raw=repeated_replies())
def test_fuzz_a_repeated_key_is_never_sealed_as_a_silent_answer(league: League, raw: str) -> None:
    """Before: the last value of the key was sealed as the answer, with no note."""
    seat = f"repeat-{next(_n)}"
    now = league.clock.now()
    reply = SeatReply(seat=seat, raw=raw, model="m", version="v", mode="", started_at=now,
                      finished_at=now + timedelta(seconds=1))
    seal_reply(league, _pending(seat), reply)
    line = _last_line(league)
    assert line["seat"] == seat and line["kind"] == "answer"
    assert line["status"] == "refused_shape" or [
        n for n in line["parse_notes"] if " is given " in n or "keys are repeated" in n], line


@pytest.mark.parametrize(("reported", "sealed", "detail"), [
    ("claude-opus-4-1-20250805", "claude-opus-4-1-20250805", "claude-opus-4-1-20250805"),
    ("模型-Ω (high)", "模型-Ω (high)", "模型-Ω (high)"),
    ("gpt\x1b[31m\u202e5\x00\t", "gpt\\u001b[31m\\u202e5\\u0000\\u0009", "gpt\\u001b[31m\\u202e5\\u0000\t"),
    ("m" * 190 + "\u202e" * 5, "m" * 190 + "\\u202e", "m" * 190 + "\\u202e" * 5),  # a label: 200 characters shown
])
def test_reported_labels_are_sealed_escaped_and_normal_ones_unchanged(league: League, reported: str,
                                                                       sealed: str, detail: str) -> None:
    """Before: the label was cut to 200 characters and sealed verbatim."""
    seat = f"label-{next(_n)}"
    now = league.clock.now()
    for raw, kind in (('{"forecast": {"SPX": {"1d": {"prob_up": 61}}}}', "answer"), ("", "silence")):
        reply = SeatReply(seat=seat, raw=raw, model=reported, version=reported, mode=reported, started_at=now,
                          finished_at=now + timedelta(seconds=1), detail=f"stderr:\n{reported}")
        seal_reply(league, _pending(seat), reply)
        line = _last_line(league)
        assert line["kind"] == kind
        if kind == "answer":
            assert line["model"] == line["version"] == line["mode"] == sealed
        else:
            assert line["detail"] == "stderr:\n" + detail


def test_the_fuzzed_book_verifies(league: League) -> None:
    """Runs after the fuzz (same module league): every line written above holds in the chain."""
    report = verify(league.books.book.path)
    assert report.ok, report.reason
    assert report.lines == league.books.book.lines


def _last_line(league: League) -> dict[str, Any]:
    """The book's last line as sealed (its raw JSON: which keys it holds, not only their values)."""
    last: dict[str, Any] = json.loads(league.books.book.path.read_text(encoding="utf-8").splitlines()[-1])
    return last

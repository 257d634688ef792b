"""A simulated league day with hostile seats in the real sandbox (docs/hostile-inputs.md): every reply is
sealed as exactly one line, the other seats answer, the day goes on to its close, and the chain verifies."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from datetime import date
from pathlib import Path

import pytest
from day_helpers import hostile_seat, league_dir, roster, seat

from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import run_session, session_start
from league.jobs.seal import RAW_SURROGATES, read_reply
from league.verify.chain import verify

SESSION = date(2026, 11, 24)
BEHAVIOURS = ("deep", "surrogate", "huge", "scale", "nan", "bytes", "memory", "fork", "repeat", "twice", "twice-same",
              "ones", "label", "normal")

pytestmark = [pytest.mark.sandbox, pytest.mark.slow]


@pytest.fixture(scope="module")
def day(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[dict[str, object]]]:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    tmp = tmp_path_factory.mktemp("hostile")
    seats = roster(seat("calm", "scripted", seed=3), seat("_coin", "coin"),
                   *(hostile_seat(f"h-{b}", b) for b in BEHAVIOURS))
    config_dir, data_dir, clock = league_dir(tmp, seats, session_start(SESSION))
    with build_league(load_config(config_dir), clock, stages=BARE) as lg:
        ran = run_session(lg, SESSION)
        lines = [json.loads(x) for x in lg.books.book.path.read_text(encoding="utf-8").splitlines()]  # as sealed
    assert [job for _, job in ran] and all(status == "done" for _, status in ran), ran
    return data_dir, lines


def _replies(lines: list[dict[str, object]]) -> dict[str, list[dict[str, object]]]:
    out: dict[str, list[dict[str, object]]] = {}
    for x in lines:
        if x["kind"] in ("answer", "silence", "incident") and str(x.get("run_id", "")).endswith("-r1"):
            out.setdefault(str(x["seat"]), []).append(x)
    return out


def test_every_hostile_reply_is_one_line_and_the_day_closes(day: tuple[Path, list[dict[str, object]]]) -> None:
    data_dir, lines = day
    replies = _replies(lines)
    assert Counter({s: len(v) for s, v in replies.items()}) == Counter(
        {"calm": 1, "_coin": 1, **{f"h-{b}": 1 for b in BEHAVIOURS}})
    kinds = Counter(x["kind"] for x in lines)
    assert kinds["ingest_close"] == 1 and kinds["score"] >= 1  # the session went on to its close and its scores
    assert verify(data_dir / "books" / "council-book.jsonl").ok


def test_outcome_of_each_hostile_class(day: tuple[Path, list[dict[str, object]]]) -> None:
    data_dir, lines = day
    got = {seat: v[0] for seat, v in _replies(lines).items()}
    assert got["calm"]["status"] == "answered" and got["h-normal"]["status"] == "answered"
    assert got["h-deep"]["status"] == "refused_shape"
    assert got["h-scale"]["status"] == "refused_shape" and "0-1 scale" in str(got["h-scale"]["parse_failure"])
    assert got["h-huge"]["status"] == "answered"  # 3 MB of prose before the JSON: the tail is parsed
    surrogate = got["h-surrogate"]
    assert surrogate["status"] == "answered" and surrogate["raw_encoding"] == RAW_SURROGATES
    assert surrogate["items"]["SPX"]["1d"]["risk"] == "a\\ud800b"  # type: ignore[index]
    raw = read_reply(data_dir, surrogate["own_sha256"], surrogate.get("raw_encoding", ""))
    assert raw is not None and "a\ud800b" in raw  # kept losslessly, lone surrogate and all
    assert got["h-nan"]["status"] == "answered" and got["h-nan"]["usage"]["total_cost_usd"] is None  # type: ignore[index]
    assert got["h-bytes"]["status"] == "answered"
    memory, fork = got["h-memory"], got["h-fork"]
    assert memory["kind"] == "silence" and memory["failure"] == "seat_fault"
    assert "memory cap of 512 MiB" in str(memory["detail"])
    assert fork["kind"] == "silence" and fork["failure"] == "seat_fault"
    assert "process cap of 64 tasks" in str(fork["detail"])


def test_ambiguous_replies_are_sealed_as_such(day: tuple[Path, list[dict[str, object]]]) -> None:
    """Through the Claude Code adapter in the real sandbox: a repeated key with two values and two
    different result envelopes are refused_shape (before: prob_up 90 answered, no note); the same
    envelope twice and a lone prob_up 1 are answered with a note saying what was read."""
    data_dir, lines = day
    got = {seat: v[0] for seat, v in _replies(lines).items()}
    repeat, twice, same, ones = got["h-repeat"], got["h-twice"], got["h-twice-same"], got["h-ones"]
    assert repeat["status"] == "refused_shape" and repeat["items"] == {}
    assert str(repeat["parse_failure"]).startswith('SPX 1d "prob_up" is given 2 times with different values (10, 90)')
    assert twice["status"] == "refused_shape"
    assert str(twice["parse_failure"]).startswith("the reply holds 2 answer objects (JSON objects with a `forecast`) "
                                                  "that differ")
    raw = read_reply(data_dir, twice["own_sha256"], twice.get("raw_encoding", ""))
    assert raw is not None and "First." in raw and "Second." in raw  # both envelopes' texts are kept
    assert same["status"] == "answered" and same["items"]["SPX"]["1d"]["prob_up"] == 61  # type: ignore[index]
    assert same["parse_notes"] == ["the reply holds 2 answer objects (JSON objects with a `forecast`), all the same; "
                                   "read once"]
    assert ones["status"] == "answered" and ones["items"]["SPX"]["1d"]["prob_up"] == 1  # type: ignore[index]
    assert [n for n in ones["parse_notes"] if str(n).startswith("every prob_up is 0 or 1")]  # type: ignore[attr-defined]


def test_a_reported_model_is_sealed_escaped(day: tuple[Path, list[dict[str, object]]]) -> None:
    """Before: ESC, U+202E and NUL were sealed verbatim in `model` and `version`."""
    _, lines = day
    label = {seat: v[0] for seat, v in _replies(lines).items()}["h-label"]
    assert label["status"] == "answered"
    assert label["model"] == label["version"] == "fable\\u001b[2J\\u202eevil\\u0000"

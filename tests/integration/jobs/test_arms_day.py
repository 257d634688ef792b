"""A league day with the closed-book and price-only arms and the repeats, on real sandboxed scripted seats:
what is sealed where and in which order, and that the council's books do not change by a byte."""

from __future__ import annotations

import json
import shutil
from datetime import date, datetime, time, timedelta
from pathlib import Path

import pytest
from arms_helpers import book_lines, enable_arms
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.news.packet import build_packet, packet_sha256
from league.news.recorded import RecordedSource
from league.verify.chain import verify

SESSION = date(2026, 11, 24)  # a Tuesday
SEATS = roster(seat("aurora", "scripted", seed=1, latency_s=60), seat("basalt", "scripted", seed=2, latency_s=200),
               seat("cobalt", "scripted", seed=3, latency_s=30), seat("_coin", "coin"))


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")


def _day(tmp_path: Path, name: str, *, arms: bool) -> Path:
    config_dir, data_dir, _ = league_dir(tmp_path / name, SEATS, et_time(SESSION, time(7, 0)))
    if arms:
        enable_arms(config_dir, data_dir, SESSION, repeat_seats=("aurora", "basalt"), repeat_day="tue")
    config = load_config(config_dir)
    with build_league(config, SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION + timedelta(days=1), time(3, 0)),
                 before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION + timedelta(days=1), time(3, 0)))
    return data_dir


@pytest.fixture(scope="module")
def days(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("armsday")
    return _day(root, "plain", arms=False), _day(root, "arms", arms=True)


def test_the_council_books_are_the_same_byte_for_byte_with_and_without_arms(days: tuple[Path, Path]) -> None:
    plain, arms = days
    for name in ("council-book.jsonl", "asks.jsonl"):
        assert (plain / "books" / name).read_bytes() == (arms / "books" / name).read_bytes(), name
    assert not (plain / "books" / "arms-book.jsonl").exists()


def test_every_arm_run_is_sealed_with_its_asks_before_its_answers(days: tuple[Path, Path]) -> None:
    _, data = days
    book = book_lines(data / "books" / "arms-book.jsonl")
    kinds = [x["kind"] for x in book]
    assert kinds[0] == "arm_schedule"
    assert kinds.index("news_packet") < kinds.index("arm_run")  # the packet is sealed before the first arm ask
    runs = {x["run_id"]: x for x in book if x["kind"] == "arm_run"}
    assert sorted(runs) == sorted([f"{SESSION}-closed_book", f"{SESSION}-price_only",
                                   *(f"{SESSION}-repeat_open-{k}" for k in (1, 2, 3)),
                                   *(f"{SESSION}-repeat_packet-{k}" for k in (1, 2, 3))])
    assert runs[f"{SESSION}-repeat_open-1"]["roster"] == ["aurora", "basalt"]
    assert sorted(runs[f"{SESSION}-closed_book"]["roster"]) == ["_coin", "aurora", "basalt", "cobalt"]
    # the first two runs are the arms, in the day's sealed order; the repeats follow
    first_two = [x["arm"] for x in book if x["kind"] == "arm_run"][:2]
    assert sorted(first_two) == ["closed_book", "price_only"] and runs[f"{SESSION}-closed_book"]["order"] == first_two
    replies = [x for x in book if x["kind"] in ("arm_answer", "arm_silence")]
    assert len(replies) == 4 + 4 + 2 * 3 + 2 * 3  # one line per seat of every run, exactly once
    assert {(x["run_id"], x["seat"]) for x in replies} == {(r, s) for r, x in runs.items() for s in x["roster"]}
    asks = book_lines(data / "books" / "arm-asks.jsonl")
    assert asks[0]["kind"] == "counting_rule" and "never counted" in str(asks[0]["rule"])
    sealed_asks = {(x["run_id"], x["seat"]): x["at"] for x in asks if x["kind"] == "ask"}
    for reply in replies:
        assert sealed_asks[(reply["run_id"], reply["seat"])] <= reply["at"]
    assert verify(data / "books" / "arms-book.jsonl").ok and verify(data / "books" / "arm-asks.jsonl").ok


def test_arm_answers_carry_their_search_status_and_the_packet_they_were_shown(days: tuple[Path, Path]) -> None:
    _, data = days
    book = book_lines(data / "books" / "arms-book.jsonl")
    answers = [x for x in book if x["kind"] == "arm_answer"]
    assert answers and {x["search_status"] for x in answers} == {"verified"}  # policy none: nothing to reach
    [packet_line] = [x for x in book if x["kind"] == "news_packet"]
    run = next(x for x in book if x["kind"] == "arm_run" and x["arm"] == "closed_book")
    assert run["packet_sha256"] == packet_line["packet_sha256"]
    text = (data / "arms" / "asks" / f"{run['ask_sha256']}.md").read_text(encoding="utf-8")
    assert f"sealed packet sha256 {packet_line['packet_sha256']}" in text and "CLOSED-BOOK" in text
    assert "Crowd contracts" not in text
    doc = json.loads((data / "arms" / "packets" / f"{packet_line['packet_sha256']}.json").read_text(encoding="utf-8"))
    for item in doc["items"]:
        assert item["title"] in text and item["link"] in text
    price_only = next(x for x in book if x["kind"] == "arm_run" and x["arm"] == "price_only")
    assert price_only["packet_sha256"] is None
    assert "Headlines" not in (data / "arms" / "asks" / f"{price_only['ask_sha256']}.md").read_text(encoding="utf-8")


def test_the_packet_rebuilt_from_the_recorded_feeds_has_the_sealed_hash(days: tuple[Path, Path]) -> None:
    _, data = days
    book = book_lines(data / "books" / "arms-book.jsonl")
    [line] = [x for x in book if x["kind"] == "news_packet"]
    cutoff = datetime.fromisoformat(str(line["cutoff"]).replace("Z", "+00:00"))
    council = book_lines(data / "books" / "council-book.jsonl")
    [run] = [x for x in council if x["kind"] == "run"]
    assert line["cutoff"] == run["at"]  # the open run's information cutoff
    rebuilt = build_packet(str(SESSION), cutoff, RecordedSource(data / "news").headlines(cutoff),
                           lookback_hours=float(str(line["lookback_hours"])), max_items=30)
    assert packet_sha256(rebuilt) == line["packet_sha256"] and len(rebuilt.items) == line["items"] > 0


def test_the_repeat_of_the_open_question_is_the_counted_ask_itself(days: tuple[Path, Path]) -> None:
    _, data = days
    asks = book_lines(data / "books" / "asks.jsonl")
    arm_asks = book_lines(data / "books" / "arm-asks.jsonl")
    counted = {x["seat"]: x["ask_sha256"] for x in asks if x["kind"] == "ask"}
    for x in arm_asks:
        if x["kind"] == "ask" and "repeat_open" in str(x["run_id"]):
            assert x["ask_sha256"] == counted[x["seat"]]


class _Recording:
    """The league's one seat runner, recording every batch it is given (the arms must go through it too, so a
    seat on a lab's worker answers its arms there)."""

    def __init__(self, inner: object) -> None:
        self.inner = inner
        self.batches: list[list[tuple[str, str, str]]] = []

    def start(self, asks, now, deadline=None):  # type: ignore[no-untyped-def]
        self.batches.append([(a.spec.name, a.spec.network, a.ask.sha256) for a in asks])
        return self.inner.start(asks, now, deadline)  # type: ignore[attr-defined]

    def on_record(self, sink):  # type: ignore[no-untyped-def]
        return self.inner.on_record(sink)  # type: ignore[attr-defined]

    def close(self) -> None:
        self.inner.close()  # type: ignore[attr-defined]


def test_the_arms_run_on_the_leagues_one_seat_runner(tmp_path: Path) -> None:
    from league.compose import build_seats
    from league.runner import ThreadRunner

    config_dir, data_dir, _ = league_dir(tmp_path, SEATS, et_time(SESSION, time(7, 0)))
    enable_arms(config_dir, data_dir, SESSION)
    config = load_config(config_dir)
    runner = _Recording(ThreadRunner(build_seats(config)))
    with build_league(config, SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE, runner=runner) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(9, 20)), before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION, time(9, 20)))
    sent = {sha for batch in runner.batches for _, _, sha in batch}
    arm_asks = [x for x in book_lines(data_dir / "books" / "arm-asks.jsonl") if x["kind"] == "ask"]
    assert arm_asks and {x["ask_sha256"] for x in arm_asks} <= sent  # every arm ask went through the runner


def test_without_headlines_the_closed_book_arm_waits_and_the_others_run(tmp_path: Path) -> None:
    config_dir, data_dir, _ = league_dir(tmp_path, SEATS, et_time(SESSION, time(7, 0)))
    enable_arms(config_dir, data_dir, SESSION)
    shutil.rmtree(data_dir / "news")  # the recorded feeds are gone: the news provider fails with its reason
    config = load_config(config_dir)
    with build_league(config, SimulatedClock(et_time(SESSION, time(8, 0))), stages=BARE) as lg:
        catch_up(lg, et_time(SESSION, time(3, 0)), et_time(SESSION, time(9, 20)), before_each=lambda f: pump(lg, f.at))
        pump(lg, et_time(SESSION, time(9, 20)))
    book = book_lines(data_dir / "books" / "arms-book.jsonl")
    assert [x["arm"] for x in book if x["kind"] == "arm_run"] == ["price_only"]
    assert not any(x["kind"] == "news_packet" for x in book)  # no packet is sealed without headlines
    assert (data_dir / "books" / "council-book.jsonl").is_file()

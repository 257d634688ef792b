"""Typed book lines: every existing book re-seals byte for byte through its models.

For each line: parse it into its kind's model (``read_line``), dump it, seal the dump as line ``n``
after ``prev`` and compare: the same content (keys, values, absent vs ``null``), the same seal and link
and, for a book our writer wrote, the same bytes. The golden books of tests/assets are checked up to
their first deliberately bad line; a 10-session demo book is checked whole and every one of its lines
must fit its kind's model strictly (no ForeignLine).
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
from pydantic import ValidationError

from league.book.chain import BookLine, canonical
from league.book.lines import (
    AnswerLine,
    ForeignLine,
    RunLine,
    ScoreRow,
    read_line,
    typed_line,
)
from league.errors import InvalidRecord

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "book"
EXPECTED = json.loads((ASSETS / "expected.json").read_text(encoding="utf-8"))
BOOKKEEPING = ("n", "prev", "seal", "link")


def round_trip(path: Path, lines: int | None = None, *, same_bytes: bool = True) -> Counter[str]:
    """Re-seal ``lines`` lines (default all) of ``path`` through their models; returns models by name."""
    models: Counter[str] = Counter()
    with open(path, "rb") as fh:
        raws = fh.read().split(b"\n")[:-1]
    for raw in raws[:lines]:
        obj = json.loads(raw.decode("utf-8"))
        content = {k: v for k, v in obj.items() if k not in BOOKKEEPING}
        model = read_line(content)
        models[type(model).__name__] += 1
        dumped = model.dumped()
        assert canonical(dumped) == canonical(content), (path.name, obj["n"])
        resealed = BookLine.seal_new(dumped, obj["n"], obj["prev"])
        assert (resealed.seal, resealed.link) == (obj["seal"], obj["link"]), (path.name, obj["n"])
        if same_bytes:
            assert resealed.to_bytes() == raw + b"\n", (path.name, obj["n"])
    return models


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_golden_books_reseal_through_their_models(name: str) -> None:
    first_bad, _ = EXPECTED[name]
    good_lines = None if first_bad == 0 else first_bad - 1
    # foreign.jsonl was written by another writer (other spacing, escapes, float spelling): its seals
    # and links are reproduced, its bytes are that writer's
    models = round_trip(ASSETS / name, good_lines, same_bytes=name != "foreign.jsonl")
    assert sum(models.values()) == (good_lines if good_lines is not None else 12)


def test_the_golden_lines_are_synthetic_shapes_kept_whole() -> None:
    """good.jsonl holds hostile contents under real kinds (an ``answer`` of odd floats): they fit no
    answer model, so they are read as ForeignLine, every key kept; the correction line is typed."""
    models = round_trip(ASSETS / "good.jsonl")
    assert models == Counter({"ForeignLine": 11, "CorrectionLine": 1})


@pytest.mark.sandbox
@pytest.mark.slow
def test_a_ten_session_demo_book_reseals_byte_for_byte_every_line_typed(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    from league.demo import run_demo

    result = run_demo(tmp_path / "demo", sessions=10)
    council = round_trip(result.data_dir / "books" / "council-book.jsonl")
    asks = round_trip(result.data_dir / "books" / "asks.jsonl")
    assert "ForeignLine" not in council and "ForeignLine" not in asks
    # every session has a morning run and a second wave (the demo roster's silent seats are asked again)
    assert council["RunLine"] == 20 and council["ScoreLine"] >= 10 and council["AnswerLine"] > 0
    assert council["MarkLine"] > 0 and council["TradeLine"] > 0 and council["CrowdLine"] > 0
    assert asks["RosterLine"] == 20 and asks["CountingRuleLine"] == 1
    assert sum(council.values()) == result.book_lines


ANSWER = {
    "kind": "answer", "run_id": "2026-11-25-r1", "session": "2026-11-25", "seat": "claude", "attempt": 1,
    "model": "m", "version": "v", "mode": "", "status": "answered", "parse_failure": "", "parse_notes": [],
    "items": {"SPX": {"1d": {"prob_up": 61}}}, "years": {}, "own_sha256": "a" * 64, "ask_sha256": "b" * 64,
    "seat_ask_sha256": "c" * 64, "booked_at": "2026-11-25T13:31:05Z", "started_at": "2026-11-25T13:30:00Z",
    "usage": {}, "elapsed_s": 65.0,
}


def test_a_line_is_validated_when_it_is_built() -> None:
    assert AnswerLine.from_content(ANSWER).content() == {k: v for k, v in ANSWER.items() if k != "kind"}
    with pytest.raises(InvalidRecord, match="seat"):
        AnswerLine.from_content({**ANSWER, "seat": 7})
    with pytest.raises(InvalidRecord, match="staus: Extra inputs are not permitted"):
        AnswerLine.from_content({**ANSWER, "staus": "answered"})  # a misspelt key is refused
    with pytest.raises(InvalidRecord, match="status"):
        AnswerLine.from_content({**ANSWER, "status": "maybe"})
    with pytest.raises(ValidationError):
        RunLine(run_id="r", session="s", role="counted", attempt="1", parent_run=None,  # type: ignore[arg-type]
                ask_sha256="", snapshot_sha256="", roster=[], methodology={}, crowd=[], events={}, deadline="")


def test_numbers_keep_their_json_type() -> None:
    """Strict types: 65 stays an integer and 65.0 a float (their JSON differs, so would the seal)."""
    assert AnswerLine.from_content({**ANSWER, "elapsed_s": 65}).content()["elapsed_s"] == 65
    assert isinstance(AnswerLine.from_content({**ANSWER, "elapsed_s": 65}).content()["elapsed_s"], int)
    assert isinstance(AnswerLine.from_content(ANSWER).content()["elapsed_s"], float)


def test_absent_stays_absent_and_null_stays_null() -> None:
    base = {"session": "s", "horizon": "1d", "seat": "x", "market": "SPX", "run_id": "r", "line": None,
            "model": "", "mode": "", "version": "", "attempt": None, "run_role": "counted", "sealed_at": ""}
    refused = ScoreRow.from_content({**base, "status": "refused_shape", "why_missing": "no JSON"})
    empty = ScoreRow.from_content({**base, "status": "counted_50", "prob_up": None})
    assert "prob_up" not in refused.dumped() and refused.dumped()["line"] is None
    assert empty.dumped()["prob_up"] is None


def test_a_line_of_another_shape_is_read_whole() -> None:
    odd = {"kind": "answer", "at": "2026-11-25T13:31:05Z", "seat": "gemini", "floats": [0.0, -0.0, 5e-324]}
    with pytest.raises(InvalidRecord, match="answer"):
        typed_line(odd)
    line = read_line(odd)
    assert isinstance(line, ForeignLine) and line.dumped() == odd

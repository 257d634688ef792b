"""F30's style test (league/scoring/style.py, league/publish/sides.py's council-style.json)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from league.publish.sides import holds, style_document
from league.scoring.style import style_test, wilson


def test_wilson_by_hand() -> None:
    # 8 of 10, z = 1.96: centre (0.8 + 0.19208)/1.38416, half 1.96 sqrt(0.016 + 0.009604)/1.38416
    z = 1.959963984540054
    low, high = wilson(8, 10)
    centre = (0.8 + z * z / 20) / (1 + z * z / 10)
    half = z * math.sqrt(0.8 * 0.2 / 10 + z * z / 400) / (1 + z * z / 10)
    assert (low, high) == (pytest.approx(centre - half), pytest.approx(centre + half))


def test_distinct_styles_are_found_and_chance_is_the_majority_share() -> None:
    texts = [f"UP {i}!!! BUY BUY strongly bullish" for i in range(12)] + \
            [f"we estimate, cautiously, probability {i} percent" for i in range(8)]
    got = style_test(texts, ["loud"] * 12 + ["calm"] * 8)
    assert got["computed"] is True and got["texts"] == 20
    assert got["chance"] == pytest.approx(12 / 20)
    assert got["accuracy"] == pytest.approx(1.0)
    assert got["texts_per_model"] == {"calm": 8, "loud": 12}


def test_one_model_is_not_computed() -> None:
    assert style_test(["a", "b", "c"], ["m"] * 3)["computed"] is False


def test_not_a_blind_season(tmp_path: Path) -> None:
    book = tmp_path / "council-book.jsonl"
    book.write_text(json.dumps({"kind": "opening"}) + "\n", encoding="utf-8")
    assert style_document(book, tmp_path)["status"] == "not a blind season"
    book.write_text(json.dumps({"kind": "blind", "seats": []}) + "\n", encoding="utf-8")
    assert style_document(book, tmp_path)["status"] == "blind season not yet revealed"


def test_a_book_without_the_blind_kind_is_not_parsed(tmp_path: Path) -> None:
    """No ``"blind"`` in the bytes: answered by the byte search (a line that is no JSON is never read); the string
    anywhere else (an answer's text) takes the parse, which finds no blind line."""
    book = tmp_path / "council-book.jsonl"
    book.write_bytes(b'{"kind": "opening"}\nnot json, never parsed\n')
    assert style_document(book, tmp_path)["status"] == "not a blind season"
    book.write_bytes(b'{"kind": "opening"}\nnot json but "blind"\n')
    with pytest.raises(json.JSONDecodeError):
        style_document(book, tmp_path)
    book.write_text(json.dumps({"kind": "answer", "text": "blind"}) + "\n", encoding="utf-8")
    assert style_document(book, tmp_path)["status"] == "not a blind season"


@pytest.mark.parametrize("chunk", [1, 3, 7, 64])
def test_the_byte_search_finds_a_token_split_across_reads(tmp_path: Path, chunk: int) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"x" * 5 + b'"blind"' + b"y" * 3)
    assert holds(path, b'"blind"', chunk)
    path.write_bytes(b'"blin" "blind' + b"d" * 9)
    assert not holds(path, b'"blind"', chunk)


def test_revealed_season_reads_the_replies(tmp_path: Path) -> None:
    lines = [{"kind": "blind"}, {"kind": "reveal", "seats": [{"seat": "s1", "model": "loud"},
                                                            {"seat": "s2", "model": "calm"}]}]
    for i in range(6):
        for seat, text in (("s1", f"BUY BUY {i}!!!"), ("s2", f"we estimate cautiously {i}")):
            sha = f"{seat}-{i}"
            (tmp_path / f"{sha}.txt").write_text(text, encoding="utf-8")
            lines.append({"kind": "answer", "seat": seat, "own_sha256": sha})
    book = tmp_path / "council-book.jsonl"
    book.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    doc = style_document(book, tmp_path)
    assert doc["status"] == "revealed" and doc["texts"] == 12 and doc["chance"] == pytest.approx(0.5)

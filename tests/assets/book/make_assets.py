"""Regenerate the golden books of this folder (run once; the files are committed and never rewritten).

good.jsonl is written by league.book.Book under a simulated clock; foreign.jsonl by the test's own
independent writer (other key order, whitespace, escapes, float spelling); every broken-*.jsonl is
good.jsonl with one deliberate fault. expected.json records, for each file, the first bad line and
the reason class worked out by hand from the fault (0 = the chain holds).

    python tests/assets/book/make_assets.py
"""

from __future__ import annotations

import json
import random
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1] / "unit" / "book"))

from book_oracle import write_foreign_book  # noqa: E402

from league.book import Book  # noqa: E402
from league.clock import SimulatedClock  # noqa: E402

CONTENTS = [
    {"run_id": "r-2026-11-30", "session": "2026-11-30", "roster": ["claude", "gpt", "gemini"], "crowd": {}},
    {"seat": "claude", "items": {"SPX": {"1d": {"prob_up": 61, "action": "hold", "target": 6012.25}}}},
    {"seat": "gpt", "note": "é ü 中文 𝄞 🎉 and a line\u2028separator\u2029and\u0085next", "years": {"BTC": "up"}},
    {"seat": "gemini", "floats": [0.0, -0.0, 5e-324, 1.7976931348623157e308, -2.5e-300, 1e16, 1e22, 0.1]},
    {"quote": 'he said "no" \\ then /slash/', "ctl": "\x00\x01\x1f\t\r\n", "bom_in_text": "\ufeffx"},
    {"empty": "", "empty_list": [], "empty_obj": {}, "nested": {"a": {"b": {"c": {"d": [1, [2, [3, None]]]}}}}},
    {"big_int": 2**70, "neg": -(2**64), "bools": [True, False], "null": None},
    {"of": 2, "reason": "reference price corrected", "source": "exchange print"},
    {"long": "x" * 5000 + "é" * 100},
    {"keys": {"": 1, "n": 2, "prev": 3, "seal": 4, "link": 5, "é": 6, "\u2028": 7}},
    {"seat": "_coin", "items": {"BTC": {"7d": {"prob_up": 50}}}},
    {"last": True},
]
KINDS = ["run", "answer", "answer", "answer", "answer", "answer", "mark", "correction", "answer", "answer", "answer", "mark"]


def write_good(path: Path) -> bytes:
    path.unlink(missing_ok=True)
    clock = SimulatedClock(datetime(2026, 11, 30, 13, 30, tzinfo=UTC))
    with Book(path, clock) as book:
        for kind, content in zip(KINDS, CONTENTS, strict=True):
            clock.advance(timedelta(seconds=7))
            book.append(kind, content)
    path.with_name(path.name + ".lock").unlink()
    return path.read_bytes()


def lines_of(data: bytes) -> list[bytes]:
    return data.split(b"\n")[:-1]


def join(rows: list[bytes]) -> bytes:
    return b"".join(r + b"\n" for r in rows)


def main() -> None:
    good = write_good(HERE / "good.jsonl")
    rows = lines_of(good)
    contents = [json.loads(r) for r in rows]
    for c in contents:
        for k in ("n", "prev", "seal", "link"):
            del c[k]
    write_foreign_book(HERE / "foreign.jsonl", contents, random.Random(2026))
    seal_pos = good.index(b'"seal":"', good.index(b"\n", good.index(b"\n") + 1)) + 9  # in line 3
    flipped = b"0" if good[seal_pos] != ord("0") else b"1"
    broken = {
        "broken-changed-byte.jsonl": (good[:seal_pos] + flipped + good[seal_pos + 1 :], 3, "seal"),
        "broken-deleted-line.jsonl": (join(rows[:4] + rows[5:]), 5, "n"),
        "broken-swapped-lines.jsonl": (join(rows[:6] + [rows[7], rows[6]] + rows[8:]), 7, "n"),
        "broken-inserted-line.jsonl": (join(rows[:3] + [rows[1]] + rows[3:]), 4, "n"),
        "broken-torn-tail.jsonl": (good + rows[0][:40], 13, "torn"),
        "broken-bom.jsonl": (b"\xef\xbb\xbf" + good, 1, "bom"),
        "broken-content-edit.jsonl": (good.replace(b'"prob_up":61', b'"prob_up":91'), 2, "seal"),
    }
    expected = {"good.jsonl": [0, ""], "foreign.jsonl": [0, ""]}
    for name, (data, line, cls) in broken.items():
        (HERE / name).write_bytes(data)
        expected[name] = [line, cls]
    (HERE / "expected.json").write_text(json.dumps(expected, indent=2) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

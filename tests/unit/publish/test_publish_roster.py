"""roster.json and the statistics' families: sealed in the roster lines of asks.jsonl, first line wins."""

from __future__ import annotations

import json
from pathlib import Path

from league.publish.rebuild import sealed_inputs
from league.publish.roster import families, roster_document, roster_lines, sides


def _roster(n: int, run: str, *seats: tuple[str, str, str]) -> dict[str, object]:
    return {"kind": "roster", "n": n, "run_id": run, "session": run[:10], "role": "counted",
            "seats": [{"seat": s, "model": f"m-{s}", **({"family": f} if f else {}), **({"side": d} if d else {})}
                      for s, f, d in seats]}


def _asks(tmp_path: Path, *lines: dict[str, object]) -> Path:
    path = tmp_path / "asks.jsonl"
    path.write_text("".join(json.dumps(x) + "\n" for x in ({"kind": "counting_rule", "n": 1}, *lines)) + '{"kind":')
    return path


def test_the_first_roster_line_naming_a_family_decides_and_a_change_is_listed(tmp_path: Path) -> None:
    asks = _asks(tmp_path, _roster(2, "2026-06-01-r1", ("a", "lab-a", "us"), ("b", "", "")),
                 _roster(9, "2026-06-02-r1", ("a", "lab-z", "us"), ("b", "lab-b", "cn")))
    doc = roster_document(roster_lines(asks))  # the incomplete last line is not part of the book
    assert families(doc) == {"a": "lab-a", "b": "lab-b"} and sides(doc) == {"a": "us", "b": "cn"}
    assert doc["seats"]["b"]["family_line"] == 9
    assert doc["conflicts"] == [{"seat": "a", "key": "family", "kept": "lab-a", "line": 9, "later": "lab-z"}]
    assert [r["line"] for r in doc["runs"]] == [2, 9]


def test_sealed_families_win_over_the_config_which_fills_the_rest(tmp_path: Path) -> None:
    asks = _asks(tmp_path, _roster(2, "2026-06-01-r1", ("a", "lab-a", ""), ("b", "", "")))
    inputs = sealed_inputs(tmp_path / "no-book.jsonl", asks, None, families={"a": "cfg-a", "b": "cfg-b"})
    assert inputs.families == {"a": "lab-a", "b": "cfg-b"}
    assert inputs.arguments() == ((None, {"a": "lab-a", "b": "cfg-b"}), {})  # one side or none: no sides passed

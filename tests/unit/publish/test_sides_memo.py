"""council-sides.json with its per-run memo (league.publish.sides.write_sides): the same bytes as without it, night
after night, when a run's answers change, and when the memo is damaged or from other code."""

from __future__ import annotations

import csv
import json
import random
from pathlib import Path

import pytest

from league.publish.sides import FORECASTS, ROSTER, SIDES_JSON, write_sides

SIDES = {"a1": "us", "a2": "us", "b1": "cn", "b2": "cn", "c1": "cn"}
COLUMNS = ("run_id", "session", "seat", "asset", "horizon", "event_id", "prob_up", "status", "cell_status",
           "event_reference_at", "sealed_at", "line_kind", "run_role", "same_event", "ref", "close")


def _rows(runs: int, seed: int) -> list[dict[str, str]]:
    rng = random.Random(seed)
    out = []
    for r in range(runs):
        session = f"2026-03-{r + 2:02d}"
        for seat in SIDES:
            for asset in ("SPX", "NDX", "GLD", "TLT"):
                for horizon in ("1d", "1w"):
                    ref = rng.uniform(90, 110)
                    out.append({"run_id": f"{session}-r1", "session": session, "seat": seat, "asset": asset,
                                "horizon": horizon, "event_id": f"{session}-{asset}-{horizon}",
                                "prob_up": str(rng.randint(5, 95)), "status": "counted", "cell_status": "elicited",
                                "event_reference_at": f"{session}T14:00:00Z", "sealed_at": f"{session}T13:30:00Z",
                                "line_kind": "answer", "run_role": "counted", "same_event": "",
                                "ref": f"{ref:.2f}", "close": f"{ref + rng.uniform(-3, 3):.2f}"})
    return out


def _folder(path: Path, rows: list[dict[str, str]]) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    with open(path / FORECASTS, "w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    (path / ROSTER).write_text(json.dumps({"seats": {s: {"side": side} for s, side in SIDES.items()}}))
    return path


@pytest.mark.parametrize("damage", ["none", "other code", "not json"])
def test_the_memo_gives_the_bytes_of_a_full_count(tmp_path: Path, damage: str) -> None:
    memo = tmp_path / "cache" / "sides-runs.json"
    rows = _rows(5, seed=1)
    for night in (3, 4, 5):
        with_memo = _folder(tmp_path / f"memo{night}", rows[: night * 40])
        write_sides(with_memo, memo)
        without = _folder(tmp_path / f"full{night}", rows[: night * 40])
        write_sides(without)
        assert (with_memo / SIDES_JSON).read_bytes() == (without / SIDES_JSON).read_bytes()
    assert len(json.loads(memo.read_text())["runs"]) == 5
    rows[7]["prob_up"] = "3"  # a correction to the first run's answer
    if damage == "other code":
        memo.write_text(json.dumps({**json.loads(memo.read_text()), "code": "0" * 64}))
    elif damage == "not json":
        memo.write_text("{")
    with_memo = _folder(tmp_path / "memo-fix", rows)
    write_sides(with_memo, memo)
    without = _folder(tmp_path / "full-fix", rows)
    write_sides(without)
    assert (with_memo / SIDES_JSON).read_bytes() == (without / SIDES_JSON).read_bytes()
    assert b'"computed": true' in (without / SIDES_JSON).read_bytes()
    assert len(json.loads(memo.read_text())["runs"]) == 5  # the run's old entries are not kept

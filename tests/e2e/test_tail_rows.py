"""`league tail --rows`: a researcher follows the scored rows with their Brier.

The oracle is the published council-forecasts.csv of the same demo league and a hand computation of
each Brier from that file's own prob_up, ref and close; following is shown by appending the book's
last score line to a copy while the reader waits."""

from __future__ import annotations

import csv
import io
import json
import shutil
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.errors import LeagueError
from league.publish.tailrows import follow_rows


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, ["tail", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


def _published(demo_league: dict[str, object]) -> dict[tuple[str, ...], dict[str, str]]:
    text = (Path(str(demo_league["public"])) / "council-forecasts.csv").read_text()
    return {(r["run_id"], r["seat"], r["asset"], r["horizon"], r["line_kind"]): r
            for r in csv.DictReader(io.StringIO(text)) if r["horizon"] == "1d"}  # three sessions: only 1d scored


def _by_hand(row: dict[str, str]) -> float | None:
    if not (row["prob_up"] and row["close"] and row["ref"]):
        return None  # no stated probability, or a price missing: the cell stays unresolved
    up = 1.0 if float(row["close"]) > float(row["ref"]) else 0.0
    return (float(row["prob_up"]) / 100 - up) ** 2


def test_rows_are_the_published_scored_rows_with_their_brier(demo_league: dict[str, object]) -> None:
    rows = [json.loads(x) for x in _cli("--rows", str(demo_league["data"]), "--format", "ndjson").splitlines()]
    published = _published(demo_league)
    keyed = {(r["run_id"], r["seat"], r["asset"], r["horizon"], r["line_kind"]): r for r in rows}
    assert len(rows) == len(keyed) and set(keyed) == set(published)  # every resolved row, once
    for key, row in keyed.items():
        assert {k: v for k, v in row.items() if k not in ("row_id", "brier")} == published[key]
        want = _by_hand(published[key])
        assert (row["brier"] == "") if want is None else float(row["brier"]) == pytest.approx(want, abs=1e-9)
    assert any(r["brier"] for r in rows) and any(r["status"] != "answered" for r in rows)


def test_csv_output_and_resuming_after_a_row(demo_league: dict[str, object]) -> None:
    text = _cli("--rows", str(demo_league["data"]))
    records = list(csv.DictReader(io.StringIO(text)))
    assert text.splitlines()[0].startswith("row_id,run_id,session,seat") and text.splitlines()[0].endswith(",brier")
    ids = [r["row_id"] for r in records]
    resumed = _cli("--rows", str(demo_league["data"]), "--after-row", ids[6], "--format", "ndjson")
    assert [json.loads(x)["row_id"] for x in resumed.splitlines()] == ids[7:]


def test_a_bad_row_id_or_folder_is_a_clear_error(demo_league: dict[str, object], tmp_path: Path) -> None:
    with pytest.raises(LeagueError, match="LINE.INDEX"):
        next(follow_rows(Path(str(demo_league["data"])), after="seven"))
    with pytest.raises(LeagueError, match="no league data folder"):
        next(follow_rows(tmp_path))


def test_following_emits_the_rows_of_a_score_line_sealed_while_it_waits(demo_league: dict[str, object],
                                                                     tmp_path: Path) -> None:
    data = Path(str(demo_league["data"]))
    shutil.copytree(data.parent / "config", tmp_path / "config")
    (tmp_path / "data" / "books").mkdir(parents=True)
    book = (data / "books" / "council-book.jsonl").read_bytes().splitlines(keepends=True)
    last_score = max(i for i, raw in enumerate(book) if json.loads(raw)["kind"] in ("score", "score_h"))
    copy = tmp_path / "data" / "books" / "council-book.jsonl"
    copy.write_bytes(b"".join(book[:last_score]))
    seen: list[dict[str, str]] = []
    before = list(follow_rows(tmp_path / "data"))

    def reader() -> None:
        for row in follow_rows(tmp_path / "data", follow=True, poll_s=0.05):
            seen.append(row)

    threading.Thread(target=reader, daemon=True).start()
    with copy.open("ab") as fh:
        fh.write(b"".join(book[last_score:]))
    deadline = time.monotonic() + 60
    want = len(list(follow_rows(data)))
    while len(seen) < want and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(seen) == want and seen[:len(before)] == before
    assert {r["row_id"].split(".")[0] for r in seen[len(before):]} == {str(last_score + 1)}

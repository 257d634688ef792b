"""The league's own recorded history as the contextual track's source (``league eval context --data DATA``): the
history ``league init`` sealed the climatology from, the council book's closes after it, a whole run on a demo
data folder with the baselines, and a history that is not the one sealed."""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_evals_points import CLOSES, SESSIONS, write_book
from typer.testing import CliRunner

from league.book import iter_lines
from league.cli import app
from league.clock import SimulatedClock
from league.evals.context.sources import SeriesFileError, read_league_series
from league.folder import init_folder

SHIPPED = Path(__file__).resolve().parents[3] / "league" / "scoring" / "data" / "demo-history.csv.gz"


def history_closes(path: Path, symbol: str) -> list[tuple[str, float]]:
    """The test's own reading of a recorded history file: (day, close) of one symbol, by day."""
    rows = csv.DictReader(io.StringIO(gzip.decompress(path.read_bytes()).decode("utf-8")))
    return sorted((r["day"], float(r["close"])) for r in rows if r["symbol"] == symbol)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo data folder (``league init --demo``) whose council book holds five sessions of SPX closes."""
    _, data = init_folder(tmp_path_factory.mktemp("ctx-league") / "lg", demo=True,
                          clock=SimulatedClock(datetime(2026, 1, 2, 12, tzinfo=UTC)))
    write_book(data / "books" / "council-book.jsonl")
    return data


def test_the_recorded_history_then_the_books_closes_after_it(demo: Path) -> None:
    src = read_league_series(demo)
    by = {s.series.series_id: s for s in src.series}
    assert len(by) == 12 and src.kind == "league" and src.path.name == "demo-history.csv.gz"
    spx = history_closes(SHIPPED, "^GSPC")
    assert all(day < SESSIONS[0] for day, _ in spx)  # the book's sessions all come after the history
    want = spx + list(zip(SESSIONS, CLOSES, strict=True))
    got = by["SPX"]
    assert list(zip(got.series.timestamps, got.series.values, strict=True)) == want
    assert (got.freq.name, got.season) == ("B", 5)
    btc = by["BTC"]  # trades at weekends: daily
    assert (btc.freq.name, btc.season) == ("D", 1)
    assert list(btc.series.values) == [c for _, c in history_closes(SHIPPED, "BTC-USD")]
    doc = src.as_json()
    book_sha = hashlib.sha256((demo / "books" / "council-book.jsonl").read_bytes()).hexdigest()
    assert doc["book"] == {"name": "council-book.jsonl", "sha256": book_sha}


def test_a_history_that_is_not_the_one_sealed_is_refused(tmp_path: Path) -> None:
    kept = tmp_path / "history.csv.gz"
    kept.write_bytes(SHIPPED.read_bytes())
    _, data = init_folder(tmp_path / "lg", history=kept, clock=SimulatedClock(datetime(2026, 1, 2, tzinfo=UTC)))
    assert read_league_series(data).path.name == "climatology-history.csv.gz"
    clim = json.loads((data / "climatology.json").read_text(encoding="utf-8"))
    assert str(clim["history"]).startswith("climatology-history.csv.gz sha256 ")
    rows = gzip.decompress((data / "climatology-history.csv.gz").read_bytes()).decode("utf-8").splitlines()
    rows[5] = rows[5].rsplit(",", 1)[0] + ",1.0"
    (data / "climatology-history.csv.gz").write_bytes(gzip.compress(("\n".join(rows) + "\n").encode("utf-8")))
    with pytest.raises(SeriesFileError, match="not the [0-9a-f]{64} the climatology sealed") as err:
        read_league_series(data)
    assert "climatology-history.csv.gz" in str(err.value) and err.value.fix


def test_a_whole_run_on_a_demo_data_folder_with_the_baselines(demo: Path, tmp_path: Path) -> None:
    out = tmp_path / "o"
    res = CliRunner().invoke(app, ["eval", "context", "--data", str(demo), "--seat", "_naive,_ets,_theta",
                                   "--buckets", "long", "--max-windows", "1", "--out", str(out)])
    assert res.exit_code == 0, res.output
    doc = json.loads((out / "context-windows.json").read_text(encoding="utf-8"))
    assert doc["source"]["kind"] == "league" and doc["source"]["name"] == "demo-history.csv.gz"
    markets = {str(s["id"]) for s in doc["source"]["series"]}
    assert len(doc["windows"]) >= 1 and {str(w["series_id"]) for w in doc["windows"]} <= markets
    replies = [line.content for line in iter_lines(out / "eval-book.jsonl") if line.kind == "ctx.reply"]
    assert len(replies) == 3 * len(doc["windows"]) and {r["fit"] for r in replies} == {"exact"}
    folder = out / "public" / "context" / "c001"
    rec = CliRunner().invoke(app, ["eval", "recount", str(folder)])
    assert rec.exit_code == 0 and "0 difference(s)" in rec.output, rec.output

"""league.publish.publish: the open-data folder from a real book and the fixture's tables."""

from __future__ import annotations

import csv
import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from season_fixture import Season

from league.errors import ChainBroken
from league.publish import PublishError, publish
from league.publish import files as publish_files

ABSENT = None  # a producer this league does without


@pytest.fixture()
def data(season: Season, tmp_path: Path) -> Path:
    target = tmp_path / "data"
    shutil.copytree(season.data, target)
    return target


@pytest.fixture()
def no_producers(monkeypatch: pytest.MonkeyPatch) -> None:
    """Publish as a checkout in which no other feature has landed."""
    monkeypatch.setattr(publish_files, "PRODUCERS", {k: ABSENT for k in publish_files.PRODUCERS})


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_books_and_asks_are_copied_byte_identical(data: Path, no_producers: None) -> None:
    report = publish(data)
    out = data / "public"
    assert (out / "council-book.jsonl").read_bytes() == (data / "books" / "council-book.jsonl").read_bytes()
    assert (out / "asks.jsonl").read_bytes() == (data / "books" / "asks.jsonl").read_bytes()
    asks = sorted((out / "asks").glob("*.md"))
    assert asks and all(p.stem == sha(p) for p in asks)
    assert report.book_lines == sum(1 for _ in open(out / "council-book.jsonl", "rb"))
    assert report.file("council-book.jsonl") is not None


def test_absent_producers_are_named_not_hidden(data: Path, no_producers: None) -> None:
    report = publish(data)
    skipped = dict(report.skipped)
    for name in ("council-stats.json", "council-league.json", "arena-trades.csv", "proof/"):
        assert skipped[name].startswith("not produced")
    index = (data / "public" / "index.html").read_text(encoding="utf-8")
    assert "council-stats.json: not produced" in index
    assert report.ok


def test_index_lists_every_file_with_size_and_frequency(data: Path, no_producers: None) -> None:
    publish(data)
    out = data / "public"
    index = (out / "index.html").read_text(encoding="utf-8")
    files = [p for p in out.rglob("*") if p.is_file() and p.name != "index.html"]
    assert len(files) > 10
    for path in files:
        name = path.relative_to(out).as_posix()
        assert f'<a href="{name}">{name}</a></td><td class="num">{path.stat().st_size}</td>' in index
    assert "nightly" in index


def test_dataset_describes_every_column_of_every_csv(data: Path, no_producers: None) -> None:
    publish(data)
    out = data / "public"
    dataset = json.loads((out / "arena-dataset.json").read_text(encoding="utf-8"))["files"]
    for path in out.rglob("*.csv"):
        with open(path, newline="", encoding="utf-8") as fh:
            header = next(csv.reader(fh))
        entry = dataset[path.relative_to(out).as_posix()]
        assert [c["name"] for c in entry["columns"]] == header
        assert all(c["description"] for c in entry["columns"])
    forecasts = dataset["council-forecasts.csv"]
    assert all(c["registered"] for c in forecasts["columns"])
    assert forecasts["rows"] == 384
    assert dataset["council-book.jsonl"]["kinds"]["answer"]["lines"] == 48
    every = {p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file()}
    assert every <= set(dataset)


def test_code_files_match_their_sha256(data: Path, no_producers: None) -> None:
    publish(data)
    out = data / "public"
    manifest = json.loads((out / "arena-code.json").read_text(encoding="utf-8"))
    assert any(f["path"] == "league/scoring/brier.py" for f in manifest["files"])
    for entry in manifest["files"]:
        published = out / entry["published_as"]
        assert sha(published) == entry["sha256"]
        source = Path(publish_files.PACKAGE_ROOT).parent / entry["path"]
        assert published.read_bytes() == source.read_bytes()


def test_protocol_names_versions_and_dated_changes(data: Path, no_producers: None) -> None:
    publish(data)
    protocol = json.loads((data / "public" / "arena-protocol.json").read_text(encoding="utf-8"))
    assert protocol["methodology"]["versions"]["m1"]["first_session"] == "2026-01-05"
    assert any(c["what"] == "methodology" and c["version"] == "m1" for c in protocol["changes"])
    seats = {v["seat"] for v in protocol["model_versions"]}
    assert seats == {"alpha", "beta", "gamma", "_coin"}


def test_digest_is_small_and_names_every_market(data: Path, season: Season, no_producers: None) -> None:
    publish(data)
    path = data / "public" / "markets-digest.json"
    digest = json.loads(path.read_text(encoding="utf-8"))
    assert path.stat().st_size < 30 * 1024
    assert set(digest["markets"]) == {"SPX", "NDX", "GOLD", "BTC"}
    assert digest["latest_session"] == "2026-01-20"
    last = [float(r["prob_up"]) for r in season.rows if r["session"] == "2026-01-20" and r["asset"] == "SPX"
            and r["horizon"] == "1d" and r["status"] == "counted" and not r["seat"].startswith("_")]
    assert len(last) == 2  # alpha and beta; gamma is silent that day, _coin is a baseline
    assert digest["markets"]["SPX"]["latest_session"]["1d"] == {"mean_prob_up": round(sum(last) / 2, 2), "n": 2}


def test_published_tools_run_on_the_published_folder(data: Path, no_producers: None) -> None:
    publish(data)
    out = data / "public"
    brier = subprocess.run([sys.executable, "-I", str(out / "tools" / "replay_brier.py"), "--data", str(out)],
                           capture_output=True, text=True, timeout=60, check=False)
    assert brier.returncode == 0, brier.stdout
    conformance = out / "tools" / "conformance.py"
    if conformance.is_file():
        result = subprocess.run([sys.executable, "-I", str(conformance), str(out / "council-forecasts.csv")],
                                capture_output=True, text=True, timeout=60, check=False)
        assert result.stdout.strip().endswith("ok"), result.stdout[-500:]


def test_a_torn_last_line_is_not_published(data: Path, no_producers: None) -> None:
    book = data / "books" / "council-book.jsonl"
    whole = book.read_bytes()
    book.write_bytes(whole + b'{"kind":"answer","n":')
    publish(data)
    assert (data / "public" / "council-book.jsonl").read_bytes() == whole


def test_a_tampered_book_is_refused(data: Path, no_producers: None) -> None:
    book = data / "books" / "council-book.jsonl"
    lines = book.read_bytes().split(b"\n")
    assert b'"hold"' in lines[2]
    lines[2] = lines[2].replace(b'"hold"', b'"sell"', 1)
    book.write_bytes(b"\n".join(lines))
    with pytest.raises(ChainBroken) as err:
        publish(data, data / "elsewhere")
    assert err.value.line == 3


def test_missing_book_is_a_clear_error(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    with pytest.raises(PublishError, match="no book to publish"):
        publish(tmp_path / "data")


def test_a_failing_producer_is_recorded(data: Path, monkeypatch: pytest.MonkeyPatch, no_producers: None) -> None:
    def write_stats(*args: object, **kwargs: object) -> None:
        raise ValueError("bad climatology")

    monkeypatch.setitem(publish_files.PRODUCERS, "stats", write_stats)
    report = publish(data)
    assert not report.ok
    assert dict(report.failed)["council-league.json"] == "failed: ValueError: bad climatology"
    assert report.file("council-book.jsonl") is not None


def test_with_every_installed_producer(data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever features have landed publish without failing, and their figures still recount.

    The fixture's book is a small stand-in, not a full league day, so its forecasts CSV stands in for
    the exporter's (the demo season exercises the exporter end to end).
    """
    monkeypatch.setitem(publish_files.PRODUCERS, "forecasts", ABSENT)
    report = publish(data)
    assert report.ok, report.failed
    out = data / "public"
    assert (out / "council-book.jsonl").read_bytes() == (data / "books" / "council-book.jsonl").read_bytes()
    brier = subprocess.run([sys.executable, "-I", str(out / "tools" / "replay_brier.py"), "--data", str(out)],
                           capture_output=True, text=True, timeout=60, check=False)
    assert brier.returncode == 0, brier.stdout


def test_every_row_traces_to_its_answer_line(data: Path, no_producers: None) -> None:
    """384 rows = 12 sessions x 4 seats x 4 markets x 2 horizons; gamma is silent on 3 sessions (24 rows)."""
    report = publish(data)
    assert report.line_check == "384 rows trace to their book lines (360 probabilities equal)"


def test_a_row_that_does_not_match_its_line_fails(data: Path, no_producers: None) -> None:
    path = data / "public" / "council-forecasts.csv"
    with open(path, newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    target = next(r for r in rows if r["prob_up"] not in ("", "50"))
    target["prob_up"] = str(100 - int(target["prob_up"]) if target["prob_up"] != "50" else 1)
    with open(path, "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    report = publish(data)
    assert not report.ok
    reason = dict(report.failed)["council-forecasts.csv"]
    assert f"row 2: prob_up {target['prob_up']} but line {target['line']} holds" in reason

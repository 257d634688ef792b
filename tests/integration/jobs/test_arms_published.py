"""The arms' open files on a two-session league: the daily council's published files are the same bytes with and
without arms; every arms figure is rebuilt by `league verify` (step 11) and recounted by the stand-alone tool from
the published files alone; a tampered arm answer is caught."""

from __future__ import annotations

import csv
import io
import json
import shutil
import subprocess
import sys
from datetime import date, time, timedelta
from pathlib import Path

import pytest
from arms_helpers import enable_arms
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up
from league.jobs.seal import pump
from league.publish import publish
from league.publish.rebuild import rebuild_step
from league.verify.reader import verify_published

FIRST = date(2026, 11, 23)  # Monday and Tuesday
LAST = date(2026, 11, 24)
SEATS = roster(seat("aurora", "scripted", seed=1, latency_s=60), seat("basalt", "scripted", seed=2, latency_s=200),
               seat("cobalt", "scripted", seed=3, latency_s=30), seat("_coin", "coin"))
#: What only the arms write (their folder and their reports; their recount tool is shipped with the others).
ARMS_ONLY = ("arms/", "arena-cb-experiment.json", "council-repeats.json")
#: Files that describe the folder as a whole (its listing, hashes, the requirements met, the stamps' proofs of
#: every book and the league's own signing key, which two leagues never share), not the council.
FOLDER_WIDE = ("release-manifest.json", "index.html", "arena-compliance.json", "arena-dataset.json")


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")


def _season(root: Path, *, arms: bool) -> Path:
    config_dir, data_dir, _ = league_dir(root, SEATS, et_time(FIRST, time(7, 0)))
    if arms:
        enable_arms(config_dir, data_dir, LAST, repeat_seats=("aurora", "basalt"), repeat_day="tue",
                    extra_runs=("evening",))
    config = load_config(config_dir)
    end = et_time(LAST + timedelta(days=1), time(3, 0))
    with build_league(config, SimulatedClock(et_time(FIRST, time(8, 0))), stages=BARE) as lg:
        catch_up(lg, et_time(FIRST, time(3, 0)), end, before_each=lambda f: pump(lg, f.at))
        pump(lg, end)
    report = publish(data_dir, clock=SimulatedClock(end))
    assert not report.failed, report.failed
    return data_dir / "public"


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("armspub")
    return _season(root / "plain", arms=False), _season(root / "arms", arms=True)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_council_files_are_the_same_bytes_with_and_without_arms(folders: tuple[Path, Path]) -> None:
    plain, arms = _files(folders[0]), _files(folders[1])
    council = {name for name in arms if not name.startswith((*ARMS_ONLY, "proof/")) and name not in FOLDER_WIDE}
    # the arms add files, never take one away
    assert {name for name in plain if not name.startswith("proof/")} - set(FOLDER_WIDE) == council
    assert "council-forecasts.csv" in council and "council-book.jsonl" in council and "arena-accounts.csv" in council
    changed = sorted(name for name in council if plain[name] != arms[name] and not name.startswith("arena-code"))
    assert changed == [], changed
    for name in ARMS_ONLY:
        assert any(n.startswith(name) for n in arms), name


def test_every_arms_figure_is_rebuilt_from_the_books_and_recounted_from_the_files(folders: tuple[Path, Path]) -> None:
    _, folder = folders
    status, detail = rebuild_step(folder)
    assert status == "ok", detail
    for name in ("arms/arm-forecasts.csv", "arena-cb-experiment.json", "council-repeats.json"):
        assert name in detail
    if (folder / "arms" / "arm-accounts.csv").is_file():
        assert "arms/arm-accounts.csv" in detail
    assert "arms/extra-runs.csv" in detail  # Monday's evening run, scored at Tuesday's close
    proc = subprocess.run([sys.executable, "-I", "tools/recount_arms.py", "."], cwd=folder, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    results = {r.step: r for r in verify_published(folder)}
    assert results[4].status == "ok" and "arms/arms-book.jsonl" in results[4].detail
    assert results[7].status == "ok"
    compliance = json.loads((folder / "arena-compliance.json").read_text(encoding="utf-8"))
    [r17] = [r for r in compliance["requirements"] if r["number"] == 17]
    parts = {p["part"]: p for p in r17["parts"]}
    for name in ("price-only arm", "probability repeats"):
        assert parts[name]["status"] == "met" and "tools/recount_arms.py" in parts[name]["check"]
    experiment = json.loads((folder / "arena-cb-experiment.json").read_text(encoding="utf-8"))
    assert [r["session"] for r in experiment["runs"]] == [str(FIRST), str(LAST)]
    assert all(r["three_arms"] is not None for r in experiment["runs"])


def _copy(folder: Path, tmp_path: Path) -> Path:
    target = tmp_path / "copy"
    shutil.copytree(folder, target)
    return target


def test_a_tampered_arm_answer_is_caught(folders: tuple[Path, Path], tmp_path: Path) -> None:
    _, folder = folders
    copy = _copy(folder, tmp_path)
    book = copy / "arms" / "arms-book.jsonl"
    lines = book.read_bytes().splitlines()
    k = next(i for i, raw in enumerate(lines) if b'"kind":"arm_answer"' in raw and b'"prob_up":' in raw)
    doc = json.loads(lines[k])
    market = next(m for m in doc["items"] if doc["items"][m].get("1d", {}).get("prob_up") is not None)
    doc["items"][market]["1d"]["prob_up"] = 99.0 if doc["items"][market]["1d"]["prob_up"] != 99.0 else 1.0
    lines[k] = json.dumps(doc, separators=(",", ":"), sort_keys=True).encode()
    book.write_bytes(b"\n".join(lines) + b"\n")
    results = {r.step: r for r in verify_published(copy)}
    assert results[4].status == "FAILED" and "arms/arms-book.jsonl" in results[4].detail


def test_a_tampered_arm_row_is_caught_by_the_rebuild_and_by_the_recount(folders: tuple[Path, Path],
                                                                       tmp_path: Path) -> None:
    _, folder = folders
    copy = _copy(folder, tmp_path)
    path = copy / "arms" / "arm-forecasts.csv"
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    row = next(r for r in rows if r["horizon"] == "1d" and r["prob_up"] and not r["seat"].startswith("_")
               and r["arm"] == "closed_book")
    row["prob_up"] = "97.5" if row["prob_up"] != "97.5" else "2.5"
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    path.write_text(out.getvalue(), encoding="utf-8")
    status, detail = rebuild_step(copy)
    assert status == "FAILED" and "arms/arm-forecasts.csv" in detail
    proc = subprocess.run([sys.executable, "-I", "tools/recount_arms.py", "."], cwd=copy, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stdout
    results = {r.step: r for r in verify_published(copy)}  # the reader's recount step runs the same tool
    assert results[7].status == "FAILED" and "tools/recount_arms.py exited 1" in results[7].detail


def test_a_changed_packet_or_arm_ask_text_is_caught(folders: tuple[Path, Path], tmp_path: Path) -> None:
    _, folder = folders
    copy = _copy(folder, tmp_path)
    assert {r.step: r for r in verify_published(copy)}[5].status == "ok"
    packet = sorted((copy / "arms" / "packets").glob("*.json"))[0]
    packet.write_bytes(packet.read_bytes().replace(b"https://news.example/", b"https://news.example/x", 1))
    text = sorted((copy / "arms" / "asks").glob("*.md"))[0]
    text.write_bytes(text.read_bytes() + b"\nAlso search the web.\n")
    step5 = {r.step: r for r in verify_published(copy)}[5]
    assert step5.status == "FAILED"
    assert f"arms/packets/{packet.name}" in step5.detail and f"arms/asks/{text.name}" in step5.detail

"""`league contest verify` on a folder whose files are hostile: every file it reads (sealed.json, a sealed
forecasts file, metrics.json, resolutions.json, sweeps.json, rounds.json, the book) as broken JSON, JSON
nested 100,000 deep, a symbolic link out of the folder, a FIFO. Each is one FAILED line naming the file and
the reason: never a traceback, never a link followed, never a FIFO opened (which would block for ever)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from league.cli import app
from league.errors import LeagueError

DAY = "2026-12-07"
FORECASTS = f"forecasts/{DAY}.json"
DEEP = "[" * 100_000 + "]" * 100_000


def exact(doc: Any) -> bytes:
    """The contest's byte form of a JSON file, written out here from docs/contest.md."""
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")


def sweep() -> dict[str, Any]:
    return {"benchmark": "test", "date": DAY, "kind": "forecast sweep", "methodology_version": "1",
            "forecasts": [], "markets": [{"id": "m1", "question": "?", "outcomes": ["Yes", "No"],
                                          "prices": [0.5, 0.5]}]}


def contest_folder(root: Path) -> Path:
    """Our layout, small and consistent: one sealed sweep of one open market, no agents yet, no rounds."""
    root.mkdir(parents=True)
    data = exact(sweep())
    (root / "forecasts").mkdir()
    (root / FORECASTS).write_bytes(data)
    (root / "sealed.json").write_bytes(exact([{"date": DAY, "sha256": hashlib.sha256(data).hexdigest(),
                                               "file": FORECASTS, "forecasts": 0, "sealed_at": 0}]))
    (root / "sweeps.json").write_bytes(exact([{"date": DAY, "runs": []}]))
    (root / "resolutions.json").write_bytes(exact({}))
    (root / "rounds.json").write_bytes(exact([]))
    (root / "metrics.json").write_bytes(exact({
        "forecast_accuracy": {"agents": [], "crowd": {"name": "The Crowd", "n": 0, "brier": None, "ci": None}},
        "betting_record": {"rounds_counted": 0, "rounds_excluded": {}, "agents": [], "voided": []}}))
    return root


def run(folder: Path) -> tuple[int, str, BaseException | None]:
    """(exit code as `league` gives it, output, an exception that is not the command's own error)."""
    result = CliRunner().invoke(app, ["contest", "verify", str(folder)])
    exc = result.exception
    if isinstance(exc, LeagueError):  # what league.cli.main turns into its exit code
        return exc.exit_code, result.output + exc.diagnostics(), None
    return result.exit_code, result.output, None if isinstance(exc, SystemExit) else exc


def test_the_clean_folder_verifies(tmp_path: Path) -> None:
    code, out, exc = run(contest_folder(tmp_path / "c"))
    assert exc is None and code == 0, out
    assert "FAILED" not in out


FILES = ["sealed.json", FORECASTS, "metrics.json", "resolutions.json", "sweeps.json", "rounds.json"]


@pytest.mark.parametrize("name", FILES)
@pytest.mark.parametrize(("content", "reason"), [("{{{", "not valid JSON"),
                                                 (DEEP, "nested 100000 levels deep")])
def test_bad_json_is_one_failed_line_naming_the_file(tmp_path: Path, name: str, content: str, reason: str) -> None:
    folder = contest_folder(tmp_path / "c")
    (folder / name).write_text(content, encoding="utf-8")
    if name == FORECASTS:  # sealed as it is, so that the check gets past the hash to reading the JSON
        listed = json.loads((folder / "sealed.json").read_text(encoding="utf-8"))
        listed[0]["sha256"] = hashlib.sha256(content.encode()).hexdigest()
        (folder / "sealed.json").write_bytes(exact(listed))
    code, out, exc = run(folder)
    assert exc is None, f"{exc!r}\n{out}"  # before: JSONDecodeError / RecursionError out of the command
    assert code == 4
    failed = [line for line in out.splitlines() if line.startswith("FAILED") and reason in line]
    assert failed and Path(name).name in failed[0], out


def _outside_copy(folder: Path, name: str, tmp_path: Path) -> Path:
    """The file moved out of the folder (its content still what the check accepts), a link left in its place."""
    outside = tmp_path / "elsewhere" / Path(name).name
    outside.parent.mkdir(exist_ok=True)
    (folder / name).rename(outside)
    os.symlink(outside, folder / name)
    return outside


@pytest.mark.parametrize("name", FILES)
def test_a_link_out_of_the_folder_is_not_followed(tmp_path: Path, name: str) -> None:
    folder = contest_folder(tmp_path / "c")
    _outside_copy(folder, name, tmp_path)
    code, out, exc = run(folder)
    assert exc is None, f"{exc!r}\n{out}"
    assert code == 4, out  # before: the link was followed and the folder "verified"
    failed = [line for line in out.splitlines() if line.startswith("FAILED") and "leads out of" in line]
    assert failed and Path(name).name in failed[0], out


def test_the_shadow_file_is_never_read(tmp_path: Path) -> None:
    """The probe's own case: sealed.json a link to /etc/shadow (readable by root, who often runs this)."""
    folder = tmp_path / "c"
    folder.mkdir()
    os.symlink("/etc/shadow", folder / "sealed.json")
    code, out, exc = run(folder)
    assert exc is None, f"{exc!r}\n{out}"
    assert code == 4 and "leads out of" in out and "/etc/shadow" in out


@pytest.mark.parametrize("name", FILES)
def test_a_fifo_is_refused_by_name_not_opened(tmp_path: Path, name: str) -> None:
    folder = contest_folder(tmp_path / "c")
    (folder / name).unlink()
    os.mkfifo(folder / name)
    code, out, exc = run(folder)
    assert exc is None, f"{exc!r}\n{out}"
    assert code == 4
    failed = [line for line in out.splitlines() if line.startswith("FAILED") and "not a regular file" in line]
    assert failed and Path(name).name in failed[0], out


def test_a_book_that_is_a_link_out_is_not_read(tmp_path: Path) -> None:
    folder = contest_folder(tmp_path / "c")
    outside = tmp_path / "elsewhere.jsonl"
    outside.write_bytes(b"")
    os.symlink(outside, folder / "contest-book.jsonl")
    code, out, exc = run(folder)
    assert exc is None and code == 4, out
    assert any(line.startswith("FAILED  contest-book.jsonl") and "leads out of" in line for line in out.splitlines())


@pytest.mark.parametrize("shape", ["[1, 2]", '{"forecast_accuracy": []}', '"text"'])
def test_json_of_another_shape_is_a_failed_line(tmp_path: Path, shape: str) -> None:
    folder = contest_folder(tmp_path / "c")
    (folder / "metrics.json").write_text(shape, encoding="utf-8")
    code, out, exc = run(folder)
    assert exc is None, f"{exc!r}\n{out}"
    assert code == 4 and any(line.startswith("FAILED  metrics.json") for line in out.splitlines()), out

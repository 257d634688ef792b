"""`league verify BOOK`: exit 0 and a one-line summary when the chain holds; non-zero and the first
bad line otherwise. Run through typer's CliRunner and through the installed `league` command."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from typer.testing import CliRunner

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "book"
EXPECTED = json.loads((ASSETS / "expected.json").read_text(encoding="utf-8"))
BROKEN = sorted(name for name, (line, _) in EXPECTED.items() if line)


def _app():  # type: ignore[no-untyped-def]
    """Fails (not skips) with a clear message if the verb is missing."""
    from league.cli import VERBS, app

    assert VERBS.get("verify", ("",))[0] == "verify", "`league verify` is not in league.cli.VERBS"
    return app


def _everything(result: object) -> str:
    out = getattr(result, "output", "") or ""
    exc = getattr(result, "exception", None)
    return out + (str(exc) if exc is not None else "")


@pytest.mark.parametrize("name", ["good.jsonl", "foreign.jsonl"])
def test_cli_runner_good_book(name: str, tmp_path: Path) -> None:
    book = tmp_path / name
    shutil.copy(ASSETS / name, book)
    result = CliRunner().invoke(_app(), ["verify", str(book)])
    assert result.exit_code == 0, _everything(result)
    lines = result.output.strip().splitlines()
    assert len(lines) == 2  # the verdict, then what it proves: a prefix (no stamps were given)
    assert lines[0].startswith("ok ") and "12 lines" in lines[0]
    assert "a prefix only" in lines[1]


@pytest.mark.parametrize("name", BROKEN)
def test_cli_runner_broken_book_names_the_first_bad_line(name: str) -> None:
    result = CliRunner().invoke(_app(), ["verify", str(ASSETS / name)])
    assert result.exit_code != 0
    assert f"line {EXPECTED[name][0]}" in _everything(result)


def _league() -> list[str]:
    exe = shutil.which("league")
    assert exe, "the `league` console script is not installed (pip install -e '.[dev]')"
    return [exe]


def test_installed_command_good_book() -> None:
    done = subprocess.run([*_league(), "verify", str(ASSETS / "good.jsonl")], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    verdict, note = done.stdout.strip().splitlines()
    assert "12 lines" in verdict and "a prefix only" in note


@pytest.mark.parametrize("name", ["broken-changed-byte.jsonl", "broken-torn-tail.jsonl"])
def test_installed_command_broken_book(name: str) -> None:
    done = subprocess.run([*_league(), "verify", str(ASSETS / name)], capture_output=True, text=True)
    assert done.returncode != 0
    assert f"line {EXPECTED[name][0]}" in done.stdout + done.stderr


def test_verify_help_works() -> None:
    result = CliRunner().invoke(_app(), ["verify", "--help"])
    assert result.exit_code == 0 and "book" in result.output.lower()


def test_typed_checks_every_line_against_its_kinds_model(tmp_path: Path) -> None:
    """`--typed`: a league's own books fit their models; a book of other shapes is named, chain still ok."""
    from league.folder import init_folder
    from league.scoring.climatology import SHIPPED_HISTORY

    _, data = init_folder(tmp_path, history=SHIPPED_HISTORY)  # offline: no yfinance fetch
    for book, model in (("council-book.jsonl", "1 OpeningLine"), ("asks.jsonl", "1 CountingRuleLine")):
        result = CliRunner().invoke(_app(), ["verify", "--typed", str(data / "books" / book)])
        assert result.exit_code == 0, _everything(result)
        assert f"every line fits its kind's model ({model})" in result.output
    foreign = CliRunner().invoke(_app(), ["verify", "--typed", str(ASSETS / "good.jsonl")])
    assert foreign.exit_code != 0
    assert foreign.output.startswith("ok ")  # the chain holds; only the writer's schema does not
    assert "11 line(s) fit no model of this version; line 1" in _everything(foreign)

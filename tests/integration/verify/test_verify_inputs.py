"""`league verify` refuses what it cannot check, and reads a published folder as a reader must.

- A target with nothing to verify (a folder with no book, an empty book file, a folder whose books are
  empty) exits 2 with the reason, instead of "ok"/every step "skipped".
- A bare book's "ok" says it is a prefix only; a folder's stamped heads say which line they reach and
  which lines follow them unstamped.
- A folder holding a symbolic link out of it, or a FIFO, is refused before any step reads anything; bad
  or deeply nested JSON in any file a step reads is that step's FAILED line naming the file, never a
  traceback.

The folders are built here: a real book written by ``league.book.Book`` and a stamped list whose row is
computed with hashlib from the book's bytes (``head -n N | sha256sum``), independent of the verifier.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import subprocess
import threading
from datetime import UTC, datetime
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from league.book import Book
from league.cli import app
from league.clock import SimulatedClock
from league.errors import LeagueError
from league.verify.reader import verify_published

LIST = "proof/2026-03-06/140000Z.txt"
DEEP = "[" * 100_000 + "]" * 100_000


def write_book(path: Path, lines: int) -> None:
    with Book(path, SimulatedClock(datetime(2026, 3, 6, 13, tzinfo=UTC))) as book:
        for i in range(lines):
            book.append("mark", {"i": i})


def stamp_row(book: Path, n: int) -> str:
    """The row a stamped list holds for the first ``n`` lines, computed as a reader does by hand."""
    raw = book.read_bytes().splitlines(keepends=True)
    digest = hashlib.sha256(b"".join(raw[:n])).hexdigest()
    return f"{book.name}: {n} lines, sha256 {digest}, last link {json.loads(raw[n - 1])['link']}"


def stamped_folder(root: Path, *, lines: int, stamped: int) -> Path:
    """A published folder: a council book of ``lines`` lines, one stamped list covering the first ``stamped``."""
    root.mkdir(parents=True)
    write_book(root / "council-book.jsonl", lines)
    listed = root / LIST
    listed.parent.mkdir(parents=True)
    listed.write_text(stamp_row(root / "council-book.jsonl", stamped) + "\n", encoding="utf-8")
    return root


def verify(*args: str) -> tuple[int, str, BaseException | None]:
    """`league verify ARGS` in process: (exit code as `league` gives it, output, an unexpected exception)."""
    result = CliRunner().invoke(app, ["verify", *args])
    exc = result.exception
    if isinstance(exc, LeagueError):  # what league.cli.main turns into its exit code
        return exc.exit_code, result.output + exc.diagnostics(), None
    return result.exit_code, result.output, None if isinstance(exc, SystemExit) else exc


# ------------------------------------------------------------------------------ nothing to verify
def test_a_folder_with_no_book_is_refused(tmp_path: Path) -> None:
    code, out, exc = verify(str(tmp_path))
    assert exc is None and code == 2, out  # before: exit 0, every step "skipped"
    assert "no book here" in out and "nothing to verify" in out
    assert "step  4" not in out


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        pass


def test_a_url_with_no_book_is_refused(tmp_path: Path) -> None:
    """By URL the folder is mirrored first; a mirror that holds no book is refused like a local folder."""
    (tmp_path / "index.html").write_text("<p>not a league</p>", encoding="utf-8")
    server = ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(_Quiet, directory=str(tmp_path)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        url = f"http://127.0.0.1:{server.server_address[1]}/"
        steps = verify_published(url)
        code, out, exc = verify(url, "--no-rebuild")
    finally:
        server.shutdown()
        server.server_close()
    assert [(s.step, s.status) for s in steps] == [(1, "FAILED")] and "no book here" in steps[0].detail
    assert exc is None and code == 2 and "no book here" in out, out


def test_an_empty_book_file_is_refused(tmp_path: Path) -> None:
    book = tmp_path / "council-book.jsonl"
    book.write_bytes(b"")
    code, out, exc = verify(str(book))
    assert exc is None and code == 2, out  # before: "ok …: 0 lines", exit 0
    assert "empty" in out and not out.startswith("ok")


def test_a_folder_whose_books_are_empty_is_refused(tmp_path: Path) -> None:
    (tmp_path / "council-book.jsonl").write_bytes(b"")
    (tmp_path / "asks.jsonl").write_bytes(b"")
    code, out, exc = verify(str(tmp_path), "--no-rebuild")
    assert exc is None and code == 2, out
    assert "empty (0 lines)" in out


def test_a_missing_path_exits_2_naming_it(tmp_path: Path) -> None:
    code, out, _ = verify(str(tmp_path / "nowhere.jsonl"))
    assert code == 2 and "no such file" in out


# ------------------------------------------------------------------------------ prefixes
def test_a_bare_book_is_ok_only_as_a_prefix(tmp_path: Path) -> None:
    whole = tmp_path / "whole" / "council-book.jsonl"
    whole.parent.mkdir()
    write_book(whole, 6)
    cut = tmp_path / "council-book.jsonl"
    cut.write_bytes(b"".join(whole.read_bytes().splitlines(keepends=True)[:4]))  # the first 4 of 6 lines
    for book, n in ((whole, 6), (cut, 4)):
        code, out, exc = verify(str(book))
        assert exc is None and code == 0, out
        verdict, note = out.strip().splitlines()
        assert verdict.startswith("ok ") and f"{n} lines" in verdict
        assert "a prefix only" in note and "league verify" in note and f"{n} lines, sha256" in note


def test_a_book_beside_its_proofs_names_the_folder_to_verify(tmp_path: Path) -> None:
    folder = stamped_folder(tmp_path / "public", lines=6, stamped=6)
    code, out, _ = verify(str(folder / "council-book.jsonl"))
    assert code == 0 and f"league verify {folder.resolve()}" in out


def test_the_stamped_head_says_which_lines_follow_it_unstamped(tmp_path: Path) -> None:
    folder = stamped_folder(tmp_path / "public", lines=6, stamped=4)
    step3 = next(s for s in verify_published(folder) if s.step == 3)
    assert step3.status == "ok", step3.line()
    assert f"the stamped head of {LIST} covers lines 1-4 of 6; lines 5-6 follow it unstamped" in step3.detail
    code, out, exc = verify(str(folder), "--no-rebuild")
    assert exc is None and code == 0, out
    assert "lines 5-6 follow it unstamped" in out


def test_a_stamped_head_at_the_last_line_says_so(tmp_path: Path) -> None:
    folder = stamped_folder(tmp_path / "public", lines=6, stamped=6)
    step3 = next(s for s in verify_published(folder) if s.step == 3)
    assert step3.status == "ok" and f"council-book.jsonl: all 6 lines are under the stamped head of {LIST}" \
        in step3.detail


def test_a_folder_without_stamps_says_its_books_are_prefixes(tmp_path: Path) -> None:
    folder = tmp_path / "public"
    folder.mkdir()
    write_book(folder / "council-book.jsonl", 3)
    step3 = next(s for s in verify_published(folder) if s.step == 3)
    assert step3.status == "skipped" and "checked as a prefix only" in step3.detail


def test_a_book_cut_before_its_stamped_head_fails(tmp_path: Path) -> None:
    folder = stamped_folder(tmp_path / "public", lines=6, stamped=5)
    book = folder / "council-book.jsonl"
    book.write_bytes(b"".join(book.read_bytes().splitlines(keepends=True)[:4]))
    step3 = next(s for s in verify_published(folder) if s.step == 3)
    assert step3.status == "FAILED" and "only 4 complete lines" in step3.detail


# ------------------------------------------------------------------------------ hostile folders
def test_a_link_out_of_the_folder_is_refused_not_followed(tmp_path: Path) -> None:
    """The stamped list is a link to a list outside (its content a valid row): never read, the folder refused."""
    folder = stamped_folder(tmp_path / "public", lines=6, stamped=6)
    outside = tmp_path / "elsewhere.txt"
    (folder / LIST).rename(outside)
    os.symlink(outside, folder / LIST)
    steps = verify_published(folder)
    assert [(s.step, s.status) for s in steps] == [(1, "FAILED")], [s.line() for s in steps]  # before: step 2 ok
    assert f"{LIST}: a symbolic link out of the folder" in steps[0].detail
    code, out, exc = verify(str(folder), "--no-rebuild")
    assert exc is None and code == 2 and "symbolic link out of the folder" in out, out


def test_the_compliance_table_is_not_read_through_a_link(tmp_path: Path) -> None:
    folder = stamped_folder(tmp_path / "public", lines=3, stamped=3)
    outside = tmp_path / "compliance.json"
    outside.write_text(json.dumps({"requirements": [{"number": 1, "check": "READ-FROM-OUTSIDE"}]}), encoding="utf-8")
    os.symlink(outside, folder / "arena-compliance.json")
    code, out, exc = verify(str(folder), "--no-rebuild")
    assert exc is None and code == 2, out
    assert "READ-FROM-OUTSIDE" not in out


def test_a_link_inside_the_folder_is_read(tmp_path: Path) -> None:
    folder = stamped_folder(tmp_path / "public", lines=3, stamped=3)
    (folder / "proof" / "latest.txt").symlink_to(folder / LIST)
    code, out, exc = verify(str(folder), "--no-rebuild")
    assert exc is None and code == 0, out


def test_a_fifo_in_the_folder_is_refused_not_opened(tmp_path: Path) -> None:
    """A FIFO named like a stamped list: opening it blocks until a writer comes, so the old check hung.
    Run as the installed command with a deadline: a hang is a failure, not a stuck suite."""
    folder = stamped_folder(tmp_path / "public", lines=3, stamped=3)
    os.mkfifo(folder / "proof" / "2026-03-06" / "150000Z.txt")
    league = shutil.which("league")
    assert league, "the `league` console script is not installed (pip install -e '.[dev]')"
    done = subprocess.run([league, "verify", str(folder), "--no-rebuild"], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "proof/2026-03-06/150000Z.txt: a FIFO, not a regular file" in done.stderr
    assert "Traceback" not in done.stderr


# (file, step whose line names it; None = the compliance table printed after the steps)
READ_JSON = [("arena-code.json", 8), ("release-manifest.json", 12), (LIST + ".rekor.json", 10),
             ("contest/sealed.json", 13), ("arena-compliance.json", None)]


@pytest.mark.parametrize(("name", "step"), READ_JSON)
@pytest.mark.parametrize(("content", "reason"), [("{{{", "not valid JSON"), (DEEP, "nested 100000 levels deep")])
def test_bad_json_in_a_published_file_is_named_never_a_traceback(tmp_path: Path, name: str, step: int | None,
                                                                 content: str, reason: str) -> None:
    folder = stamped_folder(tmp_path / "public", lines=3, stamped=3)
    (folder / name).parent.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(content, encoding="utf-8")
    code, out, exc = verify(str(folder), "--no-rebuild")
    assert exc is None, f"{exc!r}\n{out}"  # before: RecursionError out of the compliance table
    assert "could not run this step" not in out, out  # before: a RecursionError/JSONDecodeError named as such
    prefix = f"step {step:>2}" if step is not None else "compliance:"
    line = next((x for x in out.splitlines() if x.startswith(prefix)), "")
    assert reason in line and Path(name).name in line, out
    assert code == (0 if step is None else 1), out


def test_check_book_refuses_an_empty_council_book(tmp_path: Path) -> None:
    """`league check-book` (the nightly check on demand) said "ok …: 0 lines verified in full" of an empty book."""
    (tmp_path / "books").mkdir()
    (tmp_path / "books" / "council-book.jsonl").write_bytes(b"")
    result = CliRunner().invoke(app, ["check-book", "--data", str(tmp_path), "--no-db"])
    assert isinstance(result.exception, LeagueError) and result.exception.exit_code == 2, result.output
    assert "empty (0 lines)" in result.exception.message and not result.output.startswith("ok")


@pytest.mark.parametrize(("content", "reason"), [("{{{", "not valid JSON"), (DEEP, "nested 100000 levels deep")])
def test_bad_json_read_by_the_rebuild_fails_step_11_naming_the_file(tmp_path: Path, content: str,
                                                                    reason: str) -> None:
    """Step 11 runs the publisher's own readers, which are not written for hostile files: every published
    JSON file is read once with league.inputs' bounds first (before: "could not run this step: RecursionError")."""
    pytest.importorskip("numpy", reason="step 11 needs the statistics extra")
    folder = stamped_folder(tmp_path / "public", lines=3, stamped=3)
    (folder / "council-clim-window.json").write_text(content, encoding="utf-8")
    code, out, exc = verify(str(folder))
    assert exc is None and code == 1, out
    line = next(x for x in out.splitlines() if x.startswith("step 11"))
    assert "FAILED" in line and "council-clim-window.json" in line and reason in line, line
    assert "could not run this step" not in out

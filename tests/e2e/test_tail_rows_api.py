"""`league tail --rows URL`: the scored rows over the API are the rows read on the league host.

The oracle is `league tail --rows DATA` run on the host's data folder (itself checked against the published
council-forecasts.csv and a hand Brier in test_tail_rows.py). A real uvicorn server (the app `league serve`
runs, on loopback) serves the demo league; the client runs in this process, then in a fresh interpreter that
cannot import any library of the daemon or statistics extras (the lean install's situation)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from typer.testing import CliRunner

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "integration" / "api"))

from api_server import serve, stop  # noqa: E402

from league.api.follow import FollowError, follow_rows_url  # noqa: E402
from league.cli import app  # noqa: E402

#: Run in a fresh interpreter: every library of the daemon and statistics extras refused at import, then the CLI.
LEAN = """
import importlib.abc, json, sys
from league.extras import DAEMON, STATS
BLOCKED = set(DAEMON + STATS) | {"fastapi_offline"}

class Lean(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (blocked: the lean install)", name=name)
        return None

sys.meta_path.insert(0, Lean())
from league.cli import app
from typer.testing import CliRunner
result = CliRunner().invoke(app, sys.argv[1:])
loaded = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
print(json.dumps({"code": result.exit_code, "out": result.stdout, "loaded": loaded, "error": repr(result.exception)}))
"""


def _cli(*args: str) -> str:
    result = CliRunner().invoke(app, ["tail", *args])
    assert result.exit_code == 0, result.output
    return result.stdout


@pytest.fixture(scope="module")
def served(demo_league: dict[str, object]) -> Iterator[tuple[str, Path]]:
    data = Path(str(demo_league["data"]))
    base, server, thread = serve(data)
    try:
        yield base, data
    finally:
        stop(server, thread)


def test_remote_rows_equal_the_rows_read_on_the_host(served: tuple[str, Path]) -> None:
    base, data = served
    for fmt in ("ndjson", "csv"):
        host = _cli("--rows", str(data), "--format", fmt)
        remote = _cli("--rows", base, "--format", fmt)
        assert remote == host
    assert len(host.splitlines()) > 100 and host.splitlines()[0].endswith(",brier")


def test_remote_rows_resume_after_a_row_id(served: tuple[str, Path]) -> None:
    base, data = served
    ids = [json.loads(x)["row_id"] for x in _cli("--rows", str(data), "--format", "ndjson").splitlines()]
    for cut in (0, 6, len(ids) // 2, len(ids) - 1):
        host = _cli("--rows", str(data), "--after-row", ids[cut], "--format", "ndjson")
        remote = _cli("--rows", base, "--after-row", ids[cut], "--format", "ndjson")
        assert remote == host
        assert [json.loads(x)["row_id"] for x in remote.splitlines()] == ids[cut + 1:]


def test_the_lean_install_follows_a_remote_league(served: tuple[str, Path], tmp_path: Path) -> None:
    """Nothing of the daemon or statistics extras is importable, yet the rows come, the same as on the host; so do
    the book's lines (`league tail URL`, `league tail BOOK`)."""
    base, data = served
    ids = [json.loads(x)["row_id"] for x in _cli("--rows", str(data), "--format", "ndjson").splitlines()]
    env = {k: v for k, v in os.environ.items() if k not in ("LEAGUE_PROGRESS",)}
    book = str(data / "books" / "council-book.jsonl")
    for args, want in ((["tail", "--rows", base], _cli("--rows", str(data))),
                       (["tail", "--rows", base, "--after-row", ids[3], "--format", "ndjson"],
                        _cli("--rows", str(data), "--after-row", ids[3], "--format", "ndjson")),
                       (["tail", base, "--kind", "score"], _cli(book, "--kind", "score")),  # the book's lines
                       (["tail", book, "--from", "5"], _cli(book, "--from", "5"))):
        done = subprocess.run([sys.executable, "-c", LEAN, *args], capture_output=True, text=True, timeout=300,
                              cwd=tmp_path, env=env, check=False)
        assert done.returncode == 0, done.stderr[-2000:]
        report = json.loads(done.stdout.strip().splitlines()[-1])
        assert report["loaded"] == [] and report["code"] == 0, report["error"]
        assert report["out"] == want
    # the check can fail: the same blocker stops the host's own reading, which needs the daemon extra
    done = subprocess.run([sys.executable, "-c", LEAN, "tail", "--rows", str(data)], capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, env=env, check=False)
    assert json.loads(done.stdout.strip().splitlines()[-1])["code"] != 0


def test_a_bad_row_id_and_a_folder_without_the_book_are_clear_refusals(served: tuple[str, Path],
                                                                       tmp_path: Path) -> None:
    base, data = served
    bad = httpx.get(f"{base}/api/rows/stream", params={"after": "seven"}, timeout=20)
    assert bad.status_code == 400 and "LINE.INDEX" in bad.json()["error"]
    with pytest.raises(FollowError, match="refused the rows stream \\(400\\)"):
        list(follow_rows_url(base, "seven"))
    public = tmp_path / "public"
    shutil.copytree(data / "public", public)  # an open-data folder alone: no books/ beside config/
    other, server, thread = serve(public)
    try:
        missing = httpx.get(f"{other}/api/rows/stream", timeout=20)
    finally:
        stop(server, thread)
    assert missing.status_code == 404 and "no league data folder" in missing.json()["error"]


def test_following_over_the_api_delivers_the_rows_of_a_score_line_sealed_while_it_waits(
        demo_league: dict[str, object], tmp_path: Path) -> None:
    data = Path(str(demo_league["data"]))
    shutil.copytree(data.parent / "config", tmp_path / "config")
    (tmp_path / "data" / "books").mkdir(parents=True)
    book = (data / "books" / "council-book.jsonl").read_bytes().splitlines(keepends=True)
    last_score = max(i for i, raw in enumerate(book) if json.loads(raw)["kind"] in ("score", "score_h"))
    copy = tmp_path / "data" / "books" / "council-book.jsonl"
    copy.write_bytes(b"".join(book[:last_score]))
    base, server, thread = serve(tmp_path / "data")
    seen: list[dict[str, str]] = []
    try:
        before = [e for e in follow_rows_url(base) if isinstance(e, dict)]

        def reader() -> None:
            try:
                for event in follow_rows_url(base, before[-1]["row_id"], follow=True, retries=0):
                    if isinstance(event, dict):
                        seen.append(event)
            except FollowError:
                pass  # the server stopped at the end of the test

        threading.Thread(target=reader, daemon=True).start()
        time.sleep(0.5)  # let the reader connect and wait (no assertion on time: the loop below waits)
        with copy.open("ab") as fh:
            fh.write(b"".join(book[last_score:]))
        want = [json.loads(x) for x in _cli("--rows", str(data), "--format", "ndjson").splitlines()]
        deadline = time.monotonic() + 120
        while len(before) + len(seen) < len(want) and time.monotonic() < deadline:
            time.sleep(0.05)
    finally:
        stop(server, thread)
    assert before + seen == want
    assert {r["row_id"].split(".")[0] for r in seen} == {str(last_score + 1)}

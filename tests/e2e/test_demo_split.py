"""`league demo` runs its season in a forked child and publishes in the parent once the child has exited (the
peak is then the larger of the two, not their sum). The folder must be the one a single process writes: the same
book, the same published files, and a release stamp by the local stand-ins at the season's last simulated time."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def index_rows(db: Path) -> dict[str, list[tuple[object, ...]]]:
    """Every table of a league database, its rows sorted, without the surrogate ``id`` column (the order in
    which two writers inserted the same rows may differ) and the job ledger's ``owner`` (the claiming
    process's host and pid)."""
    con = sqlite3.connect(db)
    try:
        tables = [name for (name,) in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
        out = {}
        for table in tables:
            columns = [row[1] for row in con.execute(f"PRAGMA table_info({table})") if row[1] not in ("id", "owner")]
            listed = ", ".join(f'"{c}"' for c in columns)
            out[table] = sorted(con.execute(f"SELECT {listed} FROM {table}").fetchall(), key=repr)
        return out
    finally:
        con.close()


@pytest.mark.sandbox
@pytest.mark.slow
@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs os.fork")
def test_the_split_demo_writes_what_one_process_writes(tmp_path: Path) -> None:
    if shutil.which("bwrap") is None:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    from league.demo import run_demo

    # the split run in a fresh process (run_demo forks only a process without other threads; this test
    # process may hold a package fixture's League and stamp servers open)
    script = ("import sys; from pathlib import Path; from league.demo import run_demo, fork_safe; assert fork_safe(); "
              "seen = []; r = run_demo(Path(sys.argv[1]), sessions=2, progress=seen.append); "
              "print(seen == r.sessions, r.book_lines, r.forecasts)")
    done = subprocess.run([sys.executable, "-c", script, str(tmp_path / "split")], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    whole = run_demo(tmp_path / "whole", sessions=2, split=False)
    # the child's progress reached the parent; the same book and rows
    assert done.stdout.split()[-3:] == ["True", str(whole.book_lines), str(whole.forecasts)]
    split = whole.__class__(tmp_path / "split" / "data", tmp_path / "split" / "data" / "public", [], 0, 0)
    compare = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "demo_compare.py"), str(tmp_path / "whole"),
                              str(tmp_path / "split")], capture_output=True, text=True, timeout=300, check=False)
    assert compare.returncode == 0, compare.stdout[-3000:]
    # the database index the parent wrote while the child sealed (League.index_elsewhere) is the one the
    # single process wrote line by line: every table's rows, row ids aside
    assert index_rows(tmp_path / "split" / "data" / "league.db") == index_rows(whole.data_dir / "league.db")
    stamps = sorted((split.data_dir / "stamps").glob("*/*.status.json"))
    release = json.loads(stamps[-1].read_text(encoding="utf-8"))  # the last stamp: the release manifest's
    assert release["trust_level"] and all(b["ok"] for b in release["backends"])
    assert (split.public_dir / "proof" / stamps[-1].parent.name / stamps[-1].name).is_file()


def test_a_season_that_fails_in_the_child_raises_in_the_parent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(os, "fork"):
        pytest.skip("needs os.fork")
    from league import demo
    from league.errors import LeagueError

    def broken(*args: object, **kwargs: object) -> None:
        raise LeagueError("the replay prices are missing", fix="reinstall")

    monkeypatch.setattr(demo, "run_season", broken)
    with pytest.raises(LeagueError, match="replay prices are missing") as caught:
        demo.season_in_child(tmp_path / "out", [], 7)
    assert caught.value.fix == "reinstall"


def test_a_child_that_dies_without_a_result_is_an_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    if not hasattr(os, "fork"):
        pytest.skip("needs os.fork")
    from league import demo
    from league.errors import LeagueError

    def dies(*args: object, **kwargs: object) -> None:
        os._exit(9)

    monkeypatch.setattr(demo, "run_season", dies)
    with pytest.raises(LeagueError, match="exit code 9"):
        demo.season_in_child(tmp_path / "out", [], 7)

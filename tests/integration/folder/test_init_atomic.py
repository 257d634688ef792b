"""`league init DIR` is all or nothing, and offline-first.

Without the network (every HTTP(S) request sent to a closed local port through the proxy variables, which
yfinance's curl reads) it builds a complete league from the history shipped in the package and says so; a
failure at any point (a bad --history file, an error while the books are opened) leaves nothing on disk: no
DIR, no half-made config/ or data/, no hidden staging folder beside it.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import league.folder
from league.errors import ConfigError
from league.extras import MissingExtra
from league.folder import init_folder
from league.inputs import InputError
from league.scoring.climatology import SHIPPED_HISTORY
from league.verify.chain import verify

LEAGUE = Path(sys.executable).with_name("league")


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _offline_env() -> dict[str, str]:
    proxy = f"http://127.0.0.1:{_closed_port()}"
    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy") and not k.startswith("LEAGUE_")}
    return {**env, "HTTPS_PROXY": proxy, "https_proxy": proxy, "HTTP_PROXY": proxy, "http_proxy": proxy,
            "ALL_PROXY": proxy, "NO_PROXY": "", "no_proxy": ""}


def _init(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(LEAGUE), "init", *args], cwd=cwd, capture_output=True, text=True, timeout=300,
                          check=False, env=_offline_env())


@pytest.mark.skipif(not LEAGUE.exists(), reason="the league console script is not installed")
def test_init_without_network_builds_from_the_shipped_history_and_says_so(tmp_path: Path) -> None:
    done = _init("live", cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "the Yahoo fetch failed" in done.stdout and f"shipped in the package ({SHIPPED_HISTORY.name}" in done.stdout
    data = tmp_path / "live" / "data"
    kept = data / "climatology-history.csv.gz"
    assert kept.read_bytes() == SHIPPED_HISTORY.read_bytes()
    table = json.loads((data / "climatology.json").read_text(encoding="utf-8"))
    assert hashlib.sha256(kept.read_bytes()).hexdigest() in json.dumps(table)
    for book in ("council-book.jsonl", "asks.jsonl"):
        assert verify(data / "books" / book).ok
    assert sorted(p.name for p in tmp_path.iterdir()) == ["live"]  # no staging folder left beside it


@pytest.mark.skipif(not LEAGUE.exists(), reason="the league console script is not installed")
def test_a_bad_history_leaves_nothing(tmp_path: Path) -> None:
    (tmp_path / "bad.csv").write_text("hello\nworld\n", encoding="utf-8")
    done = _init("live", "--history", "bad.csv", cwd=tmp_path)
    assert done.returncode == 2 and "--history bad.csv: not a recorded daily history" in done.stderr, done.stderr
    assert "climatology: sealed" not in done.stdout  # nothing said as done that was not
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.csv"]


def test_offline_and_a_plain_csv_history(tmp_path: Path) -> None:
    said: list[str] = []
    init_folder(tmp_path / "a", offline=True, say=said.append)
    assert len(said) == 1 and "--offline" in said[0] and SHIPPED_HISTORY.name in said[0]
    plain = tmp_path / "history.csv"
    plain.write_bytes(gzip.decompress(SHIPPED_HISTORY.read_bytes()))
    init_folder(tmp_path / "b", history=plain, say=said.append)
    assert "--history" in said[1]
    kept = tmp_path / "b" / "data" / "climatology-history.csv.gz"  # kept compressed: the table names its hash
    assert gzip.decompress(kept.read_bytes()) == plain.read_bytes()


def test_a_failure_while_the_books_open_leaves_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(*_args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(league.folder, "seal_opening", broken)
    with pytest.raises(OSError, match="No space left"):
        init_folder(tmp_path / "deep" / "er" / "live", offline=True)
    assert list(tmp_path.iterdir()) == []  # not even the parents it made
    (tmp_path / "empty").mkdir()
    with pytest.raises(OSError, match="No space left"):
        init_folder(tmp_path / "empty", offline=True)
    assert list((tmp_path / "empty").iterdir()) == [] and sorted(p.name for p in tmp_path.iterdir()) == ["empty"]


def test_into_an_existing_folder_and_refusals(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "notes.txt").write_text("kept", encoding="utf-8")
    config_dir, data_dir = init_folder(tmp_path / "home", offline=True)
    assert (config_dir / "league.toml").is_file() and verify(data_dir / "books" / "council-book.jsonl").ok
    assert (tmp_path / "home" / "notes.txt").read_text(encoding="utf-8") == "kept"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["home"]
    with pytest.raises(ConfigError, match="already holds a config"):
        init_folder(tmp_path / "home", offline=True)
    (tmp_path / "other" / "data").mkdir(parents=True)
    (tmp_path / "other" / "data" / "x").write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError, match="not an empty folder"):
        init_folder(tmp_path / "other", offline=True)
    assert not (tmp_path / "other" / "config").exists()


def test_a_history_naming_no_market_is_refused(tmp_path: Path) -> None:
    history = tmp_path / "h.csv"
    history.write_text("symbol,day,open,close\nNOPE,2020-01-02,1,2\n", encoding="utf-8")
    with pytest.raises(InputError, match="no row names a market"):
        init_folder(tmp_path / "live", history=history)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["h.csv"]


def test_without_yfinance_the_error_names_the_extra_and_the_offline_way(tmp_path: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A [demo] environment has no yfinance: the error names the `yahoo` extra (not "the lean install") and
    the two ways to seal the climatology without it; nothing is left on disk."""
    monkeypatch.delitem(sys.modules, "league.prices.yahoo", raising=False)  # imported afresh: its `import yfinance`
    monkeypatch.setitem(sys.modules, "yfinance", None)  # fails as it does where yfinance is not installed
    with pytest.raises(MissingExtra) as caught:
        init_folder(tmp_path / "live")
    assert "`yahoo` extra" in caught.value.message and "lean install" not in caught.value.message
    assert caught.value.fix is not None and "pip install 'forecast-league[yahoo]'" in caught.value.fix
    assert "--offline" in caught.value.fix and "--history FILE" in caught.value.fix
    assert list(tmp_path.iterdir()) == []


def test_a_killed_init_s_staging_folder_is_removed_by_the_next_init(tmp_path: Path) -> None:
    """SIGKILL skips every clean-up; the next `league init` of the same folder sweeps what it left."""
    child = subprocess.Popen([str(LEAGUE), "init", "live", "--offline"], cwd=tmp_path, env=_offline_env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(600):
            if list(tmp_path.glob(".live.init-*")) or child.poll() is not None:
                break
            time.sleep(0.05)
    finally:
        child.kill()
        child.wait()
    leftovers = list(tmp_path.glob(".live.init-*"))
    if not leftovers:
        pytest.skip("the init finished before it could be killed")
    assert leftovers[0].name.startswith(f".live.init-{child.pid}-")
    told: list[str] = []
    init_folder(tmp_path / "live", demo=True, say=told.append)
    assert not list(tmp_path.glob(".live.init-*"))
    assert any(f"pid {child.pid}" in line and "interrupted" in line for line in told)
    assert (tmp_path / "live" / "data" / "books" / "council-book.jsonl").stat().st_size > 0


def test_a_staging_folder_whose_process_lives_is_left_alone(tmp_path: Path) -> None:
    """Another `league init` of the same folder may be building it now: a live pid (this test's own) keeps it."""
    busy = tmp_path / f".live.init-{os.getpid()}-0badc0de"
    (busy / "config").mkdir(parents=True)
    init_folder(tmp_path / "live", demo=True)
    assert (busy / "config").is_dir()
    assert (tmp_path / "live" / "config" / "league.toml").is_file()

"""The lean install: `pip install forecast-league` with its base dependencies only.

A fresh virtual environment (no system site-packages) gets the project built from a copy of the checkout
and its base dependencies from the index (pip's cache makes that seconds). Then, with nothing else
installed: `league verify` checks a book and whole published folders (steps 11 and 13, which recompute
statistics, skipped with the install command, `--strict` refusing that), `league seat check` runs a
scripted seat, `league worker` builds its Celery app, verbs that need an extra name it, and the scientific
stack is nowhere in the environment. The published folders (a one-session demo, a recorded contest day) are
made with this (full) environment first.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import venv
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from source_tree import run, source_copy

pytestmark = pytest.mark.slow
#: Packages the lean install must not bring in (the statistics and the daemon's stack).
ABSENT = ("pandas", "scipy", "statsmodels", "arch", "numpy", "exchange_calendars", "sqlalchemy", "fastapi",
          "uvicorn", "apscheduler", "alembic")
PROBE = """
import importlib.util, sys
print(",".join(m for m in sys.argv[1:] if importlib.util.find_spec(m) is not None))
"""
WORKER = """
from league.workers.broker import parse_target
from league.workers.celery_app import make_app
app = make_app(parse_target("amqp://lab-a:not-a-secret@127.0.0.1:5672/league-lab-a"), "lab-a", worker=True)
print(type(app).__name__, app.main, sorted(name for name in app.tasks if not name.startswith("celery.")))
"""


@pytest.fixture(scope="module")
def lean(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    root = tmp_path_factory.mktemp("lean")
    home = root / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(home)
    run([str(home / "bin" / "python"), "-m", "pip", "install", "-q", str(source_copy(root / "src"))], root)
    yield home


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A one-session demo league, made by this environment's `league` (which has every extra)."""
    if subprocess.run(["which", "bwrap"], capture_output=True, check=False).returncode:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    out = tmp_path_factory.mktemp("demo") / "demo"
    run([str(Path(sys.executable).with_name("league")), "demo", "--sessions", "1", "--out", str(out)], out.parent)
    return out


@pytest.fixture(scope="module")
def contest(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A recorded contest day's published folder, made by this environment's `league`."""
    out = tmp_path_factory.mktemp("contest") / "contest"
    run([str(Path(sys.executable).with_name("league")), "contest", "demo", "--out", str(out)], out.parent)
    return out / "public"


def _league(lean: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "LEAGUE_PROGRESS")}
    env["PATH"] = f"{lean / 'bin'}:{env.get('PATH', '')}"
    return subprocess.run([str(lean / "bin" / "league"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=300, check=False)


def test_the_lean_install_has_no_scientific_stack(lean: Path, tmp_path: Path) -> None:
    found = run([str(lean / "bin" / "python"), "-c", PROBE, *ABSENT], tmp_path).stdout.strip()
    assert found == ""
    assert run([str(lean / "bin" / "python"), "-c", PROBE, "league", "celery", "typer"], tmp_path).stdout.strip() \
        == "league,celery,typer"


def test_league_verify_a_book_and_a_folder(lean: Path, published: Path, tmp_path: Path) -> None:
    public = published / "data" / "public"
    book = _league(lean, "verify", "--typed", str(public / "council-book.jsonl"), cwd=tmp_path)
    assert book.returncode == 0 and book.stdout.startswith("ok ") and "typed " in book.stdout, book.stderr
    folder = _league(lean, "verify", str(public), cwd=tmp_path)
    assert folder.returncode == 0, folder.stdout + folder.stderr
    lines = {line.split(":")[0]: line for line in folder.stdout.splitlines() if line.startswith("step ")}
    for step in ("step  4 seals and links", "step  7 recount", "step  8 code hashes", "step 12 release manifest"):
        assert ": ok" in lines[step], lines[step]
    assert ": skipped" in lines["step 11 derived files"]
    assert "pip install 'forecast-league[stats]'" in lines["step 11 derived files"]
    strict = _league(lean, "verify", "--strict", str(public), cwd=tmp_path)
    assert strict.returncode != 0 and "step 11: derived files not rebuilt" in strict.stderr


def test_league_verify_skips_the_contest_recount_and_strict_refuses(lean: Path, contest: Path,
                                                                   tmp_path: Path) -> None:
    done = _league(lean, "verify", str(contest), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    step13 = next(line for line in done.stdout.splitlines() if line.startswith("step 13"))
    assert ": skipped" in step13 and "pip install 'forecast-league[stats]'" in step13
    strict = _league(lean, "verify", "--strict", str(contest), cwd=tmp_path)
    assert strict.returncode != 0 and "step 13: the contest's metrics were not recomputed" in strict.stderr


def test_a_verb_that_needs_an_extra_says_which(lean: Path, published: Path, tmp_path: Path) -> None:
    stats = _league(lean, "stats", "--data", str(published / "data"), cwd=tmp_path)
    assert stats.returncode == 2 and "Traceback" not in stats.stderr
    assert "pip install 'forecast-league[stats]'" in stats.stderr and "this is the lean install" in stats.stderr
    rebuild = _league(lean, "rebuild", "--data", str(published / "data"), cwd=tmp_path)
    assert rebuild.returncode == 2 and "pip install 'forecast-league[daemon]'" in rebuild.stderr


def test_league_seat_check_runs_a_scripted_seat(lean: Path, published: Path, tmp_path: Path) -> None:
    roster = published / "config" / "roster.toml"
    done = _league(lean, "seat", "check", "aurora", "--roster", str(roster), cwd=tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "seat:     aurora (scripted" in done.stdout and '"prob_up"' in done.stdout


def test_league_worker_starts_its_celery_app(lean: Path, tmp_path: Path) -> None:
    helped = _league(lean, "worker", "--help", cwd=tmp_path)
    assert helped.returncode == 0 and "--queue" in helped.stdout
    kind, name, tasks = run([str(lean / "bin" / "python"), "-c", WORKER], tmp_path).stdout.split(maxsplit=2)
    assert (kind, name) == ("Celery", "league-lab-a") and "league." in tasks


def test_league_tail_follows_a_remote_league(lean: Path, published: Path, tmp_path: Path) -> None:
    """`league tail --rows URL` and `league tail URL` need only httpx: the lean install prints what the host
    reads from its own data folder (the server is this full environment's `league serve`)."""
    data, full = published / "data", str(Path(sys.executable).with_name("league"))
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    server = subprocess.Popen([full, "serve", "--data", str(data), "--port", str(port), "--db", ""],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while server.poll() is None and time.monotonic() < deadline:
            try:
                if httpx.get(f"{base}/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                time.sleep(0.2)
        host = run([full, "tail", "--rows", str(data), "--format", "ndjson"], tmp_path).stdout
        remote = _league(lean, "tail", "--rows", base, "--format", "ndjson", cwd=tmp_path)
        assert remote.returncode == 0, remote.stderr
        assert remote.stdout == host and host.count("\n") > 10
        book = str(data / "books" / "council-book.jsonl")
        lines = _league(lean, "tail", base, "--kind", "score", cwd=tmp_path)
        assert lines.returncode == 0 and lines.stdout == run([full, "tail", book, "--kind", "score"], tmp_path).stdout
    finally:
        server.terminate()
        server.wait(20)

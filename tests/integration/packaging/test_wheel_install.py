"""A release installs and runs without the checkout: the sdist and the wheel `python -m build` makes.

Once per test session: the sdist and the wheel are built from a copy of the source tree (the wheel from the
sdist, as `python -m build` does, so the sdist is proved complete too), and the WHEEL with the `demo` extra is
installed into a fresh virtual environment (no editable checkout, no system site-packages; versions from
requirements/lock.txt). Then, from a folder outside the checkout: `league --version`, `league demo` (one
session), `league verify` on the folder it published, `league status` by the commands the demo prints, and
`league init --offline` (the example config and the shipped history come from the installed package).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tarfile
import venv
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from source_tree import ROOT, run, source_copy

from league import __version__

pytestmark = pytest.mark.slow
METADATA = """
import importlib.metadata as md, json
m = md.metadata("forecast-league")
print(json.dumps({"version": m["Version"], "license": m["License-Expression"], "urls": m.get_all("Project-URL"),
                  "classifiers": m.get_all("Classifier"), "authors": m.get_all("Author")}))
"""


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("dist")
    src = source_copy(root / "src")
    run([sys.executable, "-m", "build", "--outdir", str(root / "dist"), str(src)], root)
    return root / "dist"


@pytest.fixture(scope="module")
def installed(dist: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    if subprocess.run(["which", "bwrap"], capture_output=True, check=False).returncode:
        pytest.skip("bubblewrap (bwrap) is not installed: apt-get install -y bubblewrap")
    home = tmp_path_factory.mktemp("release") / "venv"
    venv.EnvBuilder(with_pip=True, system_site_packages=False).create(home)
    wheel = next(dist.glob("forecast_league-*-py3-none-any.whl"))
    run([str(home / "bin" / "python"), "-m", "pip", "install", "-q", "-c", str(ROOT / "requirements" / "lock.txt"),
         f"forecast-league[demo] @ {wheel.as_uri()}"], home.parent)
    yield home


def _league(home: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV", "LEAGUE_PROGRESS")
           and not k.startswith("LEAGUE_CONFIG") and not k.startswith("LEAGUE_DATA")}
    env["PATH"] = f"{home / 'bin'}:{env.get('PATH', '')}"
    return subprocess.run([str(home / "bin" / "league"), *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


def test_the_sdist_and_the_wheel_carry_what_runs(dist: Path) -> None:
    wheel = zipfile.ZipFile(next(dist.glob("*.whl"))).namelist()
    sdist = tarfile.open(next(dist.glob("*.tar.gz"))).getnames()
    assert "league/scoring/data/demo-history.csv.gz" in wheel  # the demo's and an offline init's history
    config = [n for n in wheel if "/share/forecast-league/config/" in n]
    assert {n.rsplit("/config/", 1)[1] for n in config} >= {"league.toml", "markets.toml", "roster.toml",
                                                           "roster.demo.toml", "predictions.toml",
                                                           "predictions/measures.py"}
    for needed in ("league/api/page/index.html", "league/contracts/event-contract.schema.json",
                   "league/verify/tools/conformance.py", "league_agents/scripted.py", "sandbox/bwrap.py"):
        assert needed in wheel, needed
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in wheel)
    tracked = subprocess.run(["git", "ls-files", "league", "sandbox"], cwd=ROOT, capture_output=True, text=True,
                             check=True).stdout.split()
    assert [t for t in tracked if t not in wheel] == []  # every file of the packages, data included
    top = sdist[0].split("/")[0]
    assert {f"{top}/LICENSE", f"{top}/config/league.toml", f"{top}/pyproject.toml"} <= set(sdist)


def test_version_and_metadata(installed: Path, tmp_path: Path) -> None:
    done = _league(installed, "--version", cwd=tmp_path)
    assert done.returncode == 0 and done.stdout.strip() == f"league (forecast-league) {__version__}"
    meta = json.loads(run([str(installed / "bin" / "python"), "-c", METADATA], tmp_path).stdout)
    assert meta["version"] == __version__ and meta["license"] == "Apache-2.0"
    assert {u.split(",")[0] for u in meta["urls"]} == {"Homepage", "Documentation", "Source", "Changelog"}
    assert "Programming Language :: Python :: 3.11" in meta["classifiers"] and meta["authors"]


def test_demo_verify_and_the_printed_next_commands(installed: Path, tmp_path: Path) -> None:
    done = _league(installed, "demo", "--sessions", "1", "--no-arms", "--out", "demo-out", cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    shown = done.stdout[done.stdout.index("next:"):].splitlines()
    commands = [line.split("#")[0].split() for line in shown[1:] if line.startswith("  league ")]
    assert ["league", "status", "--config", "demo-out/config"] in commands
    assert ["league", "verify", "demo-out/data/public"] in commands
    verified = _league(installed, "verify", "demo-out/data/public", cwd=tmp_path)
    assert verified.returncode == 0, verified.stdout[-3000:] + verified.stderr[-3000:]
    steps = [line for line in verified.stdout.splitlines() if line.startswith("step ")]
    assert steps[0].startswith("step  1 the folder: ok") and "FAILED" not in verified.stdout
    status = _league(installed, *commands[[c[1] for c in commands].index("status")][1:], cwd=tmp_path)
    assert status.returncode == 0 and "last runs" in status.stdout, status.stderr


def test_init_offline_from_the_installed_package(installed: Path, tmp_path: Path) -> None:
    done = _league(installed, "init", "--offline", "live", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "shipped in the package (demo-history.csv.gz" in done.stdout
    assert (tmp_path / "live" / "config" / "roster.toml").is_file()
    assert not (tmp_path / "live" / "config" / "roster.demo.toml").exists()
    checked = _league(installed, "verify", "live/data/books/council-book.jsonl", cwd=tmp_path)
    assert checked.returncode == 0 and checked.stdout.startswith("ok "), checked.stderr

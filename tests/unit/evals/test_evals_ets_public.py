"""The `_ets` seat's fits (league_agents.ets_model) use statsmodels' public API only, and are reproducible.

Its answers are sealed, so the same closes must give the same floats every time (in the fit worker's fresh
interpreter too: tests/integration/evals/test_evals_ets_worker_bytes.py). The forecast path (chosen model, 126
means and variances) is held, byte for byte, to statsmodels alone (every candidate fitted to a results object, the
best one's prediction), and the paths of a fixed set of series to the digest the pinned libraries give
(requirements/lock.txt): a library upgrade that moves a bit fails here, and must be recorded as a change of the
sealed answers. The modules of agents/ import no private module of the scientific libraries, and the fit module
reads no private attribute.

The last bits also depend on the machine: OpenBLAS (a DYNAMIC_ARCH build in the numpy and scipy wheels) and
numpy pick their kernels for the CPU they run on, so the same libraries give other bits on an AVX-512 machine than
on an AVX2 one. The digest is therefore taken in a child interpreter held to x86-64's baseline kernels through the
libraries' own switches (``OPENBLAS_CORETYPE=Nehalem``, the x86-64-v2 level numpy's own baseline already
requires, and every dispatched numpy target in ``NPY_DISABLE_CPU_FEATURES``): the same bits on every machine the
pinned numpy runs on, so only a library change moves them."""

from __future__ import annotations

import ast
import hashlib
import json
import os
import platform
import struct
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from evals_helpers import walk

import league_agents
from league_agents import ets_fit, ets_model
from league_agents.plugins import MissingDependency, extra

STEPS = 126
AGENTS = Path(__file__).resolve().parents[3] / "agents"
#: The scientific libraries whose private names the adapters must not touch.
LIBRARIES = ("statsmodels", "scipy", "numpy", "pandas")


def scaled(closes: list[float], level: float) -> list[float]:
    return [c * level / 100.0 for c in closes]


SERIES: dict[str, list[float]] = {
    **{f"walk{n}": walk(n, n, vol=0.01) for n in (30, 31, 45, 90, 252, 500)},
    **{f"volatile{seed}": walk(300, seed, vol=0.05) for seed in (1, 2)},
    **{f"trend{seed}": walk(200, seed, vol=0.002, drift=0.003) for seed in (3, 4)},
    "falling": walk(260, 5, vol=0.004, drift=-0.002),
    "near-alpha-one": walk(400, 6, vol=0.02),  # a pure random walk: alpha at its upper bound
    "tiny-level": scaled(walk(300, 7), 0.01),
    "huge-level": scaled(walk(300, 8), 1e5),
    "ticks": [round(c) for c in walk(200, 9, vol=0.003)],  # coarse prices, many repeats
    "flat-then-moving": [100.0] * 100 + walk(100, 10),
    "near-constant": [100.0 + 1e-9 * ((i * 7919) % 13) for i in range(60)],
    "straight": [float(i) for i in range(40)],
    "zigzag": [1.0, 2.0] * 20,
    "large": [1e12 + i for i in range(60)],
    "overflowing": [1e300 * (1 + 0.01 * i) for i in range(40)],
    "signs": [(-1.0) ** i * 1e-3 for i in range(50)],
    "constant": [100.0] * 50,
    "nan": [1.0, 2.0, float("nan")] + [3.0] * 30,  # every candidate's AIC is nan: no model
    "two": [5.0, 6.0],
    "three": [1.0, 2.0, 3.0],
}
#: sha256 of every series' 126-step path, in the order of SERIES, with statsmodels 0.15.0, scipy 1.17.1,
#: numpy 2.4.6 and pandas 3.1.1 (requirements/lock.txt), on x86-64's baseline kernels (`baseline_env`).
PINNED_DIGEST = "fbed3cdcd598e8ab5ba83a7d9f82cd677d9d209cc4ec68fe930dce9151da1df0"
HERE = Path(__file__).resolve().parent


def bits(path: list[tuple[float, float]] | None) -> bytes | None:
    return None if path is None else b"".join(struct.pack("<dd", m, v) for m, v in path)


def digest(paths: list[bytes | None]) -> str:
    h = hashlib.sha256()
    for b in paths:
        h.update(b"-" if b is None else b)
    return h.hexdigest()


@pytest.fixture(autouse=True)
def quiet() -> Iterator[None]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # statsmodels' convergence chatter
        yield


# ------------------------------------------------------------------------------------------- the floats
@pytest.mark.parametrize("name", sorted(SERIES))
def test_the_forecast_path_is_statsmodels_path(name: str) -> None:
    """The seat's path against statsmodels alone: every candidate fitted in full, the best one predicted."""
    closes = SERIES[name]
    res = ets_model.fit_plain(pd.Series(closes, dtype=float))
    expected = None if res is None else bits(ets_model.prediction_path(res, STEPS))
    assert bits(ets_fit.forecast_path((tuple(closes), STEPS))) == expected


def baseline_env() -> dict[str, str]:
    """This environment with OpenBLAS on its x86-64-v2 kernels and numpy on its compiled baseline (x86-64-v2 too):
    every target numpy's build dispatches to (its public build report) disabled."""
    simd = np.show_config(mode="dicts")["SIMD Extensions"]
    dispatched = [*simd.get("found", []), *simd.get("not found", [])]
    return {**os.environ, "OPENBLAS_CORETYPE": "Nehalem", "NPY_DISABLE_CPU_FEATURES": ",".join(dispatched)}


def paths_digest_in_child(env: dict[str, str]) -> tuple[str, list[str]]:
    """The digest of SERIES' paths computed in a fresh interpreter under ``env``, and the core types OpenBLAS
    reports there (threadpoolctl), so a switch the library ignored shows."""
    code = ("import json, warnings; warnings.simplefilter('ignore')\n"
            "import test_evals_ets_public as t\n"
            "from league_agents import ets_fit\n"
            "from threadpoolctl import threadpool_info\n"
            "paths = [t.bits(ets_fit.forecast_path((tuple(c), t.STEPS))) for c in t.SERIES.values()]\n"
            "cores = sorted({i.get('architecture', '') for i in threadpool_info()\n"
            "                if i['internal_api'] == 'openblas'})\n"
            "print(json.dumps([t.digest(paths), cores]))\n")
    env = {**env, "PYTHONPATH": os.pathsep.join(p for p in (str(HERE), env.get("PYTHONPATH", "")) if p)}
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=600,
                          check=False)
    assert done.returncode == 0, done.stderr
    found, cores = json.loads(done.stdout.strip().splitlines()[-1])
    return found, cores


@pytest.mark.skipif(platform.machine().lower() not in ("x86_64", "amd64"),
                    reason="the digest is pinned on x86-64's baseline kernels; other CPUs have their own")
def test_the_paths_are_the_pinned_libraries_floats() -> None:
    found, cores = paths_digest_in_child(baseline_env())
    assert cores == ["Nehalem"]
    assert found == PINNED_DIGEST


@pytest.mark.parametrize("steps", [1, 2, 21, 300])
def test_every_path_length_is_statsmodels(steps: int) -> None:
    closes = SERIES["trend4"]
    res = ets_model.fit_plain(pd.Series(closes, dtype=float))
    assert bits(ets_fit.forecast_path((tuple(closes), steps))) == bits(ets_model.prediction_path(res, steps))


def test_a_path_of_no_steps_raises_as_statsmodels_does() -> None:
    closes = tuple(SERIES["walk90"])
    res = ets_model.fit_plain(pd.Series(closes, dtype=float))
    with pytest.raises(ValueError) as theirs:
        ets_model.prediction_path(res, 0)
    with pytest.raises(ValueError) as ours:
        ets_fit.forecast_path((closes, 0))
    assert str(ours.value) == str(theirs.value)


# ------------------------------------------------------------------------------------------- public names only
def private_uses(source: str, *, attributes: bool) -> list[str]:
    """Imports of a private module or name of the scientific libraries (a component starting with ``_``) and,
    with ``attributes``, every read of a private attribute (``x._name``; dunders are the language's own)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{a.name}" for a in node.names]
        for name in names:
            parts = name.split(".")
            if parts[0] in LIBRARIES and any(p.startswith("_") for p in parts):
                found.append(f"line {node.lineno}: import {name}")
        if attributes and isinstance(node, ast.Attribute) and node.attr.startswith("_") \
                and not (node.attr.startswith("__") and node.attr.endswith("__")):
            found.append(f"line {node.lineno}: .{node.attr}")
    return found


def test_the_adapters_import_no_private_module_of_the_scientific_libraries() -> None:
    found = {p.name: private_uses(p.read_text(encoding="utf-8"), attributes=False) for p in AGENTS.glob("*.py")}
    assert {name: uses for name, uses in found.items() if uses} == {}


def test_the_fit_module_reads_no_private_attribute() -> None:
    assert private_uses((AGENTS / "ets_model.py").read_text(encoding="utf-8"), attributes=True) == []


def test_the_check_finds_private_names() -> None:
    planted = ("from statsmodels.tsa.exponential_smoothing import _ets_smooth\n"
               "import scipy.optimize._lbfgsb\n"
               "from scipy.optimize import _numdiff\n"
               "from statsmodels.tsa.exponential_smoothing.ets import ETSModel\n"
               "from league_agents import _private_but_ours\n"
               "x = ETSModel._setup_bounds\n"
               "y = ETSModel.__name__\n")
    assert private_uses(planted, attributes=False) == [
        "line 1: import statsmodels.tsa.exponential_smoothing._ets_smooth", "line 2: import scipy.optimize._lbfgsb",
        "line 3: import scipy.optimize._numdiff"]
    assert private_uses(planted, attributes=True)[-1] == "line 6: ._setup_bounds"


# ------------------------------------------------------------------------------------------- without the extra
def test_without_statsmodels_a_fit_fails_naming_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """A lean install's `_ets` seat fails its asks with the install command (the seat's ordinary failure)."""
    monkeypatch.delitem(sys.modules, "league_agents.ets_model")
    monkeypatch.delattr(league_agents, "ets_model")
    for name in [m for m in sys.modules if m.split(".")[0] == "statsmodels"]:
        monkeypatch.setitem(sys.modules, name, None)  # importing it raises ModuleNotFoundError
    with pytest.raises(MissingDependency) as failed:
        ets_fit.forecast_path((tuple(SERIES["walk90"]), STEPS))
    assert "pip install 'forecast-league[stats]'" in failed.value.diagnostics()


def test_a_missing_module_of_this_project_stays_a_bug() -> None:
    def missing(name: str) -> Any:
        with extra("stats"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)

    with pytest.raises(MissingDependency):
        missing("statsmodels.tsa")
    with pytest.raises(ModuleNotFoundError) as bug:
        missing("league_agents.no_such_module")
    assert not isinstance(bug.value, MissingDependency)

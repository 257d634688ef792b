"""The suite writes nothing into the source tree (tests/conftest.py): children the tests start inherit a
byte-code prefix outside it (or no byte code at all), pytest's cache plugin is off, and Hypothesis keeps its
storage outside it. A checkout that ran the suite stays as clean as it was, and the checkouts of several
people (or worktrees) can run their suites side by side without writing into each other."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import configuration

ROOT = Path(__file__).resolve().parents[3]


def outside_tree(path: str | Path) -> bool:
    return not Path(path).resolve().is_relative_to(ROOT)


def test_a_child_python_writes_its_byte_code_outside_the_tree(tmp_path: Path) -> None:
    """A child started as the tests start theirs (inheriting the environment) imports a fresh module: no
    ``__pycache__`` appears beside it, and any prefix it uses lies outside the checkout."""
    (tmp_path / "fresh_module_for_pycache_check.py").write_text("VALUE = 1\n", encoding="utf-8")
    code = (
        "import sys; sys.path.insert(0, sys.argv[1]); import fresh_module_for_pycache_check; "
        "print(sys.dont_write_bytecode); print(sys.pycache_prefix or '')"
    )
    out = subprocess.run([sys.executable, "-c", code, str(tmp_path)], check=True, capture_output=True, text=True)
    dont_write, prefix = out.stdout.splitlines()
    assert not (tmp_path / "__pycache__").exists()
    assert dont_write == "True" or (prefix and outside_tree(prefix))
    assert os.environ.get("PYTHONDONTWRITEBYTECODE") or outside_tree(os.environ["PYTHONPYCACHEPREFIX"])


def test_this_process_writes_its_byte_code_outside_the_tree() -> None:
    assert sys.dont_write_bytecode or (sys.pycache_prefix is not None and outside_tree(sys.pycache_prefix))


def test_pytests_cache_plugin_is_off(pytestconfig: pytest.Config) -> None:
    """Its ``.pytest_cache`` would be written at the root of the checkout."""
    assert pytestconfig.pluginmanager.get_plugin("cacheprovider") is None
    assert not hasattr(pytestconfig, "cache")


def test_hypothesis_keeps_its_storage_outside_the_tree() -> None:
    """Its example database and caches (``.hypothesis/`` in the working folder by default)."""
    storage = configuration.storage_directory("examples", intent_to_write=False)
    assert outside_tree(getattr(storage, "path", storage))  # a StorageDirectory in recent versions, else a Path

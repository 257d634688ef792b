"""The `league` command never imports a scientific package (or the daemon's stack) at start.

The lean install has none of them, so a verb module that imported pandas at its top would take every verb
down; and a reader's `league verify BOOK` should not pay seconds of imports it does not use. Each verb's
``--help`` is run in one fresh interpreter, which then lists what got imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from league.extras import DAEMON, STATS, MissingExtra, explain, install_hint

PROBE = """
import json, sys
from typer.main import get_command
from typer.testing import CliRunner
from league.cli import app
group = get_command(app)
failed = []
for name in sorted(group.commands):
    result = CliRunner().invoke(app, [name, "--help"])
    if result.exit_code != 0:
        failed.append(name)
print(json.dumps({"verbs": sorted(group.commands), "failed": failed, "modules": sorted(sys.modules)}))
"""


def test_no_verb_imports_the_scientific_stack_at_start() -> None:
    done = subprocess.run([sys.executable, "-c", PROBE], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"verify", "seat", "worker", "stats", "rebuild", "daemon"} <= set(report["verbs"])
    assert report["failed"] == []
    heavy = {m.split(".")[0] for m in report["modules"]} & set(STATS + DAEMON)
    assert heavy == set(), f"imported at start: {sorted(heavy)}"


@pytest.mark.parametrize(("module", "extra"), [("pandas", "stats"), ("exchange_calendars", "stats"),
                                               ("scipy.stats", "stats"), ("sqlalchemy.orm", "daemon"),
                                               ("uvicorn", "daemon"), ("yfinance", "yahoo")])
def test_a_missing_library_of_an_extra_names_the_extra(module: str, extra: str) -> None:
    error = explain(ModuleNotFoundError(f"No module named {module!r}", name=module))
    assert isinstance(error, MissingExtra) and error.exit_code == 2
    assert error.fix == install_hint(extra) == f"pip install 'forecast-league[{extra}]'"
    assert module.split(".")[0] in error.message


def test_any_other_missing_module_stays_a_bug() -> None:
    assert explain(ModuleNotFoundError("No module named 'league.nothing'", name="league.nothing")) is None
    assert explain(ModuleNotFoundError("no name")) is None


ADAPTERS = """
import json, sys
from league_agents.registry import SEATS, load_adapter
loaded = [name for name in SEATS.names() if not SEATS.entry_point(name).extras and load_adapter(name)]
print(json.dumps({"loaded": loaded, "modules": sorted(sys.modules)}))
"""


def test_the_adapters_without_an_extra_import_no_scientific_package() -> None:
    """A lean install checks a roster by importing each seat's adapter: the baselines' module must not pull
    numpy in at import (the ETS fit's module, league_agents.ets_model, is imported with the fit)."""
    done = subprocess.run([sys.executable, "-c", ADAPTERS], capture_output=True, text=True, timeout=120, check=True)
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert {"coin", "ets", "scripted", "claude_code"} <= set(report["loaded"])
    heavy = {m.split(".")[0] for m in report["modules"]} & set(STATS + DAEMON)
    assert heavy == set(), f"imported with the adapters: {sorted(heavy)}"

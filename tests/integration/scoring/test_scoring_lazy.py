"""The scoring package loads its statistics' stack (scipy.stats, statsmodels, arch) only when a statistic needs
it: a league's day (the demo's season, the daemon's jobs) reads the climatology table, the score functions and
the shadow weights, and never pays the ~1 s import."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("scipy.stats", "statsmodels", "arch")


def loaded_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint(','.join(m for m in {HEAVY!r} if m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    return [m for m in done.stdout.strip().split(",") if m]


def test_a_day_s_modules_leave_the_statistics_stack_unloaded() -> None:
    day = ("import league.scoring, league.scoring.climatology, league.scoring.council, league.scoring.frame\n"
           "from league.scoring.climatology import default_table\nfrom league.scoring.frame import load_forecasts\n"
           "import league.jobs.scheduler, league.jobs.shadow, league.jobs.publish, league.publish.producers")
    assert loaded_after(day) == []


def test_a_statistic_loads_it() -> None:
    assert loaded_after("from league.scoring.publish import build_all") == list(HEAVY)

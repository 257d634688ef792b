"""Run the league's catch-up loop under a simulated clock up to a given instant, then die by SIGKILL.

Used by test_restart.py: ``python child_daemon.py CONFIG_DIR SESSION STOP_HHMM``.
"""

from __future__ import annotations

import os
import signal
import sys
from datetime import date, time, timedelta
from pathlib import Path

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.jobs.context import BARE
from league.jobs.scheduler import catch_up, session_start
from league.jobs.seal import pump
from league.store import open_store


def main() -> None:
    config_dir, session, stop = Path(sys.argv[1]), date.fromisoformat(sys.argv[2]), sys.argv[3]
    config = load_config(config_dir)
    clock = SimulatedClock(session_start(session))
    store = open_store(config.database_url)
    lg = build_league(config, clock, stages=BARE)
    hour, minute = (int(x) for x in stop.split(":"))
    until = et_time(session, time(hour, minute))
    catch_up(lg, et_time(session, time(3, 0)), until, ledger=store, before_each=lambda f: pump(lg, f.at))
    print(lg.books.book.lines, flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
    _ = timedelta


if __name__ == "__main__":
    main()

"""Evaluation runs anchored like the council: the eval book's head stamped by a league's authorities.

``league eval questions --stamp-config CONFIG`` takes the ``[stamps]`` settings of that league (its RFC
3161 authorities, OpenTimestamps calendars, transparency log, or the demo's local test authorities)
and, once the run is closed, stamps a list naming ``eval-book.jsonl`` with its line count and prefix
digest. The lists, tokens and proofs go to ``OUT/stamps`` and are published in ``OUT/public/stamps``,
so a reader checks them as the council's (docs/stamps.md). Stamping never fails the run: a failing
authority is reported in the list's status file, as for the council.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from league.clock import Clock
from league.config import load_config
from league.stamping.stamper import Stamper, StampResult, config_from_settings


def stamp_eval_book(config_dir: Path, out: Path, clock: Clock, run_id: str) -> StampResult | None:
    """Stamp OUT/eval-book.jsonl with the league's authorities; copy the stamps into OUT/public/stamps."""
    league = load_config(config_dir)
    stamper = Stamper(config_from_settings(league.settings.stamps, league.data_dir), out / "stamps", clock)
    result = stamper.stamp_books([("eval-book.jsonl", out / "eval-book.jsonl")], note=f"evaluation run {run_id}")
    if (out / "stamps").is_dir():
        shutil.copytree(out / "stamps", out / "public" / "stamps", dirs_exist_ok=True)
    return result

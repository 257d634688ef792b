"""A league folder: ``config/`` copied from the shipped example and ``data/`` with its books opened.

What ``league init DIR`` writes, and what the demo and the tests start from: the example config
(with ``demo=True`` the offline one: replay prices, the scripted roster, local authorities, the
simulated clock), the signing key, the climatology table sealed before the season, and both books
with their first lines.
"""

from __future__ import annotations

import csv
import gzip
import hashlib
import io
import json
import re
import shutil
from pathlib import Path
from typing import Any

from league.clock import Clock, SystemClock
from league.config import load_config, shipped_config_dir
from league.errors import ConfigError
from league.extras import extra
from league.jobs.books import seal_opening
from league.scoring import climatology as clim
from league.stamps.rekor import generate_signing_key


def _today() -> Any:
    return SystemClock().now()


def write_climatology(data_dir: Path, season_start: Any, history: Path | None = None,
                      symbols: dict[str, str] | None = None) -> Path:
    """Seal the climatology table before the season: the paper's 2016-2025 window of daily history
    (scoring.md §2), its content hash inside; every reader re-checks that hash.

    ``history``: a recorded history file (``symbol, day, open, close``), copied into DATA beside the
    table and named with its SHA-256 in it; without one, the demo's shipped history is used.
    """
    path = data_dir / "climatology.json"
    if history is None:
        table = clim.default_table(season_start)
    else:
        kept = data_dir / "climatology-history.csv.gz"
        if history.resolve() != kept.resolve():
            shutil.copyfile(history, kept)
        digest = hashlib.sha256(kept.read_bytes()).hexdigest()
        table = clim.build_climatology(clim.read_history(clim.history_file_rows(kept), symbols or {}),
                                       window_start=clim.WINDOW[0], window_end=clim.WINDOW[1],
                                       season_start=season_start, source=f"{kept.name} sha256 {digest}")
    path.write_text(json.dumps(table, sort_keys=True, indent=1), encoding="utf-8")
    return path


def fetch_history(config: Any, target: Path) -> Path:
    """``league init``: the twelve markets' 2016-2025 daily bars from Yahoo (yfinance), recorded in
    ``target`` (gzip CSV), so the table sealed from them can be rebuilt from the file later."""
    with extra("yahoo"):
        from league.prices.yahoo import YahooProvider, daily_history
    provider = YahooProvider(retries=config.settings.prices.retries)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=["symbol", "day", "open", "close"], lineterminator="\n")
    writer.writeheader()
    for m in config.markets.markets:
        writer.writerows(daily_history(provider, m.symbol, clim.WINDOW[0], clim.WINDOW[1]))
    target.write_bytes(gzip.compress(text.getvalue().encode("utf-8"), mtime=0))
    return target


def _offline_stamps(text: str) -> str:
    """The demo reaches no public authority, calendar or log: its [stamps] lists are emptied (the
    local test authorities of ``local_tsa`` stand in, and say so)."""
    text = re.sub(r"(?ms)^tsa = \[\n.*?^\]\n", "tsa = []  # offline demo: local test authorities only\n", text)
    text = re.sub(r"(?m)^ots_calendars = \[.*\]$", "ots_calendars = []  # offline demo: no public calendars", text)
    return re.sub(r'(?m)^rekor_url = "[^"]*"', 'rekor_url = ""', text)


def init_folder(target: Path, *, demo: bool = False, seed: int | None = None,
                clock: Clock | None = None, history: Path | None = None) -> tuple[Path, Path]:
    """Copy the example config into TARGET/config, make TARGET/data, open both books.

    The climatology is sealed from ``history`` (a recorded daily history file) when given; else a live
    league fetches the twelve markets' 2016-2025 daily bars with yfinance and the demo uses its shipped
    history."""
    config_dir, data_dir = target / "config", target / "data"
    if (config_dir / "league.toml").exists():
        raise ConfigError(f"{config_dir} already holds a config", fix="choose an empty folder")
    shutil.copytree(shipped_config_dir(), config_dir, dirs_exist_ok=True)
    if not demo:
        (config_dir / "roster.demo.toml").unlink()
    else:
        (config_dir / "roster.demo.toml").replace(config_dir / "roster.toml")
        text = (config_dir / "league.toml").read_text(encoding="utf-8")
        text = text.replace('provider = "yahoo"', 'provider = "replay"')
        text = text.replace("local_tsa = false", "local_tsa = true")
        text = text.replace("per_answer = true ", "per_answer = false")  # the 09:30 stamp is signed at 09:30:00
        text = text.replace('mode = "system"', 'mode = "simulated"')
        text = _offline_stamps(text)
        if seed is not None:
            text = text.replace("seed = 7 ", f"seed = {int(seed)} ")
        (config_dir / "league.toml").write_text(text, encoding="utf-8")
    config = load_config(config_dir)
    generate_signing_key(config.data_dir / config.settings.stamps.key)
    if history is None and not demo:
        history = fetch_history(config, config.data_dir / "climatology-history.csv.gz")
    write_climatology(config.data_dir, (clock.now() if clock else _today()).date(), history,
                      {m.symbol: m.code for m in config.markets.markets})
    seal_opening(config, clock or SystemClock())
    return config_dir, data_dir

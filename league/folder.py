"""A league folder: ``config/`` copied from the shipped example and ``data/`` with its books opened.

Built all or nothing: in a hidden folder beside the target, renamed into place at the end.

What ``league init DIR`` writes, and what the demo and the tests start from: the example config
(with ``demo=True`` the offline one: replay prices, the scripted roster, local authorities, the
simulated clock), the signing key, the climatology table sealed before the season, and both books
with their first lines.
"""

from __future__ import annotations

import contextlib
import csv
import gzip
import hashlib
import io
import json
import os
import re
import secrets
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from league.clock import Clock, SystemClock
from league.config import Config, load_config, shipped_config_dir
from league.errors import ConfigError
from league.extras import MissingExtra, extra
from league.inputs import InputError
from league.jobs.books import seal_opening
from league.prices.interface import PriceError
from league.scoring import climatology as clim
from league.stamps.rekor import generate_signing_key


def _today() -> Any:
    return SystemClock().now()


#: The formats a recorded history file is read in (what --history takes), named in its errors.
HISTORY_FORMAT = "CSV with the columns symbol,day,open,close (gzip when the name ends in .gz)"


def write_climatology(data_dir: Path, season_start: Any, history: Path | None = None,
                      symbols: dict[str, str] | None = None) -> Path:
    """Seal the climatology table before the season: the paper's 2016-2025 window of daily history
    (scoring.md §2), its content hash inside; every reader re-checks that hash.

    ``history``: a recorded history file (``symbol, day, open, close``), copied into DATA beside the
    table and named with its SHA-256 in it; without one, the demo's shipped history is used. A file that
    is not such a history is an :class:`InputError` naming it (it was a traceback: a KeyError or a gzip error).
    """
    path = data_dir / "climatology.json"
    if history is None:
        table = clim.default_table(season_start)
    else:
        kept = data_dir / "climatology-history.csv.gz"
        if history.resolve() != kept.resolve():  # kept gzip-compressed whatever it was given as (.csv or .csv.gz)
            data = history.read_bytes()
            kept.write_bytes(data if history.name.endswith(".gz") else gzip.compress(data, mtime=0))
        digest = hashlib.sha256(kept.read_bytes()).hexdigest()
        series = _read_history(kept, history, symbols or {})
        table = clim.build_climatology(series, window_start=clim.WINDOW[0], window_end=clim.WINDOW[1],
                                       season_start=season_start, source=f"{kept.name} sha256 {digest}")
    path.write_text(json.dumps(table, sort_keys=True, indent=1), encoding="utf-8")
    return path


def _read_history(kept: Path, given: Path, symbols: dict[str, str]) -> dict[str, clim.HistorySeries]:
    """The series of a recorded history file, or an InputError naming the file given and the format."""
    try:
        series = clim.read_history(clim.history_file_rows(kept), symbols)
    except (KeyError, ValueError, TypeError, UnicodeDecodeError, EOFError, gzip.BadGzipFile, csv.Error) as exc:
        raise InputError(f"--history {given}: not a recorded daily history ({type(exc).__name__}: {exc})",
                         fix=f"give a {HISTORY_FORMAT}, or leave --history out") from None
    if not series:
        raise InputError(f"--history {given}: no row names a market of markets.toml",
                         fix=f"give a {HISTORY_FORMAT} whose symbols are the markets' (e.g. ^GSPC)")
    return series


def fetch_history(config: Any, target: Path, *, retries: int | None = None) -> Path:
    """``league init``: the twelve markets' 2016-2025 daily bars from Yahoo (yfinance), recorded in
    ``target`` (gzip CSV), so the table sealed from them can be rebuilt from the file later. ``retries``
    (default: [prices] retries) bounds the wait of an init run without the network."""
    with extra("yahoo"):
        from league.prices.yahoo import YahooProvider, daily_history
    provider = YahooProvider(retries=config.settings.prices.retries if retries is None else retries)
    text = io.StringIO()
    writer = csv.DictWriter(text, fieldnames=["symbol", "day", "open", "close"], lineterminator="\n")
    writer.writeheader()
    for m in config.markets.markets:
        writer.writerows(daily_history(provider, m.symbol, clim.WINDOW[0], clim.WINDOW[1]))
    target.write_bytes(gzip.compress(text.getvalue().encode("utf-8"), mtime=0))
    return target


#: Tries of each Yahoo request during `league init` (the daemon's [prices] retries wait ~30 s without a network).
INIT_FETCH_RETRIES = 1


def _history(config: Config, given: Path | None, *, demo: bool, offline: bool) -> tuple[Path | None, str]:
    """The history the climatology is sealed from, and the line saying so: ``--history FILE``; the demo's shipped
    history; with ``offline``, or when Yahoo cannot be reached, the shipped history copied into DATA (a live
    league's data folder then holds the very file its table was built from); else 2016-2025 from Yahoo."""
    if given is not None:
        return given, f"climatology: sealed from --history {given} (kept as data/climatology-history.csv.gz)"
    shipped = f"the history shipped in the package ({clim.SHIPPED_HISTORY.name}, 2016-2025 daily bars)"
    if demo:
        return None, f"climatology: sealed from {shipped}"
    if offline:
        return clim.SHIPPED_HISTORY, (f"climatology: sealed from {shipped} (--offline; kept as "
                                      "data/climatology-history.csv.gz)")
    try:
        fetched = fetch_history(config, config.data_dir / "climatology-history.csv.gz", retries=INIT_FETCH_RETRIES)
    except MissingExtra as exc:  # the live league's prices need yfinance too; the history alone does not
        raise MissingExtra(exc.message, fix=f"{exc.fix} (a live league's prices need it too); or seal the "
                                            "climatology without it: league init --offline DIR, or --history FILE"
                           ) from exc
    except PriceError as exc:
        return clim.SHIPPED_HISTORY, (f"climatology: the Yahoo fetch failed, the network looks absent "
                                      f"({exc.message[:200]}); sealed from {shipped} instead (kept as "
                                      "data/climatology-history.csv.gz)")
    return fetched, ("climatology: sealed from 2016-2025 daily bars fetched from Yahoo (kept as "
                     "data/climatology-history.csv.gz)")


def _offline_stamps(text: str) -> str:
    """The demo reaches no public authority, calendar or log: its [stamps] lists are emptied (the
    local test authorities of ``local_tsa`` stand in, and say so)."""
    text = re.sub(r"(?ms)^tsa = \[\n.*?^\]\n", "tsa = []  # offline demo: local test authorities only\n", text)
    text = re.sub(r"(?m)^ots_calendars = \[.*\]$", "ots_calendars = []  # offline demo: no public calendars", text)
    return re.sub(r'(?m)^rekor_url = "[^"]*"', 'rekor_url = ""', text)


def init_folder(target: Path, *, demo: bool = False, seed: int | None = None,
                clock: Clock | None = None, history: Path | None = None, offline: bool = False,
                say: Callable[[str], None] | None = None) -> tuple[Path, Path]:
    """Copy the example config into TARGET/config, make TARGET/data, open both books: all or nothing.

    Everything is built in a hidden folder beside TARGET (``.NAME.init-PID-XXXX``, same file system) and renamed
    into place at the end, so a failure (a bad history file, a full disk, Ctrl-C) leaves no half-made league
    that a second run would refuse or, worse, a daemon would start on. The climatology is sealed from
    ``history`` when given; else a live league fetches the 2016-2025 daily bars with yfinance and falls back
    to the shipped history when Yahoo cannot be reached (or at once with ``offline``); the demo uses the
    shipped history. ``say`` is told which history was used."""
    config_dir, data_dir = target / "config", target / "data"
    if (config_dir / "league.toml").exists():
        raise ConfigError(f"{config_dir} already holds a config", fix="choose an empty folder")
    for part in (config_dir, data_dir):
        if os.path.lexists(part) and (not part.is_dir() or part.is_symlink() or any(part.iterdir())):
            raise ConfigError(f"{part} already exists and is not an empty folder",
                              fix="choose a new or empty folder for `league init` (it writes config/ and data/)")
    made = _make_parents(target.parent)
    _sweep_abandoned(target, say or (lambda _text: None))
    staging = target.parent / f".{target.name}.init-{os.getpid()}-{secrets.token_hex(4)}"
    try:
        staging.mkdir()
        _build(staging, demo=demo, seed=seed, clock=clock, history=history, offline=offline,
               say=say or (lambda _text: None))
        _move_into_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for folder in made:  # the parents this call created, deepest first, when nothing else was put there
            with contextlib.suppress(OSError):
                folder.rmdir()
        raise
    return config_dir, data_dir


def _sweep_abandoned(target: Path, say: Callable[[str], None]) -> None:
    """Remove the staging folders a killed ``league init`` of the same TARGET left behind.

    A SIGKILL (or a power cut) skips the clean-up above, and the hidden folder would stay beside TARGET for ever.
    Its name carries the pid that made it: a folder whose process no longer exists is abandoned and removed (and
    the operator told); one whose pid is alive, or whose name carries no pid, is left alone, since another
    ``league init`` may be building it right now."""
    for leftover in sorted(target.parent.glob(f".{target.name}.init-*")):
        pid_text = leftover.name.rsplit(".init-", 1)[1].split("-", 1)[0]
        if not pid_text.isdigit() or not leftover.is_dir() or leftover.is_symlink() or _alive(int(pid_text)):
            continue
        shutil.rmtree(leftover, ignore_errors=True)
        say(f"removed {leftover.name}, left beside {target.name} by an interrupted `league init` (pid {pid_text})")


def _alive(pid: int) -> bool:
    """Whether a process with this pid exists (signal 0 checks without sending anything)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # it exists, owned by another user
        return True
    return True


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; the ones created, deepest first."""
    missing_parents = []
    probe = folder
    while not os.path.lexists(probe) and probe != probe.parent:
        missing_parents.append(probe)
        probe = probe.parent
    folder.mkdir(parents=True, exist_ok=True)
    return missing_parents


def _move_into_place(staging: Path, target: Path) -> None:
    """A new TARGET is the staging folder renamed (one atomic step); into an existing TARGET (an empty one, or
    the demo's --out with its lock file) config/ then data/ are renamed, config/ taken back if data/ fails."""
    if not os.path.lexists(target):
        staging.rename(target)
        return
    moved: list[Path] = []
    try:
        for part in ("config", "data"):
            if (target / part).is_dir() and not (target / part).is_symlink():
                (target / part).rmdir()  # checked empty above; a file put there since makes this fail
            (staging / part).rename(target / part)
            moved.append(target / part)
    except BaseException:
        for done in moved:
            done.rename(staging / done.name)
        raise
    staging.rmdir()


def _build(target: Path, *, demo: bool, seed: int | None, clock: Clock | None, history: Path | None,
           offline: bool, say: Callable[[str], None]) -> None:
    """The league folder's content, written under ``target`` (the staging folder)."""
    config_dir = target / "config"
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
    chosen, said = _history(config, history, demo=demo, offline=offline)
    write_climatology(config.data_dir, (clock.now() if clock else _today()).date(), chosen,
                      {m.symbol: m.code for m in config.markets.markets})
    say(said)
    seal_opening(config, clock or SystemClock())

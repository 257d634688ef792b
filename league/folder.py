"""A league folder: ``config/`` copied from the shipped example and ``data/`` with its books opened.

What ``league init DIR`` writes, and what the demo and the tests start from: the example config
(with ``demo=True`` the offline one: replay prices, the scripted roster, local authorities, the
simulated clock), the signing key, the climatology table sealed before the season, and both books
with their first lines.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from league.clock import Clock, SystemClock
from league.errors import ConfigError


def _today() -> Any:
    return SystemClock().now()


def write_climatology(data_dir: Path, season_start: Any) -> Path:
    """Seal the climatology table before the season: a window of daily history that ends before it
    (scoring.md §2), its content hash inside; every reader re-checks that hash."""
    import json

    from league.scoring.climatology import default_table

    path = data_dir / "climatology.json"
    path.write_text(json.dumps(default_table(season_start), sort_keys=True, indent=1), encoding="utf-8")
    return path


def init_folder(target: Path, *, demo: bool = False, seed: int | None = None,
                clock: Clock | None = None) -> tuple[Path, Path]:
    """Copy the example config into TARGET/config, make TARGET/data, open both books."""
    from league.config import load_config, shipped_config_dir
    from league.jobs.context import seal_opening

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
        text = text.replace('ots_calendars = ["https://a.pool.opentimestamps.org", "https://b.pool.opentimestamps.org"]',
                            "ots_calendars = []  # offline demo: no public calendars")
        if seed is not None:
            text = text.replace("seed = 7 ", f"seed = {int(seed)} ")
        (config_dir / "league.toml").write_text(text, encoding="utf-8")
    config = load_config(config_dir)
    from league.stamps.rekor import generate_signing_key

    generate_signing_key(config.data_dir / config.settings.stamps.key)
    write_climatology(config.data_dir, (clock.now() if clock else _today()).date())
    seal_opening(config, clock or SystemClock())
    return config_dir, data_dir

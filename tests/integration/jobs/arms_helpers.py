"""Small leagues with the experiments' arms: the day tests' folder plus [news] (synthetic recorded feeds) and
[arms] in league.toml."""

from __future__ import annotations

import json
import re
from datetime import date, timedelta
from pathlib import Path

from league.news.synthetic import write_demo_feeds


def enable_arms(config_dir: Path, data_dir: Path, session: date, *, arms: tuple[str, ...] = ("closed_book",
                "price_only"), repeat_seats: tuple[str, ...] = (), repeat_day: str = "fri", seats: tuple[str, ...] = (),
                extra_runs: tuple[str, ...] = ()) -> None:
    """Turn the arms on in a league folder made by day_helpers.league_dir, with feeds around ``session``."""
    path = config_dir / "league.toml"
    text = path.read_text(encoding="utf-8")
    text = text.replace('[news]                           # headlines for', '[news]  # headlines for', 1)
    text = text.replace('\nprovider = "none"                # "feeds"', '\nprovider = "recorded"  # "feeds"', 1)
    text = text.replace("\narms = []", f"\narms = {json.dumps(list(arms))}", 1)
    text = text.replace("\nrepeat_seats = []", f"\nrepeat_seats = {json.dumps(list(repeat_seats))}", 1)
    text = text.replace('\nrepeat_day = "fri"', f'\nrepeat_day = "{repeat_day}"', 1)
    text = text.replace('\nseed = 20261206', f"\nseed = 20261206\nextra_runs = {json.dumps(list(extra_runs))}", 1)
    if seats:
        text = text.replace("\n# seats = []", f"\nseats = {json.dumps(list(seats))}", 1)
    path.write_text(text, encoding="utf-8")
    write_demo_feeds(data_dir / "news", session - timedelta(days=4), session, seed=5)


def book_lines(path: Path) -> list[dict[str, object]]:
    return [json.loads(x) for x in path.read_bytes().splitlines()]


def enable_talk(config_dir: Path, *, weekday: str = "fri", seed: int | None = None) -> None:
    """Turn the council talk on in a league folder made by day_helpers.league_dir."""
    path = config_dir / "league.toml"
    text = path.read_text(encoding="utf-8")
    text, done = re.subn(r'(?m)^(\[talk\].*\n)enabled = false\nweekday = "fri"',
                         rf'\1enabled = true\nweekday = "{weekday}"', text, count=1)
    assert done == 1, "league.toml has no [talk] table to enable"
    if seed is not None:
        text = re.sub(r"(?m)^(\[talk\][^\[]*?)seed = 20261206", rf"\1seed = {seed}", text, count=1)
    path.write_text(text, encoding="utf-8")

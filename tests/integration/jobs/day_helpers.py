"""Small leagues for the day tests: a demo-style folder (replay prices, local authorities) with a roster."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from league.clock import SimulatedClock
from league.folder import init_folder

COUNTING = 'counting_rule = "The scheduled 08:30 ET morning run counts."\n'


def seat(name: str, adapter: str, **options: Any) -> str:
    """One [[seat]] table; options as a TOML inline table."""
    text = f'[[seat]]\nname = "{name}"\nadapter = "{adapter}"\n'
    if options:
        inline = ", ".join(f'{k} = "{v}"' if isinstance(v, str) else f"{k} = {v}" for k, v in options.items())
        text += f"options = {{ {inline} }}\n"
    return text


def roster(*seats: str) -> str:
    return COUNTING + "".join(seats)


BASELINES = roster(seat("_coin", "coin"), seat("_momentum", "momentum"))


def league_dir(tmp_path: Path, roster_text: str, start: datetime) -> tuple[Path, Path, SimulatedClock]:
    """(config folder, data folder, clock) of a fresh offline league opened at ``start``."""
    clock = SimulatedClock(start)
    config_dir, data_dir = init_folder(tmp_path, demo=True, clock=clock)
    (config_dir / "roster.toml").write_text(roster_text)
    return config_dir, data_dir, clock


CLIS = Path(__file__).resolve().parents[2] / "assets" / "clis"


def hostile_seat(name: str, behaviour: str, *, profile: str = "scripted", timeout_s: float = 60) -> str:
    """A seat running the hostile stand-in CLI (tests/assets/clis/hostile) through the Claude Code
    adapter in the real sandbox; ``behaviour`` goes in as the model name."""
    return (f'[[seat]]\nname = "{name}"\nadapter = "claude_code"\nmodel = "{behaviour}"\nprofile = "{profile}"\n'
            f"timeout_s = {timeout_s}\noptions = {{ executable = \"{CLIS / 'hostile'}\" }}\n")

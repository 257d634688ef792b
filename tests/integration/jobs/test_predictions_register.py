"""Registering a registry in a small league: checked, sealed with its scripts' hashes, refused once a window's
data exists, refused again under the same ids or with a script whose bytes differ from the stated hash; then
resolved by the nightly publication on its check date, once, and never again."""

from __future__ import annotations

import hashlib
import json
from datetime import date, time, timedelta
from pathlib import Path
from typing import Any

import pytest
from day_helpers import league_dir, roster, seat

from league.calendar import et_time
from league.compose import build_league
from league.config import load_config
from league.jobs.context import Stages
from league.jobs.predictions import register
from league.jobs.scheduler import run_session
from league.predictions.registry import RegistryError
from league_agents.base import SeatReply

DAYS = (date(2026, 11, 9), date(2026, 11, 10), date(2026, 11, 11))
SCRIPT = '''import json, sys
print(json.dumps({"value": 3.5, "n": 12, "detail": "a constant"}))
'''


def _registry(folder: Path, *, first: int, ids: tuple[str, str] = ("R1", "R2"), sha: str | None = None) -> Path:
    (folder / "m.py").write_text(SCRIPT, encoding="utf-8")
    digest = sha or hashlib.sha256(SCRIPT.encode()).hexdigest()
    path = folder / f"registry-{first}-{ids[0]}.toml"
    path.write_text(f'''[registry]
name = "small"
note = "a test"

[window]
from_session = {first}

[[prediction]]
id = "{ids[0]}"
statement = "the league's 1d table has rows"
measure = "council-league.json grid.by_horizon 1d n"
set = "A"
field = {{ file = "council-league.json", path = "grid.by_horizon[horizon=1d].n" }}
op = ">"
threshold = 0
check_date = {DAYS[1].isoformat()}
p = 0.9

[[prediction]]
id = "{ids[1]}"
statement = "a constant above 3"
measure = "m.py"
set = "B"
script = "m.py"
sha256 = "{digest}"
op = ">"
threshold = 3
min_sample = 10
check_date = {DAYS[2].isoformat()}
p = 0.8
''', encoding="utf-8")
    return path


class Seat:
    def __init__(self, name: str) -> None:
        self.name = name

    def ask(self, ask: Any, now: Any) -> SeatReply:
        t = now()
        raw = json.dumps({"forecast": {"SPX": {"1d": {"prob_up": 60, "action": "hold"}}}})
        return SeatReply(seat=self.name, raw=raw, model="m", version="v", mode="x", started_at=t,
                         finished_at=t + timedelta(seconds=20))


def test_registered_before_its_window_resolved_at_the_check_dates_publication_once(tmp_path: Path) -> None:
    config_dir, data_dir, clock = league_dir(tmp_path, roster(seat("alpha", "coin"), seat("bravo", "coin")),
                                             et_time(DAYS[0], time(3, 0)))
    config = load_config(config_dir)
    seats: dict[str, Any] = {s.name: Seat(s.name) for s in config.roster.seat}
    with build_league(config, clock, seats=seats, anchor=DAYS[0], stages=Stages(stamps=False)) as lg:
        run_session(lg, DAYS[0])
        # one session has run: a window from session 1 reads data that exists
        with pytest.raises(RegistryError, match="window starts at session 1, and 1 sessions have already run"):
            register(lg, _registry(tmp_path, first=1), stamp=False)
        with pytest.raises(RegistryError, match="key `sha256`"):
            register(lg, _registry(tmp_path, first=2, sha="0" * 64), stamp=False)
        line = register(lg, _registry(tmp_path, first=2), stamp=False)
        assert line.ids == ["R1", "R2"] and line.sessions == 1
        assert line.scripts == {"m.py": hashlib.sha256(SCRIPT.encode()).hexdigest()}
        kept = data_dir / "predictions" / f"registry-{line.registry_sha256}.toml"
        assert hashlib.sha256(kept.read_bytes()).hexdigest() == line.registry_sha256
        with pytest.raises(RegistryError, match="R1 is already registered"):
            register(lg, _registry(tmp_path, first=3), stamp=False)
        for day in DAYS[1:]:
            run_session(lg, day)
    book = [json.loads(x) for x in (data_dir / "books" / "arms-book.jsonl").read_bytes().splitlines()]
    resolved = [x for x in book if x["kind"] == "prediction_resolution"]
    assert [(x["id"], x["session"], x["status"]) for x in resolved] == [("R1", DAYS[1].isoformat(), "true"),
                                                                        ("R2", DAYS[2].isoformat(), "true")]
    assert resolved[1]["value"] == 3.5 and resolved[1]["sample"] == 12
    public = json.loads((data_dir / "public" / "predictions.json").read_text(encoding="utf-8"))
    assert [x["status"] for x in public["predictions"]] == ["true", "true"]
    league = json.loads((data_dir / "predictions" / "inputs" / resolved[0]["inputs"]["council-league.json"])
                        .read_text(encoding="utf-8"))  # the file as it was read, kept under its hash
    assert resolved[0]["value"] == next(x["n"] for x in league["grid"]["by_horizon"] if x["horizon"] == "1d")

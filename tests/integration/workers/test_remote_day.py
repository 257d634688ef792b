"""A league day whose seats are split over two lab workers on two hosts (network namespaces, TLS to the
broker) is sealed, scored and verified exactly as the same day with every seat on local threads.

Two leagues are opened from the same folder contents and the same simulated clock: one with the roster
as it is, one whose entries name a lab's `worker`. Both run the same two sessions through the
scheduler. Their council books and ask chains are then compared line by line: equal but for the
fields docs/workers.md declares as wall-clock ("The day through the workers") — none for scripted
seats, whose runs report a simulated latency. A late seat (its reply three hours after the ask) is
booked after the close in both, and scored by the late rules alike."""

from __future__ import annotations

import json
from datetime import date, time
from pathlib import Path
from typing import Any

import pytest
from worker_hosts import Pool

from league.calendar import et_time
from league.clock import SimulatedClock
from league.compose import build_league
from league.config import load_config
from league.folder import init_folder
from league.jobs.context import Stages
from league.jobs.scheduler import run_session
from league.runner import RoutedRunner
from league.verify.chain import verify
from league.workers.broker import BrokerTarget

pytestmark = [pytest.mark.slow, pytest.mark.sandbox]
DAYS = (date(2026, 11, 23), date(2026, 11, 24))
COUNTING = 'counting_rule = "The scheduled 08:30 ET morning run counts."\n'
#: (name, options, which lab runs it remotely: "a", "b" or "" for the league's own threads in both days)
SEATS = (("s-plain", 'seed = 1, latency_s = 40', "a"), ("s-skilled", 'seed = 2, skill = 0.6, latency_s = 95', "b"),
         ("s-malformed", 'mode = "malformed", latency_s = 10', "a"), ("s-late", 'mode = "late", seed = 3', "b"),
         ("s-home", 'seed = 4, latency_s = 20', ""))
#: Fields of a book line that hold the wall clock of the machine that ran the day (none, for these seats).
WALL_CLOCK: frozenset[str] = frozenset()


def roster_text(queues: dict[str, str]) -> str:
    out = [COUNTING, '[[seat]]\nname = "_coin"\nadapter = "coin"\n']
    for name, options, lab in SEATS:
        worker = f'worker = "{queues[lab]}"\n' if lab and queues else ""
        out.append(f'[[seat]]\nname = "{name}"\nadapter = "scripted"\ntimeout_s = 60\n{worker}'
                   f"options = {{ {options} }}\n")
    return "".join(out)


@pytest.fixture(scope="module")
def labs(pool: Pool) -> dict[str, str]:
    """The session's two labs, each with one `league worker` (two pool processes) on its own host."""
    return {"a": pool.lab_a.queue, "b": pool.lab_b.queue}


def run_days(root: Path, roster: str, workers_toml: str = "") -> dict[str, list[dict[str, Any]]]:
    """Both sessions of a fresh league; its two books' lines, read back."""
    clock = SimulatedClock(et_time(DAYS[0], time(3, 0)))
    config_dir, data_dir = init_folder(root, demo=True, clock=clock)
    (config_dir / "roster.toml").write_text(roster)
    if workers_toml:
        toml = config_dir / "league.toml"
        toml.write_text(toml.read_text() + "\n[workers]\n" + workers_toml)
    config = load_config(config_dir)
    with build_league(config, clock, anchor=DAYS[0], stages=Stages(publish=False, stamps=False)) as lg:
        assert isinstance(lg.asking.runner, RoutedRunner) is bool(workers_toml)
        for day in DAYS:
            run_session(lg, day)
    books = data_dir / "books"
    for name in ("council-book.jsonl", "asks.jsonl"):
        report = verify(books / name)
        assert report.ok, report
    return {name: [json.loads(x) for x in (books / name).read_text().splitlines()]
            for name in ("council-book.jsonl", "asks.jsonl")}


def steady(line: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in line.items() if k not in WALL_CLOCK}


def test_a_day_split_over_two_workers_seals_scores_and_verifies_as_on_local_threads(
        labs: dict[str, str], league_account: BrokerTarget, tmp_path: Path) -> None:
    password = tmp_path / "league.password"
    password.write_text(league_account.password)
    local = run_days(tmp_path / "local", roster_text({}))
    remote = run_days(tmp_path / "remote", roster_text(labs),
                      f'broker_url = "{league_account.display()}"\npassword_file = "{password}"\ngrace_s = 5\n')

    book = remote["council-book.jsonl"]
    answers = [x for x in book if x["kind"] == "answer"]
    assert {x["seat"] for x in answers} == {"_coin", *(s[0] for s in SEATS)}
    assert not [x for x in book if x["kind"] in ("reply_record", "incident")]
    late = [x for x in answers if x["seat"] == "s-late"]
    assert late and all(x["booked_at"] > x["started_at"] for x in late)
    assert [x for x in book if x["kind"] == "score"], "the sessions were scored"
    for name in ("council-book.jsonl", "asks.jsonl"):
        ours, theirs = [steady(x) for x in local[name]], [steady(x) for x in remote[name]]
        assert len(ours) == len(theirs)
        for a, b in zip(ours, theirs, strict=True):
            assert a == b, f"{name} line {a.get('n')} differs"


def test_doctor_checks_the_broker_and_status_shows_the_labs_workers(
        labs: dict[str, str], league_account: BrokerTarget, tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from league.cli import app

    password = tmp_path / "league.password"
    password.write_text(league_account.password)
    config_dir, data_dir = init_folder(tmp_path / "league", demo=True,
                                       clock=SimulatedClock(et_time(DAYS[0], time(3, 0))))
    missing = "tnolab" + labs["a"][-6:]
    (config_dir / "roster.toml").write_text(
        roster_text(labs) + f'[[seat]]\nname = "s-nolab"\nadapter = "scripted"\nworker = "{missing}"\n')
    toml = config_dir / "league.toml"
    toml.write_text(toml.read_text() + f'\n[workers]\nbroker_url = "{league_account.display()}"\n'
                    f'password_file = "{password}"\n')
    cli = CliRunner()
    doctor = cli.invoke(app, ["doctor", "--config", str(config_dir), "--no-probe", "--no-providers"])
    assert doctor.exit_code == 1, doctor.output  # the lab nobody provisioned
    for lab in labs.values():
        assert f"ok    broker: lab {lab}: 1 workers, 0 asks waiting" in doctor.output
    assert f"FAIL  broker: lab {missing}:" in doctor.output and f"add-lab {missing}" in doctor.output
    assert "ok    seat s-plain: runs on lab worker" in doctor.output

    state = data_dir / "run" / "remote-in-flight.json"  # as the daemon's remote runner writes it
    state.parent.mkdir(parents=True)
    state.write_text(json.dumps({"written_at": "2026-11-23T13:31:00+00:00", "closed": False, "asks": [
        {"seat": "s-plain", "queue": labs["a"], "identity": "x", "state": "running", "worker": "w-on-host-a",
         "since": "2026-11-23T13:30:02+00:00", "cutoff": "2026-11-23T14:30:30+00:00"}]}))
    status = cli.invoke(app, ["status", "--config", str(config_dir)], env={"COLUMNS": "240"})
    assert status.exit_code == 0, status.output
    assert "lab workers (broker)" in status.output and "asks in flight" in status.output
    rows = {line.split("│")[1].strip(): line for line in status.output.splitlines() if line.count("│") >= 6}
    assert rows[labs["a"]].split("│")[2].strip() == "1" and rows[labs["b"]].split("│")[2].strip() == "1"
    assert "NOT_FOUND" in rows[missing] or "vhost" in rows[missing]
    assert "remote asks as the daemon sees them" in status.output
    plain = rows["s-plain"].split("│")
    assert [c.strip() for c in plain[2:5]] == [labs["a"], "running", "w-on-host-a"]

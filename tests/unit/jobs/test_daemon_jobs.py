"""The live scheduler: one persistent job per day-job, cron in New York time, stored in the database."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from league.config import ArmsSettings, Schedule, TalkSettings
from league.jobs.scheduler import DAY_JOBS, TALK_JOBS, build_scheduler, trigger_for

ET = ZoneInfo("America/New_York")

#: Jobs a league plans only when configured: the arms ([arms]) and the council talk ([talk]).
OFF_BY_DEFAULT = ("arms", *TALK_JOBS)


class _Cfg:
    class settings:  # noqa: N801 - mimics the config object's attribute path
        schedule = Schedule()
        arms = ArmsSettings()
        talk = TalkSettings()


class _ExtraCfg:
    class settings:  # noqa: N801 - mimics the config object's attribute path
        schedule = Schedule()
        arms = ArmsSettings(extra_runs=("evening", "weekend_btc", "sunday_radar"))
        talk = TalkSettings()


class _League:
    config = _Cfg()


def test_jobs_are_persisted_with_new_york_triggers(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'jobs.db'}"
    sched = build_scheduler(_League(), url, blocking=False)  # type: ignore[arg-type]
    sched.start(paused=True)
    try:
        jobs = {j.id: j for j in sched.get_jobs()}
        nightly = jobs.pop("league-verify-book")  # the nightly full book verification (every day, 22:00 ET)
        assert nightly.func_ref == "league.jobs.scheduler:verify_book_entry"
        nxt = nightly.trigger.get_next_fire_time(None, datetime(2026, 11, 28, 12, 0, tzinfo=UTC))
        assert nxt.astimezone(ET).strftime("%a %H:%M") == "Sat 22:00"
        assert set(jobs) == {f"league-{j}" for j in DAY_JOBS if j not in OFF_BY_DEFAULT}
        assert all(j.func_ref == "league.jobs.scheduler:scheduled_entry" for j in jobs.values())
    finally:
        sched.shutdown(wait=False)
    again = build_scheduler(_League(), url, blocking=False)  # type: ignore[arg-type]
    again.start(paused=True)
    try:
        # replace_existing: no duplicates after a restart
        assert len(again.get_jobs()) == len([j for j in DAY_JOBS if j not in OFF_BY_DEFAULT]) + 1
    finally:
        again.shutdown(wait=False)


def test_ask_trigger_fires_at_0830_new_york_on_weekdays() -> None:
    trigger = trigger_for(Schedule(), "ask")
    friday_evening = datetime(2026, 11, 27, 23, 0, tzinfo=UTC)
    nxt = trigger.get_next_fire_time(None, friday_evening)
    assert nxt.astimezone(ET).strftime("%a %H:%M") == "Mon 08:30"
    assert nxt.astimezone(UTC) == datetime(2026, 11, 30, 13, 30, tzinfo=UTC)


def test_the_extra_reference_runs_fire_on_their_own_days(tmp_path: Path) -> None:
    class _Extra:
        config = _ExtraCfg()

    sched = build_scheduler(_Extra(), f"sqlite:///{tmp_path / 'jobs.db'}", blocking=False)  # type: ignore[arg-type]
    sched.start(paused=True)
    try:
        jobs = {j.id: j for j in sched.get_jobs()}
        after = datetime(2026, 11, 20, 12, 0, tzinfo=UTC)  # a Friday
        fires = {name: jobs[f"league-{name}"].trigger.get_next_fire_time(None, after).astimezone(ET)
                 .strftime("%a %H:%M") for name in ("evening", "weekend_btc", "sunday_radar")}
        assert fires == {"evening": "Fri 18:30", "weekend_btc": "Sat 12:00", "sunday_radar": "Sun 18:00"}
        assert jobs["league-weekend_btc"].func_ref == "league.jobs.scheduler:scheduled_entry"
    finally:
        sched.shutdown(wait=False)

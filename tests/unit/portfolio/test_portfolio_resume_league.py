"""On a synthetic league's real sealed lines (benchmarks/synth_league.py): the score job's restores read
little and give what the whole-history reads give.

* the portfolio stage's seasons, resumed from the last marked session (league.portfolio.restore), equal
  the ones restored from every mark and trade, at several points of the season;
* the shadow stage's view of the sessions up to the design window gives the same forecasts rows.

The byte-for-byte check of a whole score job, old code against new, on 126-session and 1-year leagues is
in benchmarks/records/measurements.jsonl (record "score-morning-jobs"; docs/costs.md, "The score job and the
portfolio stage").
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from league import records
from league.book.index import BookIndex
from league.config import load_config
from league.jobs import portfolio as job
from league.jobs.shadow import _UpTo
from league.portfolio.bills import BillRates
from league.portfolio.rules import rule_set
from league.portfolio.season import Season
from league.publish.forecasts import iter_rows

BENCHMARKS = Path(__file__).resolve().parents[3] / "benchmarks"


@pytest.fixture(scope="module")
def view(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """A 14-session × 3-seat league, read-only: its whole index and its configuration."""
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import synth_league
    finally:
        sys.path.remove(str(BENCHMARKS))
    out = tmp_path_factory.mktemp("synth") / "league"
    synth_league.write_league(out, synth_league.Size.of(sessions=14, seats=3, seed=5))
    config = load_config(out / "config")
    index = BookIndex.of_book(out / "data" / "books" / "council-book.jsonl")
    return SimpleNamespace(index=index, config=config, data_dir=config.data_dir)


def _seasons() -> dict[str, Season]:
    return {name: Season(rule_set(name), SimpleNamespace(bars=lambda *_: []), BillRates.constant("4"))  # type: ignore[arg-type]
            for name in job.RULE_SETS}


def _state(season: Season) -> tuple[Any, ...]:
    return (season.accounts, {a: s.fills for a, s in season.accounts.items()}, season._sessions,
            season._versions.account, season._versions.seen)


def test_the_league_resumes_as_it_restores_at_every_point(view: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    sessions = view.index.sessions("mark")
    assert len(sessions) == 14
    whole_history = job._restore_full

    def refused(*_: Any) -> None:
        raise AssertionError("the resume fell back to the whole history")

    for before in sessions[1:] + ["9999-12-31"]:
        resumed, full = _seasons(), _seasons()
        monkeypatch.setattr(job, "_restore_full", refused)
        last = job._restore(view.index, resumed, before)
        monkeypatch.setattr(job, "_restore_full", whole_history)
        assert last == {name: max(s for s in sessions if s < before) for name in job.RULE_SETS}
        for name, season in full.items():
            assert job._restore_full(view.index, name, season, before) == last[name]
            assert _state(resumed[name]) == _state(season), (name, before)
        assert any(s.fills for s in resumed["arena-3"].accounts.values())


def test_the_shadow_view_gives_the_window_s_rows(view: Any) -> None:
    sessions = view.index.sessions("run")
    last = sessions[9]
    whole = [r for r in iter_rows(view) if r["session"] <= last]
    seen = [r for r in iter_rows(_UpTo(view, last)) if r["session"] <= last]
    assert whole and seen == whole
    assert {r["session"] for r in seen} == set(sessions[:10])


def test_the_design_window_read_session_by_session_is_the_first_ten(view: Any) -> None:
    from league.jobs.shadow import _version, design_window

    runs = view.index.of(records.Run)
    version = _version(runs[0])
    every = sorted({r.session for r in runs if _version(r) == version})
    assert len(every) == 14
    assert design_window(view, version) == every[:10]
    assert design_window(view, "no such version") == []

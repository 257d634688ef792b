"""A synthetic season is published and recounted by the stand-alone replay.py, run as `python3 -I`."""

from __future__ import annotations

import csv
import subprocess
import sys
from datetime import UTC, date, datetime
from decimal import Decimal
from pathlib import Path

import pytest
from portfolio_helpers import et

from league.book import Book, read_content
from league.clock import SimulatedClock
from league.portfolio.bills import BillRates
from league.portfolio.decisions import ActionCell, Decision
from league.portfolio.publish import (
    portfolio_tables,
    portfolio_tables_from_marks,
    write_accounts_csv,
    write_trades_csv,
)
from league.portfolio.rules import ARENA_3, PRO_1
from league.portfolio.seal import mark_content, mark_from_content, trade_content
from league.portfolio.season import Season
from league.portfolio.synthetic import SyntheticBars, weekday_sessions
from league.publish.portfolio import write_open_data

REPO = Path(__file__).resolve().parents[3]
REPLAY = REPO / "league" / "verify" / "tools" / "replay.py"
ASSETS = REPO / "tests" / "assets" / "portfolio"
PLAYBOOK = [
    {"SPX": "buy_strong", "GOLD": "buy_strong", "BTC": "buy_dips", "TNX": "sell", "WTI": "buy_strong"},
    {"SPX": "hold", "GOLD": "trim", "NDX": "buy_strong", "DJI": "buy_strong", "VIX": "sell"},
    {"SPX": "sell", "COPPER": "buy_strong", "BTC": "buy_dips", "SOX": "buy_strong"},
]


def season_files(folder: Path, sessions_count: int = 8) -> list[Season]:
    sessions = weekday_sessions(date(2026, 5, 4), sessions_count)
    bars = SyntheticBars(sessions, seed=11, minutes=60)
    bills = BillRates.from_points({date(2026, 1, 1): "4.10", sessions[min(4, len(sessions) - 1)]: "3.95"})
    seasons = []
    for rules in (ARENA_3, PRO_1):
        season = Season(rules, bars, bills, seed=3)
        for i, day in enumerate(sessions):
            decisions = []
            for k, seat in enumerate(("alpha", "beta", "gamma")):
                actions = PLAYBOOK[(i + k) % len(PLAYBOOK)]
                cells = {m: ActionCell(a, entry=bars.bars(rules.indicators[m], day)[0].open * 0.998)
                         for m, a in actions.items()}
                decisions.append(Decision(seat=seat, session=day, at=et(day, 9, 10), cells=cells, model=seat,
                                          version="1" if i < 5 else "2"))
            season.run_session(day, decisions)
        seasons.append(season)
    folder.mkdir(parents=True, exist_ok=True)
    write_trades_csv(folder / "arena-trades.csv", [f for s in seasons for f in s.fills])
    write_accounts_csv(folder / "arena-accounts.csv", [m for s in seasons for ms in s.history.values() for m in ms])
    return seasons


def replay(folder: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["python3", "-I", str(REPLAY), str(folder)], capture_output=True, text=True, timeout=60,
                          check=False)


def edit(path: Path, row_index: int, **changes: str) -> dict[str, str]:
    with path.open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    rows[row_index].update(changes)
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return rows[row_index]


@pytest.fixture(scope="module")
def published(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Season]]:
    folder = tmp_path_factory.mktemp("public")
    return folder, season_files(folder)


def test_replay_recounts_every_row_exactly(published: tuple[Path, list[Season]]) -> None:
    folder, seasons = published
    result = replay(folder)
    trades = len([f for s in seasons for f in s.fills])
    marks = sum(len(ms) for s in seasons for ms in s.history.values())
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.splitlines()[-1] == f"{trades + marks} rows: {trades + marks} exact, 0 within rounding, " \
                                             "0 DIFFERENT"
    assert "arena-3 _ver:alpha:2:" in result.stdout and "pro-1 _short_spx:" in result.stdout


def test_one_changed_trade_is_different_for_that_account_only(published: tuple[Path, list[Season]],
                                                              tmp_path: Path) -> None:
    folder, _ = published
    for name in ("arena-trades.csv", "arena-accounts.csv"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    original = edit(tmp_path / "arena-trades.csv", 7)
    row = edit(tmp_path / "arena-trades.csv", 7, price=str(Decimal(original["price"]) + Decimal("1.0000")))
    result = replay(tmp_path)
    assert result.returncode == 1
    tag = f"{row['league']} {row['account']}:"
    account_lines = [x for x in result.stdout.splitlines() if x.endswith(("ok", "DIFFERENT")) and ":" in x
                     and " rows, " in x]
    assert [x for x in account_lines if x.endswith("DIFFERENT")] == [x for x in account_lines if x.startswith(tag)]
    assert f"DIFFERENT {row['league']} {row['account']} {row['session']} fill {row['seq']}" in result.stdout


def test_a_value_off_by_a_cent_is_within_rounding(published: tuple[Path, list[Season]], tmp_path: Path) -> None:
    folder, _ = published
    for name in ("arena-trades.csv", "arena-accounts.csv"):
        (tmp_path / name).write_bytes((folder / name).read_bytes())
    published_value = Decimal(edit(tmp_path / "arena-accounts.csv", 3)["value"])
    edit(tmp_path / "arena-accounts.csv", 3, value=str(published_value + Decimal("0.01")))
    result = replay(tmp_path)
    assert result.returncode == 0 and ", 1 within rounding, 0 DIFFERENT" in result.stdout.splitlines()[-1]


def test_missing_files_are_a_clear_error(tmp_path: Path) -> None:
    result = replay(tmp_path)
    assert result.returncode == 2 and "arena-accounts.csv not found" in result.stderr


def test_a_file_without_a_column_is_a_clear_error(published: tuple[Path, list[Season]], tmp_path: Path) -> None:
    folder, _ = published
    (tmp_path / "arena-accounts.csv").write_bytes((folder / "arena-accounts.csv").read_bytes())
    text = (folder / "arena-trades.csv").read_text()
    (tmp_path / "arena-trades.csv").write_text(text.replace(",fee_rate,", ",rate,", 1))
    result = replay(tmp_path)
    assert result.returncode == 2 and "column 'fee_rate' is missing" in result.stderr
    (tmp_path / "arena-trades.csv").write_text(text.replace(",seq,", ",n,", 1))
    result = replay(tmp_path)
    assert result.returncode == 2 and "malformed published file" in result.stderr and "'seq'" in result.stderr


def test_golden_assets(tmp_path: Path) -> None:
    good = replay(ASSETS / "good")
    broken = replay(ASSETS / "broken")
    assert good.returncode == 0 and good.stdout.endswith(" 0 DIFFERENT\n")
    assert broken.returncode == 1 and "DIFFERENT arena-3 alpha" in broken.stdout


def test_portfolio_tables_list_every_account_in_its_league(published: tuple[Path, list[Season]]) -> None:
    _, seasons = published
    tables = portfolio_tables(seasons)["portfolio"]
    arena = {r["account"]: r for r in tables["arena-3"]["accounts"]}
    assert set(arena) == {"alpha", "beta", "gamma", "_ver:alpha:2", "_ver:beta:2", "_ver:gamma:2", "_cash",
                          "_hold_all", "_passive", "_random", "_spy"}
    assert {r["account"] for r in tables["pro-1"]["accounts"]} >= {"_long_spx", "_short_spx"}
    assert arena["_cash"]["costs"] == 0 and arena["alpha"]["sharpe"] is None       # 8 sessions < 20
    assert arena["_ver:alpha:2"]["sessions"] == 3 and arena["_ver:alpha:2"]["kind"] == "version"


def test_files_rebuilt_from_the_sealed_book_equal_the_direct_ones(published: tuple[Path, list[Season]],
                                                                   tmp_path: Path) -> None:
    folder, seasons = published
    (tmp_path / "books").mkdir()
    book = Book(tmp_path / "books" / "council-book.jsonl", SimulatedClock(datetime(2026, 6, 1, tzinfo=UTC)))
    for season in seasons:
        for marks in season.history.values():
            for m in marks:
                book.append("mark", mark_content(m))
        for fill in season.fills:
            book.append("trade", trade_content(fill))
    book.close()
    written = write_open_data(tmp_path, tmp_path / "public")
    assert [p.name for p in written] == ["arena-trades.csv", "arena-accounts.csv"]
    for name in ("arena-trades.csv", "arena-accounts.csv"):
        assert (tmp_path / "public" / name).read_bytes() == (folder / name).read_bytes(), name
    rebuilt = [mark_from_content(line.content) for line in read_content(tmp_path / "books" / "council-book.jsonl",
                                                                        {"mark"})]
    assert portfolio_tables_from_marks(rebuilt)["portfolio"]["pro-1"]["accounts"] == \
        portfolio_tables(seasons)["portfolio"]["pro-1"]["accounts"]


if __name__ == "__main__":   # regenerate the golden assets: python tests/integration/portfolio/test_portfolio_replay.py
    season_files(ASSETS / "good", sessions_count=3)
    sys.exit(0)

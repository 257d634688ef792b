"""``league portfolio …``: show the rule sets, run an offline portfolio season, recount published accounts."""

from __future__ import annotations

import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import date, datetime, time
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from league.cli._common import parse_day, parse_rate
from league.cli._progress import steps, wanted
from league.portfolio.bills import BillRates
from league.portfolio.decisions import TRADED_ACTIONS, ActionCell, Decision
from league.portfolio.engine import ET
from league.portfolio.publish import COLUMNS, portfolio_tables, write_accounts_csv, write_trades_csv
from league.portfolio.rules import ARENA_3, PRO_1, RuleSet, protocol_document, rule_set
from league.portfolio.season import Season
from league.portfolio.synthetic import SyntheticBars, weekday_sessions
from league.verify import TOOLS_DIR

REPLAY_SOURCE = TOOLS_DIR / "replay.py"

portfolio_app = typer.Typer(help="Portfolio leagues: rule sets, an offline season, the account replay.",
                            no_args_is_help=True)


@portfolio_app.command("rules")
def rules_cmd(
    name: Annotated[str, typer.Option("--name", envvar="LEAGUE_PORTFOLIO_RULES",
                                      help="one rule set (arena-3, pro-1); empty = all, with dated changes")] = "",
) -> None:
    """Print the rule sets as sealed in the book and published in arena-protocol.json."""
    document = rule_set(name).as_json() if name else protocol_document()
    typer.echo(json.dumps(document, indent=2, sort_keys=True))


def _scripted_decisions(rules: RuleSet, bars: SyntheticBars, day: date, seats: int,
                        rng: random.Random) -> list[Decision]:
    """Scripted seats drawing random one-day actions: an offline stand-in for counted answers."""
    decisions = []
    for k in range(seats):
        cells = {}
        for market in rng.sample(sorted(rules.funds), rng.randint(3, 6)):
            first = bars.bars(rules.indicators[market], day)[0].open
            cells[market] = ActionCell(rng.choice(sorted(TRADED_ACTIONS)), entry=first * 0.997)
        decisions.append(Decision(seat=f"seat{k + 1}", session=day, at=datetime.combine(day, time(9, 10), tzinfo=ET),
                                  cells=cells, model=f"model{k + 1}", version="1"))
    return decisions


def _print_table(console: Console, league: str, rows: Sequence[Mapping[str, object]]) -> None:
    """One league's accounts as a table (the rows :func:`league.portfolio.publish.portfolio_tables` gives)."""
    table = Table(title=f"portfolio league {league}")
    for column in ("account", "kind", "value", "return", "max dd", "Sharpe", "Sortino", "turnover", "costs"):
        table.add_column(column, justify="left" if column in ("account", "kind") else "right")
    for r in rows:
        ratio = [f"{r[k]:.2f}" if r[k] is not None else "-" for k in ("sharpe", "sortino")]
        table.add_row(str(r["account"]), str(r["kind"]), f"{r['value']:,.2f}", f"{r['ret']:+.2%}",
                      f"{r['max_drawdown']:.2%}", *ratio, f"{r['turnover']:.2f}", f"{r['costs']:,.2f}")
    console.print(table)


@portfolio_app.command("demo")
def demo_cmd(
    out: Annotated[Path, typer.Argument(help="folder to write the published portfolio files into")],
    sessions: Annotated[int, typer.Option(envvar="LEAGUE_PORTFOLIO_SESSIONS", min=1, max=2000,
                                          help="number of sessions")] = 30,
    seats: Annotated[int, typer.Option(envvar="LEAGUE_PORTFOLIO_SEATS", min=0, max=200,
                                       help="scripted seats")] = 4,
    seed: Annotated[int, typer.Option(envvar="LEAGUE_PORTFOLIO_SEED", help="seed of bars, seats, _random")] = 7,
    bill_rate: Annotated[str, typer.Option(envvar="LEAGUE_BILL_RATE", help="constant 13-week bill rate, %")] = "4.0",
    start: Annotated[str, typer.Option(envvar="LEAGUE_PORTFOLIO_START", help="first session (YYYY-MM-DD)")]
    = "2026-01-05",
) -> None:
    """Run both leagues over SYNTHETIC bars with scripted seats; publish the files and replay.py."""
    days = weekday_sessions(parse_day(start, option="--start"), sessions)
    rate = parse_rate(bill_rate, option="--bill-rate")
    bars = SyntheticBars(days, seed=seed)
    rng = random.Random(seed)
    seasons = [Season(rules, bars, BillRates.constant(rate), seed=seed) for rules in (ARENA_3, PRO_1)]
    for day in days:
        for season in seasons:
            season.run_session(day, _scripted_decisions(season.rules, bars, day, seats, rng))
    out.mkdir(parents=True, exist_ok=True)
    write_trades_csv(out / "arena-trades.csv", [f for s in seasons for f in s.fills])
    write_accounts_csv(out / "arena-accounts.csv", [m for s in seasons for ms in s.history.values() for m in ms])
    tables = portfolio_tables(seasons)
    (out / "portfolio-tables.json").write_text(json.dumps(tables, indent=1), encoding="utf-8")
    (out / "arena-protocol.json").write_text(json.dumps({**protocol_document(), "columns": COLUMNS}, indent=1),
                                             encoding="utf-8")
    shutil.copyfile(REPLAY_SOURCE, out / "replay.py")
    console = Console()
    for league, body in tables["portfolio"].items():
        _print_table(console, league, body["accounts"])
    typer.echo(f"wrote {out}/arena-trades.csv, arena-accounts.csv, portfolio-tables.json, arena-protocol.json, "
               f"replay.py (synthetic bars, not market data)")


@portfolio_app.command("replay")
def replay_cmd(
    public: Annotated[Path, typer.Argument(envvar="LEAGUE_PUBLIC", help="folder with the published CSVs")],
) -> None:
    """Recount every published account with the stand-alone replay.py (run isolated, as a reader would)."""
    script = public / "replay.py" if (public / "replay.py").is_file() else REPLAY_SOURCE
    argv = [sys.executable, "-I", str(script), str(public)]
    # a folder's own replay.py from before the progress lines cannot draw a bar: it runs as it always did
    if not wanted() or "--progress" not in script.read_text(encoding="utf-8"):
        raise typer.Exit(subprocess.run(argv, check=False).returncode)
    with steps("replay") as progress:
        assert progress is not None
        code = _replay_with_bar(argv, progress)
    raise typer.Exit(code)


PROGRESS_LINE = re.compile(r"progress (\d+)/(\d+) (.*)")


def _replay_with_bar(argv: list[str], progress: Callable[[str, int, int], None]) -> int:
    """Run replay.py with ``--progress``: its progress lines move the bar, its other stderr lines are
    passed on after it, its stdout is echoed unchanged (through a file: no pipe can fill up and block it)."""
    with tempfile.TemporaryFile("w+", encoding="utf-8") as out:
        child = subprocess.Popen([*argv, "--progress"], stdout=out, stderr=subprocess.PIPE, text=True)
        assert child.stderr is not None
        other, total = [], 0
        for line in child.stderr:
            match = PROGRESS_LINE.fullmatch(line.rstrip("\n"))
            if match:
                total = int(match[2])
                progress(match[3], int(match[1]), total)
            else:
                other.append(line)
        code = child.wait()
        if code in (0, 1):  # 1: DIFFERENT rows, still a complete recount
            progress("done", total, total)
        out.seek(0)
        typer.echo(out.read(), nl=False)
    sys.stderr.write("".join(other))
    return code


def register(app: typer.Typer) -> None:
    app.add_typer(portfolio_app, name="portfolio")

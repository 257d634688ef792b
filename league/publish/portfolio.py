"""The portfolio's open data, rebuilt from the sealed ``trade`` and ``mark`` lines of the book.

``arena-trades.csv`` and ``arena-accounts.csv`` (rendered by :mod:`league.portfolio.publish`) and the
portfolio tables of ``council-league.json``: the book is the source of truth, so the published
accounts are exactly what was sealed.
"""

from __future__ import annotations

import json
from pathlib import Path

from league.book.shared import book_lines
from league.portfolio.interface import PortfolioError
from league.portfolio.publish import portfolio_tables_from_marks, write_accounts_csv, write_trades_csv
from league.portfolio.seal import fill_from_content, mark_from_content


def write_open_data(data_dir: Path, out: Path) -> list[Path]:
    """Publisher producer: both CSVs rebuilt from the sealed ``trade`` and ``mark`` lines of the book.

    The book is the source of truth, so the published accounts are exactly what was sealed; a book
    without portfolio lines yields the two files with their headers only.
    """
    book = data_dir / "books" / "council-book.jsonl"
    if not book.is_file():
        raise PortfolioError(f"{book} not found", fix="run the league (or `league init`) before publishing")
    lines = list(book_lines(book, ("trade", "mark")))
    fills = [fill_from_content(line.content) for line in lines if line.kind == "trade"]
    marks = [mark_from_content(line.content) for line in lines if line.kind == "mark"]
    out.mkdir(parents=True, exist_ok=True)
    return [write_trades_csv(out / "arena-trades.csv", fills), write_accounts_csv(out / "arena-accounts.csv", marks)]


def add_to_league_json(data_dir: Path, out: Path) -> None:
    """Publisher step: the portfolio tables of council-league.json, from the sealed ``mark`` lines."""
    if (Path(out) / "council-league.json").is_file():
        merge_tables(out, tables_block(data_dir))


def tables_block(data_dir: Path) -> dict[str, object]:
    """The ``portfolio`` and ``portfolio_note`` keys of council-league.json, from the sealed ``mark`` lines."""
    book = Path(data_dir) / "books" / "council-book.jsonl"
    marks = [mark_from_content(line.content) for line in book_lines(book, ("mark",))]
    tables = portfolio_tables_from_marks(marks) if marks else {"portfolio": None}
    return {"portfolio": tables["portfolio"], "portfolio_note": tables.get("note", "no portfolio marks sealed yet")}


def merge_tables(out: Path, block: dict[str, object]) -> None:
    """Write :func:`tables_block` into council-league.json (when present)."""
    path = Path(out) / "council-league.json"
    if not path.is_file():
        return
    doc: dict[str, object] = json.loads(path.read_text(encoding="utf-8"))
    doc.update(block)
    path.write_text(json.dumps(doc, sort_keys=True, indent=1), encoding="utf-8")

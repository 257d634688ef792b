"""How much of league/ is typed: ``Any`` per package, and the records generated from the line models.

Lines come back from the book, the index and the database as typed records (league.records, generated from
league.book.lines by league.book.gen_records); a field renamed in a model fails mypy wherever it is read.
``Any`` is left at the JSON boundary (a file read or written as JSON) and where a library gives nothing
better. These tests keep the figures from creeping back: each package's count of ``Any`` (every name
``Any`` or ``typing.Any`` in the code, annotations included) may not exceed its ceiling below. Lower a
ceiling when a package gets better; never raise one.
"""

from __future__ import annotations

import ast
import functools
import os
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
LEAGUE = ROOT / "league"

#: Each package's ceiling (packages not named: 0). Lower them as the packages get typed; never raise them.
CEILINGS: dict[str, int] = {
    "(top)": 14,
    "api": 1,
    "book": 6,
    "cli": 1,
    "contest": 54,
    "contracts": 3,
    "evals": 24,
    "jobs": 38,
    "prices": 1,
    "seatcore": 4,
    "stamps": 6,
    "store": 2,
    "verify": 31,
}


@functools.cache
def any_counts() -> tuple[Counter[str], Counter[str]]:
    """(``Any`` per package, lines per package); a module directly in league/ counts as package ``(top)``.

    Computed once per process (two tests read it). A module whose text has no ``Any`` at all holds no name
    ``Any`` either, so only the others are parsed and walked (most of the cost, and most modules have none)."""
    found: Counter[str] = Counter()
    lines: Counter[str] = Counter()
    for path in LEAGUE.rglob("*.py"):
        rel = path.relative_to(LEAGUE).parts
        package = rel[0] if len(rel) > 1 else "(top)"
        source = path.read_text(encoding="utf-8")
        lines[package] += len(source.splitlines())
        if "Any" not in source:
            continue
        for node in ast.walk(ast.parse(source)):
            if (isinstance(node, ast.Name) and node.id == "Any") or (
                    isinstance(node, ast.Attribute) and node.attr == "Any"):
                found[package] += 1
    return found, lines


def test_no_package_has_more_any_than_its_ceiling() -> None:
    found, _ = any_counts()
    over = {p: (n, CEILINGS.get(p, 0)) for p, n in found.items() if n > CEILINGS.get(p, 0)}
    assert not over, "Any over the ceiling (count, ceiling): " + ", ".join(f"{p} {v}" for p, v in sorted(over.items()))


#: The whole of league/: at most this many ``Any`` per 1,000 lines (what is left: the stand-alone tools copied
#: verbatim into the open data, the contest ledger's raw lines, and a few library signatures).
MAX_PER_THOUSAND = 5.0


def test_league_holds_at_most_five_any_per_thousand_lines() -> None:
    found, lines = any_counts()
    density = 1000 * sum(found.values()) / sum(lines.values())
    assert density <= MAX_PER_THOUSAND, f"{density:.1f} Any per 1,000 lines in league/"


def test_the_records_module_is_what_the_generator_writes() -> None:
    from league.book import gen_records

    written = (ROOT / "league" / "records.py").read_text(encoding="utf-8")
    assert written == gen_records.source(), "league/records.py is stale: run `python -m league.book.gen_records`"


def test_a_renamed_field_fails_the_type_check(tmp_path: Path) -> None:
    """What typed reads are for: a reader of a field the records do not have is a mypy error."""
    probe = tmp_path / "probe.py"
    probe.write_text("from league import records\n\n\ndef seat_of(a: records.Answer) -> str:\n    return a.seats\n")
    # mypy's cache outside the checkout (tests/conftest.py), kept between runs: a later run rechecks only the
    # probe (a new file each time) and what changed since, instead of league/ from scratch
    cache = Path(tempfile.gettempdir()) / f"league-tests-{os.getuid()}" / "mypy"
    done = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--cache-dir", str(cache), str(probe)],
                          capture_output=True, text=True, cwd=ROOT, timeout=600)
    assert done.returncode != 0 and '"Answer" has no attribute "seats"' in done.stdout, done.stdout

"""The repository describes the software as it is, not the story of how it was built.

A reader of docs/costs.md, of a docstring or of the changelog needs what the code does and why; a working
session's number, a tracker issue's number or a helper branch's name points at nothing a newcomer can open.
So the documentation (docs/, README.md, CHANGELOG.md, every Markdown file), the benchmarks (scripts, READMEs
and records) and every Python file (code, comments, docstrings, tests) are searched for such references.

What is not narrative, and so allowed: a NYSE session by its date ("session 2026-11-24"), a count of sessions
("a 126-session demo"), the ``--sessions N`` argument, a number written with thousands separators, and the
paper's own numbering of a methodology segment's sessions: the design window is sessions 1 to 10 and the
primary window starts at session 11 (docs/scoring.md), so "session 1", "session 10" and "session 11" (and
ranges starting there) name the protocol, not a working session.

The measurement records (benchmarks/records/) are data: each names the commit, date, machine and command it
was taken with, so a figure the docs cite can be traced and taken again.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
RECORDS = ROOT / "benchmarks" / "records"

#: Folders never searched: environments, caches and what tools write (none of it is the project's text).
SKIPPED = {".git", ".venv", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache", "node_modules",
           ".hypothesis", "build", "dist"}
#: The files searched: the project's text (code, docs, configuration, scripts, records).
SUFFIXES = {".py", ".md", ".toml", ".sh", ".jsonl", ".txt", ".cfg", ".ini", ".service", ".timer", ".conf"}

#: A development reference: a tracker issue by number, a working session by number (also possessive, as in
#: "that session's machine"; also a number the paper uses when a commit follows it), a helper branch by its
#: short name (a letter, two digits and a word, as the branches that measured costs were called), a
#: development phase by number.
NARRATIVE = re.compile(
    r"\bissues?\s+#?\d+"
    r"|\bsessions?\s+\d+\s+\([0-9a-f]{7,40}\)"
    r"|\bsessions?\s+\d+\b(?!-\d{2}\b)"
    r"|\b(?:helper|branch)\s+i\d{2}[a-z]*\b"
    r"|\bphase\s+\d\b"
    r"|\bi1[5-9](?!n\b)[a-z]{1,5}\d?\b",
    re.IGNORECASE,
)
#: Spans that look like the above and are not narrative (see the module's docstring).
ALLOWED = re.compile(
    r"--sessions?\s+\d+"
    r"|\bsessions?\s+(?:1|10|11)\b"
    r"|\bsessions?\s+\d{1,3}(?:,\d{3})+",
    re.IGNORECASE,
)


def searched_files() -> Iterator[Path]:
    """Every text file of the project, this test's own file excepted (its patterns describe what it finds)."""
    for path in sorted(ROOT.rglob("*")):
        parts = path.relative_to(ROOT).parts
        if any(p in SKIPPED or p.endswith(".egg-info") for p in parts) or not path.is_file():
            continue
        if path.suffix in SUFFIXES or path.name in {"Makefile", "README", "CHANGELOG"}:
            if path.resolve() != Path(__file__).resolve():
                yield path


def narrative_in(text: str) -> list[str]:
    """The development references in ``text``, each as the line it is on, trimmed."""
    found = []
    for line in text.splitlines():
        allowed = [m.span() for m in ALLOWED.finditer(line)]
        for match in NARRATIVE.finditer(line):
            if not any(a <= match.start() and match.end() <= b for a, b in allowed):
                found.append(f"{match.group(0)!r} in: {line.strip()[:160]}")
    return found


def test_the_allow_list_lets_through_what_is_not_narrative() -> None:
    """The patterns themselves: each phrase here is either a development reference or one of the allowed ones."""
    for phrase in ("(issue 15)", "issues 11 and 19", "Issue #7", "docs/costs.md, session 12",
                   "Sessions 12 and 13", "on that session 18's machine", "helper i16seal", "i17pub's figures",
                   "contest, phase 1", "the command line of session 11 (67508d7)"):
        assert narrative_in(phrase), phrase
    for phrase in ("a 126-session demo", "the session 2026-11-24", "`league demo --sessions 126`",
                   "sealed before session 11 is asked", "the design window (sessions 1-10)",
                   "sessions 11 to 126", "tokens this session 2,000 >= 2,000", "a session's rows",
                   "the issue of a forecast", "i18n", "the publish phases"):
        assert not narrative_in(phrase), phrase


def test_no_development_narrative_in_the_repository() -> None:
    found = {str(path.relative_to(ROOT)): hits for path in searched_files()
             if (hits := narrative_in(path.read_text(encoding="utf-8", errors="replace")))}
    listing = "\n".join(f"{name}: {hit}" for name, hits in sorted(found.items()) for hit in hits[:3])
    assert not found, (f"{sum(map(len, found.values()))} development references in {len(found)} files; say what "
                       f"the software does and why instead:\n{listing}")


def record_files() -> list[Path]:
    return sorted(RECORDS.glob("*.jsonl"))


def test_the_measurement_records_are_kept_as_data_under_benchmarks() -> None:
    """The records moved out of docs/: none is left there, and benchmarks/records/ holds them."""
    assert not sorted(ROOT.joinpath("docs").glob("*.jsonl")), "measurement records belong in benchmarks/records/"
    assert record_files(), f"no records in {RECORDS.relative_to(ROOT)}"


@pytest.mark.parametrize("path", record_files(), ids=lambda p: p.name)
def test_every_record_says_when_where_and_how_it_was_taken(path: Path) -> None:
    """Each line is one JSON record naming its commit, date, machine and command, and holding figures."""
    lines = [line for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    assert lines, f"{path.name} is empty"
    for number, line in enumerate(lines, 1):
        record = json.loads(line)
        missing = [key for key in ("commit", "date", "machine", "command") if not record.get(key)]
        assert not missing, f"{path.name}:{number} lacks {missing}"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", record["date"]), f"{path.name}:{number} date {record['date']!r}"
        assert record.get("figures") or record.get("sizes"), f"{path.name}:{number} holds no figures"


def test_the_growth_curve_in_the_docs_is_drawn_from_the_records(tmp_path: Path) -> None:
    """docs/costs-growth.svg is what benchmarks/growth_plot.py draws from the records docs/costs.md names, byte for
    byte: the figure and its data cannot drift apart."""
    out = tmp_path / "growth.svg"
    plot = ROOT / "benchmarks" / "growth_plot.py"
    subprocess.run([sys.executable, str(plot), str(RECORDS / "growth-2026-12-05.jsonl"),
                    "--before", str(RECORDS / "growth-2026-11-30-cda34a6.jsonl"), "--out", str(out)],
                   check=True, capture_output=True, timeout=120)
    assert out.read_bytes() == (ROOT / "docs" / "costs-growth.svg").read_bytes()

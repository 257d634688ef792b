"""A reader's verification of a published folder (open-data.md, steps 2–11), offline where possible.

:func:`verify_published` takes the open-data folder (or its URL, which is mirrored into a temporary
folder first) and returns one :class:`StepResult` per step: ``ok``, ``FAILED`` with the reason, or
``skipped`` with why (the step's inputs or tools are not there). It never raises on bad input: a
corrupt token, a missing certificate or a truncated ``.ots`` is a FAILED line, and any unexpected
error inside a step is reported as that step's FAILED line too.

A folder that cannot be verified at all — no book, only empty books, a symbolic link out of it or a
FIFO or device anywhere in it, a URL that cannot be downloaded — is one FAILED step 1 and nothing else
runs (:func:`unverifiable`): a folder with nothing checked must not read as "ok", and no step may read
through a link out of the folder. Every file a step reads is bounded (:mod:`league.verify.files`,
:mod:`league.inputs`).
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, time
from functools import partial
from pathlib import Path
from typing import Any, Literal, Protocol
from zoneinfo import ZoneInfo

import httpx
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from league.clock import iso_seconds, parse_iso
from league.errors import LeagueError
from league.inputs import MAX_BYTES, InputError, parse_json
from league.inputs import read_json as read_input_json
from league.jsonvalue import Json, JsonObject
from league.stamps.interface import LIST_NAME, StampError
from league.stamps.ots import BlockHeaderFact, verify_ots
from league.stamps.rekor import PUBLIC_REKOR_LOG_ID, parse_response, verify_entry
from league.stamps.rfc3161 import openssl_verify
from league.stamps.trust import TokenCheck, TrustStore, check_token
from league.verify.chain import MAX_LINE_BYTES, check_line, verify
from league.verify.commitments import arms_problems, blind_problems, opening_problems, snapshot_problems
from league.verify.files import (
    MAX_PROOF_BYTES,
    bounded_lines,
    describe,
    file_sha256,
    foreign_entries,
    read_small,
)
from league.verify.stamped import parse_stamped_list

#: ``untrusted``: the step's checks pass, but only on the operator's own word (exit 0 unless ``--strict``).
Status = Literal["ok", "FAILED", "skipped", "untrusted"]
NEW_YORK = ZoneInfo("America/New_York")
COUNCIL_BOOK = "council-book.jsonl"
PUBLIC_KEY = "proof/league-signing.pub.pem"
MANIFEST = "release-manifest.json"
REPLAY_SCRIPTS = ("replay.py", "tools/replay_brier.py", "tools/recount_consensus.py")
#: Recounts run when the folder holds what they recount (the arms' only where a league ran arms).
OPTIONAL_SCRIPTS = {"tools/recount_arms.py": "arms/arm-forecasts.csv",
                    "tools/recount_talk.py": "council-talk-critiques.csv",
                    "tools/resolve_predictions.py": "predictions.json",
                    "tools/recount_sides.py": "council-sides.json",
                    "tools/recount_sources.py": "council-sources.json",
                    "tools/recount_readers.py": "readers/readers-book.jsonl",
                    "tools/recount_points.py": "council-points.json"}
#: How each stand-alone recount is run by a reader (open-data.md step 7), relative to the folder.
REPLAY_ARGS = {"replay.py": ["."], "tools/replay_brier.py": ["--data", "."],
               "tools/recount_consensus.py": ["--data", "."], "tools/recount_arms.py": ["."],
               "tools/recount_talk.py": ["."], "tools/resolve_predictions.py": ["."], "tools/recount_sides.py": ["."],
               "tools/recount_sources.py": ["."], "tools/recount_readers.py": ["."],
               "tools/recount_points.py": ["."]}
#: The arms' books (docs/experiments.md), published under arms/ once a league ran an arm.
ARMS_BOOKS = ("arms/arms-book.jsonl", "arms/arm-asks.jsonl")
#: The readers' book (docs/readers.md), published once a reader came.
READERS_BOOK = "readers/readers-book.jsonl"
MAX_SHOWN = 3
#: What a book checked without a stamped head proves, said wherever that is all that was checked.
PREFIX_ONLY = ("each book is checked as a prefix only: a book cut short is still a valid chain, so without a "
               "stamped head nothing tells these lines from the first lines of a longer book")
#: What adds the statistics to a lean install (`pip install forecast-league` has no NumPy).
STATS_EXTRA = "pip install 'forecast-league[stats]'"
CONTEST_DIR = "contest"
#: The contest's files a reader needs for the contest step (the forecasts files are named in sealed.json).
CONTEST_FILES = ("sealed.json", "metrics.json", "resolutions.json", "rounds.json", "sweeps.json",
                 "contest-book.jsonl")
#: The books a published folder may hold; a folder with none of them (or only empty ones) has nothing to verify.
BOOKS = (COUNCIL_BOOK, "asks.jsonl", f"{CONTEST_DIR}/contest-book.jsonl", "contest-book.jsonl", *ARMS_BOOKS,
         READERS_BOOK)
#: The step a refusal is reported as: open-data.md step 1, getting the book and its proofs.
FOLDER_STEP = (1, "the folder")
#: A step this module does not own (the rebuild from the books uses the writer's producers, which
#: verification may not import): number, name, and a function of the local folder.
ExtraStep = tuple[int, str, Callable[[Path], tuple[Status, str]]]


class ContestCheck(Protocol):
    """One check of `league contest verify` (league.contest.verify.Check)."""

    @property
    def name(self) -> str: ...
    @property
    def status(self) -> str: ...
    @property
    def detail(self) -> str: ...
    @property
    def failed(self) -> bool: ...


#: `league contest verify` on a contest folder (league.contest.verify.verify_folder), for step 13. The caller
#: hands it in: the contest package holds the contest's writer too (its ledger, on league.book), which
#: verification may not import.
ContestVerifier = Callable[[Path], Sequence[ContestCheck]]
#: The derived files a URL mirror fetches so that a rebuild step can compare them.
DERIVED = (MANIFEST, "arena-compliance.json", "markets-digest.json", "arena-protocol.json",
           "council-forecasts.csv", "council-stats.json", "council-calibration.json", "council-clim-window.json",
           "council-league.json", "arena-trades.csv", "arena-accounts.csv", "roster.json")


@dataclass(frozen=True)
class StepResult:
    step: int
    name: str
    status: Status
    detail: str
    #: Why ``league verify --strict`` refuses this step although it is not FAILED ("" = nothing).
    strict: str = ""
    #: What to do about a FAILED step 1 (the target cannot be verified at all).
    fix: str = ""

    def line(self) -> str:
        return f"step {self.step:>2} {self.name}: {self.status}" + (f" — {self.detail}" if self.detail else "")


@dataclass
class StampedList:
    """One published list: where it is, its bytes, its parsed rows and rows that did not parse."""

    path: Path
    rel: str
    data: bytes
    entries: list[tuple[str, int, str, str]] = field(default_factory=list)
    bad_rows: list[str] = field(default_factory=list)

    def covers(self, book: str) -> int:
        return max((n for name, n, _, _ in self.entries if name == book), default=0)


# --------------------------------------------------------------------------- session times
def session_reference(session: str, run: Mapping[str, Json] | None = None) -> datetime:
    """When counted ingest closes for a session: the run line's own ``reference_at`` if it states
    one, else the common reference of docs/protocol.md §2, 09:30 America/New_York on the session date."""
    for key in ("reference_at", "ingest_close_at"):
        value = (run or {}).get(key)
        if isinstance(value, str) and value:
            return parse_iso(value)
    return datetime.combine(date.fromisoformat(session), time(9, 30), NEW_YORK).astimezone(UTC)


def sealed_at(line: Mapping[str, Json]) -> datetime:
    """open-data.md: the time a line was sealed is ``max(at, booked_at)``."""
    times = [parse_iso(v) for k in ("at", "booked_at") if isinstance(v := line.get(k), str) and v]
    return max(times)


def _int(value: Json) -> int:
    """``int(value)`` of a JSON value (a line number as the book holds it); a list, an object or null raise the
    TypeError ``int()`` raises."""
    if isinstance(value, list | dict) or value is None:
        raise TypeError("int() argument must be a string, a bytes-like object or a real number, "
                        f"not '{type(value).__name__}'")
    return int(value)


@dataclass(frozen=True)
class SessionNeed:
    """The counted answers of a session (through ``last_line``) must be stamped before ``reference``."""

    session: str
    reference: datetime
    last_line: int


def session_needs(lines: Sequence[Mapping[str, Json]]) -> list[SessionNeed]:
    """Per session: the last answer line sealed at or before the session's reference time."""
    runs: dict[str, tuple[str, datetime]] = {}
    for x in lines:
        if x.get("kind") == "run" and isinstance(session := x.get("session"), str):
            runs[str(x.get("run_id"))] = (session, session_reference(session, x))
    last: dict[str, tuple[datetime, int]] = {}
    for x in lines:
        if x.get("kind") != "answer" or str(x.get("run_id")) not in runs:
            continue
        session, ref = runs[str(x.get("run_id"))]
        if sealed_at(x) <= ref:
            last[session] = (ref, max(_int(x["n"]), last.get(session, (ref, 0))[1]))
    return [SessionNeed(s, ref, n) for s, (ref, n) in sorted(last.items())]


# --------------------------------------------------------------------------- reading the folder
def _inside(root: Path, rel: str) -> Path:
    path = (root / rel).resolve()
    if not path.is_relative_to(root.resolve()):
        raise StampError(f"{rel!r} points outside the published folder")
    return path


def find_lists(root: Path) -> list[StampedList]:
    out = []
    for path in sorted((root / "proof").glob("*/*.txt")):
        if not LIST_NAME.match(path.name):
            continue
        data = read_small(path, inside=root, what="stamped list")
        item = StampedList(path, path.relative_to(root).as_posix(), data)
        text = data.decode("utf-8", errors="replace")
        item.entries = parse_stamped_list(text)
        item.bad_rows = [r for r in text.splitlines() if " lines, sha256 " in r and not _parses(r)]
        out.append(item)
    return out


def complete_lines(book: Path) -> int:
    """The number of LF-terminated lines of a file (a torn last line is not one), read in blocks."""
    count = 0
    with open(book, "rb") as fh:
        while block := fh.read(1 << 20):
            count += block.count(b"\n")
    return count


def _parses(row: str) -> bool:
    return bool(parse_stamped_list(row))


def read_lines(book: Path) -> list[JsonObject]:
    """Book lines as dicts, skipping lines that are not JSON objects (step 4 reports those)."""
    return list(iter_book_objects(book))


def iter_book_objects(book: Path) -> Iterator[JsonObject]:
    """:func:`read_lines` one line at a time, for a reader that keeps only part of each. A line that is
    not JSON, nests too deeply to parse or is longer than the chain check reads is skipped here: step 4
    names it."""
    with open(book, "rb") as fh:
        for raw in bounded_lines(fh, MAX_LINE_BYTES):
            try:
                obj: Json = json.loads(raw) if raw is not None else None
            except (ValueError, RecursionError):
                continue
            if isinstance(obj, dict):
                yield obj


def prefix_facts(book: Path, n: int) -> tuple[int, str, str | None]:
    """(complete lines read up to n, sha256 of them, link of line n or None)."""
    digest, count, link = hashlib.sha256(), 0, None
    with open(book, "rb") as fh:
        for raw in bounded_lines(fh, MAX_LINE_BYTES):
            if count == n or raw is None or not raw.endswith(b"\n"):
                break
            digest.update(raw)
            count += 1
            if count == n:
                link = _link_of(raw)
    return count, digest.hexdigest(), link


def prefix_table(book: Path, ns: set[int]) -> dict[int, tuple[int, str, str | None]]:
    """``prefix_facts`` for many N at once: one read of the book, a digest copy at each N."""
    digest, count, out = hashlib.sha256(), 0, {}
    last = max(ns, default=0)
    with open(book, "rb") as fh:
        for raw in bounded_lines(fh, MAX_LINE_BYTES):
            if count == last or raw is None or not raw.endswith(b"\n"):
                break
            digest.update(raw)
            count += 1
            if count in ns:
                out[count] = (count, digest.hexdigest(), _link_of(raw))
    short = (count, digest.hexdigest(), None)
    return {n: out.get(n, short) for n in ns}


def _link_of(raw: bytes) -> str | None:
    try:
        value = json.loads(raw).get("link")
    except (ValueError, AttributeError):
        return None
    return value if isinstance(value, str) else None


def first_bad_line(book: Path, n: int) -> str:
    """Name the first line of the first ``n`` that fails the reader loop, or say none does."""
    prev: str | None = ""
    with open(book, "rb") as fh:
        for i, raw in enumerate(bounded_lines(fh, MAX_LINE_BYTES), 1):
            if i > n:
                break
            if raw is None:
                return f"first bad book line: {i} (longer than the chain check reads)"
            problem, obj = check_line(raw.rstrip(b"\n"), i, prev)
            if problem:
                return f"first bad book line: {i} ({problem})"
            prev = obj["link"] if obj else None
    return "every line in the prefix checks; the book was cut or extended before line N"


# --------------------------------------------------------------------------- the steps
class Checker:
    """Runs the steps over one local folder."""

    def __init__(self, root: Path, headers: Mapping[int, BlockHeaderFact] | None, *, run_scripts: bool = True,
                 extra: Sequence[ExtraStep] = (), trust: TrustStore | None = None,
                 trust_folder_certs: bool = False, progress: Callable[[str, int, int], None] | None = None,
                 contest: ContestVerifier | None = None) -> None:
        self.root = root
        self.progress = progress
        self.contest = contest
        self.extra = tuple(extra)
        self.headers = dict(headers or {})
        self.run_scripts = run_scripts
        self.trust = trust or TrustStore.default()
        self.trust_folder_certs = trust_folder_certs
        self.strict_notes: dict[int, str] = {}
        self._tmp: tempfile.TemporaryDirectory[str] | None = None  # made by the first openssl check
        self._prefixes: dict[tuple[str, int], tuple[int, str, str | None]] = {}
        self._council: list[JsonObject] | None = None
        self.lists = find_lists(root) if (root / "proof").is_dir() else []

    def read_json(self, path: Path, *, what: str = "JSON file", max_bytes: int = MAX_BYTES) -> Json:
        """A JSON file of the folder: a regular file inside it, bounded in size and depth (league.inputs)."""
        value: Json = read_input_json(path, what=what, max_bytes=max_bytes, inside=self.root)
        return value

    def council_lines(self) -> list[JsonObject]:
        """The council book's lines, parsed once for steps 5 and 9."""
        if self._council is None:
            book = self.root / COUNCIL_BOOK
            self._council = read_lines(book) if book.is_file() else []
        return self._council

    def run(self) -> list[StepResult]:
        steps: list[tuple[int, str, Callable[[], tuple[Status, str]]]] = [
            (2, "read stamped lists", self.step2), (3, "prefix digests", self.step3),
            (4, "seals and links", self.step4), (5, "ask hashes", self.step5),
            (6, "OpenTimestamps", self.step6), (7, "recount", self.step7),
            (8, "code hashes", self.step8), (9, "RFC 3161 tokens", self.step9),
            (10, "transparency log", self.step10), (13, "CLI contest", self.step13),
        ]
        steps += [(n, name, partial(fn, self.root)) for n, name, fn in self.extra]
        try:
            ordered = sorted(steps, key=lambda s: s[0])
            results = [self._step(i, len(ordered), n, name, fn) for i, (n, name, fn) in enumerate(ordered)]
            if self.progress is not None:
                self.progress("done", len(steps), len(steps))
        finally:
            if self._tmp is not None:
                self._tmp.cleanup()
                self._tmp = None
        return [replace(r, strict=self.strict_notes.get(r.step, "")) for r in results]

    def _step(self, done: int, total: int, n: int, name: str, fn: Callable[[], tuple[Status, str]]) -> StepResult:
        if self.progress is not None:
            self.progress(f"step {n} {name}", done, total)
        return _guarded(n, name, fn)

    # step 2 ------------------------------------------------------------------------
    def step2(self) -> tuple[Status, str]:
        if not self.lists:
            return "skipped", "no stamped lists under proof/<day>/ (nothing has been stamped yet)"
        bad = [f"{s.rel}: row {r!r} does not read as `NAME: N lines, sha256 D, last link L`"
               for s in self.lists for r in s.bad_rows]
        bad += [f"{s.rel}: names no book" for s in self.lists if not s.entries]
        if bad:
            return "FAILED", _join(bad)
        rows = sum(len(s.entries) for s in self.lists)
        return "ok", f"{len(self.lists)} stamped lists, {rows} book heads"

    # step 3 ------------------------------------------------------------------------
    def step3(self) -> tuple[Status, str]:
        if not self.lists:
            return "skipped", f"no stamped lists: {PREFIX_ONLY}"
        self._prefixes = self._all_prefixes()
        bad = [p for s in self.lists for row, e in enumerate(s.entries, 1) if (p := self._prefix_problem(s, row, e))]
        if bad:
            return "FAILED", _join(bad)
        heads = sum(len(s.entries) for s in self.lists)
        return "ok", f"{heads} heads match `head -n N | sha256sum` and line N's link; {'; '.join(self.coverage())}"

    def coverage(self) -> list[str]:
        """Per published book: the furthest line a stamped head covers, and the lines after it that no
        stamp covers yet (a reader cannot tell those from lines added, or tell their absence from a cut)."""
        out = []
        for name in self._books():
            total = complete_lines(_inside(self.root, name))
            heads = [(n, s.rel) for s in self.lists for book, n, _, _ in s.entries if book == name]
            if not heads:
                out.append(f"{name}: no stamped head names it, so its {total} lines are checked as a prefix only")
                continue
            n, rel = max(heads)
            if n >= total:
                out.append(f"{name}: all {total} lines are under the stamped head of {rel}")
            else:
                out.append(f"{name}: the stamped head of {rel} covers lines 1-{n} of {total}; lines {n + 1}-{total} "
                           "follow it unstamped (until a stamp covers them they could be cut or changed unseen)")
        return out

    def _prefix_problem(self, s: StampedList, row: int, entry: tuple[str, int, str, str]) -> str | None:
        name, n, digest, link = entry
        where = f"{s.rel} line {row + 1} ({name}: {n} lines)"
        book = _inside(self.root, name)
        if not book.is_file():
            return f"{where}: the book {name} is not published"
        count, got, got_link = self._prefixes.get((name, n)) or prefix_facts(book, n)
        if count < n:
            return f"{where}: the published book has only {count} complete lines"
        if got != digest:
            return f"{where}: head -n {n} hashes to {got}, the list says {digest}; {first_bad_line(book, n)}"
        if got_link != link:
            return f"{where}: line {n}'s link is {got_link}, the list says {link}"
        return None

    def _all_prefixes(self) -> dict[tuple[str, int], tuple[int, str, str | None]]:
        """Every (book, N) a list names, hashed in one pass per book instead of one pass per list."""
        wanted: dict[str, set[int]] = {}
        for s in self.lists:
            for name, n, _, _ in s.entries:
                wanted.setdefault(name, set()).add(n)
        out: dict[tuple[str, int], tuple[int, str, str | None]] = {}
        for name, ns in wanted.items():
            book = _inside(self.root, name)
            if book.is_file():
                out.update({(name, n): facts for n, facts in prefix_table(book, ns).items()})
        return out

    # step 4 ------------------------------------------------------------------------
    def step4(self) -> tuple[Status, str]:
        books = self._books()
        if not books:
            return "skipped", "no published book found"
        bad, good = [], []
        for name in books:
            report = verify(_inside(self.root, name), workers=1)
            if report.ok:
                good.append(f"{name} {report.lines} lines")
            else:
                bad.append(f"{name} line {report.bad_line}: {report.reason}")
        return ("FAILED", _join(bad)) if bad else ("ok", ", ".join(good))

    def _books(self) -> list[str]:
        names = {e[0] for s in self.lists for e in s.entries}
        names |= {n for n in (COUNCIL_BOOK, "asks.jsonl", *ARMS_BOOKS, READERS_BOOK) if (self.root / n).is_file()}
        return sorted(n for n in names if _inside(self.root, n).is_file())

    # step 5 ------------------------------------------------------------------------
    def step5(self) -> tuple[Status, str]:
        book = self.root / COUNCIL_BOOK
        if not book.is_file():
            return "skipped", f"{COUNCIL_BOOK} is not published"
        shas = {str(x["ask_sha256"]): _int(x.get("n", 0)) for x in self.council_lines()
                if x.get("kind") in ("answer", "run") and x.get("ask_sha256")}
        lines = self.council_lines()
        snap_bad, snaps = snapshot_problems(self.root, lines)
        open_bad, opened = opening_problems(self.root, lines)
        blind_bad, blind = blind_problems(lines)
        arms_book = self.root / ARMS_BOOKS[0]
        arms_bad, arms = arms_problems(self.root, read_lines(arms_book)) if arms_book.is_file() else ([], 0)
        if not shas and not snaps and not opened and not open_bad:
            return "skipped", "the book has no answer or run lines carrying ask_sha256 yet"
        bad = [p for sha, n in sorted(shas.items()) if (p := self._ask_problem(sha, n))]
        bad += snap_bad + open_bad + blind_bad + arms_bad
        if bad:
            return "FAILED", _join(bad)
        also = "".join(f", {name}" for name in opened)
        blind_note = f"; {blind}" if blind else ""
        arms_note = f"; {arms} arm ask texts and news packets match the arms' book" if arms else ""
        return "ok", (f"{len(shas)} ask texts, {snaps} snapshots{also} match the hashes sealed in the book"
                      f"{blind_note}{arms_note}")

    def _ask_problem(self, sha: str, line: int) -> str | None:
        path = _inside(self.root, f"asks/{sha}.md")
        if not path.is_file():
            return f"line {line}: asks/{sha}.md is not published"
        got = file_sha256(path, inside=self.root, what="ask text")
        return None if got == sha else f"asks/{sha}.md hashes to {got}"

    # step 6 ------------------------------------------------------------------------
    def step6(self) -> tuple[Status, str]:
        pairs = [(s, s.path.with_name(s.path.name + ".ots")) for s in self.lists]
        pairs = [(s, p) for s, p in pairs if p.exists()]
        if not pairs:
            return "skipped", "no .ots proofs published"
        bad, verified, pending, unchecked = [], [], 0, set()
        for s, p in pairs:
            try:
                v = verify_ots(read_small(p, inside=self.root, what="OpenTimestamps proof"), s.data, self.headers)
            except (StampError, InputError) as exc:
                bad.append(f"{s.rel}.ots: {exc.message}")
                continue
            verified += [f"{s.rel} block {h} ({iso_seconds(t)})" for h, t in v.verified]
            pending += 0 if v.complete else 1
            unchecked |= set(v.unchecked_heights) if not v.verified else set()
        if bad:
            return "FAILED", _join(bad)
        if verified:
            return "ok", f"{len(verified)} proofs verified against block headers: {_join(verified)}; {pending} pending"
        why = f"{len(pairs)} proofs commit to their lists' hashes; {pending} still pending at the calendars"
        if unchecked:
            why += f"; attested in blocks {sorted(unchecked)} but no block header was supplied to check them"
        return "skipped", why + " (run `league stamp upgrade`, then verify against block headers)"

    # step 7 ------------------------------------------------------------------------
    def step7(self) -> tuple[Status, str]:
        scripts = [s for s in REPLAY_SCRIPTS if (self.root / s).is_file()]
        scripts += [s for s, needs in OPTIONAL_SCRIPTS.items()
                    if (self.root / s).is_file() and (self.root / needs).is_file()]
        if not scripts:
            return "skipped", "neither replay.py nor tools/replay_brier.py is published"
        if not self.run_scripts:
            return "skipped", ("scripts downloaded from a URL are not run automatically; read them, then run "
                               "`league verify` on a local copy of the folder")
        python = shutil.which("python3") or sys.executable
        bad, good = [], []
        for script in scripts:
            proc = subprocess.run([python, "-I", script, *REPLAY_ARGS[script]], cwd=self.root, capture_output=True,
                                  text=True,
                                  timeout=900, check=False)
            tail = (proc.stdout.strip().splitlines() or proc.stderr.strip().splitlines() or [""])[-1]
            if proc.returncode == 0:
                good.append(f"{script}: {tail}")
            else:
                err = (proc.stderr.strip().splitlines() or [tail])[-1]
                bad.append(f"{script} exited {proc.returncode}: {err}")
        missing = [s for s in REPLAY_SCRIPTS if s not in scripts]
        note = f" ({', '.join(missing)} not published)" if missing else ""
        return ("FAILED", _join(bad)) if bad else ("ok", _join(good) + note)

    # step 8 ------------------------------------------------------------------------
    def step8(self) -> tuple[Status, str]:
        manifest = self.root / "arena-code.json"
        if not manifest.is_file():
            return "skipped", "arena-code.json is not published"
        try:
            entries = code_entries(self.read_json(manifest))
        except InputError as exc:
            return "FAILED", exc.message
        except (ValueError, TypeError, KeyError, AttributeError) as exc:
            return "FAILED", f"arena-code.json cannot be read ({exc})"
        if not entries:
            return "FAILED", "arena-code.json lists no files"
        bad = [p for path, published, sha in entries if (p := self._code_problem(path, published, sha))]
        return ("FAILED", _join(bad)) if bad else ("ok", f"{len(entries)} code files match arena-code.json")

    def _code_problem(self, path: str, published: str, sha: str) -> str | None:
        candidates = [published] if published else []
        candidates += ["arena-code-" + path.removeprefix("league/").replace("/", "-") + ".txt", path]
        found = next((p for c in candidates if c and (p := _inside(self.root, c)).is_file()), None)
        if found is None:
            return f"{path}: no published copy ({candidates[0]})"
        got = file_sha256(found, inside=self.root, what="code copy")
        return None if got == sha else f"{found.name} hashes to {got}, arena-code.json says {sha}"

    # step 9 ------------------------------------------------------------------------
    def step9(self) -> tuple[Status, str]:
        tokens = [(s, t) for s in self.lists for t in sorted(s.path.parent.glob(s.path.name + ".*.tsr"))]
        if not tokens:
            return "skipped", "no RFC 3161 tokens (.tsr) published"
        signed: list[tuple[StampedList, str, datetime]] = []
        anchors: dict[str, set[str]] = {"reader": set(), "operator": set()}
        bad = []
        for s, tsr in tokens:
            authority = tsr.name[len(s.path.name) + 1 : -len(".tsr")]
            try:
                when, anchor = self._check_token(s, tsr, authority)
            except (StampError, InputError) as exc:
                bad.append(f"{s.rel[: -len(s.path.name)]}{tsr.name}: {exc.message}")
                continue
            signed.append((s, tsr.name, when))
            anchors[anchor].add(authority)
        bad += self._late_tokens(signed)
        if bad:
            return "FAILED", _join(bad)
        return self._trust_verdict(signed, anchors)

    def _trust_verdict(self, signed: list[tuple[StampedList, str, datetime]],
                       anchors: Mapping[str, set[str]]) -> tuple[Status, str]:
        """Who vouches for the signed times: the reader's own trust store, or only the operator."""
        reader, operator = sorted(anchors["reader"]), sorted(anchors["operator"])
        few = "" if len(reader) >= 2 else " (fewer than two independent authorities in your trust store)"
        head = f"{len(signed)} tokens verify"
        parts = [f"{', '.join(reader)}: anchored in your trust store{few}"] if reader else []
        if operator and not self.trust_folder_certs:
            self.strict_notes[9] = f"tokens of {', '.join(operator)} chain only to certificates found in the folder"
            parts.append(f"{', '.join(operator)}: UNTRUSTED, their roots are only the certificates published in "
                         f"this folder (proof/tsa/), not in your trust store ({self.trust.described}); pass "
                         "--trust-folder-certs to accept them as declared by the operator")
            return "untrusted", f"{head}; {'; '.join(parts)}; {self._coverage_note(signed, reader)}"
        if operator:
            self.strict_notes[9] = f"tokens of {', '.join(operator)} are declared by the operator, not independent"
            parts.append(f"{', '.join(operator)}: certificates declared by the operator (found in the folder, "
                         "accepted by --trust-folder-certs; the operator could have signed any time with them)")
        return "ok", f"{head}; {'; '.join(parts)}; {self._coverage_note(signed, reader)}"

    def _check_token(self, s: StampedList, tsr: Path, authority: str) -> tuple[datetime, str]:
        folder = self.root / "proof" / "tsa" / authority
        ca, crt = folder / "ca.pem", folder / "tsa.crt"
        token = read_small(tsr, inside=self.root, what="RFC 3161 token")
        for cert in (ca, crt):
            if cert.is_file():
                read_small(cert, inside=self.root, what="certificate")  # bounded before the check reads it
        try:
            check = check_token(token, s.data, self.trust, folder_ca=ca if ca.is_file() else None,
                                folder_tsa=crt if crt.is_file() else None, authority=authority)
        except StampError as exc:
            missing = [c.relative_to(self.root).as_posix() for c in (ca, crt) if not c.is_file()]
            raise StampError(exc.message + "".join(f"; certificate {m} is missing" for m in missing)) from exc
        if shutil.which("openssl"):
            ok, line = self._openssl(s.path, tsr, check, ca)
            if not ok:
                raise StampError(f"openssl ts -verify rejects it: {line}")
        return check.signed_time, check.anchor

    def _openssl(self, data: Path, tsr: Path, check: TokenCheck, folder_ca: Path) -> tuple[bool, str]:
        """The reader's exact command, with the CA file that anchored the in-process check."""
        if self._tmp is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="league-verify-")
        work = Path(self._tmp.name)
        chain = work / f"untrusted-{tsr.name}.pem"
        chain.write_bytes(b"".join(_pem(c) for c in (check.signer, *check.intermediates)))
        if check.anchor == "reader":
            bundle = work / "trust-store.pem"
            if not bundle.exists():
                self.trust.write_bundle(bundle)
            return openssl_verify(data, tsr, bundle, chain)
        return openssl_verify(data, tsr, folder_ca, chain)

    def _late_tokens(self, signed: list[tuple[StampedList, str, datetime]]) -> list[str]:
        """Every session's counted answers need a token covering them signed before its reference time."""
        problems = []
        for need in session_needs(self.council_lines()):
            covering = sorted(((t, s, name) for s, name, t in signed if s.covers(COUNCIL_BOOK) >= need.last_line),
                              key=lambda c: (c[0], c[1].rel, c[2]))
            if not covering:
                problems.append(f"session {need.session}: no token covers its counted answers (through line "
                                f"{need.last_line})")
            elif covering[0][0] > need.reference:
                t, s, name = covering[0]
                problems.append(f"session {need.session}: {s.rel[: -len(s.path.name)]}{name} signed {iso_seconds(t)}"
                                f", after the reference time {iso_seconds(need.reference)} (first token covering "
                                f"counted answers through line {need.last_line})")
        return problems

    def _coverage_note(self, signed: list[tuple[StampedList, str, datetime]], reader: list[str]) -> str:
        """What the times prove, and on whose word: an independent authority's, or only the operator's."""
        needs = session_needs(self.council_lines())
        if not needs:
            return "no session with counted answers to check against a reference time"
        independent = [need for need in needs if any(
            t <= need.reference and s.covers(COUNCIL_BOOK) >= need.last_line and name.split(".")[-2] in reader
            for s, name, t in signed)]
        if len(independent) == len(needs):
            return f"{len(needs)} sessions' counted answers were signed before their reference times by an " \
                   "authority in your trust store"
        return f"{len(needs)} sessions' counted answers carry a signed time before their reference times, " \
               f"{len(independent)} of them from an authority in your trust store (the rest only on the word of " \
               "an authority the operator declared)"

    # step 10 -----------------------------------------------------------------------
    def step10(self) -> tuple[Status, str]:
        pairs = [(s, s.path.with_name(s.path.name + ".rekor.json")) for s in self.lists]
        pairs = [(s, p) for s, p in pairs if p.exists()]
        if not pairs:
            return "skipped", "no transparency-log entries (.rekor.json) published"
        key_file = self.root / PUBLIC_KEY
        key = read_small(key_file, inside=self.root, what="public key") if key_file.is_file() else None
        bad, good, logs = [], [], set()
        for s, p in pairs:
            try:
                entry = parse_response(self.read_json(p, what="transparency-log entry", max_bytes=MAX_PROOF_BYTES))
                good.append(verify_entry(entry, s.data, key))
                logs.add(entry.log_id)
            except (StampError, InputError, ValueError) as exc:
                bad.append(f"{p.relative_to(self.root)}: {getattr(exc, 'message', exc)}")
        if bad:
            return "FAILED", _join(bad)
        keynote = "" if key else f" ({PUBLIC_KEY} not published: signer not compared with the league key)"
        detail = f"{len(good)} entries log their lists' SHA-256 ({_join(good)}){keynote}; checked offline, " \
                 "not re-fetched from the log"
        others = sorted(logs - {PUBLIC_REKOR_LOG_ID})
        if others:
            self.strict_notes[10] = f"entries of a log other than Sigstore's public Rekor ({', '.join(others)})"
            return "untrusted", f"{detail}; UNTRUSTED log: logID {', '.join(others)} is not Sigstore's public " \
                                f"Rekor ({PUBLIC_REKOR_LOG_ID[:16]}…), so the operator may run it"
        return "ok", detail + "; logID is Sigstore's public Rekor (its signature on the entry is not checked offline)"


    # step 12 (run by `league verify` as an extra step: manifest_step) ----------------
    def step12(self) -> tuple[Status, str]:
        path = self.root / MANIFEST
        if not path.is_file():
            return "skipped", f"{MANIFEST} is not published"
        data = read_small(path, inside=self.root, what="release manifest", max_bytes=MAX_BYTES)
        try:
            files = parse_json(data.decode("utf-8"), where=MANIFEST)["files"]
            bad = [p for f in files if (p := self._manifest_problem(f))]
        except InputError as exc:
            return "FAILED", exc.message
        except (ValueError, KeyError, TypeError) as exc:
            return "FAILED", f"{MANIFEST} cannot be read ({exc})"
        if bad:
            return "FAILED", _join(bad)
        digest = hashlib.sha256(data).hexdigest()
        row = f"{MANIFEST}: sha256 {digest}"
        stamped = [s.rel for s in self.lists if row in s.data.decode("utf-8", errors="replace").split("\n")]
        if not stamped:
            why = "no stamped list names its SHA-256 " + digest
            return ("FAILED", why) if self.lists else ("ok", f"{len(files)} files match; {why} (nothing is stamped)")
        return "ok", f"{len(files)} files match their SHA-256 and size; the manifest's hash is in {stamped[-1]}"

    def _manifest_problem(self, entry: Mapping[str, Any]) -> str | None:
        name = str(entry["name"])
        path = _inside(self.root, name)
        if not path.is_file():
            return f"{MANIFEST} lists {name}, which is not published"
        size, got = path.stat().st_size, file_sha256(path, inside=self.root, what="published file")
        if size != int(entry["bytes"]) or got != entry["sha256"]:
            return f"{name}: {size} bytes, sha256 {got}; {MANIFEST} says {entry['bytes']} bytes, {entry['sha256']}"
        return None

    # step 13 -----------------------------------------------------------------------
    def step13(self) -> tuple[Status, str]:
        """`league contest verify` on the contest's files (public/contest/, or a contest-only folder):
        every sealed forecasts file against sealed.json, the contest book, metrics.json recomputed."""
        folder = contest_folder(self.root)
        if folder is None:
            return "skipped", "no contest files (contest/sealed.json) in this folder"
        if importlib.util.find_spec("numpy") is None:  # the lean install: the bootstrap intervals need NumPy
            self.strict_notes[13] = f"the contest's metrics were not recomputed: NumPy is missing ({STATS_EXTRA})"
            return "skipped", f"recomputing the contest's metrics needs the statistics extra: {STATS_EXTRA}"
        if self.contest is None:
            self.strict_notes[13] = "the contest's files were not checked (no contest verifier was given)"
            return "skipped", "not asked for: `league verify` and `league contest verify FOLDER` check them"
        checks = self.contest(folder)
        bad = [f"{c.name}: {c.detail}" for c in checks if c.failed]
        if bad:
            return "FAILED", _join(bad)
        done = [c.name for c in checks if c.status == "ok"]
        left = [f"{c.name}: {c.detail}" for c in checks if c.status == "unchecked"]
        if left:  # published figures the folder gives no means to recompute: not verified, refused under --strict
            self.strict_notes[13] = f"contest figures unchecked: {_join(left)}"
        return "ok", f"{len(done)} contest checks passed: {_join(done)}"


def manifest_step(folder: Path) -> tuple[Status, str]:
    """Step 12 on its own: the release manifest's files and its stamp (`league verify` adds it after the
    rebuild of step 11; :func:`verify_published` alone keeps the open-data steps 2-10)."""
    return Checker(folder, None, run_scripts=False).step12()


def contest_folder(root: Path) -> Path | None:
    """Where the CLI contest's files are: ``contest/`` of the league's folder, or the folder itself."""
    for folder in (root / CONTEST_DIR, root):
        if (folder / "sealed.json").is_file():
            return folder
    return None


def code_entries(doc: Any) -> list[tuple[str, str, str]]:
    """``(path, published file, sha256)`` from arena-code.json (``{"files": [...]}`` or a name→sha map)."""
    rows = doc.get("files", doc) if isinstance(doc, dict) else doc
    if isinstance(rows, dict):
        return [(str(k), "", str(v)) for k, v in rows.items() if isinstance(v, str)]
    out = []
    for r in rows:
        path = str(r.get("path") or r.get("file") or r.get("name"))
        out.append((path, str(r.get("published_as") or ""), str(r["sha256"])))
    return out


def _guarded(step: int, name: str, fn: Callable[[], tuple[Status, str]]) -> StepResult:
    try:
        status, detail = fn()
    except (StampError, InputError) as exc:
        status, detail = "FAILED", exc.message
    except Exception as exc:  # a reader's tool reports, it does not crash on bad input
        status, detail = "FAILED", f"could not run this step: {exc.__class__.__name__}: {exc}"
    return StepResult(step, name, status, detail)


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def _join(items: list[str]) -> str:
    shown = "; ".join(items[:MAX_SHOWN])
    return shown + (f"; and {len(items) - MAX_SHOWN} more" if len(items) > MAX_SHOWN else "")


# --------------------------------------------------------------------------- URLs
def mirror(url: str, dest: Path, client: httpx.Client | None = None) -> list[str]:
    """Download what verification reads from a published URL into ``dest``; returns what was missing."""
    http = client or httpx.Client(timeout=60, follow_redirects=True)
    base = url.rstrip("/") + "/"
    missing: list[str] = []
    index = _get(http, base, "proof/index.json", dest, missing)
    names = _listed(parse_json(index.decode("utf-8"), where=base + "proof/index.json").get("files", [])) \
        if index else []
    names += [COUNCIL_BOOK, "asks.jsonl", "arena-code.json", *REPLAY_SCRIPTS, *DERIVED]
    names += [f"{CONTEST_DIR}/{name}" for name in CONTEST_FILES]
    for name in names:
        _get(http, base, name, dest, missing)
    for extra in _second_wave(dest):
        _get(http, base, extra, dest, missing)
    return missing


def _second_wave(dest: Path) -> Iterator[str]:
    """Files named inside what was fetched: ask texts and the published code copies."""
    book = dest / COUNCIL_BOOK
    if book.is_file():
        yield from sorted({f"asks/{x['ask_sha256']}.md" for x in read_lines(book) if x.get("ask_sha256")})
    sealed = dest / CONTEST_DIR / "sealed.json"
    if sealed.is_file():
        try:
            yield from sorted({f"{CONTEST_DIR}/{e['file']}" for e in _fetched(sealed, dest) if e.get("file")})
        except (LeagueError, ValueError, TypeError, KeyError, AttributeError):
            pass  # what cannot be read here is named by the step that reads it
    manifest = dest / "arena-code.json"
    if manifest.is_file():
        try:
            yield from sorted({p for _, p, _ in code_entries(_fetched(manifest, dest)) if p})
        except (LeagueError, ValueError, TypeError, KeyError, AttributeError):
            pass
    release = dest / MANIFEST
    if release.is_file():  # every file the release lists, so that step 12 can check each
        try:
            yield from sorted({str(f["name"]) for f in _fetched(release, dest)["files"]})
        except (LeagueError, ValueError, TypeError, KeyError):
            return


def _fetched(path: Path, dest: Path) -> Any:
    return read_input_json(path, what="downloaded JSON file", inside=dest)


def _listed(files: Json) -> list[str]:
    """The names of proof/index.json's ``files`` (a list of paths in the folder)."""
    if not isinstance(files, list):
        raise InputError("proof/index.json: `files` is not a list", fix="publish the folder again")
    return [str(f) for f in files]


def _get(http: httpx.Client, base: str, name: str, dest: Path, missing: list[str]) -> bytes | None:
    target = _inside(dest, name)
    if target.exists():
        return target.read_bytes()
    try:
        r = http.get(base + name)
    except httpx.HTTPError:
        missing.append(name)
        return None
    if r.status_code != 200:
        missing.append(name)
        return None
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(r.content)
    return r.content


def verify_published(root: Path | str, *, block_headers: Mapping[int, BlockHeaderFact] | None = None,
                     extra: Sequence[ExtraStep] = (), trust: TrustStore | None = None,
                     trust_folder_certs: bool = False,
                     progress: Callable[[str, int, int], None] | None = None,
                     contest: ContestVerifier | None = None) -> list[StepResult]:
    """Run steps 1–10 and 13 (and ``extra`` steps) on a published folder or URL; one StepResult per step, never
    an exception; or only a FAILED step 1 when the target cannot be verified at all (:func:`unverifiable`).
    Step 13 runs ``contest`` (league.contest.verify.verify_folder) on the contest's files; without it, a
    folder with contest files has step 13 skipped, and ``--strict`` refuses that.

    ``trust`` is the reader's trust store for step 9 (default: the system CA bundle plus the pinned
    public authorities); certificates found in the folder count only with ``trust_folder_certs``, and
    then as "declared by the operator"."""
    text = str(root)
    if text.startswith(("http://", "https://")):
        with tempfile.TemporaryDirectory(prefix="league-verify-") as tmp:
            try:
                mirror(text, Path(tmp))
            except LeagueError as exc:
                return [StepResult(*FOLDER_STEP, "FAILED", f"cannot download {text}: {exc.message}", fix=DOWNLOAD_FIX)]
            except (httpx.HTTPError, ValueError, TypeError, AttributeError, OSError) as exc:
                return [StepResult(*FOLDER_STEP, "FAILED", f"cannot download {text}: {exc}", fix=DOWNLOAD_FIX)]
            return _check(Path(tmp), block_headers, run_scripts=False, extra=extra, trust=trust,
                          trust_folder_certs=trust_folder_certs, progress=progress, contest=contest,
                          source=f"downloaded from {text}")
    folder = Path(root)
    if not folder.is_dir():
        return [StepResult(*FOLDER_STEP, "FAILED", f"{folder} is not a folder", fix=NO_BOOK_FIX)]
    return _check(folder, block_headers, run_scripts=True, extra=extra, trust=trust,
                  trust_folder_certs=trust_folder_certs, progress=progress, contest=contest, source=str(folder))


DOWNLOAD_FIX = "check the URL (the open-data folder's address, served with proof/index.json) and the network"
#: The fix of a folder that holds no book, or only empty ones.
NO_BOOK_FIX = ("name the published open-data folder that holds the books (DATA/public, or its URL), or a book "
               "file; a contest folder without a book: `league contest verify FOLDER`")


def unverifiable(root: Path) -> StepResult | None:
    """Step 1 FAILED when the folder cannot be verified at all, else ``None``: an entry no check may open
    (a symbolic link out of the folder, a FIFO, a device), or no book with a line in it. Every step after
    this reads only regular files inside the folder; and a folder with nothing to check must not pass."""
    foreign = foreign_entries(root)
    if foreign:
        return StepResult(*FOLDER_STEP, "FAILED", f"{describe(foreign)}: such an entry is never followed or read, "
                                                  "so the folder is not verified",
                          fix="replace each link by the file itself (inside the folder) and remove FIFOs, devices "
                              "and sockets: a published folder holds regular files only")
    books = [name for name in BOOKS if (root / name).is_file()]
    if not books:
        return StepResult(*FOLDER_STEP, "FAILED", f"no book here (none of {', '.join(BOOKS[:3])}): there is "
                                                  "nothing to verify", fix=NO_BOOK_FIX)
    if all((root / name).stat().st_size == 0 for name in books):
        return StepResult(*FOLDER_STEP, "FAILED", f"{', '.join(books)}: empty (0 lines), so there is nothing to "
                                                  "verify", fix=NO_BOOK_FIX)
    return None


def folder_step(root: Path, source: str) -> StepResult:
    """Step 1 when it holds: the folder was found (or downloaded) and holds books with lines, regular files only.
    Printed like every other step, so a reader's output starts at step 1 and names what the later steps read."""
    books = [name for name in BOOKS if (root / name).is_file() and (root / name).stat().st_size > 0]
    return StepResult(*FOLDER_STEP, "ok", f"{source}: {len(books)} book(s) with lines ({', '.join(books)}); "
                                          "regular files only")


def _check(folder: Path, headers: Mapping[int, BlockHeaderFact] | None, *, run_scripts: bool,
           extra: Sequence[ExtraStep] = (), trust: TrustStore | None = None,
           trust_folder_certs: bool = False,
           progress: Callable[[str, int, int], None] | None = None,
           contest: ContestVerifier | None = None, source: str = "") -> list[StepResult]:
    refusal = unverifiable(folder)
    if refusal is not None:
        return [refusal]
    found = folder_step(folder, source or str(folder))
    try:
        checker = Checker(folder, headers, run_scripts=run_scripts, extra=extra, trust=trust,
                          trust_folder_certs=trust_folder_certs, progress=progress, contest=contest)
    except (StampError, InputError) as exc:
        return [found, StepResult(2, "read stamped lists", "FAILED", f"cannot read {folder / 'proof'}: {exc.message}")]
    except OSError as exc:
        return [found, StepResult(2, "read stamped lists", "FAILED", f"cannot read {folder / 'proof'}: {exc}")]
    return [found, *checker.run()]

"""Proof pages: ``public/proof/`` (docs/protocol.md §6, open-data.md "A reader's verification").

Per day ``proof/<YYYY-MM-DD>/`` holds every stamp of the day (``HHMMSSZ.txt`` with ``.ots``,
``.<authority>.tsr``, ``.rekor.json`` and the ``.status.json`` that states the trust level
reached), ``runs.txt`` (every run's book lines with seal and link), ``ingest-close.txt`` (when
counted ingest closed, and which stamp covered the counted answers) and ``index.txt`` (a
readable summary). Once for all days: ``proof/tsa/<authority>/ca.pem`` + ``tsa.crt``, the league's
public key ``proof/league-signing.pub.pem`` and ``proof/index.json`` (every file, for readers who
verify by URL). Pages are regenerated from the stamps folder and the books, so they can be
rewritten at any time; the stamp files themselves are copied byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from league.clock import iso_seconds
from league.jsonvalue import Json, JsonObject
from league.verify.reader import COUNCIL_BOOK, PUBLIC_KEY, SessionNeed, iter_book_objects, session_needs
from league.verify.stamped import parse_stamped_list

STAMP_SUFFIXES = (".txt", ".ots", ".tsr", ".json")


def write_proof_pages(stamps_dir: Path, public_dir: Path, *, books: Mapping[str, Path],
                      public_key: Path | None = None) -> list[Path]:
    """Regenerate ``public_dir/proof`` from ``stamps_dir`` and the live books; returns the files written.

    ``books`` maps published names (as the stamped lists name them, e.g. ``council-book.jsonl``)
    to the live book files; runs and ingest-close statements are read from the council book.
    """
    proof = Path(public_dir) / "proof"
    proof.mkdir(parents=True, exist_ok=True)
    written = _copy_stamps(Path(stamps_dir), proof)
    written += _copy_certificates(Path(stamps_dir) / "tsa", proof / "tsa")
    if public_key is not None and public_key.is_file():
        written.append(_copy(public_key, Path(public_dir) / PUBLIC_KEY))
    council = books.get(COUNCIL_BOOK)
    lines = _page_lines(council) if council is not None and council.is_file() else []
    days = sorted(p.name for p in proof.iterdir() if p.is_dir() and p.name != "tsa")
    facts = BookFacts.of(lines, _lists_with_times(proof))
    for day in sorted(set(days) | set(facts.runs_by_day)):
        written += _day_pages(proof / day, day, facts)
    written.append(_write_index(proof, Path(public_dir)))
    return written


#: What the day pages read of a line that is not a run line (its row on the runs page, and an answer's sealing
#: time and number for the ingest-close statement).
_PAGE_KEYS = ("n", "kind", "seat", "at", "booked_at", "seal", "link", "run_id")


def _page_lines(book: Path) -> list[JsonObject]:
    """The council book's lines as :func:`league.verify.reader.read_lines` gives them, kept only as far as the
    pages read them (less memory): run lines whole, other lines naming a run cut to :data:`_PAGE_KEYS`, the rest
    (the season's scores, crowd, portfolio marks) not kept. A season's whole book as dicts was the publish run's
    peak (about 2.5 times the book's bytes); what the pages show is unchanged."""
    out: list[JsonObject] = []
    for obj in iter_book_objects(book):
        if obj.get("kind") == "run":
            out.append(obj)
        elif obj.get("run_id") is not None:
            out.append({k: obj[k] for k in _PAGE_KEYS if k in obj})
    return out


def _copy_stamps(stamps_dir: Path, proof: Path) -> list[Path]:
    out = []
    for day in sorted(p for p in stamps_dir.glob("????-??-??") if p.is_dir()):
        for f in sorted(day.iterdir()):
            if f.is_file() and not f.name.startswith(".") and f.name.endswith(STAMP_SUFFIXES):
                out.append(_copy(f, proof / day.name / f.name))
    return out


def _copy_certificates(tsa_dir: Path, target: Path) -> list[Path]:
    out = []
    for folder in sorted(p for p in tsa_dir.glob("*") if p.is_dir()):
        for name in ("ca.pem", "tsa.crt"):
            if (folder / name).is_file():
                out.append(_copy(folder / name, target / folder.name / name))
    return out


def _copy(src: Path, dst: Path) -> Path:
    dst.parent.mkdir(parents=True, exist_ok=True)
    if not dst.exists() or dst.read_bytes() != src.read_bytes():
        tmp = dst.with_name(f".{dst.name}.tmp")
        shutil.copyfile(src, tmp)
        os.replace(tmp, dst)
    return dst


# ------------------------------------------------------------------------------ per day
@dataclass(frozen=True)
class BookFacts:
    """What the day pages need from the council book, computed once for all days."""

    runs_by_day: dict[str, list[JsonObject]]
    lines_by_run: dict[str, list[JsonObject]]
    needs: list[SessionNeed]
    stamps: list[tuple[str, int, str]]

    @classmethod
    def of(cls, lines: list[JsonObject], stamps: list[tuple[str, int, str]]) -> BookFacts:
        runs: dict[str, list[JsonObject]] = defaultdict(list)
        by_run: dict[str, list[JsonObject]] = defaultdict(list)
        for x in lines:
            if x.get("kind") == "run" and isinstance(at := x.get("at"), str):
                runs[at[:10]].append(x)
            elif x.get("run_id") is not None:
                by_run[str(x["run_id"])].append(x)
        return cls(dict(runs), dict(by_run), session_needs(lines), stamps)


def _day_pages(folder: Path, day: str, facts: BookFacts) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    pages = {
        "runs.txt": runs_page(day, facts),
        "ingest-close.txt": ingest_close_page(day, facts),
        "index.txt": index_page(day, folder),
    }
    out = []
    for name, text in pages.items():
        target = folder / name
        target.write_text(text, encoding="utf-8")
        out.append(target)
    return out


def runs_page(day: str, facts: BookFacts) -> str:
    """Every run started that day with its book lines (run, answers, retries): n, kind, time, seal, link."""
    runs = facts.runs_by_day.get(day, [])
    out = [f"Runs of {day} in {COUNCIL_BOOK}: each line's n, kind, sealed time, seal and link.", ""]
    for run in runs:
        rid = str(run.get("run_id"))
        out.append(f"run {rid} (session {run.get('session', '?')})")
        out += [_line_row(x) for x in [run, *facts.lines_by_run.get(rid, [])]]
        out.append("")
    if not runs:
        out.append("No run started this day.")
    return "\n".join(out).rstrip("\n") + "\n"


def _line_row(x: Mapping[str, Json]) -> str:
    who = f" seat {x['seat']}" if x.get("seat") else ""
    return f"  line {x.get('n')}: {x.get('kind')}{who} at {x.get('at')} seal {x.get('seal')} link {x.get('link')}"


def _lists_with_times(proof: Path) -> list[tuple[str, int, str]]:
    """(list path relative to proof/, council lines covered, earliest signed time) for every stamp."""
    out = []
    for status in sorted(proof.glob("*/*.status.json")):
        try:
            record = json.loads(status.read_text(encoding="utf-8"))
            text = (status.parent / record["list"]).read_text(encoding="utf-8")
        except (OSError, ValueError, KeyError):
            continue
        covered = max((n for name, n, _, _ in parse_stamped_list(text) if name == COUNCIL_BOOK), default=0)
        times = sorted(b["signed_time"] for b in record.get("backends", []) if b.get("ok") and b.get("signed_time")
                       and b.get("kind") == "rfc3161")
        out.append((f"{status.parent.name}/{record['list']}", covered, times[0] if times else ""))
    return out


def ingest_close_page(day: str, facts: BookFacts) -> str:
    """The statement of when counted ingest closed, per session run that day, and which stamp covered it."""
    sessions = {str(x.get("session")) for x in facts.runs_by_day.get(day, [])}
    needs = [n for n in facts.needs if n.session in sessions]
    stamps = facts.stamps
    out = [f"Counted ingest for the sessions run on {day}:"]
    for need in needs:
        ref = iso_seconds(need.reference)
        first = next((s for s in sorted(stamps, key=lambda s: s[2] or "~") if s[1] >= need.last_line), None)
        cover = (f"first covered by proof/{first[0]} (signed {first[2] or 'no RFC 3161 time'})" if first
                 else "not yet covered by a stamp")
        out.append(f"session {need.session}: counted ingest closed at {ref}; counted answers are lines "
                   f"through {need.last_line} of {COUNCIL_BOOK}; {cover}")
    if not needs:
        out.append("no counted answers sealed for a session run this day")
    return "\n".join(out) + "\n"


def index_page(day: str, folder: Path) -> str:
    """One paragraph per stamp: its digest, the trust level reached, and each backend's result."""
    out = [f"Stamps of {day}. Trust levels (docs/protocol.md §6): 1 hash chain; 2 anchored in Bitcoin; "
           "2+ level 2 plus a third-party signed time; 'pending' = .ots not yet in a block.", ""]
    for status in sorted(folder.glob("*.status.json")):
        try:
            record = json.loads(status.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            out.append(f"{status.name}: unreadable status file")
            continue
        out.append(f"{record.get('list')}: sha256 {record.get('sha256')}, trust level {record.get('trust_level')}")
        out += [f"  {_backend_row(b)}" for b in record.get("backends", [])]
    if len(out) == 2:
        out.append("No stamp was taken this day.")
    return "\n".join(out) + "\n"


def _backend_row(b: Mapping[str, Json]) -> str:
    if not b.get("ok"):
        return f"{b.get('kind')} {b.get('name')}: FAILED after {b.get('attempts')} attempts: {b.get('error')}"
    facts = [f"file {b.get('file')}"]
    if b.get("signed_time"):
        facts.append(f"signed {b['signed_time']}")
    if b.get("log_index") is not None:
        facts.append(f"log index {b['log_index']}")
    if b.get("kind") == "ots":
        facts.append("complete" if b.get("complete") else "pending")
    elif b.get("kind") == "rfc3161":
        facts.append("verified" if b.get("verified") else f"not verified: {b.get('error')}")
    return f"{b.get('kind')} {b.get('name')}: " + ", ".join(facts)


def _write_index(proof: Path, public_dir: Path) -> Path:
    files = sorted(p for p in proof.rglob("*") if p.is_file() and not p.name.startswith(".") and p.name != "index.json")
    doc = {"files": [p.relative_to(public_dir).as_posix() for p in files],
           "sha256": {p.relative_to(public_dir).as_posix(): _sha(p) for p in files}}
    target = proof / "index.json"
    target.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    return target


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()

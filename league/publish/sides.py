"""``council-sides.json`` and ``council-tertiles.json`` (paper §5.8, F18/F19; §8's disagreement tertiles).

Built from three published files only — ``council-forecasts.csv`` (the answers), ``roster.json`` (each
seat's sealed side) and ``council-stats.json`` (the published consensus per event, for the tertiles) — so
that ``league verify`` step 11 rebuilds both from what a reader holds and ``tools/recount_sides.py``
recounts every figure with the standard library. The figures are league.scoring.sides's.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
from collections.abc import Iterator, MutableMapping
from pathlib import Path

from league.extras import extra
from league.jsonvalue import JsonObject
from league.publish.writing import write_json

FORECASTS, ROSTER, STATS = "council-forecasts.csv", "roster.json", "council-stats.json"
SIDES_JSON, TERTILES_JSON = "council-sides.json", "council-tertiles.json"
SIDES_FILES = (SIDES_JSON, TERTILES_JSON)
SOURCE = {"answers": FORECASTS, "sides": f"{ROSTER} (seats[*].side, as sealed in the roster lines of asks.jsonl)",
          "consensus": f"{STATS} consensus.per_event (p, outcome)",
          "recount": "python3 -I tools/recount_sides.py .",
          "definitions": "league/scoring/sides.py docstring; NOTES / docs: sides and disagreement tertiles"}


def roster_sides(folder: Path) -> dict[str, str]:
    """Seat -> side of the seats whose side roster.json names (none when it is not published)."""
    path = folder / ROSTER
    if not path.is_file():
        return {}
    seats = json.loads(path.read_text(encoding="utf-8")).get("seats", {})
    return {str(k): str(v.get("side")) for k, v in seats.items() if isinstance(v, dict) and v.get("side")}


def published_consensus(folder: Path) -> dict[tuple[str, str], tuple[float, float]]:
    """(run_id, event_id) -> (consensus p, outcome) of every resolved event of council-stats.json."""
    path = folder / STATS
    if not path.is_file():
        return {}
    doc = json.loads(path.read_text(encoding="utf-8"))
    events = doc.get("consensus", {}).get("per_event", []) if isinstance(doc, dict) else []
    out: dict[tuple[str, str], tuple[float, float]] = {}
    for e in events:
        p, o = e.get("p"), e.get("outcome")
        if isinstance(p, int | float) and isinstance(o, int | float):
            out.setdefault((str(e.get("run_id")), str(e.get("event_id"))), (float(p), float(o)))
    return out


def write_sides(folder: Path, memo: Path | None = None) -> list[Path]:
    """Both files into ``folder`` from its forecasts, roster and statistics; nothing without the forecasts.
    ``memo``: where each run's entries of council-sides.json are kept between publishes (:func:`read_memo`), so
    only the runs whose answers or sides changed are computed again; the files are the same bytes either way."""
    if not (folder / FORECASTS).is_file():
        return []
    with extra("stats"):
        from league.scoring import sides as sidesmod
    with open(folder / FORECASTS, encoding="utf-8", newline="") as fh:
        answers = sidesmod.council_answers(csv.DictReader(fh))
    kept = read_memo(memo, sidesmod.__file__) if memo is not None else None
    used: dict[str, list[JsonObject]] = {}
    figures = sidesmod.sides_report(answers, roster_sides(folder), None if kept is None else _Memo(kept, used))
    if memo is not None:
        write_memo(memo, sidesmod.__file__, used)
    report: JsonObject = {"source": dict(SOURCE), **figures}
    written = [write_json(folder / SIDES_JSON, report)]
    if (folder / STATS).is_file():
        tertiles: JsonObject = {"source": dict(SOURCE), "spread": "population standard deviation of the seats' "
                                "probabilities (points) per event; at least two seats",
                                "cut_rule": "cuts = the ceil(n/3)-th and ceil(2n/3)-th smallest spread (rounded to 9 "
                                "decimals); low <= cut 1 < mid <= cut 2 < high; equal spreads share a tertile",
                                **sidesmod.tertiles_report(answers, published_consensus(folder))}
        written.append(write_json(folder / TERTILES_JSON, tertiles))
    return written


MEMO_FORMAT = "sides-runs-1"
#: Where the publisher keeps each run's entries of council-sides.json (relative to DATA); nothing else reads it.
MEMO_FILE = "publish-cache/sides-runs.json"


class _Memo(MutableMapping[str, list[JsonObject]]):
    """The kept entries (read only) and, in ``used``, the entries of every run of this publish: the kept ones
    looked up and the new ones given. New entries go through JSON first, so a run reads the same whether its
    entries were just computed or kept."""

    def __init__(self, kept: dict[str, list[JsonObject]], used: dict[str, list[JsonObject]]) -> None:
        self._kept, self._used = kept, used

    def __getitem__(self, key: str) -> list[JsonObject]:
        found = self._kept[key]
        self._used[key] = found
        return found

    def __setitem__(self, key: str, entries: list[JsonObject]) -> None:
        entries[:] = json.loads(json.dumps(entries, allow_nan=False))
        self._used[key] = entries

    def __delitem__(self, key: str) -> None:
        del self._used[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._used)

    def __len__(self) -> int:
        return len(self._used)


def _code_digest(source: str) -> str:
    return hashlib.sha256(MEMO_FORMAT.encode() + Path(source).read_bytes()).hexdigest()


def read_memo(path: Path, source: str) -> dict[str, list[JsonObject]]:
    """The runs' entries kept at ``path`` (run key -> entries), when they were computed by the code in ``source``
    (league/scoring/sides.py); none otherwise (no file, another version of the code, a damaged file)."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(doc, dict) or doc.get("code") != _code_digest(source) or not isinstance(doc.get("runs"), dict):
        return {}
    return {str(k): v for k, v in doc["runs"].items() if isinstance(v, list)}


def write_memo(path: Path, source: str, runs: dict[str, list[JsonObject]]) -> None:
    """Keep this publish's runs' entries (only those: a run whose answers changed leaves its old key behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_text(json.dumps({"code": _code_digest(source), "runs": runs}, separators=(",", ":"), allow_nan=False),
                   encoding="utf-8")
    tmp.replace(path)


def rebuild_sides(folder: Path, out: Path) -> None:
    """A reader's rebuild (league verify step 11): both files from the rebuilt forecasts, roster and statistics
    in ``out`` (which :func:`league.publish.rebuild.rebuild_into` wrote from the books), when they are published."""
    if any((folder / name).is_file() for name in SIDES_FILES):
        write_sides(out)


STYLE_JSON = "council-style.json"
BLIND = b'"blind"'
BOOK = "council-book.jsonl"


def style_document(book: Path, replies: Path) -> JsonObject:
    """council-style.json (F30): the classifier's figures once a blind season is revealed, else why not.

    Reads the book's ``blind`` and ``reveal`` lines and each answer line's ``own_sha256``; the texts are the
    raw replies in DATA/replies/<own_sha256>.txt (not published, so a reader cannot rebuild this file:
    ``league verify`` does not, and no stdlib tool recounts it). A blind line's kind is the JSON string
    ``"blind"``, so a book whose bytes do not hold it has none: that case (every season that is not blind) is
    answered by one byte search, without parsing a line; a book that holds the string anywhere is parsed."""
    blind = reveal = False
    models: dict[str, str] = {}
    sealed: list[tuple[str, str]] = []
    if book.is_file() and holds(book, BLIND):
        with open(book, "rb") as fh:
            for raw in fh:
                if not raw.strip():
                    continue
                line = json.loads(raw)
                kind = line.get("kind")
                if kind == "blind":
                    blind = True
                elif kind == "reveal":
                    reveal = True
                    models.update({str(s.get("seat")): str(s.get("model")) for s in line.get("seats", [])})
                elif kind == "answer" and line.get("own_sha256"):
                    sealed.append((str(line.get("seat")), str(line["own_sha256"])))
    if not blind:
        return {"status": "not a blind season", "reason": "the book seals no blind line: the models' names were "
                "never hidden, so F30 (does style expose a model once names are hidden) does not apply"}
    if not reveal:
        return {"status": "blind season not yet revealed",
                "reason": "F30 is scored after the reveal line opens the commitments"}
    texts, labels = [], []
    for seat, sha in sealed:
        path = replies / f"{sha}.txt"
        if seat in models and path.is_file():
            texts.append(path.read_text(encoding="utf-8", errors="replace"))
            labels.append(models[seat])
    with extra("stats"):
        from league.scoring.style import style_test
    return {"status": "revealed", "source": f"{BOOK} answer lines (own_sha256) and the reveal line; the raw "
            "replies DATA/replies/<own_sha256>.txt", "recount": "not recounted by a stdlib tool; not rebuilt by "
            "league verify (the raw replies are not in the open-data folder)", **style_test(texts, labels)}


def holds(path: Path, token: bytes, chunk: int = 1 << 20) -> bool:
    """Whether the bytes of the file at ``path`` hold ``token``, read ``chunk`` bytes at a time (a token split
    across two reads is found in the overlap kept between them)."""
    keep = len(token) - 1
    tail = b""
    with open(path, "rb") as fh:
        while data := fh.read(chunk):
            window = tail + data
            if token in window:
                return True
            tail = window[-keep:] if keep else b""
    return False


def write_style(data_dir: Path, out: Path) -> Path:
    return write_json(out / STYLE_JSON, style_document(data_dir / "books" / BOOK, data_dir / "replies"))

"""Publish what the book's hashes commit to, so each commitment is checkable from the folder alone.

The book seals hashes of things that are not book lines: the morning snapshot of each run
(``snapshot_sha256``), the configuration behind ``config_sha256`` and the climatology table
(``climatology_sha256``, opening line). Without the hashed bytes a reader can only take those hashes
on trust. Each file written here hashes (``sha256sum``) to the value sealed in the book:

- ``snapshots/<session>.json``: the snapshot's canonical JSON (sorted keys, no spaces, UTF-8);
- ``config.json``: ``{"markets": {"markets": [...]}, "methodology": {...}}`` as the opening line holds
  them, serialised as ``json.dumps(body, sort_keys=True)`` — the bytes ``config_sha256`` hashes;
- ``climatology.json``: the table file itself, byte for byte.

A snapshot whose bytes no longer hash to its sealed value is not published under that name (it is
reported as failed): publishing it would only make the reader's check fail later with less to go on.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from league.publish.errors import PublishError
from league.publish.writing import write_bytes
from league.verify.commitments import config_bytes, snapshot_bytes


def write_snapshots(data_dir: Path, out: Path) -> list[str]:
    """``snapshots/<session>.json`` for every kept snapshot; returns the sessions whose bytes do not
    hash to their recorded value (not published)."""
    bad = []
    for path in sorted((data_dir / "snapshots").glob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        data = snapshot_bytes(record.get("snapshot"))
        if hashlib.sha256(data).hexdigest() != record.get("sha256"):
            bad.append(path.stem)
            continue
        write_bytes(out / "snapshots" / path.name, data)
    return bad


def write_config(book_bytes: bytes, out: Path) -> bool:
    """``config.json`` from the opening line (line 1 of the council book); False for a book without one."""
    end = book_bytes.find(b"\n")  # not split(b"\n", 1): that copies the rest of the book
    first = book_bytes if end < 0 else book_bytes[:end]
    opening = json.loads(first) if first else {}
    if not isinstance(opening, dict) or opening.get("kind") != "opening" or "config_sha256" not in opening:
        return False
    data = config_bytes(opening)
    if hashlib.sha256(data).hexdigest() != opening.get("config_sha256"):
        raise PublishError("the opening line's markets and methodology do not hash to its config_sha256")
    write_bytes(out / "config.json", data)
    return True


def write_climatology(data_dir: Path, out: Path) -> bool:
    table = data_dir / "climatology.json"
    if not table.is_file():
        return False
    write_bytes(out / "climatology.json", table.read_bytes())
    return True

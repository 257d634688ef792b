"""The files a track's sealed lines name by SHA-256, and their exact bytes.

JSON files are ``json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)`` in UTF-8 (no trailing
newline), so their SHA-256 is reproducible by any reader with a JSON library. Every file is written
atomically (a temporary name of the writing thread's own, fsync, rename): a reader never sees half a file,
and a raw reply or a prompt is on disk before the line naming it is sealed. Files read back are bounded in
size and nesting (league.inputs): one clear error, not a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any

from league import inputs


def dump_bytes(doc: Any) -> bytes:
    """The byte form of every JSON file a track writes."""
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def sha256_text(text: str) -> str:
    """The SHA-256 of a text's UTF-8 bytes (an ask's, a raw reply's)."""
    return sha256_bytes(text.encode("utf-8"))


def write_atomic(path: Path, data: bytes) -> None:
    """Write to a temporary name of this thread's own, then rename: two threads storing the same reply (same
    name, same bytes) must not move each other's temporary file away."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f"{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    with open(tmp, "wb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, path)


def write_json(path: Path, doc: Any) -> str:
    """Write ``doc``; return the SHA-256 of the bytes written."""
    data = dump_bytes(doc)
    write_atomic(path, data)
    return sha256_bytes(data)


def store_text(folder: Path, text: str) -> str:
    """Keep ``text`` as ``<folder>/<sha256>.txt`` (once); return its SHA-256."""
    data = text.encode("utf-8")
    digest = sha256_bytes(data)
    path = folder / f"{digest}.txt"
    if not path.exists():
        write_atomic(path, data)
    return digest


def read_json(path: Path, *, what: str) -> Any:
    """A file the track wrote, read back."""
    return inputs.read_json(path, what=what)

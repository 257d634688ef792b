"""The evaluation folder's files and their exact bytes.

JSON files are ``json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False)`` in UTF-8, so their SHA-256 is
reproducible by any reader with a JSON library. Every file is written atomically (temporary file, fsync,
rename); a raw reply or a prompt is written under its own SHA-256 and fsync'd before the line naming it is
sealed, so the book never names bytes that are not on disk.
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
from pathlib import Path
from typing import Any


def dump_bytes(doc: Any) -> bytes:
    return json.dumps(doc, indent=1, sort_keys=True, ensure_ascii=False).encode("utf-8")


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


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


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


def read_json(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))

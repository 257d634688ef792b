"""Atomic file writing for the open-data folder.

Readers download the folder while the nightly job regenerates it, so every file is written to a
temporary name beside its target and moved into place with ``os.replace``: a reader sees the old
file or the new one, never half of one. The folder is derived data (regenerable from the books),
so files are not fsync'd one by one; a file whose bytes did not change is left alone, which keeps
its mtime and so the HTTP validators readers cache by.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from league.publish.errors import PublishError


def write_bytes(target: Path, data: bytes) -> Path:
    """Write ``data`` to ``target`` atomically (temporary file, rename); unchanged files are kept."""
    if _same(target, data):
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise PublishError(f"cannot write {target}: {exc}", fix="check the folder's permissions and space") from exc
    return target


def write_json(target: Path, obj: object) -> Path:
    """Pretty, key-sorted JSON with a final LF, so diffs between nightly runs stay readable."""
    text = json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False, allow_nan=False) + "\n"
    return write_bytes(target, text.encode("utf-8"))


def _same(target: Path, data: bytes) -> bool:
    try:
        return target.stat().st_size == len(data) and target.read_bytes() == data
    except OSError:
        return False


def copy_file(source: Path, target: Path) -> Path:
    """Copy byte for byte, atomically; an identical target is kept."""
    if target.is_file() and target.stat().st_size == source.stat().st_size \
            and target.read_bytes() == source.read_bytes():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    os.close(fd)
    try:
        shutil.copyfile(source, tmp)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise PublishError(f"cannot copy {source} to {target}: {exc}") from exc
    return target


def complete_lines(source: Path) -> bytes:
    """The bytes of a JSONL book up to its last LF: a line still being written does not count yet."""
    data = source.read_bytes()
    end = data.rfind(b"\n")
    return data[: end + 1] if end >= 0 else b""


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()

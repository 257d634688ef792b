"""A published folder read as a reader must read it: nothing out of the folder, nothing unbounded.

Everything ``league verify FOLDER`` and ``league contest verify`` read comes from someone else, so:

* :func:`foreign_entries` walks the folder once, before any step runs, and names every entry that is
  not a plain file or folder inside it: a symbolic link leading out of the folder (``sealed.json ->
  /etc/shadow`` would be read as whoever runs the check, often root), a FIFO (a read that never
  returns), a device (``/dev/zero``: a read that never ends) or a socket. Such a folder is refused as a
  whole: the steps then read only regular files inside it, including the ones no step names yet.
* :func:`read_small` and :func:`file_sha256` read one file, refusing the same things again (the folder
  may change between the walk and the read) and bounding what is held in memory: proof files are read
  whole up to :data:`MAX_PROOF_BYTES`, anything hashed is streamed.
* :func:`bounded_lines` reads a book line by line without ever holding a line longer than the chain
  check accepts (``league.verify.chain.MAX_LINE_BYTES``).

JSON goes through :mod:`league.inputs` (size, depth, syntax: one :class:`~league.inputs.InputError`).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import BinaryIO

from league.inputs import InputError, check_inside

#: The largest stamped list, proof, token, certificate or log entry read whole (the league's are < 100 KB).
MAX_PROOF_BYTES = 16 << 20
#: Entries walked before a folder is refused as not a published folder (a season publishes a few thousand).
MAX_ENTRIES = 1_000_000
#: Problems named in full; the rest are counted.
SHOWN = 3
_BLOCK = 1 << 20


def foreign_entries(root: Path) -> list[str]:
    """Every entry under ``root`` that a reader's check must not open, described relative to ``root``.

    Symbolic links that stay inside the folder are allowed (they are read as their target, which is
    walked too); nothing is followed to find out more than ``lstat`` and ``resolve`` tell."""
    problems: list[str] = []
    seen = 0
    for top, dirs, files in os.walk(root, followlinks=False):
        for name in (*dirs, *files):
            seen += 1
            if seen > MAX_ENTRIES:
                return [*problems, f"more than {MAX_ENTRIES:,} entries: not a published folder"]
            problem = _entry_problem(root, Path(top) / name)
            if problem is not None:
                problems.append(problem)
    return problems


def _entry_problem(root: Path, path: Path) -> str | None:
    rel = path.relative_to(root).as_posix()
    try:
        info = os.lstat(path)
    except OSError as exc:
        return f"{rel}: cannot be read ({exc.strerror or exc})"
    if stat.S_ISLNK(info.st_mode):
        try:
            real = check_inside(path, root, what="link")
        except InputError:
            return f"{rel}: a symbolic link out of the folder (to {os.readlink(path)})"
        try:
            info = os.stat(real)
        except OSError:
            return None  # a dangling link inside the folder: the step that wants it says it is missing
    if stat.S_ISREG(info.st_mode) or stat.S_ISDIR(info.st_mode):
        return None
    return f"{rel}: {_kind(info.st_mode)}, not a regular file"


def _kind(mode: int) -> str:
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a special file"


def describe(problems: list[str]) -> str:
    """The first few problems, and how many more."""
    shown = "; ".join(problems[:SHOWN])
    return shown + (f"; and {len(problems) - SHOWN} more" if len(problems) > SHOWN else "")


def regular(path: Path, *, inside: Path, what: str) -> os.stat_result:
    """``path``'s status when it is a regular file inside ``inside``; else one :class:`InputError`."""
    check_inside(path, inside, what=what)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found", fix="check the path") from None
    except OSError as exc:
        raise InputError(f"{path}: {what} cannot be read ({exc.strerror or exc})",
                         fix="check the path and its permissions") from None
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: {_kind(info.st_mode) if not stat.S_ISDIR(info.st_mode) else 'a folder'}, "
                         f"not a regular file, so it is not read as a {what}", fix="name a regular file")
    return info


def read_small(path: Path, *, inside: Path, what: str, max_bytes: int = MAX_PROOF_BYTES) -> bytes:
    """The bytes of a small regular file inside ``inside`` (a stamped list, a proof, a certificate)."""
    info = regular(path, inside=inside, what=what)
    if info.st_size > max_bytes:
        raise InputError(f"{path}: {info.st_size:,} bytes, larger than the {max_bytes:,} a {what} may have",
                         fix="check that this is the right file")
    with open(path, "rb") as fh:
        data = fh.read(max_bytes + 1)
    if len(data) > max_bytes:
        raise InputError(f"{path}: larger than the {max_bytes:,} bytes a {what} may have",
                         fix="check that this is the right file")
    return data


def file_sha256(path: Path, *, inside: Path, what: str = "file") -> str:
    """SHA-256 of a regular file inside ``inside``, streamed (a file of any size is hashed in 1 MiB blocks)."""
    regular(path, inside=inside, what=what)
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        while block := fh.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def bounded_lines(fh: BinaryIO, max_bytes: int) -> Iterator[bytes | None]:
    """The lines of ``fh`` with their LF; ``None`` for a line longer than ``max_bytes``, whose bytes are
    skipped without being held (the caller reports it and decides whether to go on)."""
    while raw := fh.readline(max_bytes + 1):
        if len(raw) <= max_bytes or raw.endswith(b"\n"):
            yield raw
            continue
        while (rest := fh.readline(_BLOCK)) and not rest.endswith(b"\n"):
            pass
        yield None

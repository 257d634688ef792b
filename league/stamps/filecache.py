"""What the stamper reads from disk on every stamp, read once while the file stays the same.

A stamp loads each local authority's certificate and key, each authority's root for the check of its
fresh token, the log's signing key, and copies each authority's certificates beside the stamps: about
a dozen small files per stamp, the same ones all season. :func:`loaded` keeps what a loader made of a
file under the file's identity (inode, size, modification time in ns); a file replaced or rewritten
has another identity and is loaded again. :func:`copy_once` skips a copy whose source and target
are both still the files it left behind.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

T = TypeVar("T")
Identity = tuple[int, int, int, int]

_LOADED: dict[tuple[str, Any], tuple[Identity, Any]] = {}
_COPIED: dict[tuple[str, str], tuple[Identity, Identity]] = {}
_LOCK = threading.Lock()


def identity(path: Path) -> Identity:
    """The file's device, inode, size and modification time (ns); raises OSError when it is missing."""
    st = os.stat(path)
    return st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns


def loaded(path: Path, loader: Callable[[Path], T]) -> T:
    """``loader(path)``, reused while the file keeps its identity (a missing file: the loader's own error)."""
    key = (os.path.abspath(path), loader)
    try:
        ident = identity(path)
    except OSError:
        return loader(path)
    with _LOCK:
        hit = _LOADED.get(key)
    if hit is not None and hit[0] == ident:
        value: T = hit[1]
        return value
    value = loader(path)
    with _LOCK:
        _LOADED[key] = (ident, value)
    return value


def copy_once(source: Path, target: Path) -> None:
    """``shutil.copyfile(source, target)`` unless this process made ``target`` from ``source`` as it is now
    and neither changed since."""
    key = (os.path.abspath(source), os.path.abspath(target))
    try:
        now = (identity(source), identity(target))
    except OSError:
        now = None
    with _LOCK:
        if now is not None and _COPIED.get(key) == now:
            return
    shutil.copyfile(source, target)
    try:
        after = (identity(source), identity(target))
    except OSError:
        return
    with _LOCK:
        _COPIED[key] = after


def forget() -> None:
    """Drop every remembered file (tests)."""
    with _LOCK:
        _LOADED.clear()
        _COPIED.clear()

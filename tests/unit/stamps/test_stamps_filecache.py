"""The stamper's file cache: a file is read again once it changed, a copy made again once either side did."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from league.stamps import filecache


@pytest.fixture(autouse=True)
def _fresh() -> None:
    filecache.forget()


def test_a_file_is_loaded_once_while_it_is_unchanged_and_again_after_a_change(tmp_path: Path) -> None:
    path, calls = tmp_path / "ca.pem", []

    def load(p: Path) -> bytes:
        calls.append(p)
        return p.read_bytes()

    path.write_bytes(b"one")
    assert filecache.loaded(path, load) == b"one" and filecache.loaded(path, load) == b"one"
    assert len(calls) == 1
    path.write_bytes(b"two!")  # rewritten (other size, other time): read again
    assert filecache.loaded(path, load) == b"two!" and len(calls) == 2
    replacement = tmp_path / "new.pem"
    replacement.write_bytes(b"thr!")
    st = path.stat()
    os.utime(replacement, ns=(st.st_atime_ns, st.st_mtime_ns))
    os.replace(replacement, path)  # same size and time, another inode: read again
    assert filecache.loaded(path, load) == b"thr!" and len(calls) == 3


def test_a_missing_file_is_the_loaders_own_error(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        filecache.loaded(tmp_path / "gone.pem", lambda p: p.read_bytes())


def test_a_copy_is_made_again_when_the_target_or_the_source_changed(tmp_path: Path) -> None:
    source, target = tmp_path / "ca.pem", tmp_path / "out" / "ca.pem"
    target.parent.mkdir()
    source.write_bytes(b"root")
    filecache.copy_once(source, target)
    assert target.read_bytes() == b"root"
    first = filecache.identity(target)
    filecache.copy_once(source, target)
    assert filecache.identity(target) == first  # not copied again
    target.write_bytes(b"tampered")
    filecache.copy_once(source, target)
    assert target.read_bytes() == b"root"
    target.unlink()
    filecache.copy_once(source, target)
    assert target.read_bytes() == b"root"
    source.write_bytes(b"new root")
    filecache.copy_once(source, target)
    assert target.read_bytes() == b"new root"

"""Credential files are read as plain files only: a symlink planted in the
credentials home must never make the league (often root) copy what it points to into a sandbox."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from sandbox.interface import SandboxError
from sandbox.profiles import MAX_CREDENTIAL_BYTES, get_profile, present_credentials, read_credential


@pytest.fixture
def home(tmp_path: Path) -> Path:
    (tmp_path / "creds" / ".claude").mkdir(parents=True)
    (tmp_path / "secret").write_text("root:$6$hash:19000::::::\n")
    return tmp_path / "creds"


def test_plain_file_is_read_and_missing_file_is_none(home: Path) -> None:
    (home / ".claude.json").write_text('{"token": "t"}')
    assert read_credential(home, ".claude.json") == b'{"token": "t"}'
    assert read_credential(home, ".claude/.credentials.json") is None
    assert read_credential(home / "nowhere", ".claude.json") is None


def test_symlinked_file_is_refused_with_the_fix(home: Path) -> None:
    (home / ".claude.json").symlink_to(home.parent / "secret")
    with pytest.raises(SandboxError) as info:
        read_credential(home, ".claude.json")
    assert "symbolic link" in str(info.value) and "secret" not in str(info.value).split("refused")[0][-5:]
    assert "cp --remove-destination" in (info.value.fix or "")


def test_symlinked_directory_is_refused(home: Path) -> None:
    (home.parent / "elsewhere").mkdir()
    (home.parent / "elsewhere" / "settings.json").write_text("not yours")
    (home / ".claude").rmdir()
    (home / ".claude").symlink_to(home.parent / "elsewhere")
    with pytest.raises(SandboxError, match="symbolic link"):
        read_credential(home, ".claude/settings.json")


def test_hard_link_fifo_and_huge_files_are_refused(home: Path) -> None:
    os.link(home.parent / "secret", home / ".claude.json")
    with pytest.raises(SandboxError, match="hard links"):
        read_credential(home, ".claude.json")
    os.mkfifo(home / ".claude" / ".credentials.json")
    with pytest.raises(SandboxError, match="not a regular file"):
        read_credential(home, ".claude/.credentials.json")  # and it did not block on the FIFO
    (home / ".claude" / "settings.json").write_bytes(b"x" * (MAX_CREDENTIAL_BYTES + 1))
    with pytest.raises(SandboxError, match="more than a login file"):
        read_credential(home, ".claude/settings.json")


def test_doctor_sees_the_refusal_too(home: Path) -> None:
    (home / ".claude.json").symlink_to(home.parent / "secret")
    with pytest.raises(SandboxError, match="symbolic link"):
        present_credentials(get_profile("claude"), home)

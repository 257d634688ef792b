"""The league's own caching rules (league.api.caching): Cache-Control by file kind, the manifest's ETags."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest

from league.api.caching import IMMUTABLE, NIGHTLY, REVALIDATE, ManifestETags, file_cache_control, is_stream

SHA = "ab" * 32


@pytest.mark.parametrize(("name", "expected"), [
    ("council-book.jsonl", REVALIDATE),
    ("arms/arms-book.jsonl", REVALIDATE),
    ("readers/readers-book.jsonl", REVALIDATE),
    (f"asks/{SHA}.md", IMMUTABLE),
    (f"predictions/registry-{SHA}.toml", IMMUTABLE),
    (f"replies/{SHA}.txt", IMMUTABLE),
    ("proof/2026-01-05/133000Z.txt", IMMUTABLE),
    ("proof/2026-01-05/133000Z.digicert.tsr", IMMUTABLE),
    ("snapshots/2026-01-05-am.json", IMMUTABLE),
    ("proof/2026-01-05/133000Z.txt.ots", NIGHTLY),      # upgraded in place once Bitcoin confirms
    ("proof/2026-01-05/133000Z.status.json", NIGHTLY),  # the trust level reached changes
    ("proof/2026-01-05/runs.txt", NIGHTLY),             # regenerated from the books
    ("proof/index.json", NIGHTLY),
    ("council-forecasts.csv", NIGHTLY),
    ("council-stats.json", NIGHTLY),
    ("protocol.md", NIGHTLY),
    (f"{SHA[:63]}.md", NIGHTLY),                        # 63 hex digits are not a SHA-256
])
def test_cache_control_by_kind(name: str, expected: str) -> None:
    assert file_cache_control(name) == expected


def _publish(folder: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        (folder / name).write_bytes(data)
    entries = [{"name": n, "bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in files.items()]
    (folder / "release-manifest.json").write_text(json.dumps({"files": entries}), encoding="utf-8")


def test_the_manifest_vouches_only_for_the_file_it_describes(tmp_path: Path) -> None:
    _publish(tmp_path, {"a.json": b'{"a": 1}\n', "b.csv": b"x,y\n1,2\n"})
    etags = ManifestETags(tmp_path)
    a = tmp_path / "a.json"
    assert etags.etag("a.json", a.stat()) == f'"{hashlib.sha256(a.read_bytes()).hexdigest()}"'
    with open(a, "ab") as fh:  # grown since the publish: another size
        fh.write(b"more\n")
    assert etags.etag("a.json", a.stat()) is None
    b = tmp_path / "b.csv"
    later = (tmp_path / "release-manifest.json").stat().st_mtime_ns + 5_000_000_000
    b.write_bytes(b"x,y\n3,4\n")  # the same size, changed by hand after the manifest
    os.utime(b, ns=(later, later))
    assert etags.etag("b.csv", b.stat()) is None
    assert etags.etag("c.txt", b.stat()) is None  # not listed


def test_a_new_manifest_is_read_again(tmp_path: Path) -> None:
    _publish(tmp_path, {"a.json": b"1\n"})
    etags = ManifestETags(tmp_path)
    first = etags.etag("a.json", (tmp_path / "a.json").stat())
    _publish(tmp_path, {"a.json": b"2\n"})
    manifest = tmp_path / "release-manifest.json"
    st = manifest.stat()
    os.utime(manifest, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))  # a later publish
    second = etags.etag("a.json", (tmp_path / "a.json").stat())
    assert second == f'"{hashlib.sha256(b"2" + bytes([10])).hexdigest()}"' and second != first


def test_no_manifest_or_a_broken_one_vouches_for_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.json").write_bytes(b"1\n")
    assert ManifestETags(tmp_path).etag("a.json", (tmp_path / "a.json").stat()) is None
    (tmp_path / "release-manifest.json").write_text("{not json", encoding="utf-8")
    assert ManifestETags(tmp_path).etag("a.json", (tmp_path / "a.json").stat()) is None


@pytest.mark.parametrize(("path", "stream"), [
    ("/api/stream", True), ("/api/contest/stream", True), ("/api/arms/stream", True), ("/api/rows/stream", True),
    ("/api/league", False), ("/stream", False), ("/api/streams", False), ("/council-book.jsonl", False),
])
def test_which_paths_are_streams(path: str, stream: bool) -> None:
    """Every NDJSON stream of the API, present or added later under /api/.../stream, bypasses gzip and validators."""
    assert is_stream(path) is stream

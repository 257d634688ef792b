"""Backup and restore of a league: config, database, books and the files the books point to.

Order matters because a league keeps running while it is backed up. The **database first** (an index
that may be behind the books, never ahead: opening a league catches the index up from the books), then
the **books**, complete lines only (a book is append-only, so any complete-line prefix is a valid book;
each is recorded with its line count and prefix SHA-256), then the rest (keys, replies, stamps, prices,
asks, snapshots). ``public/`` and ``publish-cache/`` are not copied: the publisher regenerates them from the
books and the database.

Restore refuses to put a book over a longer one (a book only grows; restoring a shorter copy over a
longer book would drop sealed lines), verifies every restored book against its recorded digest and
chain, and restores the database (SQLite file, or ``pg_restore`` into the configured PostgreSQL database).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import TypedDict

import msgspec
import structlog

from league.errors import LeagueError
from league.verify.chain import verify

log = structlog.get_logger(__name__)
SKIP = {"books", "public", "publish-cache", "league.db", "league.db-wal", "league.db-shm", "leader.lock"}


class BackupError(LeagueError):
    """A backup or a restore could not be made safely; nothing was overwritten."""


class BookEntry(TypedDict):
    """One book in a backup's manifest: its file name, complete lines copied, and their SHA-256."""

    name: str
    lines: int
    sha256: str


class Manifest(TypedDict):
    """``MANIFEST.json``: the database file the backup holds and every book copied."""

    database: str
    books: list[BookEntry]


@dataclass(frozen=True)
class BookCopy:
    name: str
    lines: int
    sha256: str


def _complete_prefix(src: Path, dst: Path) -> BookCopy:
    """Copy the complete lines of ``src`` (a torn last line stays behind) and hash them on the way."""
    digest, lines = hashlib.sha256(), 0
    with open(src, "rb") as fin, open(dst, "wb") as fout:
        for raw in fin:
            if not raw.endswith(b"\n"):
                break
            fout.write(raw)
            digest.update(raw)
            lines += 1
    return BookCopy(src.name, lines, digest.hexdigest())


def _pg_dsn(url: str) -> str:
    return url.replace("postgresql+psycopg://", "postgresql://", 1)


def _dump_database(url: str, dest: Path) -> str:
    if url.startswith("sqlite:///"):
        src = sqlite3.connect(url.removeprefix("sqlite:///"))
        out = sqlite3.connect(dest / "league.db")
        with out:
            src.backup(out)  # a consistent snapshot while the daemon writes
        src.close()
        out.close()
        return "league.db"
    if url.startswith("postgresql"):
        _run(["pg_dump", "--format=custom", "--no-owner", f"--file={dest / 'database.pgdump'}", _pg_dsn(url)],
             "pg_dump")
        return "database.pgdump"
    raise BackupError(f"cannot back up database {url.split(':', 1)[0]}", fix="use SQLite or PostgreSQL")


def _run(cmd: list[str], what: str) -> None:
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=3600, check=False)
    except FileNotFoundError as exc:
        raise BackupError(f"{what} is not installed", fix="apt-get install -y postgresql-client") from exc
    if done.returncode != 0:
        raise BackupError(f"{what} failed: {done.stderr.strip()[-500:]}", fix="check [database] url and access")


def backup(config_dir: Path, data_dir: Path, database_url: str, dest: Path) -> Manifest:
    """Write a backup of the league to ``dest`` (must not exist) and return its manifest."""
    if dest.exists():
        raise BackupError(f"{dest} exists", fix="back up into a new folder (e.g. one named by the time)")
    (dest / "data" / "books").mkdir(parents=True)
    database = _dump_database(database_url, dest)
    books = [_complete_prefix(b, dest / "data" / "books" / b.name)
             for b in sorted((data_dir / "books").glob("*.jsonl"))]
    for part in sorted(data_dir.iterdir()):
        if part.name not in SKIP:
            (shutil.copytree if part.is_dir() else shutil.copy2)(part, dest / "data" / part.name)
    shutil.copytree(config_dir, dest / "config")
    manifest: Manifest = {"database": database,
                          "books": [{"name": b.name, "lines": b.lines, "sha256": b.sha256} for b in books]}
    (dest / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    log.info("backup.written", dest=str(dest), books={b.name: b.lines for b in books})
    return manifest


def _lines(path: Path) -> int:
    with open(path, "rb") as fh:
        return sum(1 for raw in fh if raw.endswith(b"\n"))


def _check_targets(src: Path, data_dir: Path, manifest: Manifest) -> None:
    for book in manifest["books"]:
        target = data_dir / "books" / book["name"]
        if target.exists() and _lines(target) > book["lines"]:
            raise BackupError(f"{target} has {_lines(target)} lines, the backup {book['lines']}: a book only grows",
                              fix="restore into an empty data folder; never put a shorter book over a longer one")
        copy = src / "data" / "books" / book["name"]
        if _complete_prefix(copy, Path("/dev/null")).sha256 != book["sha256"]:
            raise BackupError(f"{copy} does not hash to its recorded digest", fix="use an intact backup")


def restore(src: Path, config_dir: Path, data_dir: Path, database_url: str | None = None) -> Manifest:
    """Restore ``src`` into ``config_dir``/``data_dir`` (empty or shorter books only); returns the manifest."""
    manifest = _read_manifest(src / "MANIFEST.json")
    _check_targets(src, data_dir, manifest)
    if not config_dir.exists():
        shutil.copytree(src / "config", config_dir)
    data_dir.mkdir(parents=True, exist_ok=True)
    for part in sorted((src / "data").iterdir()):
        target = data_dir / part.name
        (shutil.copytree(part, target, dirs_exist_ok=True) if part.is_dir() else shutil.copy2(part, target))
    _restore_database(src / manifest["database"], database_url or f"sqlite:///{data_dir / 'league.db'}")
    for book in manifest["books"]:
        report = verify(data_dir / "books" / book["name"])
        if not report.ok:
            raise BackupError(f"restored book {book['name']} does not verify: {report}", fix="use an intact backup")
    log.info("restore.done", data=str(data_dir), books={b["name"]: b["lines"] for b in manifest["books"]})
    return manifest


def _read_manifest(path: Path) -> Manifest:
    """The manifest a backup wrote, checked for its shape before anything is restored from it."""
    try:
        return msgspec.json.decode(path.read_bytes(), type=Manifest)
    except msgspec.DecodeError as exc:
        raise BackupError(f"{path} is not a backup manifest: {exc}", fix="use an intact backup") from exc


def _restore_database(dump: Path, url: str) -> None:
    if url.startswith("sqlite:///"):
        if dump.name != "league.db":
            raise BackupError("the backup holds a PostgreSQL dump", fix="restore it with a postgresql+psycopg URL")
        shutil.copy2(dump, url.removeprefix("sqlite:///"))
        return
    if dump.name != "database.pgdump":
        raise BackupError("the backup holds a SQLite index", fix="restore into SQLite, or run `league rebuild`")
    _run(["pg_restore", "--clean", "--if-exists", "--no-owner", f"--dbname={_pg_dsn(url)}", str(dump)], "pg_restore")

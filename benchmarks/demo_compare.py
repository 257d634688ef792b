"""Compare two demo seasons file by file: is the second byte-identical to the first?

A restructuring must not change what the league seals and publishes. Run ``league demo --out A``
on the old commit and ``league demo --out B`` on the new one (same --sessions, --seed, --start),
then::

    python benchmarks/demo_compare.py A B [--engine-source .]

Every file under ``A/data`` and ``B/data`` is compared byte for byte, except what cannot repeat
between two runs of the same season, each for a named reason:

* keys and certificates: a fresh signing key and fresh local RFC 3161 authorities are made for every
  league (``keys/``, ``*.pem``, ``*.crt``, ``*.key``, ``tsa.cnf``) and the tokens they sign (``*.tsr``),
  the nonce-blinded ``.ots`` proofs and the signed ``.rekor.json`` log entries;
  text lines that name those files (their sizes and digests in ``index.html`` and ``proof/index.json``)
  are masked on both sides;
* wall-clock and process state: ``league.db`` (SQLite pages), ``*.lock`` (the writer's pid);
* the publisher's row cache names its blocks by a key that hashes the code the rows come from: they are
  compared without it (same session, row count, SHA-256 and bytes).

The published texts that cite the protocol now name the project's own ``docs/protocol.md`` where they
said ``protocol.md`` (folders published by older code); that one rewording is undone in the second folder before
comparing (reported as its own count).

``arena-code-*.txt`` and ``arena-code.json`` publish the scoring and portfolio engine's own source:
they change exactly when that source changes. With ``--engine-source CHECKOUT`` each copy in B is
checked against CHECKOUT's file instead (so a difference there is the engine's edit, and only that),
and the lines naming those copies (their sizes in ``index.html``) are masked as well.

Exit status 0 when nothing else differs; 1 with the list of differing files otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

SKIPPED = (
    (re.compile(r"(^|/)keys/"), "signing key made fresh for every league"),
    (re.compile(r"\.(pem|crt|key|tsr)$"), "key, certificate or token of a fresh local authority"),
    (re.compile(r"(^|/)tsa\.cnf$"), "authority config naming its fresh serial file (folders of older versions)"),
    (re.compile(r"\.ots$"), "OpenTimestamps proof: a random nonce blinds each submission"),
    (re.compile(r"\.rekor\.json$"), "log entry: an ECDSA signature by the fresh league key"),
    (re.compile(r"(^|/)blind/"), "a blind season's fresh salts"),
    (re.compile(r"(^|/)league\.db$"), "SQLite pages (the index is rebuilt from the books)"),
    (re.compile(r"\.lock$"), "the book writer's pid and host"),
    (re.compile(r"(^|/)stamps/local-tsa/[^/]+/serial$"), "a local RFC 3161 authority's serial counter: the "
                                                       "authority's state (it counts every token it issued, a "
                                                       "list stamped again after a restart included)"),
    (re.compile(r"(^|/)books/[^/]+\.torn-[^/]+$"), "bytes a killed writer left after a book's last complete line, "
                                                  "moved aside when the book was next opened (not book lines)"),
)
MASKED_LINE = re.compile(r"\.(tsr|pem|crt|ots)\b|\.rekor\.json\b")
#: The declared fields that cannot repeat between two runs of one season (docs/reliability.md), each
#: masked as the line that carries it (the files are indented JSON), each for a named reason.
DECLARED = (
    (re.compile(r'^\s*"log_index": '), "a stamp status's position in the transparency log: the log's own counter "
                                       "(the local stand-in's restarts with each process; Sigstore's grows with "
                                       "everyone's entries)"),
)
ENGINE_LINE = re.compile(r"arena-code-(scoring|portfolio)-")
CITATION = (b"docs/protocol.md", b"protocol.md")
ENGINE_COPY = re.compile(r"(^|/)arena-code-(?P<folder>scoring|portfolio)-(?P<name>.+\.py)\.txt$")
ENGINE_MANIFEST = re.compile(r"(^|/)arena-code\.json$")


#: The publisher's row cache (DATA/publish-cache, never published) names each block
#: ``<session>.<key>.<rows>.<sha256>.csv``, its key hashing the source of the modules the rows come from
#: (league.publish.forecast_cache.SOURCES): any edit of them renames every block. Blocks are compared by
#: session, rows and content, the key left out of the name.
CACHE_KEY = re.compile(r"^(publish-cache/forecasts/[^/.]+)\.[0-9a-f]{64}\.")


def files_under(root: Path) -> dict[str, Path]:
    data = root / "data"
    return {CACHE_KEY.sub(r"\1.<key>.", p.relative_to(data).as_posix()): p
            for p in sorted(data.rglob("*")) if p.is_file()}


def skipped(name: str) -> str | None:
    return next((why for pattern, why in SKIPPED if pattern.search(name)), None)


def masked(data: bytes, *, engine: bool = False) -> bytes:
    """The lines of a text file that do not name a key, certificate or token file (nor, with
    ``engine``, an engine source copy: their sizes move with the engine's own edits)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    return "".join(line for line in text.splitlines(keepends=True)
                   if not MASKED_LINE.search(line) and not (engine and ENGINE_LINE.search(line))
                   and not any(pattern.search(line) for pattern, _ in DECLARED)).encode()


def engine_copy_ok(name: str, body: bytes, checkout: Path) -> bool:
    match = ENGINE_COPY.search(name)
    assert match is not None
    source = checkout / "league" / match["folder"] / match["name"]
    return source.is_file() and source.read_bytes() == body


def engine_manifest_ok(body: bytes, checkout: Path) -> bool:
    """Every file the manifest lists has the SHA-256 of the checkout's own file."""
    doc = json.loads(body)
    files = doc.get("files", [])
    return bool(files) and all(
        (checkout / f["path"]).is_file()
        and hashlib.sha256((checkout / f["path"]).read_bytes()).hexdigest() == f["sha256"]
        for f in files
    )


def _without_lines_naming(data: bytes, names: set[str]) -> bytes:
    """A listing (index.html, proof/index.json) without the lines that name one of ``names``."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return data
    return "".join(line for line in text.splitlines(keepends=True)
                   if not MASKED_LINE.search(line) and not any(n in line for n in names)).encode()


def compare(before: Path, after: Path, engine_source: Path | None) -> tuple[dict[str, int], list[str]]:
    a, b = files_under(before), files_under(after)
    counts = {"identical": 0, "identical after masking key/token lines": 0,
              "identical after masking key/token and engine-copy lines": 0,
              "identical once the protocol citation is read as before": 0,
              "listing identical but for the sizes/digests of the files above": 0, "skipped": 0,
              "engine source copy matching the checkout": 0}
    problems: list[str] = []
    explained: set[str] = set()  # files that differ for a named reason: listings may name their new size
    undecided: list[str] = []
    engine = engine_source is not None
    for name in sorted(set(a) | set(b)):
        if skipped(name):
            counts["skipped"] += 1
            continue
        if name not in a or name not in b:
            problems.append(f"{name}: only in {'after' if name not in a else 'before'}")
            continue
        left, right = a[name].read_bytes(), b[name].read_bytes()
        if left == right:
            counts["identical"] += 1
        elif masked(left) == masked(right):
            counts["identical after masking key/token lines"] += 1
            explained.add(name)
        elif engine and masked(left, engine=True) == masked(right, engine=True):
            counts["identical after masking key/token and engine-copy lines"] += 1
        elif left == right.replace(*CITATION) or masked(left, engine=engine) == masked(right.replace(*CITATION),
                                                                                        engine=engine):
            counts["identical once the protocol citation is read as before"] += 1
            explained.add(name)
        elif engine_source is not None and ENGINE_COPY.search(name) and engine_copy_ok(name, right, engine_source):
            counts["engine source copy matching the checkout"] += 1
            explained.add(name)
        elif engine_source is not None and ENGINE_MANIFEST.search(name) and engine_manifest_ok(right, engine_source):
            counts["engine source copy matching the checkout"] += 1
        else:
            undecided.append(name)
    names = {n.removeprefix("public/") for n in explained} | ({"arena-code-"} if engine else set())
    for name in undecided:
        left, right = a[name].read_bytes(), b[name].read_bytes()
        if _without_lines_naming(left, names) == _without_lines_naming(right, names):
            counts["listing identical but for the sizes/digests of the files above"] += 1
        else:
            problems.append(f"{name}: bytes differ")
    return counts, problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("before", type=Path, help="demo folder made by the old commit (holds data/)")
    parser.add_argument("after", type=Path, help="demo folder made by the new commit")
    parser.add_argument("--engine-source", type=Path, default=None,
                        help="checkout of the new commit: engine source copies are checked against it")
    args = parser.parse_args(argv)
    counts, problems = compare(args.before, args.after, args.engine_source)
    for what, n in counts.items():
        print(f"{n:5d} {what}")
    for pattern, why in SKIPPED:
        print(f"      skipped {pattern.pattern}: {why}")
    for pattern, why in DECLARED:
        print(f"      masked line {pattern.pattern}: {why}")
    print(f"      renamed {CACHE_KEY.pattern}: the row cache's key hashes the code of the rows' modules")
    for line in problems:
        print(f"DIFFERENT {line}")
    print("byte-identical (modulo keys, certificates, tokens and process state)" if not problems
          else f"{len(problems)} files differ")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

"""Compare two published open-data folders (``league publish`` of the same league, two code versions).

Every file is compared byte for byte, except the wall-clock stamp of the run: ``"generated_at": "…"`` values,
the ``Generated <time>.`` line of ``index.html``, and, in ``release-manifest.json``, the digest and size of a
file that differs only by those stamps (its own bytes are compared, masked, here)::

    python benchmarks/public_compare.py A/data/public B/data/public [--engine-source CHECKOUT]

``arena-code-*.txt`` and ``arena-code.json`` publish the scoring and portfolio engine's own source: they
change exactly when that source changes. With ``--engine-source CHECKOUT`` each of B's copies is checked
against CHECKOUT's file instead (so a difference there is the engine's edit, and only that), and their sizes
and digests (``index.html``, the manifest) are masked on both sides.

Exit status 0 when nothing else differs; 1 with the list of differing files otherwise.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

STAMP = re.compile(rb'"generated_at": ?"[^"]*"')
HTML_STAMP = re.compile(rb"Generated \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ\.")
MANIFEST = "release-manifest.json"


def masked(data: bytes) -> bytes:
    return HTML_STAMP.sub(b"Generated <time>.", STAMP.sub(b'"generated_at": "<time>"', data))


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*")) if p.is_file()}


def _manifest(path: Path, stamped_only: set[str]) -> object:
    doc = json.loads(masked(path.read_bytes()))
    for entry in doc.get("files", []):
        if entry.get("name") in stamped_only:
            entry["sha256"] = entry["bytes"] = "<stamped>"
    return doc


ENGINE_ROW = re.compile(rb'(<a href="arena-code-[^"]*">[^<]*</a></td><td class="num">)\d+')


def _engine(b: Path, checkout: Path) -> list[str]:
    """B's engine copies that are not the checkout's files (empty: every copy is the checkout's source)."""
    doc = json.loads((b / "arena-code.json").read_text(encoding="utf-8"))
    bad = []
    for entry in doc["files"]:
        source = (checkout / entry["path"]).read_bytes()
        if (b / entry["published_as"]).read_bytes() != source or hashlib.sha256(source).hexdigest() != entry["sha256"]:
            bad.append(f"engine copy is not {checkout}/{entry['path']}: {entry['published_as']}")
    return bad


def compare(a: Path, b: Path, engine_source: Path | None = None) -> list[str]:
    """The names that differ beyond the run's stamps (and the names only one side has)."""
    fa, fb = _files(a), _files(b)
    problems = [f"only in {a}: {n}" for n in sorted(set(fa) - set(fb))]
    problems += [f"only in {b}: {n}" for n in sorted(set(fb) - set(fa))]
    stamped_only: set[str] = set()
    if engine_source is not None:
        problems += _engine(b, engine_source)
        stamped_only |= {n for n in fa if n.startswith("arena-code")}
    for name in sorted(set(fa) & set(fb)):
        da, db = fa[name].read_bytes(), fb[name].read_bytes()
        if da == db or name == MANIFEST or name in stamped_only:
            continue
        if engine_source is not None and name == "index.html":
            da, db = ENGINE_ROW.sub(rb"\1<size>", da), ENGINE_ROW.sub(rb"\1<size>", db)
        if masked(da) == masked(db):
            stamped_only.add(name)
        else:
            problems.append(f"differs: {name}")
    if MANIFEST in fa and MANIFEST in fb and _manifest(fa[MANIFEST], stamped_only) != _manifest(fb[MANIFEST],
                                                                                                 stamped_only):
        problems.append(f"differs: {MANIFEST}")
    return problems


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", type=Path)
    parser.add_argument("b", type=Path)
    parser.add_argument("--engine-source", type=Path, help="check B's engine copies against this checkout")
    args = parser.parse_args(argv)
    problems = compare(args.a, args.b, args.engine_source)
    for line in problems:
        sys.stdout.write(line + "\n")
    sys.stdout.write(f"{len(_files(args.a))} files compared: {'identical' if not problems else 'DIFFERENT'}"
                     " (run stamps masked)\n")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

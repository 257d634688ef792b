"""Test-side helpers for the book tests: the protocol's reader loop and an independent checker.

Nothing here imports league.book or league.verify.chain: expected verdicts are worked out from the
protocol text (§3) alone, so a bug in the code under test cannot also be in the expectation.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import random
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "book"
READER_LOOP = (ASSETS / "reader_loop.py").read_text(encoding="utf-8")
READER_FILE = "council-book.jsonl"  # the name the protocol's loop opens, in its cwd

# Reason classes: the start of every reason league.verify.chain gives, mapped to the oracle's name.
REASON_CLASSES = {
    "byte-order mark": "bom",
    "stray carriage return": "cr",
    "not UTF-8": "utf8",
    "not JSON (": "json",
    "not a JSON object": "object",
    "missing field": "missing",
    "wrong n": "n",
    "wrong prev": "prev",
    "cannot be hashed": "hash",
    "bad seal": "seal",
    "bad link": "link",
    "torn line": "torn",
}


def reason_class(reason: str) -> str:
    """The class of a reason given by league's verify ("" for none); fails on an unknown reason."""
    if not reason:
        return ""
    for prefix, name in REASON_CLASSES.items():
        if reason.startswith(prefix):
            return name
    raise AssertionError(f"unknown reason {reason!r}")


def H(o: Any) -> str:  # noqa: N802 - the protocol's name
    return hashlib.sha256(json.dumps(o, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def oracle(data: bytes) -> tuple[int, str]:
    """(first bad line, reason class), or (0, "") when the chain holds; straight from protocol §3."""
    rows = data.split(b"\n")
    tail = rows.pop()
    prev = ""
    for i, raw in enumerate(rows, 1):
        problem, x = _classify(raw, i, prev)
        if problem:
            return i, problem
        prev = x["link"]
    return (len(rows) + 1, "torn") if tail else (0, "")


def _classify(raw: bytes, i: int, prev: str) -> tuple[str, Any]:
    if raw.startswith(b"\xef\xbb\xbf"):
        return "bom", None
    if b"\r" in raw[:-1]:
        return "cr", None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return "utf8", None
    try:
        x = json.loads(text)
    except (ValueError, RecursionError):
        return "json", None
    if not isinstance(x, dict):
        return "object", None
    if any(k not in x for k in ("n", "prev", "seal", "link")):
        return "missing", None
    if x["n"] != i:
        return "n", None
    if x["prev"] != prev:
        return "prev", None
    content = {k: v for k, v in x.items() if k not in ("seal", "link", "prev", "n")}
    if x["seal"] != H(content):
        return "seal", None
    if x["link"] != H({k: v for k, v in x.items() if k != "link"}):
        return "link", None
    return "", x


@contextlib.contextmanager
def chdir(path: Path) -> Iterator[None]:
    old = os.getcwd()
    os.chdir(path)
    try:
        yield
    finally:
        os.chdir(old)


def run_reader_loop(data: bytes, workdir: Path) -> tuple[bool, int, str]:
    """Run the verbatim loop with exec on ``data`` saved as council-book.jsonl in ``workdir``.

    Returns (held, line, exception name): on a failure the loop's own ``i`` is the line it stopped at.
    """
    (workdir / READER_FILE).write_bytes(data)
    ns: dict[str, Any] = {}
    with chdir(workdir):
        try:
            exec(compile(READER_LOOP, "reader_loop", "exec"), ns)  # noqa: S102 - the point of the test
        except Exception as exc:  # noqa: BLE001 - any exception is the loop's "no"
            return False, int(ns.get("i", 0)), type(exc).__name__
    return True, int(ns.get("i", 0)), ""


def run_reader_loop_isolated(book: Path, workdir: Path) -> subprocess.CompletedProcess[str]:
    """Run the verbatim loop as a stand-alone file with ``python3 -I`` (no project code importable)."""
    (workdir / READER_FILE).write_bytes(book.read_bytes())
    script = workdir / "reader_loop.py"
    script.write_text(READER_LOOP, encoding="utf-8")
    return subprocess.run(
        [sys.executable, "-I", str(script)], cwd=workdir, capture_output=True, text=True, timeout=60
    )


def write_foreign_book(path: Path, contents: list[dict[str, Any]], rng: random.Random) -> bytes:
    """An independent writer of the formula, choosing freely what the formula leaves open:
    key order, whitespace between tokens, ``\\uXXXX`` escapes, float spelling."""
    prev = ""
    out = []
    for n, content in enumerate(contents, 1):
        seal = H(content)
        line = {**content, "n": n, "prev": prev, "seal": seal}
        line["link"] = H(line)
        prev = line["link"]
        out.append(emit(line, rng).encode("utf-8") + b"\n")
    data = b"".join(out)
    path.write_bytes(data)
    return data


def _ws(rng: random.Random) -> str:
    return rng.choice(["", "", " ", "  ", "\t", " \t "])


def emit(value: Any, rng: random.Random) -> str:
    """A small JSON emitter of its own (not the json module's), with random but legal choices."""
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        body = ",".join(f"{_ws(rng)}{emit_str(k, rng)}{_ws(rng)}:{_ws(rng)}{emit(v, rng)}{_ws(rng)}" for k, v in items)
        return "{" + body + _ws(rng) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_ws(rng) + emit(v, rng) + _ws(rng) for v in value) + _ws(rng) + "]"
    if isinstance(value, str):
        return emit_str(value, rng)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    return emit_float(value, rng)


def emit_str(s: str, rng: random.Random) -> str:
    out = ['"']
    for ch in s:
        cp = ord(ch)
        mode = rng.random()
        if ch == '"' or ch == "\\":
            out.append("\\" + ch if mode < 0.7 else f"\\u{cp:04X}")
        elif cp < 0x20 or mode < 0.3:
            if cp > 0xFFFF:  # astral: a UTF-16 surrogate pair, as ensure_ascii writers do
                hi, lo = 0xD800 + ((cp - 0x10000) >> 10), 0xDC00 + ((cp - 0x10000) & 0x3FF)
                out.append(f"\\u{hi:04x}\\u{lo:04X}")
            else:
                out.append(f"\\u{cp:04x}" if mode < 0.15 else f"\\u{cp:04X}")
        elif ch == "/" and mode < 0.5:
            out.append("\\/")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def emit_float(x: float, rng: random.Random) -> str:
    """Another spelling of the same double: ``%.17g``/``%.17e``/upper-case E/extra zeros."""
    if x == 0.0:
        sign = "-" if str(x).startswith("-") else ""
        return sign + rng.choice(["0.0", "0e0", "0.000", "0E+00", "0.0e-5"])
    spellings = [repr(x), f"{x:.17g}", f"{x:.17e}", f"{x:.17E}", f"{x:.20e}"]
    text = rng.choice(spellings)
    if "e" not in text.lower() and "." not in text:
        text += ".0"  # "%.17g" can drop the point; without it the value would read as an int
    assert float(text) == x, (text, x)
    return text

"""Reading files a person hands the league: bounded, inside the folder they named, errors with a fix.

Every JSON and TOML file a command reads from a user (a config file, a question set, a published folder
being checked) goes through here, so that no input ends in a traceback: a file too large, nested too
deeply, not UTF-8, not the syntax it claims, a symbolic link leading out of the folder the user named,
or not a regular file at all (a FIFO, ``/dev/zero``, a folder) is one :class:`InputError` naming the
file and the fix. The book's own lines have their own bounded reader (``league.book.chain``).

Why depth is bounded separately from size: Python's JSON and TOML parsers recurse, so 3,000 nested
``[`` in a few kilobytes raise ``RecursionError``; and a structure that parses just under the
interpreter's limit can still exhaust it in the code that walks it later. Nothing the league reads
legitimately nests deeper than :data:`MAX_DEPTH`.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tomllib
from itertools import accumulate
from pathlib import Path
from typing import Any

from league.errors import LeagueError

#: Deepest nesting of lists and objects accepted in any JSON or TOML input (the league's own files nest ≤ 8).
MAX_DEPTH = 64
#: Largest JSON/TOML input read whole into memory, unless a caller states its own bound.
MAX_BYTES = 64 * 1024 * 1024


class InputError(LeagueError):
    """A file or text given to the league cannot be read as what it should be; names it and the fix."""

    exit_code = 2


def nesting_depth(text: str) -> int:
    """The deepest nesting of ``[``/``{`` in JSON or TOML text, outside strings (an upper bound for TOML,
    where a table header's ``[[`` counts too: headers nest at most 2 deep).

    A linear scan, so that a hostile input is refused before a recursive parser sees it. A TOML string
    that spans lines (``\"\"\"…\"\"\"``) is followed as three strings in a row, which is the same thing here."""
    depth = deepest = 0
    in_string: str | None = None
    escaped = in_comment = False
    for ch in text:
        if in_comment:
            in_comment = ch != "\n"
            continue
        if in_string is not None:
            if escaped:
                escaped = False
            elif ch == "\\" and in_string == '"':
                escaped = True
            elif ch == in_string:
                in_string = None
            continue
        if ch in "\"'":
            in_string = ch
        elif ch == "#":  # a TOML comment (JSON has no '#' outside strings)
            in_comment = True
        elif ch in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif ch in "]}":
            depth = max(0, depth - 1)
    return deepest


_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


def json_nesting_depth(text: str) -> int:
    """:func:`nesting_depth` for JSON text at the speed of the regular-expression engine (strings are
    taken out first, then only the brackets are counted): a published forecasts file of tens of
    megabytes is measured in well under a second."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    return max(accumulate(map(_STEP.__getitem__, brackets)), default=0)


def _deep_nesting_error(where: str, depth: int, max_depth: int) -> InputError:
    return InputError(f"{where}: nested {depth} levels deep (at most {max_depth} are read)",
                      fix="flatten the structure; nothing the league reads nests that deeply")


def parse_json(text: str, *, where: str, max_depth: int = MAX_DEPTH) -> Any:
    """``json.loads`` of text from outside, refused with an :class:`InputError` rather than raising
    ``JSONDecodeError``/``RecursionError``. Non-finite numbers (``NaN``, ``Infinity``) are refused too:
    they are not JSON, and a value that cannot be written back to JSON is a value that fails later."""
    depth = json_nesting_depth(text)
    if depth > max_depth:
        raise _deep_nesting_error(where, depth, max_depth)
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as exc:
        raise InputError(f"{where}: not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})",
                         fix="fix the JSON syntax at the position shown") from None
    except _NonFinite as exc:
        raise InputError(f"{where}: holds {exc.args[0]}, which is not a JSON number",
                         fix="write a finite number (or null)") from None
    except RecursionError:
        raise _deep_nesting_error(where, depth, max_depth) from None


class _NonFinite(ValueError):
    pass


def _no_constant(name: str) -> Any:
    raise _NonFinite(name)


def parse_toml(text: str, *, where: str, max_depth: int = MAX_DEPTH) -> dict[str, Any]:
    """``tomllib.loads`` of text from outside, with the same bounds as :func:`parse_json`."""
    depth = nesting_depth(text)
    if depth > max_depth:
        raise _deep_nesting_error(where, depth, max_depth)
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(f"{where}: not valid TOML ({exc})", fix="fix the syntax at the position shown") from None
    except RecursionError:
        raise _deep_nesting_error(where, depth, max_depth) from None


def read_text(path: Path, *, what: str = "file", max_bytes: int = MAX_BYTES, inside: Path | None = None) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes``.

    ``inside``: the folder the user named; a path that leads out of it through a symbolic link (or
    ``..``) is refused, never followed. A FIFO, a device or a folder is refused before it is opened
    for reading (reading ``/dev/zero`` would never end)."""
    path = Path(path)
    if inside is not None:
        check_inside(path, inside, what=what)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise InputError(f"{path}: {what} not found", fix="check the path") from None
    except OSError as exc:
        raise InputError(f"{path}: {what} cannot be read ({exc.strerror or exc})",
                         fix="check the path and its permissions") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{path}: is a folder, not a {what}", fix="name the file itself")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{path}: is not a regular file (a device, FIFO or socket), so it is not read as a {what}",
                         fix="name a regular file")
    if info.st_size > max_bytes:
        raise InputError(f"{path}: {info.st_size:,} bytes, larger than the {max_bytes:,} a {what} may have",
                         fix="check that this is the right file")
    try:
        with open(path, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except OSError as exc:
        raise InputError(f"{path}: {what} cannot be read ({exc.strerror or exc})",
                         fix="check the file's permissions") from None
    if len(data) > max_bytes:
        raise InputError(f"{path}: larger than the {max_bytes:,} bytes a {what} may have",
                         fix="check that this is the right file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: not UTF-8 text (byte {exc.start}: {exc.reason})",
                         fix="save the file as UTF-8") from None


def read_json(path: Path, *, what: str = "JSON file", max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH,
              inside: Path | None = None) -> Any:
    """A JSON file read with every bound of :func:`read_text` and :func:`parse_json`."""
    return parse_json(read_text(path, what=what, max_bytes=max_bytes, inside=inside), where=str(path),
                      max_depth=max_depth)


def read_toml(path: Path, *, what: str = "TOML file", max_bytes: int = MAX_BYTES, max_depth: int = MAX_DEPTH,
              inside: Path | None = None) -> dict[str, Any]:
    """A TOML file read with every bound of :func:`read_text` and :func:`parse_toml`."""
    return parse_toml(read_text(path, what=what, max_bytes=max_bytes, inside=inside), where=str(path),
                      max_depth=max_depth)


def check_inside(path: Path, folder: Path, *, what: str = "file") -> Path:
    """``path`` resolved, refused when it leads out of ``folder`` (a symbolic link to ``/etc/shadow``
    inside a published folder is never followed). Returns the resolved path."""
    try:
        root = Path(folder).resolve(strict=False)
        real = Path(path).resolve(strict=False)
    except (OSError, RuntimeError) as exc:  # a symlink loop
        raise InputError(f"{path}: {what} cannot be resolved ({exc})", fix="remove the symbolic-link loop") from None
    if not real.is_relative_to(root):
        raise InputError(f"{path}: {what} leads out of {folder} (to {real}); a link out of the folder is not "
                         "followed", fix=f"replace the link by the file itself, inside {folder}")
    return real

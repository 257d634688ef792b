"""The two canonical texts of a book line without the standard library's encoder, when provably equal.

The reader loop of docs/protocol.md §3 hashes ``J(content)`` and ``J(x minus link)``, where ``J`` is
``json.dumps(o, sort_keys=True, ensure_ascii=False)``. On answer-sized lines (~3.4 KB) serialising
with the standard library is most of the work. :func:`canonical_hashes` builds the same bytes from
the line itself, with two small C libraries (orjson to parse and re-spell, msgspec to lay out), and
returns ``None`` for every line where the steps below do not prove that the bytes are the same; the
caller then checks that line the standard library's way. So this path can make ``verify`` faster,
never different.

Why ``msgspec.json.format(line, indent=0) == J(json.loads(line))`` for a line that passes:

1. **Canonical.** The line equals ``orjson.dumps(orjson.loads(line), option=OPT_SORT_KEYS)``: every
   token is orjson's spelling of the value orjson read, keys are sorted at every level and unique.
2. **Same values.** ``json.loads`` reads orjson's spelling back to the same value: ints in decimal,
   floats in their shortest round-trip digits (read back exactly by a correctly rounded parser),
   strings escaped only where JSON must. What orjson cannot hold comes out spelled differently and
   fails 1 (an int beyond 64 bits, which orjson reads as a float); what it refuses (NaN, Infinity,
   lone surrogates, a BOM, bad UTF-8, over 1024 levels) never gets here.
3. **Same spelling.** ``json.dumps`` spells those values as orjson does: strings (every code point is
   tested), ints, ``true``/``false``/``null``, key order (code points), and floats except those with
   a decimal exponent from -9 to -5 (orjson writes ``0.00001`` and ``1e-7`` where Python writes
   ``1e-05`` and ``1e-07``): a line holding ``0.0000`` or ``e-`` and one digit is refused.
4. **Same layout.** ``msgspec.json.format(..., indent=0)`` keeps every token byte for byte and puts
   ``", "`` and ``": "`` between them, the separators of ``json.dumps``.
5. **Not too deep.** At most :data:`MAX_BRACKETS` brackets, so fewer levels than the reader loop's
   ``json.loads`` manages before its recursion limit (about 990): a line the loop cannot read is
   never accepted here.

The bookkeeping items are then cut out of that text: the item ``"link": <its value>`` (and those of
``n``, ``prev``, ``seal``) is cut only where that exact text occurs once in the line, which makes it
the top-level item (inside a string a quote is escaped, so the text can only be a key and its
value). A line where it occurs twice is refused.
"""

from __future__ import annotations

import re
from hashlib import sha256 as _sha256

from league.jsonvalue import Json, JsonObject

try:  # base dependencies; without them verify takes the standard library's way for every line
    import msgspec
    import orjson
except ImportError:  # pragma: no cover - the lean install has both
    AVAILABLE = False
else:
    AVAILABLE = True
    _orjson_loads = orjson.loads
    _orjson_dumps = orjson.dumps
    _SORT_KEYS = orjson.OPT_SORT_KEYS
    _format = msgspec.json.format

MAX_BRACKETS = 512
# orjson's float spellings that differ from repr(): decimal exponents -9..-6 written "e-7" (Python
# "e-07") and -5 written "0.0000…" (Python "1e-05"). Checked on the whole line, strings included:
# a false alarm only sends the line the slow way.
# (A compiled literal search is faster here than ``bytes.__contains__``.)
_FLOAT_BAND = re.compile(rb"e-[0-9](?![0-9])")
_FIXED_BAND = re.compile(rb"0\.0000")


def canonical_hashes(row: bytes) -> tuple[JsonObject, str, str] | None:
    """``(parsed line, seal hash, link hash)`` for a line in canonical spelling, else ``None``.

    ``row`` is one line without its LF. The hashes are those the reader loop computes (SHA-256 hex
    of ``J(content)`` and of ``J(x minus link)``); comparing them, and ``n`` and ``prev``, with the
    line is the caller's job. Called once per answer line: the library functions are module globals
    bound once, and each pass over the line's bytes is one C call (a pass over 4 KB costs about as
    much as the Python around it).
    """
    if not AVAILABLE:
        return None
    try:
        x: Json = _orjson_loads(row)
        if type(x) is not dict or _orjson_dumps(x, option=_SORT_KEYS) != row or not _plain(row):
            return None
        text: bytes = _format(row, indent=0)
        spans = _spans(text, x["link"], x["n"], x["prev"], x["seal"])
    except Exception:  # anything odd (a missing key, a value orjson cannot write): the careful way decides
        return None
    if spans is None:
        return None
    seal_h, link_h = _hashes(text, spans)
    return x, seal_h, link_h


def _plain(row: bytes) -> bool:
    """No float spelled differently by orjson and Python, and not nested too deeply (steps 3, 5)."""
    if _FIXED_BAND.search(row) or _FLOAT_BAND.search(row):
        return False
    return row.count(b"[") + row.count(b"{") <= MAX_BRACKETS


def _spans(text: bytes, link: Json, n: Json, prev: Json, seal: Json) -> list[tuple[int, int]] | None:
    """Where the top-level items of link, n, prev and seal stand in ``text`` (their sorted order), or
    ``None`` when one is not found exactly once where it must stand.

    The link item must occur once in the whole text. The top-level prev item stands after the
    link item, so one occurrence after it is that item (copies nested in earlier values do not
    matter); likewise seal after prev, and n between link and prev (a short text, a short search).
    Only the first search runs over the long part of the line (the items before link).
    """
    dumps, find = _orjson_dumps, text.find
    item = b'"link": ' + dumps(link)
    l0 = find(item)
    l1 = l0 + len(item)
    if l0 < 0 or find(item, l0 + 1) >= 0:
        return None
    item = b'"prev": ' + dumps(prev)
    p0 = find(item, l1)
    p1 = p0 + len(item)
    if p0 < 0 or find(item, p0 + 1) >= 0:
        return None
    item = b'"n": ' + dumps(n)
    n0 = find(item, l1, p0)
    n1 = n0 + len(item)
    if n0 < 0 or find(item, n0 + 1, p0) >= 0:
        return None
    item = b'"seal": ' + dumps(seal)
    s0 = find(item, p1)
    s1 = s0 + len(item)
    if s0 < 0 or find(item, s0 + 1) >= 0:
        return None
    return [(l0, l1), (n0, n1), (p0, p1), (s0, s1)]


def _hashes(text: bytes, spans: list[tuple[int, int]]) -> tuple[str, str]:
    """SHA-256 hex of ``text`` (one JSON object) without the items of link, n, prev and seal, and
    without the link item alone; the remaining items joined by ", " as ``json.dumps`` joins them.

    The long part before the link item (an answer's ``items``: most of the line) is hashed once for
    both, through a memoryview (no copy); only the short pieces after it are copied.
    """
    (l0, l1), (n0, n1), (p0, p1), (s0, s1) = spans
    view = memoryview(text)
    seal = _sha256(view[:l0])  # "{" and the items before link, each followed by ", " (or nothing)
    link = seal.copy()
    link.update(view[l1 + 2 :])  # the items after link (n, prev and seal follow it) and "}"
    # between the bookkeeping items: ", " alone, or ", " + items + ", "; after seal: "" or ", " + items
    rest = [p for p in (text[l1 + 2 : n0 - 2], text[n1 + 2 : p0 - 2], text[p1 + 2 : s0 - 2], text[s1 + 2 : -1]) if p]
    if rest:
        seal.update(b", ".join(rest) + b"}")
    else:  # the content is the items before link: drop their last ", "
        seal = _sha256(b"{" + (text[1 : l0 - 2] if l0 > 1 else b"") + b"}")
    return seal.hexdigest(), link.hexdigest()

"""The closed-book arm's packet: the headlines a seat may read, sealed under one hash (pure: no I/O, no clock).

A packet holds the headlines published in the ``lookback_hours`` before its cutoff (an item published at the
cutoff itself is out: the seats are asked at the cutoff and must not see what was published then), one per
link, newest first, at most ``max_items``. Its canonical JSON (:func:`packet_bytes`) is what is sealed and
published; :func:`packet_sha256` is the hash of those bytes. Every item also carries its own SHA-256, so a
reader can check each headline with any JSON library, and :func:`packet_from_json` refuses a packet whose
items do not match their hashes.

Numbers are written without a fractional part when they are whole (``36``, not ``36.0``), the spelling every
JSON library agrees on, so the packet's hash can be recomputed outside Python.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta

from league.isotime import iso_seconds, parse_iso
from league.jsonvalue import Json, JsonObject
from league.news.interface import Headline, NewsError, aware_utc, canonical_json

VERSION = 1
EMPTY_LINE = "- (no headlines were published in the packet's window)"
_ITEM_KEYS = frozenset({"source", "title", "link", "published", "sha256"})
_PACKET_KEYS = frozenset({"version", "session", "cutoff", "lookback_hours", "items"})


def _order_key(item: Headline) -> tuple[float, str, str]:
    """Newest first; at the same second by source, then link (unique within a packet)."""
    return (-item.published.timestamp(), item.source, item.link)


@dataclass(frozen=True, slots=True)
class Packet:
    """A session's sealed headlines. Validated on construction, so that a packet read back from its JSON
    holds the same invariants as one just built: its items inside the window, one per link, in order. The
    cutoff is kept to the second, as it is sealed."""

    session: str
    cutoff: datetime
    lookback_hours: float
    items: tuple[Headline, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.session, str) or not self.session.strip() or not self.session.isprintable():
            raise NewsError(f"packet: session must be printable text, got {self.session!r}")
        object.__setattr__(self, "cutoff", aware_utc(self.cutoff, "packet: cutoff").replace(microsecond=0))
        hours = self.lookback_hours
        if isinstance(hours, bool) or not isinstance(hours, int | float) or not math.isfinite(hours) or hours <= 0:
            raise NewsError(f"packet: lookback_hours must be a positive number, got {hours!r}")
        object.__setattr__(self, "lookback_hours", float(hours))
        items = tuple(self.items)
        if not all(isinstance(item, Headline) for item in items):
            raise NewsError("packet: items must be headlines")
        start = self.window_start
        outside = [item.link for item in items if not start <= item.published < self.cutoff]
        if outside:
            raise NewsError(f"packet {self.session}: items outside the window [{iso_seconds(start)}, "
                            f"{iso_seconds(self.cutoff)}): {outside[:3]}")
        if len({item.link for item in items}) != len(items):
            raise NewsError(f"packet {self.session}: a link appears twice")
        if list(items) != sorted(items, key=_order_key):
            raise NewsError(f"packet {self.session}: items are not newest first")
        object.__setattr__(self, "items", items)

    @property
    def window_start(self) -> datetime:
        """The earliest publication time a packet may hold (inclusive)."""
        return self.cutoff - timedelta(hours=self.lookback_hours)


def build_packet(session: str, cutoff: datetime, headlines: Iterable[Headline], *,
                 lookback_hours: float, max_items: int) -> Packet:
    """The packet of ``session``: ``cutoff - lookback <= published < cutoff``, a repeated link kept once (its
    earliest publication, then its smallest sha256: the same whichever feed listed it first), newest first
    (ties by source, then link), the first ``max_items``."""
    if isinstance(max_items, bool) or not isinstance(max_items, int) or max_items < 1:
        raise NewsError(f"packet: max_items must be a whole number >= 1, got {max_items!r}")
    empty = Packet(session=session, cutoff=cutoff, lookback_hours=lookback_hours, items=())
    start, end = empty.window_start, empty.cutoff
    kept: dict[str, Headline] = {}
    for item in headlines:
        if not start <= item.published < end:
            continue
        held = kept.get(item.link)
        if held is None or (item.published, item.sha256) < (held.published, held.sha256):
            kept[item.link] = item
    items = sorted(kept.values(), key=_order_key)[:max_items]
    return Packet(session=empty.session, cutoff=end, lookback_hours=empty.lookback_hours, items=tuple(items))


def _number(value: float) -> int | float:
    """A whole number as an integer: ``36``, which every JSON library writes the same way."""
    return int(value) if value.is_integer() else value


def packet_json(packet: Packet) -> JsonObject:
    """The packet as sealed and published: each item's fields and its ``sha256``."""
    items: list[Json] = [{**item.as_json(), "sha256": item.sha256} for item in packet.items]
    return {
        "version": VERSION,
        "session": packet.session,
        "cutoff": iso_seconds(packet.cutoff),
        "lookback_hours": _number(packet.lookback_hours),
        "items": items,
    }


def packet_bytes(packet: Packet) -> bytes:
    """The canonical bytes of :func:`packet_json` (sorted keys, no spaces, UTF-8 unescaped): what is sealed."""
    return canonical_json(packet_json(packet))


def packet_sha256(packet: Packet) -> str:
    """SHA-256 (hex) of :func:`packet_bytes`: the hash the packet is sealed under."""
    return hashlib.sha256(packet_bytes(packet)).hexdigest()


def _field(doc: Mapping[str, Json], key: str, what: str) -> str:
    value = doc.get(key)
    if not isinstance(value, str):
        raise NewsError(f"{what}: {key} must be text, got {value!r}")
    return value


def _time(text: str, what: str) -> datetime:
    try:
        return parse_iso(text)
    except ValueError as exc:
        raise NewsError(f"{what}: {text!r} is not an ISO time with an offset") from exc


def _item(value: Json, number: int) -> Headline:
    what = f"packet item {number}"
    if not isinstance(value, dict) or set(value) != _ITEM_KEYS:
        raise NewsError(f"{what}: expected an object with keys {sorted(_ITEM_KEYS)}, got {value!r}")
    fields = {key: _field(value, key, what) for key in ("source", "title", "link", "published")}
    item = Headline(source=fields["source"], title=fields["title"], link=fields["link"],
                    published=_time(fields["published"], what))
    if item.as_json() != fields:
        raise NewsError(f"{what}: not in the sealed spelling: {fields!r}")
    if item.sha256 != value["sha256"]:
        raise NewsError(f"{what}: sha256 {value['sha256']!r} does not match its fields ({item.sha256})",
                        fix="the packet was altered after it was sealed; read the published original")
    return item


def packet_from_json(doc: Json) -> Packet:
    """A sealed packet read back; a malformed document or an item whose fields do not match its sha256 is a
    NewsError, so a packet that was altered is never shown to a seat."""
    if not isinstance(doc, dict) or set(doc) != _PACKET_KEYS:
        raise NewsError(f"not a news packet: expected an object with keys {sorted(_PACKET_KEYS)}")
    if doc["version"] != VERSION or isinstance(doc["version"], bool):
        raise NewsError(f"news packet version {doc['version']!r} is not {VERSION}",
                        fix="read it with the league version that wrote it")
    items = doc["items"]
    hours = doc["lookback_hours"]
    if not isinstance(items, list):
        raise NewsError("news packet: items must be a list")
    if isinstance(hours, bool) or not isinstance(hours, int | float):
        raise NewsError(f"news packet: lookback_hours must be a number, got {hours!r}")
    packet = Packet(session=_field(doc, "session", "news packet"),
                    cutoff=_time(_field(doc, "cutoff", "news packet"), "news packet"),
                    lookback_hours=float(hours),
                    items=tuple(_item(value, number) for number, value in enumerate(items, start=1)))
    if packet_json(packet) != doc:
        raise NewsError(f"news packet {packet.session}: not in the sealed spelling (its cutoff or lookback_hours)")
    return packet


def packet_text(packet: Packet) -> str:
    """The block an ask shows (its heading is the ask's): one line per headline,
    ``- 2026-06-01 12:30Z · Source — Title (link) [first 12 hex of its sha256]``, no trailing newline."""
    if not packet.items:
        return EMPTY_LINE
    return "\n".join(
        f"- {item.published.strftime('%Y-%m-%d %H:%MZ')} · {item.source} — {item.title} ({item.link}) "
        f"[{item.sha256[:12]}]"
        for item in packet.items
    )

"""The packet: the window, one item per link, newest first, the cap, the hash, the round trip, the text."""

from __future__ import annotations

import copy
import hashlib
import json
from datetime import UTC, datetime, timedelta

import pytest

from league.jsonvalue import Json
from league.news.interface import Headline, NewsError
from league.news.packet import (
    EMPTY_LINE,
    Packet,
    build_packet,
    packet_bytes,
    packet_from_json,
    packet_json,
    packet_sha256,
    packet_text,
)

CUTOFF = datetime(2026, 6, 1, 13, 0, tzinfo=UTC)


def item(minutes_before: float, link: str = "https://example.com/a", source: str = "wire",
         title: str = "Rates hold") -> Headline:
    return Headline(source=source, title=title, link=link, published=CUTOFF - timedelta(minutes=minutes_before))


def build(headlines: list[Headline], lookback_hours: float = 36, max_items: int = 30) -> Packet:
    return build_packet("2026-06-01", CUTOFF, headlines, lookback_hours=lookback_hours, max_items=max_items)


def test_an_item_at_the_cutoff_is_out_and_one_at_the_window_start_is_in() -> None:
    at_cutoff = item(0, "https://example.com/at-cutoff")
    just_before = item(1 / 60, "https://example.com/just-before")
    window_start = item(36 * 60, "https://example.com/window-start")
    too_old = item(36 * 60 + 1 / 60, "https://example.com/too-old")
    after = item(-5, "https://example.com/after")
    packet = build([at_cutoff, just_before, window_start, too_old, after])
    assert [h.link for h in packet.items] == ["https://example.com/just-before", "https://example.com/window-start"]


def test_a_repeated_link_keeps_the_earliest_then_the_smallest_sha() -> None:
    late = item(10, source="wire", title="Rates hold (updated)")
    early = item(20, source="desk", title="Rates hold")
    assert [h.title for h in build([late, early]).items] == ["Rates hold"]
    a, b = item(30, source="aa", title="Same minute one"), item(30, source="bb", title="Same minute two")
    smaller = min((a, b), key=lambda h: hashlib.sha256(json.dumps(
        h.as_json(), sort_keys=True, separators=(",", ":")).encode()).hexdigest())
    assert build([a, b]).items == (smaller,) == build([b, a]).items


def test_newest_first_ties_by_source_then_link_and_the_cap_keeps_the_newest() -> None:
    old = item(120, "https://example.com/old")
    tie_b = item(60, "https://example.com/1", source="b")
    tie_a2 = item(60, "https://example.com/2", source="a")
    tie_a1 = item(60, "https://example.com/3", source="a")
    new = item(5, "https://example.com/new")
    packet = build([old, tie_b, tie_a2, new, tie_a1])
    assert [h.link for h in packet.items] == ["https://example.com/new", "https://example.com/2",
                                               "https://example.com/3", "https://example.com/1",
                                               "https://example.com/old"]
    assert [h.link for h in build([old, tie_b, tie_a2, new, tie_a1], max_items=2).items] == [
        "https://example.com/new", "https://example.com/2"]


def test_a_one_item_packet_hashes_to_its_hand_written_bytes() -> None:
    packet = build([item(30)])
    item_json = ('{"link":"https://example.com/a","published":"2026-06-01T12:30:00Z","source":"wire",'
                 '"title":"Rates hold"}')
    item_sha = hashlib.sha256(item_json.encode("utf-8")).hexdigest()
    literal = ('{"cutoff":"2026-06-01T13:00:00Z","items":[{"link":"https://example.com/a",'
               '"published":"2026-06-01T12:30:00Z","sha256":"' + item_sha + '","source":"wire",'
               '"title":"Rates hold"}],"lookback_hours":36,"session":"2026-06-01","version":1}')
    assert packet_bytes(packet) == literal.encode("utf-8")
    assert packet_sha256(packet) == hashlib.sha256(literal.encode("utf-8")).hexdigest()


def test_the_hash_does_not_depend_on_the_order_headlines_arrive_in() -> None:
    items = [item(5, "https://example.com/x"), item(50, "https://example.com/y", source="desk"),
             item(50, "https://example.com/z")]
    assert packet_sha256(build(items)) == packet_sha256(build(items[::-1]))
    assert packet_sha256(build(items)) != packet_sha256(build(items[:2]))


def test_a_fractional_lookback_is_written_as_a_fraction() -> None:
    assert packet_json(build([], lookback_hours=1.5))["lookback_hours"] == 1.5
    assert b'"lookback_hours":1.5,' in packet_bytes(build([], lookback_hours=1.5))


def test_the_round_trip_gives_the_same_packet_and_bytes() -> None:
    packet = build([item(5, "https://example.com/x", title="Café — up"), item(50, "https://example.com/y")])
    doc: Json = json.loads(packet_bytes(packet))
    again = packet_from_json(doc)
    assert again == packet and packet_bytes(again) == packet_bytes(packet)


@pytest.mark.parametrize(("key", "value"), [
    ("title", "Rates cut"), ("link", "https://example.com/b"), ("published", "2026-06-01T12:31:00Z"),
    ("source", "desk"), ("sha256", "0" * 64)])
def test_a_tampered_item_is_caught(key: str, value: str) -> None:
    doc = packet_json(build([item(30)]))
    bad = copy.deepcopy(doc)
    items = bad["items"]
    assert isinstance(items, list) and isinstance(items[0], dict)
    items[0][key] = value
    with pytest.raises(NewsError, match="sha256"):
        packet_from_json(bad)


def test_malformed_packets_are_refused() -> None:
    good = packet_json(build([item(30)]))
    changes: list[dict[str, Json]] = [
        {"version": 2}, {"items": {}}, {"lookback_hours": "36"}, {"cutoff": "2026-06-01 13:00"},
        {"cutoff": "2026-06-01T13:00:00+00:00"}, {"session": ""}, {"extra": 1}]
    for change in changes:
        with pytest.raises(NewsError):
            packet_from_json({**good, **change})
    missing = dict(good)
    del missing["session"]
    with pytest.raises(NewsError):
        packet_from_json(missing)
    with pytest.raises(NewsError):
        packet_from_json([good])


def test_an_item_outside_the_window_in_a_read_packet_is_refused() -> None:
    doc = packet_json(build([item(30)]))
    with pytest.raises(NewsError, match="outside the window"):
        packet_from_json({**doc, "cutoff": "2026-06-01T12:30:00Z"})


def test_the_text_one_line_per_item_and_the_empty_line() -> None:
    packet = build([item(30, title="Rates hold"), item(90, "https://example.org/chips", source="Desk",
                                                       title="Chip stocks climb")])
    first, second = packet.items
    assert packet_text(packet) == (
        f"- 2026-06-01 12:30Z · wire — Rates hold (https://example.com/a) [{first.sha256[:12]}]\n"
        f"- 2026-06-01 11:30Z · Desk — Chip stocks climb (https://example.org/chips) [{second.sha256[:12]}]")
    assert packet_text(build([])) == EMPTY_LINE == "- (no headlines were published in the packet's window)"


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(NewsError):
        build_packet("s", datetime(2026, 6, 1, 13, 0), [], lookback_hours=36, max_items=30)  # noqa: DTZ001
    with pytest.raises(NewsError):
        build([], lookback_hours=0)
    with pytest.raises(NewsError):
        build([], max_items=0)

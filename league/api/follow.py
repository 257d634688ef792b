"""Follow a book: a local file or the API's NDJSON stream, resuming from the last line seen.

Used by ``league tail`` (and ``league tail --rows URL``, :func:`follow_rows_url`). It imports no web
framework: the lean install (no daemon extra) follows a remote league. Both sources yield ``(n, raw_line)``
in order. The URL follower keeps the number of the last line it delivered; when the connection drops it reconnects with
``from = last + 1`` after a bounded, growing pause, so no line is skipped or delivered twice.
"""

from __future__ import annotations

import csv
import io
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from functools import partial
from typing import TypeVar

import httpx
import structlog

from league.api.errors import MAX_ERROR_CHARS, clip
from league.book.follow import FollowError as FollowError
from league.book.follow import follow_file as follow_file
from league.jsonvalue import Json, JsonObject, items, obj
from league.retry import backoff_s

log = structlog.get_logger(__name__)
Line = tuple[int, bytes]
#: The most of an error response ``league tail`` reads (the API's own are a few hundred bytes).
MAX_ERROR_BODY = 64 << 10


#: The pause before the k-th reconnect in a row: RECONNECT_FIRST_S, doubling, at most RECONNECT_MAX_S.
RECONNECT_FIRST_S = 0.5
RECONNECT_MAX_S = 30.0
_T = TypeVar("_T")
_P = TypeVar("_P")


def reconnect_pause(failures: int) -> float:
    """Seconds to wait after the ``failures``-th connection lost in a row (1, 2, …): 0.5, 1, 2, … up to 30 — the
    league's one pause schedule (:func:`league.retry.backoff_s`) with the followers' own start and cap."""
    return backoff_s(failures, first_s=RECONNECT_FIRST_S, max_s=RECONNECT_MAX_S)


def reconnecting(connect: Callable[[_P], Iterator[_T]], start: _P, advance: Callable[[_P, _T], _P], *, base: str,
                 follow: bool, retries: int, sleep: Callable[[float], None], label: str) -> Iterator[_T]:
    """The items of ``connect(position)``, connecting again from the position reached after a lost connection
    (an ``httpx.TransportError``), so nothing is skipped or delivered twice.

    The position starts at ``start`` and each item moves it (``advance(position, item)``). A lost connection waits
    :func:`reconnect_pause` of the number of connections lost in a row (``sleep``), then connects again; an item
    that moves the position resets that count, and ``retries`` + 1 lost in a row is a :class:`FollowError`.
    Without ``follow`` the items end with the first connection that ends normally; with it, an ended connection
    is opened again at once. ``label`` names the position in the reconnect's log line."""
    position, failures = start, 0
    while True:
        try:
            for item in connect(position):
                moved = advance(position, item)
                if moved != position:
                    position, failures = moved, 0
                yield item
            if not follow:
                return
        except httpx.TransportError as exc:
            failures += 1
            if failures > retries:
                raise FollowError(f"lost {base} {failures} times in a row: {exc}",
                                  fix="check that `league serve` is running") from exc
            pause = reconnect_pause(failures)
            log.warning("tail.reconnect", url=base, pause_s=pause, error=str(exc), **{label: position})
            sleep(pause)


def _client() -> httpx.Client:
    return httpx.Client(timeout=httpx.Timeout(10.0, read=None))


def follow_url(base: str, start: int = 1, kinds: frozenset[str] = frozenset(), follow: bool = False,
               retries: int = 8, client: httpx.Client | None = None,
               sleep: Callable[[float], None] = time.sleep, stream: str = "/api/stream") -> Iterator[Line]:
    """Lines from the API's ``stream`` (the council's ``/api/stream`` or the contest's
    ``/api/contest/stream``); reconnects from the line after the last one seen (:func:`reconnecting`)."""
    own = client or _client()
    try:
        yield from reconnecting(partial(_one_connection, own, base, kinds=kinds, follow=follow, stream=stream), start,
                                _next_line, base=base, follow=follow, retries=retries, sleep=sleep, label="next_line")
    finally:
        if client is None:
            own.close()


def _next_line(_: int, line: Line) -> int:
    return line[0] + 1


def _one_connection(client: httpx.Client, base: str, start: int, *, kinds: frozenset[str], follow: bool,
                    stream: str = "/api/stream") -> Iterator[Line]:
    params: list[tuple[str, str | int | float | bool | None]] = [("from", start)]
    params.append(("follow", "true" if follow else "false"))
    params += [("kind", k) for k in sorted(kinds)]
    with client.stream("GET", base.rstrip("/") + stream, params=params) as resp:
        if resp.status_code != 200:
            raise FollowError(f"{base} refused the stream ({resp.status_code}): {_error_text(resp)}")
        for text in resp.iter_lines():
            if not text.strip():
                continue
            raw = text.encode("utf-8")
            yield int(json.loads(raw)["n"]), raw


#: The rows stream's route and the header naming its columns (league.api.rows: the server side).
ROWS_STREAM = "/api/rows/stream"
ROWS_COLUMNS_HEADER = "X-League-Row-Columns"
#: What :func:`follow_rows_url` yields: the columns (once per connection, before its rows) or a row.
RowEvent = tuple[str, ...] | dict[str, str]


def follow_rows_url(base: str, after: str | None = None, follow: bool = False, retries: int = 8,
                    client: httpx.Client | None = None,
                    sleep: Callable[[float], None] = time.sleep) -> Iterator[RowEvent]:
    """The scored rows of the API's ``/api/rows/stream`` after row ``after``; reconnects after the last row seen
    (:func:`reconnecting`: only a row moves the position, so a server that sends its headers and drops, again and
    again, still ends in a FollowError).

    Each connection first yields the column names (the server's ``X-League-Row-Columns``), so a CSV printer
    writes its header before the first row even while it waits; then each row as a dict of strings."""
    own = client or _client()
    try:
        yield from reconnecting(partial(_rows_connection, own, base, follow=follow), after, _after_row, base=base,
                                follow=follow, retries=retries, sleep=sleep, label="after_row")
    finally:
        if client is None:
            own.close()


def _after_row(last: str | None, event: RowEvent) -> str | None:
    return event["row_id"] if isinstance(event, dict) else last


def _rows_connection(client: httpx.Client, base: str, after: str | None, *, follow: bool) -> Iterator[RowEvent]:
    params: list[tuple[str, str | int | float | bool | None]] = [("follow", "true" if follow else "false")]
    if after:
        params.append(("after", after))
    with client.stream("GET", base.rstrip("/") + ROWS_STREAM, params=params) as resp:
        if resp.status_code != 200:
            raise FollowError(f"{base} refused the rows stream ({resp.status_code}): {_error_text(resp)}",
                              fix="check the URL (the league's API base, e.g. http://host:8765) and --after-row")
        yield tuple(resp.headers.get(ROWS_COLUMNS_HEADER, "").split(","))
        for text in resp.iter_lines():
            if not text.strip():
                continue
            row = obj(json.loads(text))
            yield {str(k): str(v) for k, v in row.items()}


def csv_record(row: Mapping[str, str], columns: Sequence[str]) -> str:
    """One CSV record (no line end) of ``row``'s values in ``columns`` order: the header is ``columns`` itself."""
    buf = io.StringIO()
    csv.DictWriter(buf, fieldnames=list(columns), lineterminator="", extrasaction="ignore").writerow(row)
    return buf.getvalue()


def _error_text(resp: httpx.Response) -> str:
    """The server's own message (its ``error`` field), read only to :data:`MAX_ERROR_BODY` bytes and quoted to
    :data:`league.api.errors.MAX_ERROR_CHARS` characters: what a server sends back is not ours to print whole."""
    body = b""
    for chunk in resp.iter_bytes():
        body += chunk
        if len(body) > MAX_ERROR_BODY:
            break
    try:
        doc = json.loads(body)
    except (ValueError, RecursionError):
        doc = None
    text = doc.get("error") if isinstance(doc, dict) else body.decode("utf-8", errors="replace")
    return clip(str(text), MAX_ERROR_CHARS)


# ------------------------------------------------------------------------------ formatting
def compact(raw: bytes) -> str:
    """One short row for a score line or a council talk line; any other line is printed as it is stored."""
    obj: JsonObject = json.loads(raw)
    if str(obj.get("kind", "")).startswith("talk_"):
        return _talk_row(obj)
    if obj.get("kind") not in ("score", "score_h"):
        return raw.decode("utf-8")
    head = f"#{obj.get('n')} {obj.get('kind')} {obj.get('session', '')} {obj.get('run_id', '')}".rstrip()
    markets = obj.get("markets")
    if isinstance(markets, list):  # the book's shape: one entry per event; late events are left out
        markets = {str(m["market"]): m for m in markets
                   if isinstance(m, dict) and "market" in m and not m.get("late_ref")}
    if not isinstance(markets, dict) or not markets:
        return f"{head} at {obj.get('at', '')} (of {len(items(obj.get('of')))} answer lines)"
    horizon = f" {obj['horizon']}" if obj.get("horizon") else ""
    return head + horizon + "  " + "  ".join(_market_cell(code, m) for code, m in sorted(markets.items()))


def _market_cell(code: str, m: Json) -> str:
    if not isinstance(m, dict):
        return f"{code} ?"
    ref, close = m.get("ref", m.get("reference")), m.get("close")
    if not isinstance(ref, int | float) or not isinstance(close, int | float):
        return f"{code} unresolved"
    arrow = "up" if close > ref else "down"
    change = (close / ref - 1) * 100 if ref else 0.0
    draw = " draw" if m.get("draw") else ""
    return f"{code} {ref:g}->{close:g} {change:+.2f}% {arrow}{draw}"


def _outcome(obj: JsonObject) -> str:
    """ok, or what failed (a chair's or a critiqued seat's reply)."""
    if obj.get("ok") is True:
        return "ok"
    return f"failed: {clip(str(obj.get('failure') or 'no reason given'), 120)}"


def _pairs(value: Json) -> str:
    """seat -> letter as "seat=L", in letter order."""
    if not isinstance(value, dict):
        return "?"
    listed = sorted(((str(letter), str(seat)) for seat, letter in value.items()), key=lambda p: (len(p[0]), p))
    return " ".join(f"{seat}={letter}" for letter, seat in listed)


def _talk_row(obj: JsonObject) -> str:
    """One row for a council talk line: its number, kind and week, who (seat and letter) and how it went."""
    kind = str(obj.get("kind"))
    head = f"#{obj.get('n')} {kind} {obj.get('week', '')}".rstrip()
    if kind == "talk_schedule":
        return f"{head} league {obj.get('league')} on {obj.get('weekday')}, seed {obj.get('seed')}"
    if kind == "talk_week":
        return (f"{head} session {obj.get('session')}: chair {obj.get('chair')} as {obj.get('chair_letter')}, "
                f"{obj.get('seats')} seats, letters sealed {str(obj.get('letter_map_sha256', ''))[:12]}")
    if kind == "talk_chair":
        critiques = items(obj.get("critiques"))
        said = ", ".join(f"{c.get('target')} {c.get('market')} {c.get('direction')}" for c in critiques
                         if isinstance(c, dict))
        return (f"{head} chair {obj.get('seat')} {_outcome(obj)}"
                + (f": {len(critiques)} critiques ({said})" if obj.get("ok") is True else ""))
    if kind == "talk_round":
        return f"{head} asked {_pairs(obj.get('asked'))}"
    if kind == "talk_reply":
        return f"{head} seat {obj.get('seat')} as {obj.get('letter')} {_outcome(obj)}"
    if kind == "talk_reveal":
        return f"{head} letters {_pairs(obj.get('letter_map'))}"
    if kind == "talk_accounts":
        sessions = [str(x) for x in items(obj.get("sessions"))]
        span = f"{sessions[0]}..{sessions[-1]}" if sessions else "no sessions"
        weights = obj.get("weights")
        return f"{head} {span}: {len(weights) if isinstance(weights, dict) else 0} accounts"
    return head

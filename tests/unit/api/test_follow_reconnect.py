"""The remote followers' one reconnect loop (league.api.follow.reconnecting): the pauses between reconnects, the
limit of connections lost in a row, the resume position, and what counts as progress, with the sleep injected."""

from __future__ import annotations

import json
from collections.abc import Iterator

import httpx
import pytest

from league.api.follow import FollowError, follow_rows_url, follow_url, reconnect_pause

#: The pauses the followers wait, written out: 0.5 s doubling, at most 30 s.
PAUSES = [0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]


class _Lines(httpx.SyncByteStream):
    """A response body that sends ``lines`` and then loses the connection."""

    def __init__(self, lines: list[bytes]) -> None:
        self.lines = lines

    def __iter__(self) -> Iterator[bytes]:
        yield from self.lines
        raise httpx.ReadError("connection reset by peer")


def _book_line(n: int) -> bytes:
    return json.dumps({"n": n, "kind": "score"}).encode() + b"\n"


def test_the_pauses_double_from_half_a_second_up_to_thirty() -> None:
    assert [reconnect_pause(k) for k in range(1, 9)] == PAUSES


def test_a_server_that_never_answers_ends_in_a_follow_error_after_the_limit() -> None:
    asked: list[str] = []

    def refuse(request: httpx.Request) -> httpx.Response:
        asked.append(str(request.url))
        raise httpx.ConnectError("connection refused")

    slept: list[float] = []
    client = httpx.Client(transport=httpx.MockTransport(refuse))
    with pytest.raises(FollowError, match="lost http://league 9 times in a row"):
        list(follow_url("http://league", 5, follow=True, retries=8, client=client, sleep=slept.append))
    assert slept == PAUSES
    assert len(asked) == 9 and all("from=5" in url for url in asked)


def test_lines_resume_after_the_last_one_delivered_and_reset_the_count() -> None:
    """Each connection delivers one line then drops: the follower goes on from the next line, and never reaches
    the limit because every connection made progress."""
    starts: list[int] = []

    def one_then_drop(request: httpx.Request) -> httpx.Response:
        start = int(request.url.params["from"])
        starts.append(start)
        if start > 6:
            raise httpx.ConnectError("gone")
        return httpx.Response(200, stream=_Lines([_book_line(start)]))

    slept: list[float] = []
    client = httpx.Client(transport=httpx.MockTransport(one_then_drop))
    got: list[int] = []
    with pytest.raises(FollowError, match="3 times in a row"):
        for n, _ in follow_url("http://league", 1, follow=True, retries=2, client=client, sleep=slept.append):
            got.append(n)
    assert got == [1, 2, 3, 4, 5, 6]
    assert starts == [1, 2, 3, 4, 5, 6, 7, 7]
    assert slept == [0.5] * 6 + [1.0]  # the count reset by every line; the drop after 6, then 7 refused twice


def test_a_rows_server_that_sends_its_headers_and_drops_still_reaches_the_limit() -> None:
    """Only a row is progress: the column names each connection starts with do not reset the count."""
    afters: list[str | None] = []

    def headers_then_drop(request: httpx.Request) -> httpx.Response:
        afters.append(request.url.params.get("after"))
        if len(afters) > 20:
            raise RuntimeError("the follower never gave up")
        rows = [json.dumps({"row_id": "12.0", "seat": "a"}).encode() + b"\n"] if len(afters) == 1 else []
        return httpx.Response(200, headers={"X-League-Row-Columns": "seat,row_id"}, stream=_Lines(rows))

    slept: list[float] = []
    client = httpx.Client(transport=httpx.MockTransport(headers_then_drop))
    events: list[object] = []
    with pytest.raises(FollowError, match="4 times in a row"):
        for event in follow_rows_url("http://league", "3.1", follow=True, retries=3, client=client,
                                     sleep=slept.append):
            events.append(event)
    assert afters == ["3.1", "12.0", "12.0", "12.0"]
    assert slept == [0.5, 1.0, 2.0]
    assert [e for e in events if isinstance(e, dict)] == [{"row_id": "12.0", "seat": "a"}]


def test_without_follow_a_connection_that_ends_normally_ends_the_lines() -> None:
    def two_lines(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=_book_line(1) + _book_line(2))

    slept: list[float] = []
    client = httpx.Client(transport=httpx.MockTransport(two_lines))
    assert [n for n, _ in follow_url("http://league", 1, client=client, sleep=slept.append)] == [1, 2]
    assert slept == []

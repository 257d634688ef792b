"""The bookkeeping of a fan-out's publisher confirms (:class:`league.workers.remote._Confirms`): RabbitMQ
numbers a confirm channel's publishes from 1 and may settle many at once (``multiple``); an unroutable ask
is returned before it is acked. Only an ask acked, and neither returned nor nacked, counts as sent."""

from __future__ import annotations

from amqp.basic_message import Message

from league.workers.remote import _Confirms


def published(*identities: str) -> _Confirms:
    confirms = _Confirms()
    for identity in identities:
        confirms.published(identity)
    return confirms


def test_a_multiple_ack_settles_every_ask_up_to_its_tag_and_no_further() -> None:
    confirms = published("a", "b", "c")
    confirms.on_ack(2, True)
    assert confirms.acked == {"a", "b"} and confirms.pending()
    assert confirms.unsettled(["a", "b", "c"]) == ["c"]
    confirms.on_ack(3, False)
    assert not confirms.pending() and confirms.unsettled(["a", "b", "c"]) == []


def test_a_nacked_or_returned_ask_is_not_sent_even_when_acked() -> None:
    confirms = published("a", "b", "c")
    confirms.on_return(Exception("NO_ROUTE"), "league.asks", "lab-a",
                       Message(b"{}", correlation_id="b", application_headers={"id": "b"}))
    confirms.on_ack(2, True)
    confirms.on_nack(3, False)
    assert confirms.unsettled(["a", "b", "c"]) == ["b", "c"]
    assert "NO_ROUTE" in confirms.returned["b"] and confirms.nacked == {"c"}


def test_a_new_round_counts_on_from_the_channels_last_tag() -> None:
    confirms = published("a")
    confirms.on_ack(1, False)
    confirms.begin()
    confirms.published("b")
    confirms.on_ack(1, False)  # a stale tag settles nothing of the new round
    assert confirms.acked == set() and confirms.pending()
    confirms.on_ack(2, False)
    assert confirms.acked == {"b"} and not confirms.pending()

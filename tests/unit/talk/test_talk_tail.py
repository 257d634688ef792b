"""`league tail` on the arms' book (the arms' and the council talk's kinds), locally and through the API's
``/api/arms/stream``, and the compact rows of the talk's lines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from league.api import create_app
from league.api import follow as follow_module
from league.api.armsbook import ARMS_BOOK_KINDS, TALK_LINE_KINDS
from league.api.contest import CONTEST_KINDS
from league.api.follow import compact, follow_url
from league.cli import app
from league.cli.tail import _kinds
from league.errors import LeagueError

TALK = ("talk_schedule", "talk_week", "talk_chair", "talk_round", "talk_reply", "talk_reveal", "talk_accounts")
LINES: list[dict[str, Any]] = [
    {"n": 1, "kind": "arm_schedule", "at": "2026-12-04T12:00:00Z"},
    {"n": 2, "kind": "talk_schedule", "league": "arena-3", "weekday": "fri", "seed": 7},
    {"n": 3, "kind": "talk_week", "week": "2026-W49", "session": "2026-12-04", "chair": "bravo",
     "chair_letter": "C", "seats": 4, "letter_map_sha256": "ab" * 32},
    {"n": 4, "kind": "talk_chair", "week": "2026-W49", "seat": "bravo", "ok": True, "failure": "",
     "critiques": [{"target": "B", "market": "SPX", "direction": "down"}, {"target": "D", "market": "GOLD",
                                                                           "direction": "up"}]},
    {"n": 5, "kind": "arm_answer", "seat": "alpha"},
    {"n": 6, "kind": "talk_round", "week": "2026-W49", "asked": {"delta": "D", "alpha": "B"}},
    {"n": 7, "kind": "talk_reply", "week": "2026-W49", "seat": "alpha", "letter": "B", "ok": True, "failure": ""},
    {"n": 8, "kind": "talk_reply", "week": "2026-W49", "seat": "delta", "letter": "D", "ok": False,
     "failure": "no JSON object found in the reply"},
    {"n": 9, "kind": "talk_reveal", "week": "2026-W49", "letter_map": {"alpha": "B", "bravo": "C", "charlie": "D",
                                                                       "delta": "A"}, "salt": "7"},
    {"n": 10, "kind": "talk_accounts", "week": "2026-W49", "sessions": ["2026-12-04", "2026-12-11"],
     "weights": {"council": {}, "sealed:A": {}}, "closes": {}, "engine": {}},
]


def write_book(path: Path) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(x) + "\n" for x in LINES), encoding="utf-8")
    return path


def test_the_kinds_are_every_kind_the_arms_book_is_read_with() -> None:
    assert TALK_LINE_KINDS == set(TALK)
    assert {"arm_schedule", "news_packet", "arm_run", "arm_answer", "arm_silence", "arm_rules", "arm_decision",
            "arm_rejection", "arm_trade", "arm_mark", "extra_score", "fetch_record", "prediction_registry",
            "prediction_resolution", *TALK} == ARMS_BOOK_KINDS


def test_kinds_pick_one_book() -> None:
    def kinds(*asked: str) -> tuple[frozenset[str], str]:
        return _kinds(list(asked), CONTEST_KINDS, ARMS_BOOK_KINDS, TALK_LINE_KINDS)

    assert kinds() == (frozenset(), "council")
    assert kinds("score") == (frozenset({"score"}), "council")
    assert kinds("contest.*") == (frozenset(), "contest")
    assert kinds("talk.*") == (frozenset(TALK), "arms")
    assert kinds("arms.*") == (frozenset(), "arms")  # every line of the arms' book
    assert kinds("arms.*", "talk_chair") == (frozenset(), "arms")
    assert kinds("talk_chair", "arm_answer") == (frozenset({"talk_chair", "arm_answer"}), "arms")
    with pytest.raises(LeagueError, match="council and arms kinds are in two books"):
        kinds("talk_chair", "score")
    with pytest.raises(LeagueError, match="contest and arms kinds are in two books"):
        kinds("contest.*", "talk.*")
    with pytest.raises(LeagueError, match="unknown kind talk_nonsense"):
        kinds("talk_nonsense")


def test_compact_rows_of_the_talk() -> None:
    rows = [compact(json.dumps(x).encode()) for x in LINES]
    assert rows[0] == json.dumps(LINES[0])  # the arms' own lines are printed whole
    assert rows[1] == "#2 talk_schedule league arena-3 on fri, seed 7"
    assert rows[2] == "#3 talk_week 2026-W49 session 2026-12-04: chair bravo as C, 4 seats, letters sealed abababababab"
    assert rows[3] == "#4 talk_chair 2026-W49 chair bravo ok: 2 critiques (B SPX down, D GOLD up)"
    assert rows[5] == "#6 talk_round 2026-W49 asked alpha=B delta=D"
    assert rows[6] == "#7 talk_reply 2026-W49 seat alpha as B ok"
    assert rows[7] == "#8 talk_reply 2026-W49 seat delta as D failed: no JSON object found in the reply"
    assert rows[8] == "#9 talk_reveal 2026-W49 letters delta=A alpha=B bravo=C charlie=D"
    assert rows[9] == "#10 talk_accounts 2026-W49 2026-12-04..2026-12-11: 2 accounts"
    failed = {"n": 11, "kind": "talk_chair", "week": "2026-W50", "seat": "charlie", "ok": False,
              "failure": "no_reply: no output", "critiques": []}
    assert compact(json.dumps(failed).encode()) == "#11 talk_chair 2026-W50 chair charlie failed: no_reply: no output"


def test_tail_follows_the_local_arms_book(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write_book(tmp_path / "data" / "books" / "arms-book.jsonl")
    monkeypatch.chdir(tmp_path)
    out = CliRunner().invoke(app, ["tail", "--kind", "talk.*"])  # the default book of the talk: the arms' book
    assert out.exit_code == 0, out.output
    assert [r.split()[0] for r in out.output.splitlines()] == ["#2", "#3", "#4", "#6", "#7", "#8", "#9", "#10"]
    only = CliRunner().invoke(app, ["tail", "--kind", "talk_reply", "--kind", "arm_answer", "--raw"])
    assert [json.loads(r)["n"] for r in only.output.splitlines()] == [5, 7, 8]
    everything = CliRunner().invoke(app, ["tail", "--kind", "arms.*"])
    assert len(everything.output.splitlines()) == len(LINES)
    mixed = CliRunner().invoke(app, ["tail", "--kind", "talk_reply", "--kind", "answer"])
    assert mixed.exit_code != 0 and "two books" in str(mixed.exception or mixed.output)


def test_tail_from_a_url_reads_the_arms_stream(monkeypatch: pytest.MonkeyPatch) -> None:
    asked: dict[str, object] = {}

    def fake(base: str, start: int, kinds: frozenset[str], follow: bool, **kw: object) -> Iterator[tuple[int, bytes]]:
        asked.update(base=base, kinds=kinds, stream=kw.get("stream"))
        yield 7, json.dumps(LINES[6]).encode()

    monkeypatch.setattr(follow_module, "follow_url", fake)
    out = CliRunner().invoke(app, ["tail", "http://league.example", "--kind", "talk.*"])
    assert out.exit_code == 0, out.output
    assert asked == {"base": "http://league.example", "kinds": frozenset(TALK), "stream": "/api/arms/stream"}
    assert out.output.strip() == "#7 talk_reply 2026-W49 seat alpha as B ok"


@pytest.fixture()
def root(api_root: Path) -> Path:
    return api_root


def ns(body: bytes) -> list[int]:
    return [json.loads(x)["n"] for x in body.splitlines() if x.strip()]


def test_the_api_streams_the_published_arms_book(root: Path) -> None:
    client = TestClient(create_app(root, db_url=""))
    assert ns(client.get("/api/arms/stream").content) == []  # not published yet: nothing to stream
    write_book(root / "public" / "arms" / "arms-book.jsonl")
    assert ns(client.get("/api/arms/stream").content) == list(range(1, 11))
    assert ns(client.get("/api/arms/stream", params={"from": 6, "kind": ["talk_reply", "talk_round"]}).content) \
        == [6, 7, 8]
    bad = client.get("/api/arms/stream", params={"kind": "score"})
    assert bad.status_code == 400 and "unknown kind score" in bad.json()["error"]
    assert client.get("/api/arms/stream", params={"from": 12}).status_code == 416
    got = list(follow_url("http://testserver", 3, frozenset({"talk_chair"}), client=client, stream="/api/arms/stream"))
    assert [n for n, _ in got] == [4]

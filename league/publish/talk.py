"""The council talk's open files (docs/experiments.md, "Council talk"; open-data.md): ``council-talk.json`` and
``council-talk-critiques.csv``, built from the published arms' book alone (its ``talk_*`` lines), so that
``league verify`` rebuilds them byte for byte from what a reader holds. A league that never talked gets neither.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from league.arms.book import ARMS_BOOK, ARMS_DIR
from league.arms.lines import (
    TALK_KINDS,
    TalkAccountsLine,
    TalkChairLine,
    TalkReplyLine,
    TalkRevealLine,
    TalkWeekLine,
    read_arm_line,
)
from league.book import iter_lines
from league.jsonvalue import Json
from league.publish.arms import csv_bytes
from league.publish.writing import write_bytes, write_json
from league.talk import TalkError
from league.talk.critiques import Critique
from league.talk.report import (
    CRITIQUE_COLUMNS,
    CRITIQUES_CSV,
    TALK_JSON,
    CritiqueRecord,
    ReplyRecord,
    WeekRecord,
    critique_rows,
    talk_report,
)
from league.talk.shadow import shadow_returns

#: What each column of council-talk-critiques.csv holds (the data dictionary's entry).
CRITIQUE_COLUMN_TEXT: dict[str, str] = {
    "week": "ISO week of the talk (2026-W49)",
    "chair_letter": "the chair's letter that week",
    "target_letter": "the letter of the critiqued seat",
    "market": "market code of the questioned position",
    "fund": "the fund that carries the market in the long-only league",
    "risk": "the risk the chair names",
    "weight": "the weight (percent of equity) the chair would give the position",
    "direction": "the fund's direction the chair expects over the next five sessions: up or down",
    "reference_close": "the fund's close on the talk session; empty when unknown",
    "close_5": "the fund's close five sessions later; empty while unknown",
    "resolution": "true when the stated direction came true (strictly higher close for up), false, or unresolved",
    "chair_line": "number n of the arms' book line that sealed the chair's reply",
    "reply_line": "number n of the arms' book line that sealed the critiqued seat's reply; empty when none",
}
assert tuple(CRITIQUE_COLUMN_TEXT) == CRITIQUE_COLUMNS


def _known(closes: Sequence[float | None]) -> tuple[float, ...]:
    """The closes up to the first missing one (a missing price leaves what follows unresolved)."""
    out: list[float] = []
    for c in closes:
        if c is None:
            break
        out.append(c)
    return tuple(out)


def simple_returns(weights: Mapping[str, Mapping[str, float]],
                   closes: Mapping[str, Sequence[float | None]]) -> dict[str, float | None]:
    """Each account's buy-and-hold return from the talk session's close to the fifth session's (None when a fund
    it holds has no price at either end)."""
    ends = {f: [c[0], c[-1]] for f, c in closes.items() if c and c[0] is not None and c[-1] is not None}
    out: dict[str, float | None] = {}
    for account, w in weights.items():
        try:
            out[account] = shadow_returns({account: w}, ends)[account]  # type: ignore[dict-item]
        except TalkError:
            out[account] = None
    return out


def talk_weeks(book: Path) -> list[WeekRecord]:
    """Every week of the talk as its lines in the arms' book say, in week order."""
    weeks: dict[str, TalkWeekLine] = {}
    chairs: dict[str, tuple[int, TalkChairLine]] = {}
    replies: dict[str, list[tuple[int, TalkReplyLine]]] = {}
    reveals: dict[str, TalkRevealLine] = {}
    accounts: dict[str, TalkAccountsLine] = {}
    for line in iter_lines(book):
        if line.kind not in TALK_KINDS:
            continue
        x = read_arm_line({**line.content, "at": line.at})
        if isinstance(x, TalkWeekLine):
            weeks[x.week] = x
        elif isinstance(x, TalkChairLine):
            chairs.setdefault(x.week, (line.n, x))
        elif isinstance(x, TalkReplyLine):
            replies.setdefault(x.week, []).append((line.n, x))
        elif isinstance(x, TalkRevealLine):
            reveals.setdefault(x.week, x)
        elif isinstance(x, TalkAccountsLine):
            accounts.setdefault(x.week, x)
    return [_record(w, chairs.get(k), replies.get(k, []), reveals.get(k), accounts.get(k))
            for k, w in sorted(weeks.items())]


def _record(week: TalkWeekLine, chair: tuple[int, TalkChairLine] | None, replies: list[tuple[int, TalkReplyLine]],
            reveal: TalkRevealLine | None, acc: TalkAccountsLine | None) -> WeekRecord:
    said = chair[1] if chair is not None else None
    ok = said is not None and said.ok
    critiques = []
    for c in (said.critiques if said is not None and ok else []):
        critique = Critique(target=str(c["target"]), market=str(c["market"]), risk=str(c["risk"]),
                            weight=float(c["weight"]), direction="up" if c["direction"] == "up" else "down")
        fund = week.funds[critique.market]
        known = _known(acc.closes.get(fund, [])) if acc is not None else ()
        critiques.append(CritiqueRecord(critique=critique, fund=fund, closes=known))
    engine: dict[str, list[Mapping[str, Json]]] = {}
    if acc is not None:
        engine = {name: [row.model_dump(mode="json") for row in rows] for name, rows in acc.engine.items()}
    return WeekRecord(
        week=week.week, session=week.session, chair_seat=week.chair, chair_letter=week.chair_letter,
        letter_map_sha256=week.letter_map_sha256,
        council_portfolio=dict(said.council_portfolio) if said is not None and ok else {},
        critiques=tuple(critiques),
        replies=tuple(ReplyRecord(letter=r.letter, ok=r.ok, portfolio=dict(r.portfolio), failure=r.failure, line=n)
                      for n, r in replies),
        shadow_returns=simple_returns(acc.weights, acc.closes) if acc is not None else {},
        letter_map=dict(reveal.letter_map) if reveal is not None else None,
        salt=reveal.salt if reveal is not None else None,
        chair_line=chair[0] if chair is not None else None,
        chair_failure=("the chair has not answered yet" if said is None else said.failure),
        portfolios=week.portfolios, accounts=acc.weights if acc is not None else {},
        sessions=tuple(acc.sessions) if acc is not None else (), closes=acc.closes if acc is not None else {},
        engine=engine)


def has_talk(book: Path) -> bool:
    return book.is_file() and any(line.kind == "talk_week" for line in iter_lines(book))


def write_talk(book: Path, out: Path) -> list[Path]:
    """Both talk files from the (published) arms' book; nothing when the league never talked."""
    if not has_talk(book):
        return []
    weeks = talk_weeks(book)
    return [write_json(out / TALK_JSON, talk_report(weeks)),
            write_bytes(out / CRITIQUES_CSV, csv_bytes(critique_rows(weeks), CRITIQUE_COLUMN_TEXT))]


def rebuild_talk(folder: Path, out: Path) -> None:
    """A reader's rebuild (league verify step 11): both files from the published arms' book, when published."""
    if (folder / TALK_JSON).is_file() or (folder / CRITIQUES_CSV).is_file():
        write_talk(folder / ARMS_DIR / ARMS_BOOK, out)

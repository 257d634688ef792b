"""The arms job (docs/experiments.md): after the counted run, the same seats asked again under other packets.

On each session, after the counted run's asks (``[schedule] arms``, before ingest closes), the configured arms
(``closed_book``: the snapshot and a sealed packet of headlines; ``price_only``: the snapshot alone) and, on the
repeat day, the repeats (the open question and the closed-book question asked again to the chosen models) are
asked in the day's order (a sealed, seeded schedule balanced across days). Each arm run seals its roster and
every seat's ask hash in the arms' ask chain, then its run line, before the first ask is sent; each reply is
sealed on arrival as an ``arm_answer`` (or ``arm_silence``) line of the arms' book. Nothing here writes to the
council's books: the daily tables never see an arm.

Each ask is a fresh context: a new sandbox (the seats' one-shot runs), the same question, snapshot and
information cutoff as the counted run, no crowd price, no other seat's or arm's answer. A seat on policy
``web`` runs on ``api`` (league.arms.plan.arm_spec). The job is idempotent per session: a run already sealed is
not asked again, and its asks still in flight after a restart are resumed by :func:`resume_arms`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date, datetime
from functools import partial
from pathlib import Path
from typing import cast

import structlog

from league import records
from league.answers import clean_text, json_safe_object
from league.arms.book import ARMS_BOOK, ARMS_DIR, ArmsBooks
from league.arms.lines import (
    EXTRA_KINDS,
    ArmAnswerLine,
    ArmKind,
    ArmRunLine,
    ArmScheduleLine,
    ArmSilenceLine,
    PacketLine,
)
from league.arms.plan import (
    REPEAT_KINDS,
    SCHEDULE_RULE,
    arm_spec,
    day_order,
    outside_links,
    run_id,
    run_markets,
    search_status,
)
from league.asks import account_block, arm_text, publish_ask_text, sha256_text, unsealable
from league.book import iter_lines
from league.clock import iso_seconds, parse_iso
from league.config import Config
from league.counting import counted_runs
from league.errors import InvalidRecord
from league.jobs.arm_accounts import arm_account
from league.jobs.ask import deadline, market_lines, markets_asked, seat_accounts, send, structured_context
from league.jobs.context import League, Pending
from league.jobs.seal import DETAIL_CAP, answer_content, bare_answer, fetch_fields
from league.jobs.snapshot import job_snapshot
from league.jsonvalue import Json, obj
from league.jsonvalue import text as text_of
from league.news.interface import NewsError, NewsSource
from league.news.packet import Packet, build_packet, packet_bytes, packet_from_json, packet_sha256, packet_text
from league.registry import NEWS, NO_NEWS, load
from league.runner import SeatAsk
from league.seatcore.files import write_atomic
from league_agents.base import Ask, FailureClass, Now, SeatReply, SeatSpec

log = structlog.get_logger(__name__)
#: The snapshot record as job_snapshot keeps it (its rows, time and SHA-256), read as JSON.
Snapshot = Mapping[str, Json]
#: An answer's parsed cells: market -> horizon -> cell.
Items = Mapping[str, Mapping[str, Mapping[str, Json]]]
NewsFactory = Callable[[Config], NewsSource]
WEEKDAYS = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
PACKET_ARMS = ("closed_book", "repeat_packet")
RETRY_POLICY = "an arm asks each seat once: no second wave"
LOST = "no_answer"


def planned(lg: League, session: str) -> list[tuple[str, int]]:
    """``(arm, repeat)`` of every arm run the configuration asks on ``session`` (repeat 0 for the arms)."""
    settings = lg.config.settings.arms
    out: list[tuple[str, int]] = [(arm, 0) for arm in settings.arms]
    if settings.repeat_seats and WEEKDAYS[date.fromisoformat(session).weekday()] == settings.repeat_day:
        kinds = ["repeat_open"] + (["repeat_packet"] if lg.config.settings.news.provider != NO_NEWS else [])
        out += [(kind, k) for kind in kinds for k in range(1, settings.repeats + 1)]
    return out


def arm_seats(lg: League, arm: str) -> list[SeatSpec]:
    """The roster entries an arm asks, as the arm runs them (league.arms.plan.arm_spec)."""
    settings = lg.config.settings.arms
    names = settings.repeat_seats if arm in REPEAT_KINDS else settings.seats
    return [arm_spec(s, arm) for s in lg.config.roster.seat if not names or s.name in names]


def open_run(lg: League, session: str) -> records.Run | None:
    """The session's counted run (its first wave): the question, snapshot and cutoff every arm shares."""
    return next((r for r in counted_runs(lg.view, session) if r.attempt == 1), None)


def job_arms(lg: League, session: str) -> list[str] | None:
    """Ask the session's arms and repeats not asked yet, in the day's order; returns the run ids started."""
    todo = planned(lg, session)
    if not todo:
        return None
    opened = open_run(lg, session)
    if opened is None:
        log.info("arms.no_counted_run", session=session)
        return None
    books = lg.arms
    sealed = {r.run_id for r in books.runs(session)}
    if all(run_id(session, arm, k) in sealed for arm, k in todo):
        return None
    order = day_order_of(lg, books, session)
    record = job_snapshot(lg, session)
    packet: Packet | None = None
    if any(arm in PACKET_ARMS for arm, _ in todo):
        packet = ensure_packet(lg, books, session, opened)
    started = []
    for arm, k in sorted(todo, key=lambda t: (_rank(t[0], order), t[1])):
        rid = run_id(session, arm, k)
        if rid in sealed:
            continue
        if arm in PACKET_ARMS and packet is None:
            log.warning("arms.no_packet", session=session, arm=arm, repeat=k)
            continue
        with structlog.contextvars.bound_contextvars(run_id=rid):
            if _ask_arm(lg, books, opened, record, arm, k, order, packet):
                started.append(rid)
    return started


def _rank(arm: str, order: Sequence[str]) -> int:
    return order.index(arm) if arm in order else len(order) + (REPEAT_KINDS.index(arm) if arm in REPEAT_KINDS else 9)


def day_order_of(lg: League, books: ArmsBooks, session: str) -> list[str]:
    """The order of the arms on ``session``: the one its first arm run sealed, else the sealed schedule's next
    day (the schedule line is sealed first, before the first arm ask ever)."""
    runs = books.runs(session)
    if runs:
        return list(runs[0].order)
    schedule = books.schedule()
    if schedule is None:
        settings = lg.config.settings.arms
        books.seal(ArmScheduleLine(seed=settings.seed, arms=sorted(settings.arms), rule=SCHEDULE_RULE))
        schedule = books.schedule()
        assert schedule is not None
    order = day_order(schedule.seed, schedule.arms, len(books.arm_days()))
    return order + sorted(a for a in lg.config.settings.arms.arms if a not in order)


def news_source(lg: League) -> NewsSource:
    """The configured news provider (registry group ``forecast_league.news``)."""
    factory = load(NEWS, lg.config.settings.news.provider, f"{lg.config.folder / 'league.toml'}: key `news.provider`")
    return cast(NewsFactory, factory)(lg.config)


def packet_path(lg: League, sha256: str) -> Path:
    return lg.data_dir / ARMS_DIR / "packets" / f"{sha256}.json"


def ensure_packet(lg: League, books: ArmsBooks, session: str, opened: records.Run) -> Packet | None:
    """The session's sealed packet, built and sealed under its hash once (never rebuilt): headlines published
    before the counted run's line (the open run's information cutoff). ``None`` when the news provider fails:
    the closed-book asks of that day are not made (logged), the other arms go on."""
    line = books.packet(session)
    if line is not None:
        return load_packet(lg, line)
    news = lg.config.settings.news
    cutoff = parse_iso(opened.at)
    try:
        headlines = news_source(lg).headlines(cutoff)
    except NewsError as exc:
        log.error("arms.news_failed", session=session, error=exc.message)
        return None
    packet = build_packet(session, cutoff, headlines, lookback_hours=news.lookback_hours, max_items=news.max_items)
    digest = packet_sha256(packet)
    write_atomic(packet_path(lg, digest), packet_bytes(packet))
    books.seal(PacketLine(session=session, packet_sha256=digest, cutoff=iso_seconds(cutoff),
                          lookback_hours=news.lookback_hours, items=len(packet.items), provider=news.provider,
                          sources=sorted({h.source for h in packet.items})))
    log.info("arms.packet_sealed", session=session, sha256=digest, items=len(packet.items))
    return packet


def load_packet(lg: League, line: PacketLine) -> Packet | None:
    """The packet a ``news_packet`` line sealed, read back from its file and checked against the sealed hash."""
    try:
        packet = packet_from_json(json.loads(packet_path(lg, line.packet_sha256).read_text(encoding="utf-8")))
    except (OSError, ValueError, NewsError) as exc:
        log.error("arms.packet_unreadable", session=line.session, error=str(exc)[:300])
        return None
    if packet_sha256(packet) != line.packet_sha256:
        log.error("arms.packet_changed", session=line.session, sealed=line.packet_sha256)
        return None
    return packet


def common_text_of(lg: League, opened: records.Run, record: Snapshot, arm: str,
                   packet: Packet | None) -> tuple[str, str] | None:
    """``(text, sha256)`` of an arm's common ask text; the open question's repeats ask the counted run's own
    text (as published); the closed-book repeats the closed-book text of the day (a frozen packet)."""
    if arm == "repeat_open":
        try:
            text = (lg.data_dir / "asks" / f"{opened.ask_sha256}.md").read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError):
            return None
        return (text, opened.ask_sha256) if sha256_text(text) == opened.ask_sha256 else None
    base = "closed_book" if arm == "repeat_packet" else arm
    markets = market_lines(lg, opened.session, obj(record["snapshot"]))
    text = arm_text(opened.session, run_id(opened.session, base), markets, text_of(record["sha256"]), arm=base,
                    packet_sha256=packet_sha256(packet) if packet is not None and base == "closed_book" else None,
                    headlines=packet_text(packet) if packet is not None and base == "closed_book" else "")
    return text, publish_ask_text(lg.data_dir / ARMS_DIR / "asks", text)


def seat_text(lg: League, common: str, arm: str, seat: str, opened: records.Run | None, *,
              until: datetime | None = None) -> str:
    """A seat's exact text: the common text and, for the open question's repeats, the seat's council account as
    its counted ask showed it; an arm shows the seat's own account in that arm (league.jobs.arm_accounts), the
    closed-book repeats the closed-book one; an extra reference run (the open question at another time) the
    seat's council account as it stands. ``until``: the ask's sealed time when it is re-sent after a restart."""
    if arm in EXTRA_KINDS:
        return common + account_block(seat, seat_accounts(lg.books.index, seat, until=until))
    if arm == "repeat_open" and opened is not None:
        return common + account_block(seat, seat_accounts(lg.books.index, seat, until=parse_iso(opened.at)))
    base = "closed_book" if arm == "repeat_packet" else arm
    return common + account_block(seat, arm_account(lg.arms, seat, base, until=until))


def _ask_arm(lg: League, books: ArmsBooks, opened: records.Run, record: Snapshot, arm: str, k: int,
             order: Sequence[str], packet: Packet | None) -> bool:
    session = opened.session
    rid = run_id(session, arm, k)
    common = common_text_of(lg, opened, record, arm, packet)
    if common is None:
        log.error("arms.open_text_gone", session=session, arm=arm, sha256=opened.ask_sha256)
        return False
    text, common_sha = common
    specs = arm_seats(lg, arm)
    asked = markets_asked(lg)
    closes = deadline(lg, session)
    faults = unsealable(specs, asked, closes)
    specs = [s for s in specs if s.name not in faults]
    uses_packet = arm in PACKET_ARMS and packet is not None
    books.asks.seal_roster(rid, session, specs, asked, closes, closes, RETRY_POLICY, "not_counted")
    books.seal(ArmRunLine(
        run_id=rid, session=session, arm=cast(ArmKind, arm), repeat=k, open_run=opened.run_id, order=list(order),
        ask_sha256=common_sha, snapshot_sha256=str(record["sha256"]),
        packet_sha256=packet_sha256(packet) if uses_packet and packet is not None else None,
        roster=[s.name for s in specs], network={s.name: s.network for s in specs},
        reference_at=iso_seconds(closes), deadline=iso_seconds(closes)))
    for name, problem in faults.items():
        _seal_silence(lg, books, rid, session, name, arm, k, str(FailureClass.SEAT_FAULT), f"not asked: {problem}")
    texts = [(s.name, seat_text(lg, text, arm, s.name, opened)) for s in specs]
    books.asks.seal_asks(rid, session, 1, texts, common_sha)
    log.info("arms.asked", session=session, arm=arm, repeat=k, seats=[s.name for s in specs])
    send_arm(lg, rid, session, arm, k, specs, texts, common_sha, record, packet if uses_packet else None)
    return True


def send_arm(lg: League, rid: str, session: str, arm: str, k: int, specs: Sequence[SeatSpec],
             texts: Sequence[tuple[str, str]], common_sha: str, record: Snapshot, packet: Packet | None,
             now: Now | None = None, *, asked: Mapping[str, list[str]] | None = None) -> None:
    """Send an arm run's asks (sealed in the arms' ask chain) through the league's runner; each reply is sealed
    on arrival by :func:`seal_arm_reply`. ``asked``: the markets and horizons asked (default: all)."""
    extra = lg.asking.ask_context(lg, session) if lg.asking.ask_context is not None else None
    context = structured_context(lg, {**record, "crowd": []}, extra)  # no crowd price in an arm
    # which arm or repeat (a scripted stand-in varies by it)
    context["variant"] = arm if arm in EXTRA_KINDS else rid.removeprefix(f"{session}-")
    prepared = [SeatAsk(spec, Ask(text=t, sha256=sha256_text(t), session=session, attempt=1, context=context))
                for spec, (_, t) in zip(specs, texts, strict=True)]
    links = tuple(h.link for h in packet.items) if packet is not None else ()
    sealer = partial(seal_arm_reply, arm=arm, repeat=k, specs={s.name: s for s in specs}, links=links)
    send(lg, rid, session, prepared, common_sha, dict(asked or markets_asked(lg)), now=now, seal=sealer)


def seal_arm_reply(lg: League, p: Pending, reply: SeatReply, *, arm: str, repeat: int,
                   specs: Mapping[str, SeatSpec], links: Iterable[str]) -> None:
    """Seal an arm's reply on arrival: exactly one ``arm_answer`` or ``arm_silence`` line, whatever it holds."""
    books = lg.arms
    if reply.silent:
        _seal_silence(lg, books, p.run_id, p.session, p.seat, arm, repeat, str(reply.failure or "no_reply"),
                      reply.detail, booked_at=reply.finished_at, fetches=fetch_fields(reply))
        return
    content = answer_content(lg, p, reply)
    content.update(arm=arm, repeat=repeat, search_status=search_status(specs[p.seat], reply.fetches),
                   outside=[] if arm == "repeat_open" else outside_links(cast(Items, content["items"]), links))
    try:
        books.seal(ArmAnswerLine.from_content(content))
    except InvalidRecord as exc:  # a last guard: sealed without what could not be written
        log.error("arms.answer_unwritable", seat=p.seat, run_id=p.run_id, error=exc.message)
        bare = bare_answer(content, exc.message)
        bare.update(arm=arm, repeat=repeat, search_status=content["search_status"], outside=[])
        books.seal(ArmAnswerLine.from_content(bare))


def _seal_silence(lg: League, books: ArmsBooks, rid: str, session: str, seat: str, arm: str, k: int,
                  failure: str, detail: str, *, booked_at: datetime | None = None,
                  fetches: Mapping[str, object] | None = None) -> None:
    books.seal(ArmSilenceLine.from_content({
        "run_id": rid, "session": session, "seat": seat, "attempt": 1, "arm": arm, "repeat": k,
        "failure": failure, "detail": clean_text(detail, DETAIL_CAP),
        "booked_at": iso_seconds(booked_at or lg.clock.now()), **json_safe_object(dict(fetches or {}))}))


def resume_arms(lg: League) -> list[tuple[str, str, str]]:
    """Arm asks a dead daemon left in flight (sealed in the arms' ask chain, no reply line), re-sent identically
    (same text, checked against the sealed hash; a simulated seat reads its original asked time), or sealed as
    lost (``no_answer``) when they cannot be: as the council's restart does (league.jobs.resume). Returns
    ``(run_id, seat, resent|lost)``."""
    path = lg.books.dir / ARMS_BOOK
    if not path.is_file():
        return []
    books = lg.arms
    busy = {(p.run_id, p.seat) for p in lg.asking.pending if not p.council}
    asks = _sealed_asks(books)
    out: list[tuple[str, str, str]] = []
    for run in books.runs():
        replied = {seat for seat, _ in books.replied(run.run_id)}
        todo = [s for s in run.roster if s not in replied and (run.run_id, s) not in busy]
        if todo:
            out += _resume_run(lg, books, run, todo, asks)
    if out:
        log.warning("arms.resumed", asks=[" ".join(x) for x in out])
    return out


def extra_snapshot_path(lg: League, rid: str) -> Path:
    """Where an extra reference run keeps its own snapshot (league.jobs.extra_runs)."""
    return lg.data_dir / ARMS_DIR / "snapshots" / f"{rid}.json"


def _extra_record(lg: League, rid: str) -> Snapshot:
    try:
        loaded: dict[str, Json] = json.loads(extra_snapshot_path(lg, rid).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return loaded


def _published_text(folder: Path, sha256: str) -> tuple[str, str] | None:
    """A common ask text published under its hash, checked against it (None when gone or changed)."""
    try:
        text = (folder / f"{sha256}.md").read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None
    return (text, sha256) if sha256_text(text) == sha256 else None


def _at(instant: datetime) -> datetime:
    """What a resumed seat of a simulated league reads as now: its original asked time."""
    return instant


def _sealed_asks(books: ArmsBooks) -> dict[tuple[str, str], tuple[str, datetime]]:
    out: dict[tuple[str, str], tuple[str, datetime]] = {}
    for line in iter_lines(books.asks.path):
        c = line.content
        if line.kind == "ask":
            out[(str(c["run_id"]), str(c["seat"]))] = (str(c["ask_sha256"]), parse_iso(line.at))
    return out


def _resume_run(lg: League, books: ArmsBooks, run: ArmRunLine, todo: Sequence[str],
                asks: Mapping[tuple[str, str], tuple[str, datetime]]) -> list[tuple[str, str, str]]:
    opened = next((r for r in lg.books.index.runs(run.session) if r.run_id == run.open_run), None)
    asked: dict[str, list[str]] | None = None
    packet: Packet | None = None
    common: tuple[str, str] | None = None
    if run.arm in EXTRA_KINDS:  # its own snapshot and its published text
        record = _extra_record(lg, run.run_id)
        common = _published_text(lg.data_dir / ARMS_DIR / "asks", run.ask_sha256)
        asked = {m.code: list(m.horizons) for m in run_markets(lg.config.markets.markets, run.arm)}
    else:
        record = job_snapshot(lg, run.session) if opened is not None else {}
        line = books.packet(run.session) if run.packet_sha256 else None
        packet = load_packet(lg, line) if line is not None else None
        common = common_text_of(lg, opened, record, run.arm, packet) if opened is not None else None
    if common is not None and common[1] != run.ask_sha256:
        common = None
    specs = {s.name: s for s in arm_seats(lg, run.arm)}
    out: list[tuple[str, str, str]] = []
    batches: dict[datetime, list[tuple[SeatSpec, str]]] = {}
    for seat in todo:
        sealed = asks.get((run.run_id, seat))
        text = (seat_text(lg, common[0], run.arm, seat, opened, until=sealed[1] if sealed is not None else None)
                if common is not None and (opened is not None or run.arm in EXTRA_KINDS) else "")
        problem = ("its seat is no longer asked by this arm" if seat not in specs else
                   "its common text, packet or snapshot is gone or changed" if common is None else
                   "it was never sealed in the arms' ask chain" if sealed is None else
                   "its text can no longer be re-built with the sealed hash" if sha256_text(text) != sealed[0] else
                   "it was in flight when the daemon stopped and ingest closed before the restart"
                   if not lg.simulated and lg.clock.now() >= parse_iso(run.deadline) else "")
        if problem:
            _seal_silence(lg, books, run.run_id, run.session, seat, run.arm, run.repeat, LOST,
                          f"the ask was lost with the daemon: {problem}")
            out.append((run.run_id, seat, "lost"))
            continue
        assert sealed is not None
        batches.setdefault(sealed[1], []).append((specs[seat], text))
        out.append((run.run_id, seat, "resent"))
    for asked_at, items in sorted(batches.items()):
        send_arm(lg, run.run_id, run.session, run.arm, run.repeat, [s for s, _ in items],
                 [(s.name, t) for s, t in items], run.ask_sha256, record, packet,
                 now=partial(_at, asked_at) if lg.simulated else None, asked=asked)
    return out


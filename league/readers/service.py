"""The readers' write service (docs/readers.md): a FastAPI app of its own, apart from the read-only API, that
assigns readers, takes their forecasts and seals each on arrival in the readers' book.

Run alone (``league readers serve``, its own process and systemd unit) or mounted beside the read-only API under
``/readers`` (``league serve --readers``); either way it is this app, with its own state and its own book writer.

What it keeps and what it never keeps:
- a reader is a random identifier in a cookie the service sets (HttpOnly, SameSite=Strict); the book names the
  reader by the identifier's SHA-256, never the identifier;
- the reader's address is read only to limit repeat requests: it is hashed at once with a salt drawn for the day
  and held in memory only (a new salt each day, the old one and its counts dropped), and neither the address nor
  its hash is logged, sealed or published; the service writes no access log;
- every refusal is a 4xx JSON ``{"error", "fix"}``: a bad field, a closed session, a replayed or missing
  anti-forgery token, an unknown identifier, a body above the size limit, too many requests from one address.
"""

from __future__ import annotations

import hashlib
import json
import random
import secrets
import threading
import time as time_mod
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from zoneinfo import ZoneInfo

import structlog
from fastapi import FastAPI, Request, Response
from fastapi.responses import JSONResponse
from starlette.concurrency import run_in_threadpool

from league.calendar import Calendar, default_calendar, et_time
from league.clock import Clock, iso_seconds, parse_iso
from league.config import Config, as_time
from league.readers.book import (
    READERS_BOOK,
    ReaderAssignedLine,
    ReaderFinalLine,
    ReaderForecastLine,
    ReaderOpeningLine,
    ReaderPeekLine,
    ReaderPrivateLine,
    ReadersBook,
    ReaderViewLine,
)
from league.readers.consensus import CouncilView, Shown
from league.readers.rules import (
    CONFIDENCE_MAX,
    CONFIDENCE_MIN,
    DISPLAYS,
    GROUP_LABELS,
    GROUPS,
    ReaderError,
    check_confidence,
    check_side,
)

log = structlog.get_logger(__name__)
ET = ZoneInfo("America/New_York")
COOKIE = "league_reader"
RULES = ("A reader is assigned once, at random, to g0 (blind: the council hidden until its first forecast of the "
         "session) or g1 (see: shown at once); only its first forecast per market and session counts; forecasts "
         "close at the session's reference time; a confidence c on a side is probability c/100 for that side.")
CONTROL = "No forecast is shown in this display (the control of the revision protocol)."


@dataclass(frozen=True)
class Limits:
    """The service's bounds: per address and day, the forecasts (every kind) and the new identifiers; the body
    size; how long an anti-forgery token lives."""

    requests_per_address_day: int = 400
    identifiers_per_address_day: int = 20
    max_body_bytes: int = 2048
    token_ttl_s: float = 3600.0


class Refused(Exception):
    """A request the service refuses: HTTP status, what is wrong, what to do."""

    def __init__(self, status: int, message: str, fix: str) -> None:
        super().__init__(message)
        self.status, self.message, self.fix = status, message, fix


class _DaySalt:
    """The day's salt and per-address counts, in memory only; a new day drops both."""

    def __init__(self) -> None:
        self.day: date | None = None
        self.salt = b""
        self.requests: dict[str, int] = {}
        self.identifiers: dict[str, int] = {}

    def key(self, address: str, day: date) -> str:
        if day != self.day:
            self.day, self.salt = day, secrets.token_bytes(32)
            self.requests, self.identifiers = {}, {}
        return hashlib.sha256(self.salt + address.encode("utf-8", "replace")).hexdigest()


class ReadersService:
    """The state behind the app: the book, the tokens, the day's address counts, the council on offer."""

    def __init__(self, data_dir: Path, public: Path, markets: list[str], calendar: Calendar, deadline: time,
                 clock: Clock, *, rng: random.Random | None = None, limits: Limits = Limits()) -> None:
        self.book = ReadersBook(data_dir / "books" / READERS_BOOK, clock)
        self.markets, self.calendar, self.deadline, self.clock = markets, calendar, deadline, clock
        self.rng = rng or random.SystemRandom()
        self.limits = limits
        self.council = CouncilView(public)
        self._lock = threading.Lock()
        self._tokens: dict[str, tuple[str, float]] = {}
        self._salt = _DaySalt()
        if not self.book.state.opened:
            self.book.seal(ReaderOpeningLine(rules=RULES, groups=dict(GROUP_LABELS),
                                             confidence=[CONFIDENCE_MIN, CONFIDENCE_MAX]))

    def close(self) -> None:
        self.book.close()

    # ------------------------------------------------------------------ sessions
    def open_session(self) -> tuple[str, datetime]:
        """The session forecasts are open for, and its reference time (when they close)."""
        now = self.clock.now()
        day = self.calendar.session_on_or_after(now.astimezone(ET).date())
        closes = et_time(day, self.deadline)
        if now >= closes:
            day = self.calendar.next_session(day)
            closes = et_time(day, self.deadline)
        return day.isoformat(), closes

    # ------------------------------------------------------------------ identity and limits
    def _address_key(self, request: Request) -> str:
        address = request.client.host if request.client else "unknown"
        return self._salt.key(address, self.clock.now().astimezone(ET).date())

    def count(self, request: Request) -> None:
        with self._lock:
            key = self._address_key(request)
            n = self._salt.requests.get(key, 0) + 1
            if n > self.limits.requests_per_address_day:
                raise Refused(429, "too many forecasts from this address today",
                              fix="each reader's first forecast per market and session is what counts; come back "
                                  "tomorrow")
            self._salt.requests[key] = n

    def reader_of(self, request: Request) -> str | None:
        token = request.cookies.get(COOKIE, "")
        if not token:
            return None
        if not (16 <= len(token) <= 64) or not all(c.isalnum() or c in "-_" for c in token):
            raise Refused(403, "the reader identifier is not one this service issued",
                          fix="clear this site's cookie and reload the page: you get a new identifier")
        reader = hashlib.sha256(token.encode()).hexdigest()[:32]
        if reader not in self.book.state.groups:
            raise Refused(403, "the reader identifier is not one this service issued",
                          fix="clear this site's cookie and reload the page: you get a new identifier")
        return reader

    def new_reader(self, request: Request) -> tuple[str, str]:
        """A new identifier (the cookie's token) and its reader id, assigned at random and sealed."""
        with self._lock:
            key = self._address_key(request)
            issued = self._salt.identifiers.get(key, 0)
            if issued >= self.limits.identifiers_per_address_day:
                raise Refused(429, "too many new reader identifiers from this address today",
                              fix="keep this site's cookie: a reader keeps its identifier for good")
            self._salt.identifiers[key] = issued + 1
            token = secrets.token_urlsafe(24)
            reader = hashlib.sha256(token.encode()).hexdigest()[:32]
            group = self.rng.choice(GROUPS)
            self.book.seal(ReaderAssignedLine(reader=reader, group="g0" if group == "g0" else "g1",
                                              reset=issued > 0))
        log.info("readers.assigned", group=group)
        return token, reader

    def token_for(self, reader: str) -> str:
        token = secrets.token_urlsafe(18)
        now = time_mod.monotonic()
        with self._lock:
            self._tokens = {t: v for t, v in self._tokens.items() if v[1] > now}
            self._tokens[token] = (reader, now + self.limits.token_ttl_s)
        return token

    def spend(self, token: object, reader: str) -> None:
        """An anti-forgery token is good once, for the reader it was issued to, within its lifetime."""
        with self._lock:
            got = self._tokens.pop(token, None) if isinstance(token, str) else None
        if got is None or got[0] != reader or got[1] < time_mod.monotonic():
            raise Refused(403, "the form's anti-forgery token is missing, used already or expired",
                          fix="reload the page and send the form again")

    # ------------------------------------------------------------------ what a reader sees
    def visible(self, reader: str, session: str) -> bool:
        state = self.book.state
        return (state.groups[reader] == "g1" or state.forecast_in(reader, session)
                or (reader, session) in state.peeks)

    def state(self, reader: str) -> dict[str, object]:
        session, closes = self.open_session()
        if (reader, session) not in self.book.state.views:
            self.book.seal(ReaderViewLine(reader=reader, session=session))
        shown = self.council.shown_for(session)
        done = sorted(m for (r, s, m) in self.book.state.counted if r == reader and s == session)
        return {"group": self.book.state.groups[reader], "session": session, "closes_at": iso_seconds(closes),
                "markets": self.markets, "forecast": done, "council_visible": self.visible(reader, session),
                "council": _council(shown) if self.visible(reader, session) else None,
                "csrf": self.token_for(reader),
                "revision": sorted(f"{m}" for (r, s, m) in self.book.state.private if r == reader and s == session)}

    # ------------------------------------------------------------------ forecasts
    def _fields(self, body: dict[str, object]) -> tuple[str, str, str, int]:
        session, closes = self.open_session()
        asked = body.get("session", session)
        if asked != session:
            raise Refused(409, f"forecasts for {str(asked)[:12]!r} are closed or not open yet",
                          fix=f"forecasts are open for {session} until {iso_seconds(closes)}; reload the page")
        market = body.get("market")
        if market not in self.markets:
            raise Refused(422, f"market {str(market)[:20]!r} is not one of the league's markets",
                          fix=f"choose one of {', '.join(self.markets)}")
        try:
            side = check_side(body.get("side"))
            confidence = check_confidence(body.get("confidence"))
        except ReaderError as exc:
            raise Refused(422, exc.message, exc.fix or "see the form") from None
        return session, str(market), side, confidence

    def forecast(self, reader: str, body: dict[str, object]) -> dict[str, object]:
        session, market, side, confidence = self._fields(body)
        state = self.book.state
        with self._lock:  # one first forecast per reader x market x session, even for two requests at once
            counted = (reader, session, market) not in state.counted
            viewed = state.views.get((reader, session))
            seconds = (self.clock.now() - parse_iso(viewed)).total_seconds() if viewed else None
            shown = self.council.shown_for(session)
            self.book.seal(ReaderForecastLine(
                reader=reader, group="g0" if state.groups[reader] == "g0" else "g1", session=session, market=market,
                side="up" if side == "up" else "down", confidence=confidence, counted=counted,
                seconds=round(seconds, 3) if seconds is not None and counted else None,
                consensus_up=shown.up.get(market), consensus_session=shown.session))
        visible = self.visible(reader, session)
        return {"counted": counted, "why": "" if counted else "a later forecast: only your first one counts",
                "council": _council(shown) if visible else None, "csrf": self.token_for(reader)}

    def peek(self, reader: str) -> dict[str, object]:
        session, _ = self.open_session()
        state = self.book.state
        if state.groups[reader] == "g0" and not state.forecast_in(reader, session) and \
                (reader, session) not in state.peeks:
            self.book.seal(ReaderPeekLine(reader=reader, session=session))
        return {"council": _council(self.council.shown_for(session)), "csrf": self.token_for(reader)}

    def private(self, reader: str, body: dict[str, object]) -> dict[str, object]:
        session, market, side, confidence = self._fields(body)
        with self._lock:
            if (reader, session, market) in self.book.state.private:
                raise Refused(409, f"your private forecast of {market} for {session} is recorded already",
                              fix="record your final forecast of that market")
            display = self.rng.choice(DISPLAYS)
            shown = self.council.shown_for(session)
            self.book.seal(ReaderPrivateLine(reader=reader, session=session, market=market,
                                             side="up" if side == "up" else "down", confidence=confidence,
                                             display="council" if display == "council" else "control",
                                             consensus_up=shown.up.get(market), consensus_session=shown.session))
        shows: object = {"council": shown.up.get(market), "from_session": shown.session} if display == "council" \
            else {"control": CONTROL}
        return {"display": display, "shows": shows, "csrf": self.token_for(reader)}

    def final(self, reader: str, body: dict[str, object]) -> dict[str, object]:
        session, market, side, confidence = self._fields(body)
        with self._lock:
            key = (reader, session, market)
            if key not in self.book.state.private:
                raise Refused(409, f"no private forecast of {market} for {session} yet",
                              fix="record your private forecast first")
            if key in self.book.state.final:
                raise Refused(409, f"your final forecast of {market} for {session} is recorded already",
                              fix="one final forecast per market and session")
            self.book.seal(ReaderFinalLine(reader=reader, session=session, market=market,
                                           side="up" if side == "up" else "down", confidence=confidence))
        return {"recorded": True, "csrf": self.token_for(reader)}


def _council(shown: Shown) -> dict[str, object]:
    return {"session": shown.session, "up": shown.up}


def create_readers_app(service: ReadersService, *, secure_cookie: bool = True) -> FastAPI:
    """The write app over ``service`` (its routes under ``/readers`` when run alone; mounted under ``/readers``
    its routes are the same paths without the prefix)."""

    @asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        try:
            yield
        finally:
            service.close()

    app = FastAPI(title="Forecasting league: readers", docs_url=None, redoc_url=None, openapi_url=None,
                  lifespan=lifespan)

    @app.exception_handler(Refused)
    async def refused(_request: Request, exc: Refused) -> JSONResponse:
        return JSONResponse({"error": exc.message[:300], "fix": exc.fix[:300]}, status_code=exc.status)

    @app.middleware("http")
    async def bounded(request: Request, call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        length = request.headers.get("content-length", "0")
        if not length.isdigit() or int(length) > service.limits.max_body_bytes:
            return JSONResponse({"error": "the request body is too large or its length unreadable",
                                 "fix": f"send at most {service.limits.max_body_bytes} bytes of JSON"},
                                status_code=413)
        return await call_next(request)

    async def body_of(request: Request) -> dict[str, object]:
        raw = await request.body()
        if len(raw) > service.limits.max_body_bytes:
            raise Refused(413, "the request body is too large", fix="send one forecast at a time")
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            raise Refused(400, "the request body is not JSON", fix='send {"market", "side", "confidence", '
                                                                   '"session", "csrf"}') from None
        if not isinstance(data, dict):
            raise Refused(400, "the request body is not a JSON object", fix="send one JSON object")
        return data

    def known(request: Request) -> str:
        reader = service.reader_of(request)
        if reader is None:
            raise Refused(403, "no reader identifier", fix="open the league page first: it gives you one")
        return reader

    @app.get("/state")
    def state(request: Request, response: Response) -> dict[str, object]:
        reader = service.reader_of(request)
        if reader is None:
            token, reader = service.new_reader(request)
            response.set_cookie(COOKIE, token, max_age=10 * 365 * 86400, httponly=True, samesite="strict",
                                secure=secure_cookie, path="/")
        return service.state(reader)

    async def posted(request: Request, act: Callable[[str, dict[str, object]], dict[str, object]], *,
                     counted: bool = True) -> dict[str, object]:
        """A POST: a known reader, a bounded JSON body, its single-use token spent, the address's day counted
        (a peek is not a forecast), then the act, off the event loop (it seals, and a seal waits on the disk)."""
        reader = known(request)
        body = await body_of(request)
        service.spend(body.get("csrf"), reader)
        if counted:
            service.count(request)
        return await run_in_threadpool(act, reader, body)

    @app.post("/forecast")
    async def forecast(request: Request) -> dict[str, object]:
        return await posted(request, service.forecast)

    @app.post("/peek")
    async def peek(request: Request) -> dict[str, object]:
        return await posted(request, lambda reader, _body: service.peek(reader), counted=False)

    @app.post("/revision/private")
    async def private(request: Request) -> dict[str, object]:
        return await posted(request, service.private)

    @app.post("/revision/final")
    async def final(request: Request) -> dict[str, object]:
        return await posted(request, service.final)

    return app


def readers_app_for(config: Config, clock: Clock, *, rng: random.Random | None = None, limits: Limits = Limits(),
                    secure_cookie: bool = True) -> FastAPI:
    """The write app of a league's config: its markets, its calendar, its reference time, its data folder (the
    readers' book under DATA/books, the council on offer from DATA/public)."""
    service = ReadersService(config.data_dir, config.data_dir / "public", [m.code for m in config.markets.markets],
                             default_calendar(), as_time(config.roster.deadline), clock, rng=rng, limits=limits)
    return create_readers_app(service, secure_cookie=secure_cookie)

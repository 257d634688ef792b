"""The read-only API (FastAPI): open data at the root, JSON views, an NDJSON stream of the book.

Routes:
  ``/``                         the league page (league/api/page/)
  ``/api/league``               the league table by horizon (30/10 rule, sessions, intervals)
  ``/api/grid``                 seat x market x horizon cells
  ``/api/seats/{seat}``         one seat: table rows, grid cells, model versions
  ``/api/runs/{run_id}``        one run: its run line, answers, other lines, N_eff
  ``/api/sessions/{YYYY-MM-DD}`` one session: runs, markets, per-seat scores, proof links
  ``/api/today``, ``/api/page`` the latest run; everything the page shows
  ``/api/talk``                 the council talk: the newest weeks and the season's F22 and F23
  ``/api/predictions``          the registered predictions: each line's status and data, the scorecard
  ``/api/sources``              who cites what: the season's site x seat citation counts, the newest runs' overlap
  ``/api/lines?from=A&to=B``    book lines A..B as NDJSON (at most MAX_RANGE lines)
  ``/api/lines/{n}``            one line, typed by its kind (its schema in /api/docs)
  ``/api/stream?from=N&kind=K`` book lines from N as NDJSON, following the book as it grows
  ``/api/contest``              the CLI contest: metrics, sealed sweeps, newest rounds and their cards
  ``/api/contest/stream?from=N&kind=K`` the contest's book lines, as the contest's embargo allows
  ``/api/rows/stream?after=ROW_ID`` the scored rows of ``league tail --rows`` (CSV columns + brier) as NDJSON,
                                after a row id, following the book with ``follow=true``
  ``/api/arms/stream?from=N&kind=K`` the published arms' book (arms/arms-book.jsonl): the arms' and the
                                council talk's lines, from N, as NDJSON (following it with ``follow=true``)
  ``/{path}``                   any file of the open-data folder, byte for byte (HTTP ranges honoured)

Nothing here writes: the app only reads the folder and the book. Every refusal is a 4xx with a
JSON body naming what was wrong.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Iterable
from datetime import date
from functools import partial
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query, Request
from fastapi import Path as FastPath
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, Response, StreamingResponse
from fastapi_offline import FastAPIOffline
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.routing import Mount
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from league.api import views
from league.api.armsbook import ARMS_BOOK_KINDS, ArmsBookIndex, published_arms_book
from league.api.caching import VIEW, CachedFiles, CompressExceptStreams, ManifestETags, ViewValidators
from league.api.contest import CONTEST_KINDS, ContestBook, contest_view
from league.api.embargo import embargoed_file
from league.api.errors import ApiError, BadRequest, NotFound, RangeNotSatisfiable, error_body, shown, shown_all
from league.api.paths import DataPaths
from league.api.prerender import render_index
from league.api.rows import COLUMNS, COLUMNS_HEADER, RowSelect, resume_point, rows_data
from league.api.schemas import LineView, line_view
from league.api.viewcache import ViewCache
from league.clock import Clock, SystemClock
from league.ops import metrics

PAGE_DIR = Path(__file__).resolve().parent / "page"
PAGE_FILES = {"app.js": "text/javascript", "style.css": "text/css", "index.html": "text/html"}
MAX_RANGE = 10_000
STREAM_BATCH = 1_000
POLL_S = 0.1
KEEPALIVE_S = 15.0
NDJSON = "application/x-ndjson"
MEDIA_TYPES = {".jsonl": NDJSON, ".md": "text/markdown; charset=utf-8", ".csv": "text/csv; charset=utf-8",
               ".txt": "text/plain; charset=utf-8", ".py": "text/plain; charset=utf-8",
               ".ots": "application/octet-stream", ".tsr": "application/timestamp-reply"}


def create_app(data_dir: Path, *, poll_s: float = POLL_S, db_url: str | None = None,
               clock: Clock | None = None, accel_redirect: str | None = None, view_cache: bool = True) -> FastAPI:
    """Build the app over ``data_dir`` (checked now, so a wrong folder fails at start-up). The book's
    index starts from the league's database index when there is one (``db_url``, else the league's own;
    ``""``: read the whole book), so the start does not grow with the book (league.api.dbseed). ``clock``
    dates the JSON views' ``Last-Modified``; ``accel_redirect`` (behind nginx) hands the sending of open-data
    files to nginx's internal location of that prefix (league.api.caching); ``view_cache`` keeps each JSON view's
    encoded answer while the files it read are unchanged (league.api.viewcache; off: every request recomputes)."""
    store = views.Store(DataPaths.resolve(data_dir), db_url=db_url)
    # the docs page's Swagger UI files from the installed package (fastapi-offline), never from a CDN: a reader of a
    # league that asks to trust no operator is not sent to third parties, and the page works offline
    app = FastAPIOffline(title="Forecasting league", docs_url="/api/docs", redoc_url=None,
                         openapi_url="/api/openapi.json", static_url="/api/docs-static")
    app.state.store = store
    _handlers(app)
    _ops_routes(app, store)
    clock = clock or SystemClock()
    cache = ViewCache(clock, enabled=view_cache)
    app.state.view_cache = cache
    _json_routes(app, store, cache)
    _book_routes(app, store, poll_s)
    _contest_routes(app, store, poll_s)
    _arms_routes(app, store, poll_s)
    _rows_routes(app, store, poll_s)
    _file_routes(app, store, accel_redirect)
    _caching(app, clock)
    return app


def _caching(app: FastAPI, clock: Clock) -> None:
    """Validators and 304s on the JSON views and the page, then gzip around everything but the streams (the
    files' validators and Cache-Control are set where they are served: :func:`_file_routes`)."""
    app.add_middleware(ViewValidators, clock=clock)
    app.add_middleware(CompressExceptStreams)


def mount_beside(app: FastAPI, prefix: str, sub: ASGIApp) -> None:
    """Mount ``sub`` under ``prefix`` ahead of the open-data catch-all (``/{path}`` answers every GET, so a
    mount appended after it would never see a GET: ``GET /readers/state`` was a 404 "no file" answer)."""
    app.router.routes.insert(0, Mount(prefix, app=sub))


def _handlers(app: FastAPI) -> None:
    """Every refusal, whoever raises it, answered by :func:`league.api.errors.error_body` (capped fields):
    the API's own errors, FastAPI's validation errors (pydantic's carry the whole ``input``: never sent)
    and Starlette's HTTP errors (405, a route not found)."""

    @app.exception_handler(ApiError)
    async def api_error(_: Request, exc: ApiError) -> JSONResponse:
        return JSONResponse(error_body(exc.message, exc.fix), status_code=exc.status)

    @app.exception_handler(RequestValidationError)
    async def bad_query(_: Request, exc: RequestValidationError) -> JSONResponse:
        problems = "; ".join(f"{'.'.join(shown(p) if i > 1 else str(p) for i, p in enumerate(e['loc']))}: {e['msg']}"
                             for e in exc.errors()[:3])
        return JSONResponse(error_body(f"bad request: {problems}"), status_code=400)

    @app.exception_handler(StarletteHTTPException)
    async def http_error(_: Request, exc: StarletteHTTPException) -> JSONResponse:
        return JSONResponse(error_body(exc.detail), status_code=exc.status_code, headers=exc.headers)


def _json_routes(app: FastAPI, store: views.Store, cache: ViewCache) -> None:
    """The JSON views, each answered from ``cache`` while the files it read are unchanged (league.api.viewcache);
    a view is computed in a worker thread, a kept answer is sent from the event loop."""

    async def answer(key: tuple[str, ...], view: Callable[[views.Store], object]) -> Response:
        found = await cache.get(key, lambda reads: view(store.recording(reads)))
        return Response(found.body, media_type="application/json", headers={"ETag": found.etag})

    @app.get("/api/league", response_model=dict[str, object])
    async def league() -> Response:
        return await answer(("league",), views.league_table)

    @app.get("/api/grid", response_model=dict[str, object])
    async def grid() -> Response:
        return await answer(("grid",), views.grid)

    @app.get("/api/seats/{seat}", response_model=dict[str, object])
    async def seat(seat: str) -> Response:
        return await answer(("seat", seat), partial(views.seat, name=seat))

    @app.get("/api/runs/{run_id}", response_model=dict[str, object])
    async def run(run_id: str) -> Response:
        return await answer(("run", run_id), partial(views.run, run_id=run_id))

    @app.get("/api/sessions/{day}", response_model=dict[str, object])
    async def session(day: str) -> Response:
        try:
            date.fromisoformat(day)
        except ValueError:
            raise BadRequest(f"{shown(day)} is not a date",
                             fix="use YYYY-MM-DD, e.g. /api/sessions/2026-11-27") from None
        return await answer(("session", day), partial(views.session, day=day))

    @app.get("/api/today", response_model=dict[str, object])
    async def today() -> Response:
        return await answer(("today",), views.today)

    @app.get("/api/page", response_model=dict[str, object])
    async def page() -> Response:
        return await answer(("page",), views.page)

    @app.get("/api/talk", response_model=dict[str, object])
    async def talk() -> Response:
        return await answer(("talk",), views.talk)

    @app.get("/api/predictions", response_model=dict[str, object])
    async def predictions() -> Response:
        return await answer(("predictions",), views.predictions)

    @app.get("/api/sources", response_model=dict[str, object])
    async def sources() -> Response:
        return await answer(("sources",), views.sources)


def _check_kinds(store: views.Store, kinds: list[str]) -> frozenset[str]:
    unknown = sorted(set(kinds) - store.book.known_kinds())
    if unknown:
        raise BadRequest(f"unknown kind {shown_all(unknown)}", fix=_one_of(store.book.known_kinds()))
    return frozenset(kinds)


def _one_of(kinds: Iterable[str]) -> str:
    """The known kinds, as many as an error's fix holds (the book's own kinds: not a client's input)."""
    return "use one of " + ", ".join(sorted(kinds))


def _check_start(start: int, lines: int) -> None:
    if start > lines + 1:
        raise RangeNotSatisfiable(f"from={shown(start)} is past the end: the book has {lines} lines",
                                  fix=f"ask from at most {lines + 1} (the next line to be sealed)")


def _book_routes(app: FastAPI, store: views.Store, poll_s: float) -> None:
    @app.get("/api/lines")
    def lines(start: Annotated[int, Query(alias="from", ge=1)] = 1,
              to: Annotated[int | None, Query(ge=1)] = None,
              kind: Annotated[list[str] | None, Query()] = None) -> Response:
        total = store.book.refresh()
        stop = total if to is None else to
        if to is not None and stop < start:
            raise BadRequest(f"to={shown(stop)} is before from={shown(start)}", fix="ask from <= to")
        if stop - start + 1 > MAX_RANGE:
            raise BadRequest(f"range {shown(start)}..{shown(stop)} is more than {MAX_RANGE} lines, the most one "
                             "request gets", fix="ask in pages, or use /api/stream")
        _check_start(start, total)
        if stop > total:
            raise RangeNotSatisfiable(f"to={shown(stop)} is past the end: the book has {total} lines")
        kinds = _check_kinds(store, kind or [])
        body = _select(store, start, stop, kinds)
        return Response(b"".join(body), media_type=NDJSON)

    @app.get("/api/lines/{n}", response_model=LineView, response_model_exclude_unset=True)
    def line(n: Annotated[int, FastPath(ge=1)]) -> JSONResponse:
        """One sealed line, typed by its kind (redacted while its session is embargoed)."""
        total = store.book.refresh()
        if n > total:
            raise NotFound(f"no line {shown(n)}: the book has {total} lines", fix=f"ask for a line from 1 to {total}")
        store.embargo.refresh()
        raw = store.embargo.public_raw(store.book.raw_lines(n, n)[0], store.book.kind(n))
        return JSONResponse(line_view(raw))

    @app.get("/api/stream")
    def stream(request: Request, start: Annotated[int, Query(alias="from", ge=1)] = 1,
               kind: Annotated[list[str] | None, Query()] = None, follow: bool = False) -> StreamingResponse:
        """NDJSON from line ``from``; ends at the last line unless ``follow=true`` keeps it open (a
        client that forgot the flag gets an answer that ends, not a connection held forever)."""
        _check_start(start, store.book.refresh())
        kinds = _check_kinds(store, kind or [])
        return StreamingResponse(_follow(store, request, start, kinds, follow, poll_s), media_type=NDJSON,
                                 headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _select(store: views.Store, first: int, last: int, kinds: frozenset[str]) -> list[bytes]:
    """Lines ``first..last`` of the wanted kinds, as the embargo allows them to be seen now."""
    raws = store.book.raw_lines(first, last)
    store.embargo.refresh()
    return [store.embargo.public_raw(raw, store.book.kind(n)) + b"\n" for n, raw in enumerate(raws, first)
            if not kinds or store.book.kind(n) in kinds]


async def _follow(store: views.Store, request: Request, start: int, kinds: frozenset[str], follow: bool,
                  poll_s: float) -> AsyncIterator[bytes]:
    """The council book's lines from ``start`` on, as the embargo lets them be seen."""
    async for chunk in _stream(store.book.refresh, partial(_select, store, kinds=kinds), request, start, follow,
                               poll_s):
        yield chunk


async def _stream(refresh: Callable[[], int], select: Callable[[int, int], list[bytes]], request: Request,
                  start: int, follow: bool, poll_s: float) -> AsyncIterator[bytes]:
    """Lines from ``start`` on; then, when following, each new line as it is sealed (polling the file).

    ``refresh`` says how many lines may be shown now, ``select(first, last)`` gives them with their LF. File
    reads run in a worker thread: a client catching up on 100k lines must not stall every other request
    served by the event loop. A blank line is sent after KEEPALIVE_S of silence so proxies keep the
    connection and a gone client is noticed; NDJSON readers skip blank lines.
    """
    n, idle = start, 0.0
    while True:
        total = await asyncio.to_thread(refresh)
        if n <= total:
            stop = min(total, n + STREAM_BATCH - 1)
            chunk = await asyncio.to_thread(select, n, stop)
            n, idle = stop + 1, 0.0
            if chunk:
                yield b"".join(chunk)
            continue
        if not follow or await request.is_disconnected():
            return
        await asyncio.sleep(poll_s)
        idle += poll_s
        if idle >= KEEPALIVE_S:
            idle = 0.0
            yield b"\n"


def _contest_routes(app: FastAPI, store: views.Store, poll_s: float) -> None:
    book = ContestBook(store.paths.contest_book or store.paths.public / "contest" / "contest-book.jsonl")

    @app.get("/api/contest")
    def contest() -> dict[str, object]:
        return contest_view(store.paths.public)

    @app.get("/api/contest/stream")
    def contest_stream(request: Request, start: Annotated[int, Query(alias="from", ge=1)] = 1,
                       kind: Annotated[list[str] | None, Query()] = None,
                       follow: bool = False) -> StreamingResponse:
        unknown = sorted(set(kind or []) - CONTEST_KINDS)
        if unknown:
            raise BadRequest(f"unknown kind {shown_all(unknown)}", fix=_one_of(CONTEST_KINDS))
        _check_start(start, book.refresh())
        return StreamingResponse(_follow_contest(book, request, start, frozenset(kind or []), follow, poll_s),
                                 media_type=NDJSON, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _follow_contest(book: ContestBook, request: Request, start: int, kinds: frozenset[str], follow: bool,
                          poll_s: float) -> AsyncIterator[bytes]:
    """The contest book's released lines from ``start``; then, when following, each one as it is released."""

    def select(first: int, last: int) -> list[bytes]:
        return [raw + b"\n" for i, raw in enumerate(book.raw_lines(first, last), first)
                if not kinds or book.kind(i) in kinds]

    async for chunk in _stream(book.refresh, select, request, start, follow, poll_s):
        yield chunk


def _arms_routes(app: FastAPI, store: views.Store, poll_s: float) -> None:
    book = ArmsBookIndex(published_arms_book(store.paths.public))

    @app.get("/api/arms/stream")
    def arms_stream(request: Request, start: Annotated[int, Query(alias="from", ge=1)] = 1,
                    kind: Annotated[list[str] | None, Query()] = None, follow: bool = False) -> StreamingResponse:
        """The published arms' book from line ``from`` (the arms' and the council talk's kinds), as NDJSON."""
        unknown = sorted(set(kind or []) - ARMS_BOOK_KINDS)
        if unknown:
            raise BadRequest(f"unknown kind {shown_all(unknown)}", fix=_one_of(ARMS_BOOK_KINDS))
        _check_start(start, book.refresh())
        return StreamingResponse(_follow_arms(store, book, request, start, frozenset(kind or []), follow, poll_s),
                                 media_type=NDJSON, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


async def _follow_arms(store: views.Store, book: ArmsBookIndex, request: Request, start: int, kinds: frozenset[str],
                       follow: bool, poll_s: float) -> AsyncIterator[bytes]:
    """The arms' book's lines from ``start`` (as the served file shows them: the embargo's redaction applied)."""

    def select(first: int, last: int) -> list[bytes]:
        store.embargo.refresh()
        return [store.embargo.public_raw(raw) + b"\n" for i, raw in enumerate(book.raw_lines(first, last), first)
                if not kinds or book.kind(i) in kinds]

    async for chunk in _stream(book.refresh, select, request, start, follow, poll_s):
        yield chunk


def _rows_routes(app: FastAPI, store: views.Store, poll_s: float) -> None:
    @app.get("/api/rows/stream")
    def rows_stream(request: Request, after: Annotated[str | None, Query(max_length=40)] = None,
                    follow: bool = False) -> StreamingResponse:
        """The scored rows after row ``after`` (``<score line>.<index>``) as NDJSON, each with the CSV's columns,
        ``row_id`` and ``brier`` (league.api.rows); ``follow=true`` keeps it open for the rows of new score
        lines. The column order is in the ``X-League-Row-Columns`` header."""
        data = rows_data(store.paths.book)
        start, last = resume_point(after)
        _check_start(start, store.book.refresh())
        select = RowSelect(data, store.book.kind, last)
        return StreamingResponse(_stream(store.book.refresh, select, request, start, follow, poll_s),
                                 media_type=NDJSON, headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no",
                                                             COLUMNS_HEADER: COLUMNS})


class CountRequests:
    """Counts each answered request by its route template and status (league.ops.metrics), as plain ASGI: Starlette's
    ``BaseHTTPMiddleware`` (``@app.middleware``) ran every answer through a task group and a memory stream, the
    larger part of a small file's cost."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        status = [0]

        async def counted(message: Message) -> None:
            if message["type"] == "http.response.start":
                status[0] = message["status"]
            await send(message)

        await self.app(scope, receive, counted)
        route = scope.get("route")  # set by the router on this same scope
        metrics.api_request(getattr(route, "path", "unmatched"), status[0])


def _ops_routes(app: FastAPI, store: views.Store) -> None:
    """``/healthz`` for a load balancer or nginx, ``/metrics`` for Prometheus; requests are counted by
    route template (never by raw path, so a scan of random paths cannot grow the series)."""

    app.add_middleware(CountRequests)

    @app.get("/healthz", include_in_schema=False)
    def healthz() -> JSONResponse:
        try:
            lines = store.book.refresh()
        except OSError as exc:
            return JSONResponse({"status": "unavailable", "error": f"book unreadable: {exc}"}, status_code=503)
        return JSONResponse({"status": "ok", "book_lines": lines})

    @app.get("/metrics", include_in_schema=False)
    def metrics_text() -> Response:
        data, ctype = metrics.exposition()
        return Response(data, media_type=ctype)


def _file_routes(app: FastAPI, store: views.Store, accel_redirect: str | None = None) -> None:
    """The page, its files and the open-data folder; files through :class:`league.api.caching.CachedFiles`
    (Starlette's conditional requests and ranges, the manifest's SHA-256 as ETag, Cache-Control by kind)."""
    public = CachedFiles(store.paths.public, media_types=MEDIA_TYPES, etags=ManifestETags(store.paths.public),
                         accel_redirect=accel_redirect)
    page_files = CachedFiles(PAGE_DIR, media_types={".js": "text/javascript", ".css": "text/css",
                                                    ".html": "text/html"}, cache_control=VIEW)

    @app.get("/", include_in_schema=False)
    def index(request: Request) -> HTMLResponse:
        html = render_index(PAGE_DIR / "index.html", store)
        if not any(isinstance(r, Mount) and r.path == "/readers" for r in request.app.router.routes):
            # no readers' service here: the page says so without asking readers/state (a 404 by design)
            html = html.replace('<section id="readers">', '<section id="readers" data-readers-service="off">', 1)
        return HTMLResponse(html)

    @app.get("/page/{name}", include_in_schema=False)
    def page_asset(name: str, request: Request) -> Response:
        if name not in PAGE_FILES:
            raise NotFound(f"no page file {shown(name)}")
        return page_files.serve(PAGE_DIR / name, request.scope)

    @app.api_route("/{path:path}", methods=["GET", "HEAD"], include_in_schema=False)
    def open_data(path: str, request: Request) -> Response:
        target = store.paths.public_file(path)
        store.book.refresh()
        embargoed = embargoed_file(store.embargo, target)
        if embargoed is not None:
            return public.body_response(embargoed, request.scope, media_type=MEDIA_TYPES.get(target.suffix))
        return public.serve(target, request.scope)

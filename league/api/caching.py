"""HTTP caching of what ``league serve`` answers: validators, Cache-Control by file kind, 304s and gzip.

The conditional-request rules are Starlette's, not the league's: files go through
:class:`starlette.staticfiles.StaticFiles` (its ``is_not_modified``: ``If-None-Match`` first, else
``If-Modified-Since``; its ``NotModifiedResponse``) and :class:`starlette.responses.FileResponse` (ranges,
``If-Range``); compression is :class:`starlette.middleware.gzip.GZipMiddleware`. What is the league's own:

* the ETag of a published file is the SHA-256 the release manifest states for it (a reader holding the
  manifest can match a cached copy without downloading it again), used only while the file on disk is the
  one the manifest describes (same size, not modified after the manifest); other files keep Starlette's;
* ``Cache-Control`` by file kind (:func:`file_cache_control`): growing books are revalidated on every use,
  files whose bytes are committed by a name or a seal are immutable, the rest may be reused for minutes;
* the JSON views and the page get an ETag from their body's SHA-256 and ``no-cache``
  (:class:`ViewValidators`), so a reader polling an unchanged view receives a 304 and no body;
* the ETag of a compressed answer is made weak (:class:`WeakETagOnCompression`), as nginx does: a gzip body
  is not byte-equal to the file, so ``If-Range`` with it must not resume the uncompressed bytes;
* the NDJSON streams are never compressed (:class:`CompressExceptStreams`): a line must reach a follower the
  moment it is sealed, and a gzip stream would tie it to the compressor's buffer.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import OrderedDict
from collections.abc import Mapping
from datetime import datetime
from email.utils import format_datetime
from pathlib import Path

from starlette.datastructures import Headers, MutableHeaders
from starlette.middleware.gzip import DEFAULT_EXCLUDED_CONTENT_TYPES, GZipMiddleware
from starlette.responses import FileResponse, Response
from starlette.staticfiles import NotModifiedResponse, StaticFiles
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from league.api.viewcache import etag_of
from league.clock import Clock
from league.jsonvalue import Json, items, number, obj, text

MANIFEST = "release-manifest.json"

#: Growing files (the books, the ask chains): any copy may be kept, but is checked with the server before each
#: use (a 304 costs no body); a line sealed a second ago is never hidden behind a cached copy.
REVALIDATE = "public, no-cache"
#: Files whose bytes can never change under their name: named by their SHA-256, or dated and sealed/stamped.
IMMUTABLE = "public, max-age=31536000, immutable"
#: Files rewritten by the nightly publish (tables, statistics, CSVs, documents): reused for five minutes, then
#: revalidated; a reader sees a new publish at most five minutes late.
NIGHTLY = "public, max-age=300, must-revalidate"
#: The page, its script and the JSON views: always revalidated (the ETag makes an unchanged answer a 304).
VIEW = "no-cache"

#: Types never compressed: Starlette's list (images, archives) plus the stamps and tokens of proof/ (binary).
UNCOMPRESSED_TYPES = (*DEFAULT_EXCLUDED_CONTENT_TYPES, "application/octet-stream", "application/timestamp-reply",
                      "application/pkix-cert", "application/x-x509-ca-cert")
#: gzip level: 5 costs a fraction of 9's CPU on MB-sized CSVs for a few percent larger bodies.
GZIP_LEVEL = 5
#: Bodies smaller than this go uncompressed (headers would eat the gain).
GZIP_MINIMUM = 1024


def is_stream(path: str) -> bool:
    """The API's streaming routes (NDJSON following a book: ``/api/stream``, ``/api/contest/stream``,
    ``/api/arms/stream``, ``/api/rows/stream``, any ``/api/.../stream``): never compressed, never a validator."""
    return path.startswith("/api/") and path.endswith("/stream")

_SHA256_NAME = re.compile(r"(^|[^0-9a-f])[0-9a-f]{64}([^0-9a-f]|$)")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}")
_STAMPED_LIST = re.compile(r"^\d{6}Z\.txt$")
#: Names handed to nginx by X-Accel-Redirect as they are (published names are all of this shape; others are sent
#: by league serve itself).
_SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._/-]*")


def file_cache_control(name: str) -> str:
    """The ``Cache-Control`` of the open-data file ``name`` (a path relative to the folder).

    Immutable: files named by their SHA-256 (ask texts, replies, registries, inputs), the morning snapshots of a
    dated session (their hash is sealed in the run line), and a day's stamped lists and RFC 3161 tokens under
    ``proof/DATE/`` (what was stamped cannot change). Not immutable under ``proof/``: ``.ots`` proofs (upgraded in
    place once Bitcoin confirms), status files and the day's summaries (regenerated). Growing ``.jsonl`` files are
    revalidated on every use; everything else is the nightly publish's.
    """
    base = name.rsplit("/", 1)[-1]
    if name.endswith(".jsonl"):
        return REVALIDATE
    if _SHA256_NAME.search(base):
        return IMMUTABLE
    dated = _DATE.search(name) is not None
    if dated and name.startswith("proof/") and (_STAMPED_LIST.match(base) or base.endswith(".tsr")):
        return IMMUTABLE
    if dated and (name.startswith("snapshots/") or name.startswith("arms/snapshots/")) and base.endswith(".json"):
        return IMMUTABLE
    return NIGHTLY


class ManifestETags:
    """The release manifest's SHA-256 of each published file, as strong ETags; re-read when the manifest changes.

    A file's ETag comes from the manifest only while the file is the one the manifest describes: the same size,
    and not modified after the manifest was written (the publisher writes the manifest after every file it
    lists). A file changed by hand, or a book grown since, falls back to Starlette's ETag (mtime and size).
    """

    def __init__(self, folder: Path) -> None:
        self.path = folder / MANIFEST
        self._key: tuple[int, int] | None = None
        self._files: dict[str, tuple[int, str]] = {}
        self._lock = threading.Lock()

    def etag(self, name: str, st: os.stat_result) -> str | None:
        """``"<sha256>"`` for ``name`` when the manifest vouches for the file as it is on disk, else None."""
        try:
            mst = self.path.stat()
        except OSError:
            return None
        key = (mst.st_size, mst.st_mtime_ns)
        with self._lock:
            if key != self._key:
                self._files, self._key = _manifest_files(self.path), key
            entry = self._files.get(name)
        if entry is None or entry[0] != st.st_size or st.st_mtime_ns > mst.st_mtime_ns:
            return None
        return f'"{entry[1]}"'


def _manifest_files(path: Path) -> dict[str, tuple[int, str]]:
    """name -> (bytes, sha256) of a release manifest; an unreadable or malformed one vouches for nothing."""
    try:
        doc: Json = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return {}
    out: dict[str, tuple[int, str]] = {}
    for entry in items(obj(doc if isinstance(doc, dict) else None).get("files")):
        fields = obj(entry if isinstance(entry, dict) else None)
        name, sha, size = text(fields.get("name")), text(fields.get("sha256")), number(fields.get("bytes"))
        if name and re.fullmatch(r"[0-9a-f]{64}", sha) and isinstance(size, int):
            out[name] = (size, sha)
    return out


#: Files up to this size are read whole by the route (see CachedFiles.file_response); larger ones are streamed.
SMALL_FILE = 256 * 1024


class _FileResponse(FileResponse):
    """Starlette's FileResponse reading 256 KiB at a time (its default, 64 KiB, costs one worker-thread hop per
    64 KiB: a 4 MB book was 66 hops per download)."""

    chunk_size = 256 * 1024


class CachedFiles(StaticFiles):
    """Starlette's static-file responder over one folder, with the league's ETag and ``Cache-Control``.

    The routes keep their own path checks and embargo (league.api.paths, league.api.embargo) and hand the file
    they settled on to :meth:`file_response`; Starlette then answers 304 or the file (ranges honoured). The routes
    are sync (run in a worker thread), so a small file is read there, not on the event loop.
    """

    def __init__(self, folder: Path, *, media_types: Mapping[str, str], cache_control: str | None = None,
                 etags: ManifestETags | None = None, accel_redirect: str | None = None) -> None:
        """``accel_redirect``: behind nginx, the internal location (e.g. ``/league-files/``) that aliases ``folder``:
        a file is then answered with its headers and ``X-Accel-Redirect``, and nginx sends the bytes (sendfile)."""
        super().__init__(directory=folder, check_dir=False)
        self.folder = folder
        self.accel_redirect = accel_redirect
        self.media_types = media_types
        self.cache_control = cache_control
        self.etags = etags

    def file_response(self, full_path: str | os.PathLike[str], stat_result: os.stat_result, scope: Scope,
                      status_code: int = 200) -> Response:
        path = Path(full_path)
        try:
            name = path.relative_to(self.folder).as_posix()
        except ValueError:
            name = path.name
        headers = {"Cache-Control": self.cache_control or file_cache_control(name)}
        etag = self.etags.etag(name, stat_result) if self.etags is not None else None
        if etag is not None:
            headers["ETag"] = etag
        response = _FileResponse(path, status_code=status_code, headers=headers, stat_result=stat_result,
                                media_type=self.media_types.get(path.suffix))
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        if self.accel_redirect is not None and status_code == 200 and _SAFE_NAME.fullmatch(name):
            return Response(headers={**headers, "Last-Modified": response.headers["last-modified"],
                                     "X-Accel-Redirect": self.accel_redirect + name},
                            media_type=response.media_type)
        if (status_code == 200 and stat_result.st_size <= SMALL_FILE and scope.get("method") == "GET"
                and "range" not in Headers(scope=scope)):
            # read here, in the route's worker thread: FileResponse would open, read and close the file in three
            # more thread hops, the larger part of a small file's cost; a file that changed since its stat is
            # left to FileResponse
            data = path.read_bytes()
            if len(data) == stat_result.st_size:
                return Response(data, headers=response.headers)
        return response

    def serve(self, path: Path, scope: Scope) -> Response:
        """The answer for the file ``path`` (already checked by the caller) to the request ``scope``."""
        return self.file_response(path, path.stat(), scope)

    def body_response(self, body: bytes, scope: Scope, *, media_type: str | None) -> Response:
        """A body made for this request (a file under embargo, redacted): its SHA-256 as ETag, always revalidated
        (the redaction lifts when the session's score is sealed, without the file changing)."""
        headers = {"Cache-Control": VIEW, "ETag": etag_of(body)}
        response = Response(body, headers=headers, media_type=media_type)
        if self.is_not_modified(response.headers, Headers(scope=scope)):
            return NotModifiedResponse(response.headers)
        return response


class ViewValidators:
    """ETag (the body's SHA-256), ``Last-Modified`` and ``no-cache`` on the JSON views and the page; 304 when the
    request's validators match (Starlette's rule, :meth:`StaticFiles.is_not_modified`).

    Applies to a 200 answer to GET or HEAD under ``/api/`` or at ``/`` without a ``Cache-Control`` of its own
    (files and streams set theirs) sent in one message (a view; a body sent in parts is a stream and passes
    untouched). A view that carries its ETag already (the body's SHA-256, kept with the encoded answer by
    league.api.viewcache) keeps it: the body is not hashed again.
    ``Last-Modified`` is when this process first sent the current body for that URL (read from the league's Clock;
    a changed body gets a new time), so ``If-Modified-Since`` works for clients that keep only dates; the ETag is
    the exact validator (several worker processes each keep their own times; a body's ETag is the same in all of
    them, and a change within the second of the date it replaces is seen by the ETag only).
    """

    def __init__(self, app: ASGIApp, clock: Clock, max_urls: int = 4096) -> None:
        self.app = app
        self.clock = clock
        self.max_urls = max_urls
        self._seen: OrderedDict[str, tuple[str, datetime]] = OrderedDict()
        self._lock = threading.Lock()
        self._checker = StaticFiles(directory=None, check_dir=False)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if (scope["type"] != "http" or scope["method"] not in ("GET", "HEAD") or is_stream(path)
                or not (path == "/" or path.startswith("/api/"))):
            await self.app(scope, receive, send)
            return
        start: list[Message] = []
        passing = False

        async def hold(message: Message) -> None:
            nonlocal passing
            if passing:
                await send(message)
            elif message["type"] == "http.response.start":
                headers = Headers(raw=message.get("headers", []))
                if message["status"] != 200 or "cache-control" in headers:
                    passing = True
                    await send(message)
                else:
                    start.append(message)
            elif message["type"] == "http.response.body" and start and not message.get("more_body", False):
                await self._answer(scope, receive, send, start[0], message.get("body", b""))
            else:  # a body sent in parts (a stream): never held, no validator
                passing = True
                for held in start:
                    await send(held)
                await send(message)

        await self.app(scope, receive, hold)

    async def _answer(self, scope: Scope, receive: Receive, send: Send, start: Message, body: bytes) -> None:
        headers = MutableHeaders(raw=start["headers"])
        etag = headers.get("etag") or etag_of(body)
        headers["ETag"] = etag
        headers["Cache-Control"] = VIEW
        headers["Last-Modified"] = format_datetime(self._first_sent(_url(scope), etag), usegmt=True)
        if self._checker.is_not_modified(headers, Headers(scope=scope)):
            await NotModifiedResponse(headers)(scope, receive, send)
            return
        if "content-length" in headers:
            headers["Content-Length"] = str(len(body))
        await send(start)
        await send({"type": "http.response.body", "body": body, "more_body": False})

    def _first_sent(self, url: str, etag: str) -> datetime:
        """When this process first sent ``etag`` for ``url`` since the body last changed (whole seconds)."""
        with self._lock:
            seen = self._seen.get(url)
            if seen is None or seen[0] != etag:
                seen = (etag, self.clock.now().replace(microsecond=0))
                self._seen[url] = seen
                while len(self._seen) > self.max_urls:
                    self._seen.popitem(last=False)
            self._seen.move_to_end(url)
            return seen[1]


def _url(scope: Scope) -> str:
    query = scope.get("query_string", b"")
    return str(scope.get("path", "")) + ("?" + query.decode("latin-1") if query else "")


class WeakETagOnCompression:
    """Marks the ETag of a compressed answer weak (``W/"..."``): a gzip body is another byte sequence than the
    file, so the ETag still revalidates (``If-None-Match`` compares weakly) but never licenses a range."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def weaken(message: Message) -> None:
            if message["type"] == "http.response.start":
                headers = MutableHeaders(raw=message.setdefault("headers", []))
                etag = headers.get("etag")
                if etag and "content-encoding" in headers and not etag.startswith("W/"):
                    headers["ETag"] = "W/" + etag
            await send(message)

        await self.app(scope, receive, weaken)


class CompressExceptStreams:
    """gzip (Starlette's GZipMiddleware) for text answers when the client accepts it; the streams go around it.

    Ranges stay uncompressed (GZipMiddleware leaves a 206 alone), so ``Range`` reads the file's own bytes."""

    def __init__(self, app: ASGIApp, *, level: int = GZIP_LEVEL, minimum_size: int = GZIP_MINIMUM) -> None:
        self.app = app
        self.compressed = WeakETagOnCompression(GZipMiddleware(app, minimum_size=minimum_size, compresslevel=level,
                                                               exclude_content_types=UNCOMPRESSED_TYPES))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and not is_stream(str(scope.get("path", ""))):
            await self.compressed(scope, receive, send)
            return
        await self.app(scope, receive, send)


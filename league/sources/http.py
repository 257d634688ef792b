"""The real fetcher: one bounded HTTP GET per cited link, with httpx.

A link a model cites is untrusted input fetched from the league's host, so: http(s) only, no credentials in the
URL, every host of the redirect chain (at most 5 hops) resolved and refused unless all its addresses are public
(no loopback, private, link-local or reserved address: a cited ``http://169.254.169.254/`` is a record of a
refusal, not a request), a timeout, and at most ``max_bytes`` of body read (the record then says so, without a
hash), all within one deadline (``timeout_s`` from the request to the last byte: a page that drips its body
slower than that is cut, not waited on). The address checked is the address connected to: the connection is
opened by a network backend that resolves the host, refuses a non-public address and connects to the address it
checked, so a host that resolves to a public address for the check and to an inner one for the request (DNS
rebinding) reaches nothing. The declared publication time is read from the page's own metadata
(``article:published_time``, ``og:published_time``, ``datePublished``, ``<time datetime>``), never guessed.
"""

from __future__ import annotations

import hashlib
import ipaddress
import re
import socket
import time
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import httpcore
import httpx

from league.clock import Clock, iso_seconds
from league.sources.interface import FetchRecord

MAX_REDIRECTS = 5
USER_AGENT = "forecast-league fetch-record (https://github.com/forecast-league; a cited link, fetched once)"
Resolve = Callable[[str, int], Sequence[str]]
META_KEYS = ("article:published_time", "og:published_time", "datepublished", "date", "pubdate",
             "publish-date", "dc.date.issued")


def resolve(host: str, port: int) -> list[str]:
    return sorted({str(info[4][0]) for info in socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)})


def inner_addresses(addresses: Iterable[str]) -> list[str]:
    """The addresses that are not global (loopback, private, link-local, reserved, shared...)."""
    return [a for a in addresses if not ipaddress.ip_address(a.split("%")[0]).is_global]


class _CheckedBackend(httpcore.SyncBackend):
    """Opens every connection to an address it resolved and checked itself (the request never resolves again)."""

    def __init__(self, resolver: Resolve, allow_private: bool) -> None:
        self.resolver = resolver
        self.allow_private = allow_private

    def connect_tcp(self, host: str, port: int, timeout: float | None = None, local_address: str | None = None,
                    socket_options: Iterable[httpcore.SOCKET_OPTION] | None = None) -> httpcore.NetworkStream:
        try:
            addresses = list(self.resolver(host, port))
        except (OSError, ValueError) as exc:
            raise httpcore.ConnectError(f"the host does not resolve: {str(exc)[:200]}") from exc
        inner = inner_addresses(addresses)
        if not addresses or (inner and not self.allow_private):
            raise httpcore.ConnectError(f"refused at connect: {host} resolves to {inner[0] if inner else 'nothing'}")
        return super().connect_tcp(addresses[0], port, timeout, local_address, socket_options)


class _CheckedTransport(httpx.HTTPTransport):
    def __init__(self, resolver: Resolve, allow_private: bool) -> None:
        super().__init__(trust_env=False)
        self._pool = httpcore.ConnectionPool(ssl_context=httpx.create_ssl_context(trust_env=False),
                                             network_backend=_CheckedBackend(resolver, allow_private))


class HttpFetcher:
    """Fetch cited links over HTTP, one record each (see the module docstring)."""

    def __init__(self, clock: Clock, *, timeout_s: float = 10.0, max_bytes: int = 2_000_000,
                 allow_private: bool = False, client: httpx.Client | None = None,
                 resolver: Resolve = resolve) -> None:
        self.clock = clock
        self.max_bytes = max_bytes
        self.timeout_s = timeout_s
        self.allow_private = allow_private
        self.resolver = resolver
        self.client = client or httpx.Client(timeout=timeout_s, follow_redirects=False,
                                             headers={"User-Agent": USER_AGENT}, trust_env=False,
                                             transport=_CheckedTransport(resolver, allow_private))

    def fetch(self, url: str) -> FetchRecord:
        at = iso_seconds(self.clock.now())
        deadline = time.monotonic() + self.timeout_s
        current = url
        for _ in range(MAX_REDIRECTS + 1):
            host = urlsplit(current).hostname or ""
            problem = self._refused(current)
            if problem:
                return FetchRecord(url, host, None, at, None, 0, None, problem)
            try:
                with self.client.stream("GET", current) as resp:
                    if resp.is_redirect and "location" in resp.headers:
                        current = urljoin(current, resp.headers["location"])
                        continue
                    body, cut = _read(resp, self.max_bytes, deadline)
                    if cut == "slow":
                        return FetchRecord(url, host, resp.status_code, at, None, len(body), None,
                                           f"the body took longer than the {self.timeout_s:g} s timeout: cut, "
                                           "not hashed")
                    if cut:
                        return FetchRecord(url, host, resp.status_code, at, None, len(body), None,
                                           f"the body is larger than {self.max_bytes} bytes: not hashed")
                    return FetchRecord(url, host, resp.status_code, at, hashlib.sha256(body).hexdigest(), len(body),
                                       declared_published(body, resp.headers.get("content-type", "")))
            except httpx.HTTPError as exc:
                return FetchRecord(url, host, None, at, None, 0, None, f"{type(exc).__name__}: {str(exc)[:200]}")
        return FetchRecord(url, urlsplit(current).hostname or "", None, at, None, 0, None,
                           f"more than {MAX_REDIRECTS} redirects")

    def _refused(self, url: str) -> str:
        """Why this URL is not fetched ("" when it may be)."""
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            return "refused: not an http(s) URL with a host"
        if parts.username or parts.password:
            return "refused: credentials in the URL"
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
            addresses = self.resolver(parts.hostname, port)
        except (OSError, ValueError) as exc:
            return f"the host does not resolve: {str(exc)[:200]}"
        if not addresses:
            return "the host does not resolve"
        inner = inner_addresses(addresses)
        if inner and not self.allow_private:
            return f"refused: {parts.hostname} resolves to a non-public address ({inner[0]})"
        return ""

    def close(self) -> None:
        self.client.close()


def _read(resp: httpx.Response, cap: int, deadline: float) -> tuple[bytes, str]:
    """The body up to ``cap`` bytes and the deadline: (body, "" | "size" | "slow"). The client's timeout bounds
    each read; a body that keeps dripping within it is cut here, once the whole fetch's deadline passes."""
    chunks, size = [], 0
    for chunk in resp.iter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size > cap:
            return b"".join(chunks)[:cap], "size"
        if time.monotonic() > deadline:
            return b"".join(chunks), "slow"
    return b"".join(chunks), ""


class _Meta(HTMLParser):
    """The first publication time a page declares in its own markup."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found: list[str] = []
        self._ld = False
        self.ld: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k.lower(): (v or "") for k, v in attrs}
        key = (a.get("property") or a.get("name") or a.get("itemprop") or "").lower()
        if tag == "meta" and key in META_KEYS and a.get("content"):
            self.found.append(a["content"])
        elif tag == "time" and a.get("datetime"):
            self.found.append(a["datetime"])
        elif tag == "script" and a.get("type", "").lower() == "application/ld+json":
            self._ld = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "script":
            self._ld = False

    def handle_data(self, data: str) -> None:
        if self._ld:
            self.ld.append(data)


def declared_published(body: bytes, content_type: str) -> str | None:
    """The publication time the page declares (UTC ISO seconds), or None: its meta tags, a ``<time datetime>``,
    or ``datePublished`` of its JSON-LD; the first that reads as a date."""
    if "html" not in content_type.lower() and not body.lstrip()[:15].lower().startswith((b"<!doctype", b"<html")):
        return None
    parser = _Meta()
    try:
        parser.feed(body.decode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - a page that breaks the parser declares nothing we can read
        return None
    for text in parser.ld:
        match = re.search(r'"datePublished"\s*:\s*"([^"]+)"', text)
        if match:
            parser.found.append(match.group(1))
    for value in parser.found:
        when = _time(value)
        if when is not None:
            return when
    return None


def _time(value: str) -> str | None:
    text = value.strip().replace("Z", "+00:00")
    try:
        when = datetime.fromisoformat(text)
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return iso_seconds(when.astimezone(UTC))


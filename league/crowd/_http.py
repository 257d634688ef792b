"""Shared transport helpers: bounded retries on transport errors only, JSON decoding with clear errors."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import TypeVar

import httpx
import structlog

from league.crowd.interface import CrowdError
from league.jsonvalue import Json
from league.retry import bounded

log = structlog.get_logger(__name__)
T = TypeVar("T")
#: A query's parameters as the crowd's readers send them (texts and whole numbers).
Params = Mapping[str, str | int]


class Transient(CrowdError):
    """A transport failure worth retrying (connection refused, timeout); never an HTTP error status."""


def with_retries(call: Callable[[], T], *, attempts: int, wait_s: float) -> T:
    """Run ``call`` at most ``attempts`` times; only :class:`Transient` errors are retried."""
    return bounded(attempts=attempts, wait_s=wait_s, retry_on=lambda exc: isinstance(exc, Transient))(call)


def get_json(client: httpx.Client, url: str, params: Params | None, what: str) -> Json:
    """GET ``url`` and decode JSON; transport errors become Transient, everything else CrowdError."""
    try:
        response = client.get(url, params=params)
    except httpx.TransportError as exc:
        raise Transient(f"{what}: transport error {exc!r}", fix="check the network; retried") from exc
    except httpx.HTTPError as exc:
        raise CrowdError(f"{what}: {exc!r}") from exc
    if response.status_code != 200:
        raise CrowdError(f"{what}: HTTP {response.status_code}: {response.text[:200]!r}")
    try:
        body: Json = response.json()
    except ValueError as exc:
        raise CrowdError(f"{what}: response is not JSON: {response.text[:200]!r}") from exc
    return body


def json_list(value: Json, what: str) -> list[Json]:
    """Decode a field that the API ships as a JSON string holding a list (Gamma's outcomes etc.)."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str):
        raise CrowdError(f"{what} is neither a JSON string nor a list: {value!r}")
    try:
        decoded: Json = json.loads(value)
    except ValueError as exc:
        raise CrowdError(f"{what} is not valid JSON: {value!r}") from exc
    if not isinstance(decoded, list):
        raise CrowdError(f"{what} is not a JSON list: {value!r}")
    return decoded

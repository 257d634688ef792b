"""The sources port: one record (:class:`FetchRecord`), one fetcher protocol, one base exception."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from league.errors import LeagueError
from league.jsonvalue import JsonObject


class SourcesError(LeagueError):
    """A cited link could not be fetched as a record at all (base exception of the sources port)."""


@dataclass(frozen=True)
class FetchRecord:
    """What the league got when it fetched one cited link: always a record, a failure included (``error``).

    ``host`` is the host of the last URL fetched (after redirects), beside the ``label`` the answer gave the
    link (its cited domain): a citation named after one outlet can link to another."""

    url: str
    host: str
    status: int | None
    fetched_at: str
    sha256: str | None
    size: int
    declared_published: str | None
    error: str = ""

    def as_json(self) -> JsonObject:
        return {"url": self.url, "host": self.host, "status": self.status, "fetched_at": self.fetched_at,
                "sha256": self.sha256, "size": self.size, "declared_published": self.declared_published,
                "error": self.error}


class Fetcher(Protocol):
    """Fetches one cited link; never raises for the link's own failure (that is the record's ``error``)."""

    def fetch(self, url: str) -> FetchRecord: ...

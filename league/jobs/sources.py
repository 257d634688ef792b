"""The fetch records of cited links (docs/experiments.md, "Fetch records"), a stage after counted ingest closes.

Each link a counted answer of the session cites (``source_urls`` of its cells) is fetched once by the league
itself, after the answer is sealed (the seat's own egress record shows hosts, not pages), and a ``fetch_record``
line is sealed in the arms' book: the experiments' book, so the council's books never change. A link already
recorded for the session is not fetched again (a restarted stage goes on where it stopped).
"""

from __future__ import annotations

from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor

import structlog

from league import records
from league.arms.lines import FetchRecordLine
from league.counting import counted_runs
from league.jobs.context import League
from league.sources.http import HttpFetcher
from league.sources.interface import FetchRecord

log = structlog.get_logger(__name__)
#: How many links are fetched at once (each mostly waits on the network).
FETCH_THREADS = 8


def cited(answers: Iterable[records.Answer]) -> dict[str, tuple[str, list[str]]]:
    """url -> (the domain the answer named beside it, the seats citing it), over every cell, in order."""
    out: dict[str, tuple[str, list[str]]] = {}
    for a in answers:
        for cells in a.items.values():
            for cell in cells.values():
                urls, domains = cell.get("source_urls"), cell.get("source_domains")
                if not isinstance(urls, list):
                    continue
                names = domains if isinstance(domains, list) else []
                for i, url in enumerate(urls):
                    if not isinstance(url, str) or not url.strip():
                        continue
                    named = names[i] if i < len(names) else ""
                    label = named if isinstance(named, str) else ""
                    got = out.setdefault(url.strip(), (label, []))
                    if a.seat not in got[1]:
                        got[1].append(a.seat)
    return out


def fetch_sources(lg: League, session: str) -> int:
    """Fetch and seal the session's cited links not recorded yet; returns how many records were sealed."""
    settings = lg.config.settings.sources
    if not settings.fetch:
        return 0
    runs = {r.run_id for r in counted_runs(lg.view, session)}
    links = cited(a for a in lg.books.index.answers(runs) if a.status == "answered")
    if not links:
        return 0
    books = lg.arms
    done = {x.url for _, x in books.lines() if isinstance(x, FetchRecordLine) and x.session == session}
    todo = sorted(url for url in links if url not in done)[: settings.max_links]
    if not todo:
        return 0
    fetcher = HttpFetcher(lg.clock, timeout_s=settings.timeout_s, max_bytes=settings.max_bytes,
                          allow_private=settings.allow_private)
    try:
        with ThreadPoolExecutor(min(FETCH_THREADS, len(todo)), thread_name_prefix="fetch-record") as pool:
            fetched: list[FetchRecord] = list(pool.map(fetcher.fetch, todo))
    finally:
        fetcher.close()
    for url, record in zip(todo, fetched, strict=True):  # sealed in the links' order, whatever finished first
        label, seats = links[url]
        books.seal(FetchRecordLine.from_content({**record.as_json(), "session": session, "label": label,
                                                 "cited_by": sorted(seats)}))
    log.info("sources.fetched", session=session, links=len(todo),
             failed=sum(1 for r in fetched if r.error or r.status is None))
    return len(todo)

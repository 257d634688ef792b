"""The league's Prometheus metrics, in one registry of their own (not the library's global one).

One registry per process keeps the exposition to what the league records (plus process figures),
and lets a test read exact values. Names follow Prometheus conventions: ``league_`` prefix, unit
suffixes, ``_total`` on counters.
"""

from __future__ import annotations

from prometheus_client import CollectorRegistry, Counter, Histogram
from prometheus_client.exposition import CONTENT_TYPE_LATEST, generate_latest
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

REGISTRY = CollectorRegistry(auto_describe=True)
ProcessCollector(registry=REGISTRY)
PlatformCollector(registry=REGISTRY)

JOBS = Counter("league_jobs_total", "Day jobs by name and result (done, failed, late, skipped).",
               ["job", "result"], registry=REGISTRY)
JOB_SECONDS = Histogram("league_job_duration_seconds", "Wall time of a day job that ran.", ["job"],
                        buckets=(0.1, 0.5, 1, 5, 15, 60, 300, 900, 3600), registry=REGISTRY)
REPLIES = Counter("league_replies_sealed_total",
                  "Seat replies sealed, by seat and line status (answered, refused_shape, an incident or silence).",
                  ["seat", "status"], registry=REGISTRY)
SEAL_SECONDS = Histogram("league_seal_duration_seconds", "Time to seal one reply line (write and fsync).",
                         buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5), registry=REGISTRY)
SEAL_FAILURES = Counter("league_seal_failures_total", "Replies that could not be sealed (an I/O failure of the book).",
                        registry=REGISTRY)
STAMPS = Counter("league_stamp_outcomes_total", "Stamp attempts by backend kind and outcome (ok, failed).",
                 ["kind", "outcome"], registry=REGISTRY)
BOOK_CHECKS = Counter("league_book_verifications_total",
                      "Full verifications of the council book (nightly or on demand) by outcome (ok, failed).",
                      ["outcome"], registry=REGISTRY)
BOOK_CHECK_SECONDS = Histogram("league_book_verification_duration_seconds", "Wall time of a full book verification.",
                               buckets=(1, 5, 15, 60, 300, 900, 3600), registry=REGISTRY)
API_REQUESTS = Counter("league_api_requests_total", "API requests by route template and status class.",
                       ["route", "status"], registry=REGISTRY)


def job_result(job: str, result: str, seconds: float | None = None) -> None:
    JOBS.labels(job=job, result=result).inc()
    if seconds is not None:
        JOB_SECONDS.labels(job=job).observe(seconds)


def reply_sealed(seat: str, status: str, seconds: float) -> None:
    REPLIES.labels(seat=seat, status=status).inc()
    SEAL_SECONDS.observe(seconds)


def stamp_outcome(kind: str, ok: bool) -> None:
    STAMPS.labels(kind=kind, outcome="ok" if ok else "failed").inc()


def book_verification(ok: bool, seconds: float) -> None:
    BOOK_CHECKS.labels(outcome="ok" if ok else "failed").inc()
    BOOK_CHECK_SECONDS.observe(seconds)


def api_request(route: str, status: int) -> None:
    API_REQUESTS.labels(route=route, status=f"{status // 100}xx").inc()


def exposition() -> tuple[bytes, str]:
    """The text format a Prometheus server scrapes, and its content type."""
    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST

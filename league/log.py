"""structlog set-up, called once by the entry point (CLI or daemon), never by library code.

The libraries' own loggers (APScheduler, Alembic, httpx, uvicorn, Celery) go through the same
processors: the root logging handler formats their records with structlog's ProcessorFormatter, so a
daemon's journal holds one JSON object per line whoever wrote it, each with the job and session the
job runner binds (context variables) when the record was made inside a job.
"""

from __future__ import annotations

import logging
import sys

import structlog

#: Libraries chatty at INFO whose routine lines say nothing an operator acts on.
QUIET = {"httpx": logging.WARNING, "httpcore": logging.WARNING, "apscheduler.scheduler": logging.WARNING,
         "apscheduler.executors.default": logging.WARNING}


def _shared() -> list[structlog.typing.Processor]:
    return [
        structlog.contextvars.merge_contextvars,
        structlog.processors.add_log_level,
        structlog.processors.TimeStamper(fmt="iso", utc=True),
    ]


def _renderer(json_logs: bool) -> list[structlog.typing.Processor]:
    # JSON lines carry an exception as data (type, message, every frame) under "exception"; without
    # this step JSONRenderer printed only `"exc_info": true`. The console renderer formats it itself.
    if json_logs:
        return [structlog.processors.dict_tracebacks, structlog.processors.JSONRenderer()]
    return [structlog.dev.ConsoleRenderer(colors=False)]


def configure(*, json_logs: bool = False, level: str = "INFO") -> None:
    """JSON lines for the daemon (journald-friendly); a readable console renderer for the CLI."""
    numeric = logging.getLevelName(level.upper())
    structlog.configure(
        processors=[*_shared(), *_renderer(json_logs)],
        wrapper_class=structlog.make_filtering_bound_logger(numeric),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )
    route_stdlib(json_logs=json_logs, level=numeric)


def route_stdlib(*, json_logs: bool, level: int) -> None:
    """Replace the root logger's handlers with one that renders records through structlog."""
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*_shared(), structlog.stdlib.add_logger_name, structlog.stdlib.ExtraAdder()],
        processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *_renderer(json_logs)],
    )
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level)
    for name, quiet in QUIET.items():
        logging.getLogger(name).setLevel(max(quiet, level))
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "alembic", "celery"):
        lib = logging.getLogger(name)
        lib.handlers[:] = []
        lib.propagate = True

"""structlog set-up, called once by the entry point (CLI or daemon), never by library code."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(*, json_logs: bool = False, level: str = "INFO") -> None:
    """JSON lines for the daemon (journald-friendly); a readable console renderer for the CLI."""
    # JSON lines carry an exception as data (type, message, every frame) under "exception"; without
    # this step JSONRenderer printed only `"exc_info": true`. The console renderer formats it itself.
    tail: list[structlog.typing.Processor] = (
        [structlog.processors.dict_tracebacks, structlog.processors.JSONRenderer()] if json_logs
        else [structlog.dev.ConsoleRenderer(colors=False)]
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            *tail,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )

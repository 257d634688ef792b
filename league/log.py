"""structlog set-up, called once by the entry point (CLI or daemon), never by library code."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(*, json_logs: bool = False, level: str = "INFO") -> None:
    """JSON lines for the daemon (journald-friendly); a readable console renderer for the CLI."""
    renderer: structlog.typing.Processor = (
        structlog.processors.JSONRenderer() if json_logs else structlog.dev.ConsoleRenderer(colors=False)
    )
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(logging.getLevelName(level.upper())),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )

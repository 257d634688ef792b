"""The publish stage: regenerate the open-data folder from the books every night (docs/open-data.md)."""

from __future__ import annotations

import structlog

from league.jobs.context import League
from league.publish.files import PublishReport, publish

log = structlog.get_logger(__name__)


def publish_open_data(lg: League, session: str) -> PublishReport | None:
    """The nightly ``publish`` job (DATA/public), when this league publishes nightly."""
    if not lg.stages.publish:
        return None
    return publish(lg.data_dir, config=lg.config, clock=lg.clock)


def publish_now(lg: League) -> PublishReport:
    """Publish whatever the league has sealed so far (the demo's last step), naming what is incomplete."""
    report = publish(lg.data_dir, config=lg.config, clock=lg.clock)
    for name, why in (*report.skipped, *report.failed):
        log.warning("publish.incomplete", file=name, why=why)
    return report

"""The publish stage: regenerate the open-data folder from the books every night (docs/open-data.md), and resolve
the registered predictions whose check date has come against it (league.jobs.predictions)."""

from __future__ import annotations

import structlog

from league.jobs.context import League
from league.jobs.predictions import resolve_due
from league.jobs.stamp import stamp_release
from league.publish.compliance import MANIFEST
from league.publish.files import PublishReport, publish, refresh_proof

log = structlog.get_logger(__name__)


def publish_open_data(lg: League, session: str) -> PublishReport | None:
    """The nightly ``publish`` job (DATA/public), when this league publishes nightly."""
    if not lg.stages.publish:
        return None
    report = publish(lg.data_dir, config=lg.config, clock=lg.clock)
    if resolve_due(lg, session, report.out_dir):  # their lines and inputs published with the night's files
        report = publish(lg.data_dir, config=lg.config, clock=lg.clock)
    return _stamped(lg, report)


def _stamped(lg: League, report: PublishReport) -> PublishReport:
    """Stamp the release manifest, then republish proof/ so the folder carries that stamp too."""
    if stamp_release(lg, report.out_dir, MANIFEST) is not None:
        ok = refresh_proof(lg.data_dir, report.out_dir)
        log.info("publish.manifest_stamped", out=str(report.out_dir), proof_republished=ok)
    return report


def publish_now(lg: League) -> PublishReport:
    """Publish whatever the league has sealed so far (the demo's last step), naming what is incomplete."""
    report = _stamped(lg, publish(lg.data_dir, config=lg.config, clock=lg.clock))
    for name, why in (*report.skipped, *report.failed):
        log.warning("publish.incomplete", file=name, why=why)
    return report

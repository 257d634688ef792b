"""Configuration records and the trust-level rule (docs/protocol.md §6)."""

from __future__ import annotations

from datetime import datetime

import pytest
from pydantic import ValidationError

from league.stamps.interface import Artifact, StampConfig, TsaEndpoint, trust_level


@pytest.mark.parametrize(
    ("complete", "pending", "tokens", "level"),
    [
        (False, False, 0, "1"),
        (False, False, 2, "1+"),
        (False, True, 0, "2 pending"),
        (False, True, 1, "2+ pending"),
        (True, True, 0, "2"),
        (True, True, 2, "2+"),
    ],
)
def test_trust_levels(complete: bool, pending: bool, tokens: int, level: str) -> None:
    assert trust_level(ots_complete=complete, ots_pending=pending, signed_times=tokens) == level


def test_authority_names_are_file_safe() -> None:
    with pytest.raises(ValidationError):
        TsaEndpoint(name="../evil", url="http://x")


def test_two_authorities_may_not_share_a_name() -> None:
    t = TsaEndpoint(name="a", url="http://x")
    with pytest.raises(ValidationError, match="share a name"):
        StampConfig(tsa=(t, t))


def test_empty_rekor_url_means_none_and_retries_are_bounded() -> None:
    assert StampConfig(rekor_url="").rekor_url is None
    with pytest.raises(ValidationError):
        StampConfig(retries=0)
    with pytest.raises(ValidationError):
        StampConfig(retries=11)


def test_config_is_frozen() -> None:
    cfg = StampConfig()
    with pytest.raises(ValidationError):
        cfg.retries = 5  # type: ignore[misc]


def test_artifact_refuses_naive_time() -> None:
    with pytest.raises(ValidationError, match="timezone-aware"):
        Artifact(kind="rfc3161", name="a", suffix=".a.tsr", data=b"x", signed_time=datetime(2026, 1, 1))  # noqa: DTZ001

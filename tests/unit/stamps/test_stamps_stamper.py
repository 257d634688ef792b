"""The stamper never raises into sealing, retries within bounds, and states the trust level reached."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from league.clock import SimulatedClock
from league.stamping.stamper import CertFiles, Stamper, recent_stamps
from league.stamps.interface import Artifact, BackendKind, StampConfig, StampError
from league.stamps.local_tsa import LocalTsa, create_authority
from league.verify.stamped import parse_stamped_list

START = datetime(2026, 3, 2, 13, 0, tzinfo=UTC)


class Flaky:
    """A backend failing ``fails`` times, then answering: stands in for an unreliable service."""

    kind: BackendKind = "ots"
    name = "ots"

    def __init__(self, fails: int, crash: bool = False) -> None:
        self.fails, self.calls, self.crash = fails, 0, crash

    def stamp(self, data: bytes) -> Artifact:
        self.calls += 1
        if self.crash:
            raise RuntimeError("bug in a backend")
        if self.calls <= self.fails:
            raise StampError(f"calendar down (call {self.calls})")
        return Artifact(kind="ots", name="ots", suffix=".ots", data=b"proof", complete=False)


def test_retries_are_bounded_and_failures_recorded(tmp_path: Path, book: Path) -> None:
    flaky, broken = Flaky(fails=1), Flaky(fails=99)
    sleeps: list[float] = []
    st = Stamper(StampConfig(retries=3, retry_wait=0.5), tmp_path / "stamps", SimulatedClock(START),
                 backends=[flaky, broken], sleep=sleeps.append)
    result = st.stamp_books([("council-book.jsonl", book)])
    assert result is not None
    assert (flaky.calls, broken.calls) == (2, 3)
    assert len(sleeps) == 3  # one wait after flaky's failure, two between broken's three tries
    ok, failed = result.outcomes
    assert ok.ok and ok.attempts == 2 and not failed.ok and failed.attempts == 3
    assert "call 3" in failed.error
    assert result.trust_level == "2 pending"
    status = json.loads((tmp_path / "stamps" / "2026-03-02" / "130000Z.status.json").read_text())
    assert status["trust_level"] == "2 pending" and status["backends"][1]["ok"] is False


def test_a_crashing_backend_does_not_escape(tmp_path: Path, book: Path) -> None:
    st = Stamper(StampConfig(retries=2, retry_wait=0), tmp_path / "s", SimulatedClock(START),
                 backends=[Flaky(0, crash=True)])
    result = st.stamp_books([("council-book.jsonl", book)])
    assert result is not None and result.trust_level == "1"
    assert "RuntimeError" in result.outcomes[0].error


def test_a_missing_book_gives_none_not_an_exception(tmp_path: Path) -> None:
    st = Stamper(StampConfig(), tmp_path / "s", SimulatedClock(START), backends=[])
    assert st.stamp_books([("council-book.jsonl", tmp_path / "nope.jsonl")]) is None


def test_list_names_the_heads_and_the_byte_rule(tmp_path: Path, book: Path) -> None:
    st = Stamper(StampConfig(), tmp_path / "s", SimulatedClock(START), backends=[])
    result = st.stamp_books([("council-book.jsonl", book)])
    assert result is not None
    text = result.list_path.read_text()
    rows = parse_stamped_list(text)
    lines = book.read_bytes().splitlines(keepends=True)
    assert rows[0][:3] == ("council-book.jsonl", 2, __import__("hashlib").sha256(b"".join(lines)).hexdigest())
    assert rows[0][3] == json.loads(lines[1])["link"]
    assert "head -n N" in text and result.trust_level == "1"
    again = st.stamp_books([("council-book.jsonl", book)])  # the same list (a daemon restarted mid-stamp)
    assert again is not None and again.list_path == result.list_path
    second = st.stamp_books([("council-book.jsonl", book)], note="another list in the same second")
    assert second is not None and second.list_path.name == "130000Z-1.txt"


def test_tokens_are_verified_and_certificates_kept(tmp_path: Path, book: Path) -> None:
    files = create_authority(tmp_path / "auth", "a")
    st = Stamper(StampConfig(), tmp_path / "s", SimulatedClock(START), backends=[LocalTsa("a", files)],
                 certs={"a": CertFiles(files.ca_pem, None)})
    result = st.stamp_books([("council-book.jsonl", book)])
    assert result is not None and result.outcomes[0].verified and result.trust_level == "1+"
    assert (tmp_path / "s" / "tsa" / "a" / "ca.pem").read_bytes() == files.ca_pem.read_bytes()
    assert (tmp_path / "s" / "tsa" / "a" / "tsa.crt").read_bytes() == files.tsa_crt.read_bytes()
    assert recent_stamps(tmp_path / "s")[0]["trust_level"] == "1+"


def test_token_without_a_configured_root_is_kept_but_not_counted(tmp_path: Path, book: Path) -> None:
    files = create_authority(tmp_path / "auth", "a")
    st = Stamper(StampConfig(), tmp_path / "s", SimulatedClock(START), backends=[LocalTsa("a", files)], certs={})
    result = st.stamp_books([("council-book.jsonl", book)])
    assert result is not None and result.outcomes[0].ok and not result.outcomes[0].verified
    assert "no root certificate" in result.outcomes[0].error and result.trust_level == "1"


def test_config_from_league_settings(tmp_path: Path) -> None:
    from league.config import StampSettings, TsaEntry
    from league.stamping.stamper import config_from_settings, make_backends

    settings = StampSettings(tsa=(TsaEntry(name="freetsa", url="https://freetsa.org/tsr"),),
                             ots_calendars=("https://a.pool.opentimestamps.org",), rekor_url="",
                             key="keys/league-signing.pem", local_tsa=True)
    cfg = config_from_settings(settings, tmp_path)
    assert [t.name for t in cfg.tsa] == ["freetsa", "local-a", "local-b"]
    assert cfg.rekor_url is None and cfg.key_path == tmp_path / "keys" / "league-signing.pem"
    backends, certs = make_backends(cfg, SimulatedClock(START))
    assert [b.name for b in backends] == ["freetsa", "local-a", "local-b", "ots"]
    assert certs["local-a"].ca_file == tmp_path / "stamps" / "local-tsa" / "local-a" / "ca.pem"
    assert certs["local-a"].ca_file.read_bytes() != certs["local-b"].ca_file.read_bytes()  # type: ignore[union-attr]
    assert certs["freetsa"] == CertFiles(None, None)


def test_only_limits_the_backends(tmp_path: Path, book: Path) -> None:
    files = create_authority(tmp_path / "auth", "a")
    ots = Flaky(0)
    st = Stamper(StampConfig(), tmp_path / "s", SimulatedClock(START), backends=[LocalTsa("a", files), ots],
                 certs={"a": CertFiles(files.ca_pem, files.tsa_crt)})
    result = st.stamp_books([("council-book.jsonl", book)], only={"rfc3161"}, note="after answer line 2")
    assert result is not None and [o.name for o in result.outcomes] == ["a"] and ots.calls == 0
    assert result.list_path.read_text().endswith("after answer line 2\n")

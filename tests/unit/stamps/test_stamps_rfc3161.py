"""RFC 3161 tokens from two independent local authorities (signed in process; openssl ts -verify checks
them independently), in process and over HTTP."""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path

import httpx
import pytest

from league.clock import SimulatedClock
from league.stamps.interface import StampError
from league.stamps.local_tsa import AuthorityFiles, LocalTsa, create_authority
from league.stamps.rfc3161 import Rfc3161Backend, build_request, decode_reply, openssl_verify, verify_token

DATA = b"council-book.jsonl: 3 lines, sha256 ...\n"


@pytest.fixture(scope="module")
def authorities(tmp_path_factory: pytest.TempPathFactory) -> tuple[AuthorityFiles, AuthorityFiles]:
    base = tmp_path_factory.mktemp("tsa")
    return create_authority(base / "a", "alpha"), create_authority(base / "b", "beta")


def test_token_verifies_in_process_and_with_openssl(authorities: tuple[AuthorityFiles, AuthorityFiles],
                                                    tmp_path: Path) -> None:
    a, _ = authorities
    art = LocalTsa("alpha", a).stamp(DATA)
    facts = verify_token(art.data, DATA, ca_file=a.ca_pem, tsa_file=a.tsa_crt, authority="alpha")
    assert facts.digest_hex == __import__("hashlib").sha256(DATA).hexdigest()
    data_file, tsr = tmp_path / "x.txt", tmp_path / "x.txt.alpha.tsr"
    data_file.write_bytes(DATA)
    tsr.write_bytes(art.data)
    proc = subprocess.run(["openssl", "ts", "-verify", "-data", str(data_file), "-in", str(tsr),
                           "-CAfile", str(a.ca_pem), "-untrusted", str(a.tsa_crt)], capture_output=True, text=True)
    assert proc.returncode == 0 and "Verification: OK" in proc.stdout
    assert openssl_verify(data_file, tsr, a.ca_pem, a.tsa_crt)[0] is True
    data_file.write_bytes(DATA + b"x")
    ok, line = openssl_verify(data_file, tsr, a.ca_pem, a.tsa_crt)
    assert not ok and "FAILED" in line


def test_the_other_authoritys_root_does_not_verify(authorities: tuple[AuthorityFiles, AuthorityFiles]) -> None:
    a, b = authorities
    art = LocalTsa("alpha", a).stamp(DATA)
    with pytest.raises(StampError, match="does not verify"):
        verify_token(art.data, DATA, ca_file=b.ca_pem, tsa_file=None, authority="alpha")


def test_token_over_other_data_is_refused(authorities: tuple[AuthorityFiles, AuthorityFiles]) -> None:
    a, _ = authorities
    art = LocalTsa("alpha", a).stamp(DATA)
    with pytest.raises(StampError, match="does not verify"):
        verify_token(art.data, DATA + b"!", ca_file=a.ca_pem, tsa_file=a.tsa_crt, authority="alpha")


@pytest.mark.parametrize("mangle", [lambda t: t[: len(t) // 2], lambda t: b"", lambda t: b"\x30\x03\x02\x01\x00",
                                    lambda t: t[:-40] + bytes(40)])
def test_corrupt_token_is_a_stamp_error(authorities: tuple[AuthorityFiles, AuthorityFiles], mangle) -> None:  # type: ignore[no-untyped-def]
    a, _ = authorities
    token = mangle(LocalTsa("alpha", a).stamp(DATA).data)
    with pytest.raises(StampError):
        verify_token(token, DATA, ca_file=a.ca_pem, tsa_file=a.tsa_crt, authority="alpha")


def test_missing_certificate_is_a_stamp_error(authorities: tuple[AuthorityFiles, AuthorityFiles],
                                              tmp_path: Path) -> None:
    a, _ = authorities
    art = LocalTsa("alpha", a).stamp(DATA)
    with pytest.raises(StampError, match="missing"):
        verify_token(art.data, DATA, ca_file=tmp_path / "nope.pem", tsa_file=None, authority="alpha")


def test_http_path_against_the_local_server(authorities: tuple[AuthorityFiles, AuthorityFiles]) -> None:
    _, b = authorities
    with LocalTsa("beta", b).serve() as url:
        assert url.startswith("http://127.0.0.1:")
        art = Rfc3161Backend("beta", url).stamp(DATA)
        r = httpx.post(url, content=b"junk", headers={"Content-Type": "text/plain"})
        assert r.status_code == 415
    assert art.suffix == ".beta.tsr" and art.signed_time is not None
    assert verify_token(art.data, DATA, ca_file=b.ca_pem, tsa_file=b.tsa_crt, authority="beta").serial > 0


def test_unreachable_authority_is_a_stamp_error() -> None:
    with pytest.raises(StampError, match="cannot reach"):
        Rfc3161Backend("gone", "http://127.0.0.1:9/tsr", timeout=2).stamp(DATA)


def test_simulated_clock_sets_the_signed_time(authorities: tuple[AuthorityFiles, AuthorityFiles],
                                             tmp_path: Path) -> None:
    """No faketime: the token carries the simulated time, as openssl itself reads and verifies it."""
    a, _ = authorities
    when = datetime(2024, 3, 4, 14, 0, 5, tzinfo=UTC)
    art = LocalTsa("alpha", a, SimulatedClock(when)).stamp(DATA)
    assert art.signed_time == when
    assert verify_token(art.data, DATA, ca_file=a.ca_pem, tsa_file=a.tsa_crt, authority="alpha").signed_time == when
    data_file, tsr = tmp_path / "x.txt", tmp_path / "x.tsr"
    data_file.write_bytes(DATA)
    tsr.write_bytes(art.data)
    text = subprocess.run(["openssl", "ts", "-reply", "-in", str(tsr), "-text"], capture_output=True, text=True,
                          check=True).stdout
    assert "Time stamp: Mar  4 14:00:05 2024 GMT" in text and "Policy OID: 1.3.6.1.4.1.99999.1.1" in text
    assert "Status: Granted." in text and "Accuracy: 0x01 seconds" in text
    assert openssl_verify(data_file, tsr, a.ca_pem, a.tsa_crt) == (True, "Verification: OK")


def test_serials_increase_and_the_nonce_is_echoed(authorities: tuple[AuthorityFiles, AuthorityFiles]) -> None:
    _, b = authorities
    tsa = LocalTsa("beta", b)
    req = build_request(DATA)
    first = decode_reply(tsa.reply(req.as_bytes()), "beta").tst_info
    second = decode_reply(tsa.reply(build_request(DATA).as_bytes()), "beta").tst_info
    assert first.nonce == req.nonce and second.serial_number == first.serial_number + 1


def test_a_query_that_is_not_one_is_refused(authorities: tuple[AuthorityFiles, AuthorityFiles]) -> None:
    a, _ = authorities
    with pytest.raises(StampError, match="not an RFC 3161 time-stamp query"):
        LocalTsa("alpha", a).reply(b"\x30\x03\x02\x01\x00")


def test_request_is_sha256_with_nonce() -> None:
    req = build_request(DATA)
    assert req.nonce is not None and len(req.message_imprint.message) == 32
    with pytest.raises(StampError, match="empty"):
        build_request(b"")


def test_authority_files_are_kept_once_made(tmp_path: Path) -> None:
    first = create_authority(tmp_path / "x", "x").ca_pem.read_bytes()
    assert create_authority(tmp_path / "x", "x").ca_pem.read_bytes() == first
    assert oct((tmp_path / "x" / "tsa.key").stat().st_mode & 0o777) == "0o600"
    with pytest.raises(StampError, match="files missing"):
        LocalTsa("y", AuthorityFiles(tmp_path / "y"))

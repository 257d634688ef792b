"""Trust anchors: the reader's store decides; the folder's certificates are the operator's word."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from league.stamps.interface import StampError
from league.stamps.local_tsa import LocalTsa, create_authority
from league.stamps.rfc3161 import load_certs
from league.stamps.trust import ANCHORS_DIR, TrustStore, check_token, fingerprint, pinned_authorities

DATA = b"council-book.jsonl: 4 lines, sha256 ab, last link cd\n"
#: FreeTSA's root as pinned by a second, independent public verifier (SHA-256 of the DER).
FREETSA_SHA256 = "a6379e7cecc05faa3cbf076013d745e327bbbaa38c0b9af22469d4701d18aabc"


def test_pinned_authorities_are_public_and_their_roots_match_their_pins() -> None:
    pinned = {a.name: a for a in pinned_authorities()}
    assert set(pinned) == {"freetsa", "digicert", "sectigo"}
    assert pinned["freetsa"].url == "https://freetsa.org/tsr"
    assert fingerprint(load_certs(pinned["freetsa"].root)[0]) == FREETSA_SHA256
    subjects = {n: load_certs(a.root)[0].subject.rfc4514_string() for n, a in pinned.items()}
    assert "CN=DigiCert Trusted Root G4" in subjects["digicert"]
    assert "CN=USERTrust RSA Certification Authority" in subjects["sectigo"]


def test_a_pinned_root_swapped_on_disk_is_refused(tmp_path: Path) -> None:
    shutil.copytree(ANCHORS_DIR, tmp_path / "anchors")
    fake = create_authority(tmp_path / "fake", "fake")
    shutil.copyfile(fake.ca_pem, tmp_path / "anchors" / "freetsa-root-ca.pem")
    with pytest.raises(StampError, match="freetsa-root-ca.pem has fingerprint"):
        pinned_authorities(tmp_path / "anchors")


def test_the_default_store_holds_the_system_bundle_and_the_pins() -> None:
    store = TrustStore.default()
    prints = {fingerprint(c) for c in store.roots}
    assert FREETSA_SHA256 in prints
    assert "3 pinned public authorities" in store.described
    assert len(TrustStore.default(system=False).roots) == 3


@pytest.fixture(scope="module")
def authorities(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, bytes]:
    tmp = tmp_path_factory.mktemp("trust")
    a, b = create_authority(tmp / "a", "A"), create_authority(tmp / "b", "B")
    return a.directory, b.directory, LocalTsa("a", a).stamp(DATA).data


def test_anchor_is_reader_only_for_a_root_the_reader_holds(authorities: tuple[Path, Path, bytes]) -> None:
    a, b, token = authorities
    mine = check_token(token, DATA, TrustStore.default([a / "ca.pem"], system=False), folder_ca=a / "ca.pem",
                       folder_tsa=a / "tsa.crt", authority="a")
    assert mine.anchor == "reader" and mine.root.subject.rfc4514_string().startswith("CN=A test root CA")
    theirs = check_token(token, DATA, TrustStore.default([b / "ca.pem"], system=False), folder_ca=a / "ca.pem",
                         folder_tsa=a / "tsa.crt", authority="a")
    assert theirs.anchor == "operator"


def test_folder_roots_never_become_trusted_intermediates(authorities: tuple[Path, Path, bytes]) -> None:
    """rfc3161-client trusts any intermediate it is given; the chain is validated before it sees one."""
    a, b, token = authorities
    with pytest.raises(StampError, match="chains to no trusted root"):
        check_token(token, DATA, TrustStore.default([b / "ca.pem"], system=False), folder_ca=None,
                    folder_tsa=a / "tsa.crt", authority="a")


def test_wrong_data_and_wrong_root_fail(authorities: tuple[Path, Path, bytes]) -> None:
    a, b, token = authorities
    store = TrustStore.default([a / "ca.pem"], system=False)
    with pytest.raises(StampError, match="does not verify"):
        check_token(token, DATA + b"x", store, folder_ca=None, folder_tsa=None, authority="a")
    with pytest.raises(StampError, match="chains to no trusted root"):
        check_token(token, DATA, TrustStore.default(system=False), folder_ca=b / "ca.pem", folder_tsa=None,
                    authority="a")

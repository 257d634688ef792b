"""The local authority's reply with the signing certificate's constant pieces encoded once per certificate
(``tsa_sign.CertParts``) is byte-for-byte the reply built from scratch with asn1crypto, as every token was
before: same TSTInfo, same signed attributes (the bytes the signature covers), same SignerInfo and chain.
ECDSA signatures are randomised, so the key here signs deterministically (a digest of what it is given)."""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from asn1crypto import algos, cms, core, tsp
from asn1crypto import x509 as ax509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from league.stamps.local_tsa import LocalTsa, create_authority
from league.stamps.rfc3161 import build_request, openssl_verify, verify_token
from league.stamps.tsa_sign import ID_CT_TSTINFO, Signer, sign_reply


class DigestKey:
    """Stands in for the EC key: the 'signature' is SHA-256 of the signed bytes, so replies compare exactly
    and the test can see what was signed."""

    def sign(self, data: bytes, _algorithm: Any) -> bytes:
        return hashlib.sha256(data).digest()


def reference_reply(query: bytes, signer: Signer, gen_time: datetime, serial: int) -> bytes:
    """The reply as league/stamps/tsa_sign.py built every token before the cached pieces (asn1crypto
    structures built from the parsed certificate each time)."""
    req = tsp.TimeStampReq.load(query)
    cert = ax509.Certificate.load(signer.cert.public_bytes(serialization.Encoding.DER))
    fields: dict[str, object] = {
        "version": "v1", "policy": signer.policy, "message_imprint": req["message_imprint"],
        "serial_number": serial, "gen_time": gen_time.replace(microsecond=0), "accuracy": {"seconds": 1},
        "tsa": ax509.GeneralName(name="directory_name", value=cert.subject),
    }
    if req["nonce"].native is not None:
        fields["nonce"] = req["nonce"].native
    content = tsp.TSTInfo(fields).dump()
    ess = tsp.SigningCertificateV2({"certs": [{
        "cert_hash": hashlib.sha256(cert.dump()).digest(),
        "issuer_serial": {"issuer": [ax509.GeneralName(name="directory_name", value=cert.issuer)],
                          "serial_number": cert.serial_number},
    }]})
    attrs = cms.CMSAttributes([
        cms.CMSAttribute({"type": "content_type", "values": [ID_CT_TSTINFO]}),
        cms.CMSAttribute({"type": "message_digest", "values": [hashlib.sha256(content).digest()]}),
        cms.CMSAttribute({"type": "signing_certificate_v2", "values": [ess]}),
    ])
    signature = signer.key.sign(attrs.dump(), ec.ECDSA(hashes.SHA256()))
    info = cms.SignerInfo({
        "version": "v1",
        "sid": cms.SignerIdentifier(name="issuer_and_serial_number", value={
            "issuer": cert.issuer, "serial_number": cert.serial_number}),
        "digest_algorithm": {"algorithm": "sha256"}, "signed_attrs": attrs,
        "signature_algorithm": {"algorithm": "sha256_ecdsa"}, "signature": signature,
    })
    signed = cms.SignedData({
        "version": "v3", "digest_algorithms": [algos.DigestAlgorithm({"algorithm": "sha256"})],
        "encap_content_info": {"content_type": ID_CT_TSTINFO, "content": core.ParsableOctetString(content)},
        "certificates": [cert] if req["cert_req"].native else [], "signer_infos": [info],
    })
    token = cms.ContentInfo({"content_type": "signed_data", "content": signed})
    out: bytes = tsp.TimeStampResp({"status": {"status": "granted"}, "time_stamp_token": token}).dump()
    return out


@pytest.mark.parametrize("label", ["alpha", "beta"])
def test_cached_reply_is_the_reference_reply_byte_for_byte(tmp_path: Path, label: str) -> None:
    tsa = LocalTsa(label, create_authority(tmp_path / label, label))
    real = tsa._signer()
    signer = Signer(real.cert, DigestKey(), real.policy)  # type: ignore[arg-type]
    at = datetime(2026, 3, 2, 13, 30, 15, 250000, tzinfo=UTC)
    for serial, data in enumerate((b"a", b"a book head", b"x" * 5000), start=1):
        query = build_request(data).as_bytes()
        assert sign_reply(query, signer, at, serial) == reference_reply(query, signer, at, serial)


def test_cached_tokens_of_two_authorities_verify(tmp_path: Path) -> None:
    """The cache is per certificate: tokens of two authorities in one process, alternating, each name and
    verify with their own certificate (in process, and with openssl ts -verify), and not with the other's."""
    data = b"the same data"
    (tmp_path / "data").write_bytes(data)
    files = {label: create_authority(tmp_path / label, label) for label in ("one", "two")}
    for label in ("one", "two", "one"):
        art = LocalTsa(label, files[label]).stamp(data)
        own = verify_token(art.data, data, ca_file=files[label].ca_pem, tsa_file=files[label].tsa_crt,
                           authority=label)
        assert own.digest_hex == hashlib.sha256(data).hexdigest()
        (tmp_path / "reply.tsr").write_bytes(art.data)
        assert openssl_verify(tmp_path / "data", tmp_path / "reply.tsr", files[label].ca_pem,
                              files[label].tsa_crt)[0] is True
        other = files["two" if label == "one" else "one"]
        assert openssl_verify(tmp_path / "data", tmp_path / "reply.tsr", other.ca_pem, other.tsa_crt)[0] is False

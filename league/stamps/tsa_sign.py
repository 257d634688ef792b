"""Sign an RFC 3161 reply in process (asn1crypto builds the DER, cryptography signs).

The local test authority signs with the time of the league's :class:`~league.clock.Clock`, which for a
replayed season is simulated: generating the token here lets it carry that time directly, without
running ``openssl ts -reply`` under libfaketime. The reply has what ``openssl ts -verify`` and
``rfc3161-client`` check: a granted status, a SignedData whose eContent is the DER TSTInfo
(id-ct-TSTInfo), the signer's certificate, and signed attributes with the content type, the
message digest and an ESSCertIDv2 (RFC 5816) naming the signer by SHA-256. The tests keep
``openssl ts -verify`` as the independent check of every token this module makes.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime
from functools import lru_cache

from asn1crypto import algos, cms, core, tsp
from asn1crypto import x509 as ax509
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from league.stamps.interface import StampError

ID_CT_TSTINFO = "1.2.840.113549.1.9.16.1.4"
#: Digests a query may use (the request builder asks for SHA-256).
DIGEST_SIZES = {"sha256": 32, "sha384": 48, "sha512": 64}


@dataclass(frozen=True)
class Signer:
    """The authority's signing certificate and key, and the policy it stamps under."""

    cert: x509.Certificate
    key: ec.EllipticCurvePrivateKey
    policy: str


def parse_query(query: bytes) -> tsp.TimeStampReq:
    """A DER TimeStampReq with a supported digest of the right length, or StampError."""
    try:
        req = tsp.TimeStampReq.load(query)
        imprint = req["message_imprint"]
        algorithm = imprint["hash_algorithm"]["algorithm"].native
        digest = imprint["hashed_message"].native
    except (ValueError, TypeError, KeyError) as exc:
        raise StampError(f"not an RFC 3161 time-stamp query ({exc})") from exc
    if algorithm not in DIGEST_SIZES or len(digest) != DIGEST_SIZES[algorithm]:
        raise StampError(f"unsupported message imprint ({algorithm}, {len(digest)} bytes)")
    return req


def sign_reply(query: bytes, signer: Signer, gen_time: datetime, serial: int) -> bytes:
    """The DER TimeStampResp granting ``query`` at ``gen_time`` (timezone-aware) with ``serial``."""
    req = parse_query(query)
    parts = _cert_parts(signer.cert.public_bytes(serialization.Encoding.DER))
    info = _tst_info(req, signer, gen_time, serial, parts)
    content = info.dump()
    cert = ax509.Certificate.load(parts.cert)
    attrs = _signed_attrs(content, parts)
    signature = signer.key.sign(attrs.dump(), ec.ECDSA(hashes.SHA256()))
    signed = cms.SignedData({
        "version": "v3",
        "digest_algorithms": [algos.DigestAlgorithm({"algorithm": "sha256"})],
        "encap_content_info": {"content_type": ID_CT_TSTINFO, "content": core.ParsableOctetString(content)},
        "certificates": [cert] if req["cert_req"].native else [],
        "signer_infos": [_signer_info(parts, attrs, signature)],
    })
    token = cms.ContentInfo({"content_type": "signed_data", "content": signed})
    reply: bytes = tsp.TimeStampResp({"status": {"status": "granted"}, "time_stamp_token": token}).dump()
    return reply


@dataclass(frozen=True)
class CertParts:
    """What every token of one signing certificate repeats, DER-encoded once: asn1crypto re-encodes a
    structure built from parsed pieces (the issuer name, the ESSCertIDv2) field by field on every dump, which
    made these ~80% of a token's CPU; a structure loaded from bytes and left unmodified dumps its bytes."""

    cert: bytes  # the certificate
    tsa_name: bytes  # GeneralName (directory name: the subject), TSTInfo's ``tsa``
    signing_certificate: bytes  # the signing-certificate-v2 CMSAttribute (RFC 5816)
    sid: bytes  # SignerIdentifier: issuer and serial number


@lru_cache(maxsize=16)
def _cert_parts(cert_der: bytes) -> CertParts:
    cert = ax509.Certificate.load(cert_der)
    ess = tsp.SigningCertificateV2({"certs": [{
        "cert_hash": hashlib.sha256(cert_der).digest(),
        "issuer_serial": {"issuer": [ax509.GeneralName(name="directory_name", value=cert.issuer)],
                          "serial_number": cert.serial_number},
    }]})
    return CertParts(
        cert=cert_der,
        tsa_name=ax509.GeneralName(name="directory_name", value=cert.subject).dump(),
        signing_certificate=cms.CMSAttribute({"type": "signing_certificate_v2", "values": [ess]}).dump(),
        sid=cms.SignerIdentifier(name="issuer_and_serial_number", value={
            "issuer": cert.issuer, "serial_number": cert.serial_number}).dump(),
    )


def _tst_info(req: tsp.TimeStampReq, signer: Signer, gen_time: datetime, serial: int,
              parts: CertParts) -> tsp.TSTInfo:
    fields: dict[str, object] = {
        "version": "v1",
        "policy": signer.policy,
        "message_imprint": req["message_imprint"],
        "serial_number": serial,
        "gen_time": gen_time.replace(microsecond=0),
        "accuracy": {"seconds": 1},
        "tsa": ax509.GeneralName.load(parts.tsa_name),
    }
    if req["nonce"].native is not None:
        fields["nonce"] = req["nonce"].native
    return tsp.TSTInfo(fields)


def _signed_attrs(content: bytes, parts: CertParts) -> cms.CMSAttributes:
    return cms.CMSAttributes([
        cms.CMSAttribute({"type": "content_type", "values": [ID_CT_TSTINFO]}),
        cms.CMSAttribute({"type": "message_digest", "values": [hashlib.sha256(content).digest()]}),
        cms.CMSAttribute.load(parts.signing_certificate),
    ])


def _signer_info(parts: CertParts, attrs: cms.CMSAttributes, signature: bytes) -> cms.SignerInfo:
    return cms.SignerInfo({
        "version": "v1",
        "sid": cms.SignerIdentifier.load(parts.sid),
        "digest_algorithm": {"algorithm": "sha256"},
        "signed_attrs": attrs,
        "signature_algorithm": {"algorithm": "sha256_ecdsa"},
        "signature": signature,
    })

"""RFC 3161 time-stamp tokens through ``rfc3161-client`` (level 2+ of docs/protocol.md §6).

The request asks for SHA-256 (the library's default is SHA-512) and for the signer's certificate,
so a published ``.tsr`` carries what ``openssl ts -verify -untrusted tsa.crt`` needs. Verification
happens twice: in process right after the reply (so a broken authority is noticed at stamping
time) and, for readers, with ``openssl ts -verify`` against the published certificates.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import httpx
from cryptography import x509
from cryptography.x509.oid import ExtendedKeyUsageOID
from rfc3161_client import (
    HashAlgorithm,
    TimeStampRequest,
    TimestampRequestBuilder,
    TimeStampResponse,
    VerificationError,
    VerifierBuilder,
    decode_timestamp_response,
)
from rfc3161_client.tsp import PKIStatus

from league.stamps.filecache import loaded
from league.stamps.interface import Artifact, BackendKind, StampError

QUERY_TYPE = "application/timestamp-query"
REPLY_TYPE = "application/timestamp-reply"


@dataclass(frozen=True)
class TokenFacts:
    """What a verified token says: who signed, when, over which digest."""

    authority: str
    signed_time: datetime
    serial: int
    digest_hex: str


def build_request(data: bytes) -> TimeStampRequest:
    """A SHA-256 request with a nonce and a certificate request."""
    if not data:
        raise StampError("refusing to time-stamp empty data")
    return TimestampRequestBuilder().data(data).hash_algorithm(HashAlgorithm.SHA256).build()


def decode_reply(body: bytes, authority: str) -> TimeStampResponse:
    """Parse a reply and insist it was granted; a clear StampError otherwise."""
    try:
        resp = decode_timestamp_response(body)
    except (ValueError, TypeError) as exc:
        raise StampError(f"{authority}: the reply is not an RFC 3161 time-stamp response ({exc})") from exc
    if resp.status not in (PKIStatus.GRANTED, PKIStatus.GRANTED_WITH_MODS):
        text = "; ".join(resp.status_string) if resp.status_string else ""
        raise StampError(f"{authority}: the authority refused the request (status {resp.status} {text})")
    return resp


def load_certs(path: Path) -> list[x509.Certificate]:
    """Every certificate in a PEM file (root first, then intermediates, as ``ca.pem`` holds them)."""
    try:
        certs = x509.load_pem_x509_certificates(path.read_bytes())
    except FileNotFoundError:
        raise StampError(f"certificate file {path} is missing") from None
    except ValueError as exc:
        raise StampError(f"certificate file {path} is not PEM ({exc})") from exc
    return certs


def verify_token(token: bytes, data: bytes, *, ca_file: Path, tsa_file: Path | None, authority: str) -> TokenFacts:
    """Verify a ``.tsr`` over ``data`` against the authority's root (and signing certificate)."""
    resp = decode_reply(token, authority)
    certs = loaded(ca_file, load_certs)  # the same root every stamp: parsed once while the file is unchanged
    builder = VerifierBuilder()
    if tsa_file is not None:
        builder = builder.tsa_certificate(loaded(tsa_file, load_certs)[0])
    builder = builder.add_root_certificate(certs[0])
    for extra in certs[1:]:
        builder = builder.add_intermediate_certificate(extra)
    try:
        builder.build().verify_message(resp, data)
    except (VerificationError, ValueError) as exc:
        raise StampError(f"{authority}: token does not verify ({exc})") from exc
    return facts_of(resp, authority)


def facts_of(resp: TimeStampResponse, authority: str) -> TokenFacts:
    info = resp.tst_info
    return TokenFacts(authority, info.gen_time, info.serial_number, info.message_imprint.message.hex())


def signer_certificate(resp: TimeStampResponse) -> x509.Certificate | None:
    """The certificate the reply carries (we ask for it), used to publish ``tsa.crt``."""
    for der in resp.signed_data.certificates:
        cert = x509.load_der_x509_certificate(der)
        if ExtendedKeyUsageOID.TIME_STAMPING in _eku(cert):
            return cert
    return None


def _eku(cert: x509.Certificate) -> list[x509.ObjectIdentifier]:
    try:
        return list(cert.extensions.get_extension_for_class(x509.ExtendedKeyUsage).value)
    except x509.ExtensionNotFound:
        return []


def openssl_verify(data_file: Path, tsr_file: Path, ca_file: Path, tsa_file: Path) -> tuple[bool, str]:
    """Run the reader's exact command; returns (accepted, openssl's last line)."""
    exe = shutil.which("openssl")
    if exe is None:
        raise StampError("openssl is not installed", fix="apt-get install openssl")
    argv = [exe, "ts", "-verify", "-data", str(data_file), "-in", str(tsr_file)]
    argv += ["-CAfile", str(ca_file), "-untrusted", str(tsa_file)]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    out = (proc.stdout + proc.stderr).strip().splitlines()
    ok = proc.returncode == 0 and any(line.strip() == "Verification: OK" for line in out)
    last = next((ln for ln in out if ln.startswith("Verification")), out[-1] if out else "")
    return ok, last


class Rfc3161Backend:
    """An authority reached over HTTP (the real path, also used against the local authority's server)."""

    kind: BackendKind = "rfc3161"

    def __init__(self, name: str, url: str, *, timeout: float = 15.0, client: httpx.Client | None = None) -> None:
        self.name = name
        self.url = url
        self.timeout = timeout
        self._client = client

    def stamp(self, data: bytes) -> Artifact:
        req = build_request(data)
        body = self._post(req.as_bytes())
        resp = decode_reply(body, self.name)
        if resp.tst_info.message_imprint.message != req.message_imprint.message:
            raise StampError(f"{self.name}: the token is over a different digest than the one sent")
        if req.nonce is not None and resp.tst_info.nonce != req.nonce:
            raise StampError(f"{self.name}: the token's nonce does not match the request")
        return token_artifact(self.name, resp, body)

    def _post(self, query: bytes) -> bytes:
        headers = {"Content-Type": QUERY_TYPE, "Accept": REPLY_TYPE}
        try:
            if self._client is not None:
                r = self._client.post(self.url, content=query, headers=headers, timeout=self.timeout)
            else:
                r = httpx.post(self.url, content=query, headers=headers, timeout=self.timeout)
        except httpx.HTTPError as exc:
            raise StampError(f"{self.name}: cannot reach {self.url} ({exc.__class__.__name__}: {exc})") from exc
        if r.status_code != 200:
            raise StampError(f"{self.name}: {self.url} answered HTTP {r.status_code}")
        return r.content


def token_artifact(name: str, resp: TimeStampResponse, body: bytes) -> Artifact:
    """Keep the authority's bytes exactly as received: they are what the signature covers."""
    facts = facts_of(resp, name)
    return Artifact(
        kind="rfc3161",
        name=name,
        suffix=f".{name}.tsr",
        data=body,
        signed_time=facts.signed_time,
        detail=f"serial {facts.serial}",
    )

"""A local RFC 3161 authority for tests and the offline demo, signing in process (``tsa_sign``).

:func:`create_authority` generates a test root CA and a TSA certificate (critical extendedKeyUsage
timeStamping, as RFC 3161 §2.3 and ``rfc3161-client`` require) with validity from 2000 to 2099, so
tokens verify with ``openssl ts -verify`` today and for a replayed historical season alike.

The authority signs with the time of the :class:`Clock` it is given: the wall clock live, the
simulated clock in a replayed season, so a token's signed time follows the season being replayed.
The reply is built and signed in process (:mod:`league.stamps.tsa_sign`: asn1crypto + cryptography),
so no ``openssl ts -reply`` under libfaketime is needed; ``openssl ts -verify`` stays the tests'
independent check. It is a *test* authority: its tokens prove nothing to an outsider, and the docs
and ``league verify`` say so (its roots are in no reader's trust store).

It works in process (:meth:`LocalTsa.reply`) and as an HTTP server on 127.0.0.1
(:meth:`LocalTsa.serve`), so the real HTTP client path of :mod:`league.stamps.rfc3161` is exercised.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import structlog
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import ExtendedKeyUsageOID, NameOID

from league.clock import Clock, SystemClock
from league.stamps.filecache import Identity, identity
from league.stamps.interface import Artifact, BackendKind, StampError
from league.stamps.rfc3161 import build_request, decode_reply, token_artifact
from league.stamps.tsa_sign import Signer, sign_reply

log = structlog.get_logger(__name__)

NOT_BEFORE = datetime(2000, 1, 1, tzinfo=UTC)
NOT_AFTER = datetime(2099, 12, 31, tzinfo=UTC)
POLICY_OID = "1.3.6.1.4.1.99999.1.1"


@dataclass(frozen=True)
class AuthorityFiles:
    """Where one local authority keeps its files; ``ca.pem`` and ``tsa.crt`` are what gets published."""

    directory: Path

    @property
    def ca_pem(self) -> Path:
        return self.directory / "ca.pem"

    @property
    def tsa_crt(self) -> Path:
        return self.directory / "tsa.crt"

    @property
    def tsa_key(self) -> Path:
        return self.directory / "tsa.key"

    @property
    def serial(self) -> Path:
        return self.directory / "serial"

    def complete(self) -> bool:
        return all(p.exists() for p in (self.ca_pem, self.tsa_crt, self.tsa_key))


def _name(common_name: str) -> x509.Name:
    return x509.Name(
        [
            x509.NameAttribute(NameOID.ORGANIZATION_NAME, "forecast-league test authority"),
            x509.NameAttribute(NameOID.COMMON_NAME, common_name),
        ]
    )


def _key_usage(*, ca: bool) -> x509.KeyUsage:
    return x509.KeyUsage(
        digital_signature=not ca,
        content_commitment=not ca,
        key_encipherment=False,
        data_encipherment=False,
        key_agreement=False,
        key_cert_sign=ca,
        crl_sign=ca,
        encipher_only=False,
        decipher_only=False,
    )


def _root(label: str, key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
    subject = _name(f"{label} test root CA")
    return (
        x509.CertificateBuilder()
        .subject_name(subject)
        .issuer_name(subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOT_BEFORE)
        .not_valid_after(NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
        .add_extension(_key_usage(ca=True), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .sign(key, hashes.SHA256())
    )


def _signer(label: str, key: ec.EllipticCurvePrivateKey, root: x509.Certificate,
            root_key: ec.EllipticCurvePrivateKey) -> x509.Certificate:
    return (
        x509.CertificateBuilder()
        .subject_name(_name(f"{label} time-stamping unit"))
        .issuer_name(root.subject)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(NOT_BEFORE)
        .not_valid_after(NOT_AFTER)
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(_key_usage(ca=False), critical=True)
        .add_extension(x509.ExtendedKeyUsage([ExtendedKeyUsageOID.TIME_STAMPING]), critical=True)
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(key.public_key()), critical=False)
        .add_extension(x509.AuthorityKeyIdentifier.from_issuer_public_key(root_key.public_key()), critical=False)
        .sign(root_key, hashes.SHA256())
    )


def _pem(cert: x509.Certificate) -> bytes:
    return cert.public_bytes(serialization.Encoding.PEM)


def create_authority(directory: Path | str, label: str) -> AuthorityFiles:
    """Generate a fresh root CA and TSA certificate in ``directory`` (kept if already there).

    Each call with a new directory makes an authority independent of every other (own root key),
    which is how tests mirror "at least two independent authorities".
    """
    files = AuthorityFiles(Path(directory))
    if files.complete():
        return files
    files.directory.mkdir(parents=True, exist_ok=True)
    root_key, tsa_key = ec.generate_private_key(ec.SECP256R1()), ec.generate_private_key(ec.SECP256R1())
    root = _root(label, root_key)
    files.ca_pem.write_bytes(_pem(root))
    files.tsa_crt.write_bytes(_pem(_signer(label, tsa_key, root, root_key)))
    key_pem = tsa_key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    _write_private(files.tsa_key, key_pem)
    files.serial.write_text("01\n", encoding="ascii")
    log.info("local_tsa.created", directory=str(files.directory), label=label)
    return files


def _overwrite(path: Path, data: bytes) -> None:
    """Replace a small file's bytes in place, never truncating it to zero first: ext4 flushes a file that
    was truncated to zero and written again when it is closed (auto_da_alloc), which made the serial
    counter, written for every token, cost a disk flush each. The counter only grows, so the new text
    is never shorter; ``ftruncate`` to its length covers any other case."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o666)
    try:
        os.pwrite(fd, data, 0)
        os.ftruncate(fd, len(data))
    finally:
        os.close(fd)


def _write_private(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)


class LocalTsa:
    """One local authority: in-process replies, an HTTP server, and the StampBackend protocol."""

    kind: BackendKind = "rfc3161"

    def __init__(self, name: str, files: AuthorityFiles, clock: Clock | None = None) -> None:
        if not files.complete():
            raise StampError(f"local authority {name}: files missing in {files.directory}",
                             fix="call create_authority(directory, label) first")
        self.name = name
        self.files = files
        self.clock: Clock = clock or SystemClock()
        self._lock = threading.Lock()
        self._signer_seen: tuple[tuple[Identity, Identity], Signer] | None = None

    @classmethod
    def at(cls, directory: Path, name: str, clock: Clock | None = None) -> LocalTsa:
        """The authority kept in ``directory``, created there on first use."""
        return cls(name, create_authority(directory, name), clock)

    def reply(self, query: bytes) -> bytes:
        """Answer a DER time-stamp query with a DER reply signed at the clock's time."""
        with self._lock:
            signer = self._signer()
            return sign_reply(query, signer, self.clock.now(), self._next_serial())

    def _signer(self) -> Signer:
        """The signing certificate and key, read once while both files keep their identity."""
        try:
            ident = (identity(self.files.tsa_crt), identity(self.files.tsa_key))
        except OSError:
            return self._read_signer()
        if self._signer_seen is None or self._signer_seen[0] != ident:
            self._signer_seen = (ident, self._read_signer())
        return self._signer_seen[1]

    def _read_signer(self) -> Signer:
        cert = x509.load_pem_x509_certificate(self.files.tsa_crt.read_bytes())
        key = serialization.load_pem_private_key(self.files.tsa_key.read_bytes(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey):
            raise StampError(f"{self.name}: {self.files.tsa_key} is not an EC key")
        return Signer(cert, key, POLICY_OID)

    def _next_serial(self) -> int:
        """Serial numbers from the authority's ``serial`` file (hex, as openssl kept it), one up per token."""
        try:
            current = int(self.files.serial.read_text(encoding="ascii").strip() or "1", 16)
        except (OSError, ValueError):
            current = 1
        _overwrite(self.files.serial, f"{current + 1:02X}\n".encode("ascii"))
        return current

    def stamp(self, data: bytes) -> Artifact:
        """The in-process path: same request builder and checks as the HTTP client."""
        req = build_request(data)
        body = self.reply(req.as_bytes())
        resp = decode_reply(body, self.name)
        if resp.tst_info.message_imprint.message != req.message_imprint.message:
            raise StampError(f"{self.name}: token is over a different digest")
        return token_artifact(self.name, resp, body)

    @contextmanager
    def serve(self, port: int = 0) -> Iterator[str]:
        """Serve RFC 3161 over HTTP on 127.0.0.1; yields the URL to POST queries to."""
        server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                  name=f"local-tsa-{self.name}", daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/tsr"
        finally:
            server.shutdown()
            server.server_close()
            thread.join(timeout=5)


def _handler_for(tsa: LocalTsa) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
            length = int(self.headers.get("Content-Length", "0"))
            query = self.rfile.read(length)
            if self.headers.get("Content-Type", "") != "application/timestamp-query":
                self._send(415, b"expected application/timestamp-query", "text/plain")
                return
            try:
                self._send(200, tsa.reply(query), "application/timestamp-reply")
            except StampError as exc:
                self._send(400, exc.message.encode(), "text/plain")

        def _send(self, code: int, body: bytes, ctype: str) -> None:
            self.send_response(code)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - stdlib signature
            log.debug("local_tsa.http", authority=tsa.name, line=format % args)

    return Handler

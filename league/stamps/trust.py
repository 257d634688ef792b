"""Trust anchors for RFC 3161 tokens: the reader's own store decides, never the folder it checks.

A token proves a time to an outsider only if its signer chains to a root the *reader* trusts: the
system CA bundle, the public authorities pinned in this project (``league/stamps/anchors/``, each root
pinned by the SHA-256 of its DER), or a PEM the reader passes. Certificates published inside the
verified folder are the operator's word: an operator can mint a root, sign any time with it and
publish that root beside the tokens. They are used only when the reader asks for it, and the result
is then labelled "declared by the operator" (docs/stamps.md, "Trust anchors").
"""

from __future__ import annotations

import hashlib
import ssl
import tomllib
import warnings
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Literal

from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.x509.verification import Criticality, ExtensionPolicy, PolicyBuilder, Store
from cryptography.x509.verification import VerificationError as VerificationError509
from rfc3161_client import TimeStampResponse, VerificationError, VerifierBuilder

from league.stamps.interface import StampError
from league.stamps.rfc3161 import decode_reply, facts_of, load_certs, signer_certificate

ANCHORS_DIR = Path(__file__).resolve().parent / "anchors"
#: Where the token's signer chains to: a root of the reader's store, a root found in the folder
#: (the operator's word), or nothing.
Anchor = Literal["reader", "operator"]


@dataclass(frozen=True)
class PinnedAuthority:
    """A public RFC 3161 authority shipped as a default, with the root its signer chains to."""

    name: str
    url: str
    root: Path
    sha256: str


def pinned_authorities(directory: Path = ANCHORS_DIR) -> list[PinnedAuthority]:
    """The pinned list; a root file whose DER fingerprint is not the pinned one is refused."""
    doc = tomllib.loads((directory / "authorities.toml").read_text(encoding="utf-8"))
    out = []
    for item in doc.get("authority", []):
        auth = PinnedAuthority(item["name"], item["url"], directory / item["root"], item["sha256"].lower())
        got = fingerprint(load_certs(auth.root)[0])
        if got != auth.sha256:
            raise StampError(f"pinned root {auth.root.name} has fingerprint {got}, authorities.toml pins {auth.sha256}",
                             fix="restore the file from the release; never edit a pinned root in place")
        out.append(auth)
    return out


def fingerprint(cert: x509.Certificate) -> str:
    return hashlib.sha256(cert.public_bytes(serialization.Encoding.DER)).hexdigest()


def system_bundle() -> Path | None:
    """The system CA bundle OpenSSL uses (Debian: /etc/ssl/certs/ca-certificates.crt), if present."""
    paths = ssl.get_default_verify_paths()
    for candidate in (paths.cafile, paths.openssl_cafile, "/etc/ssl/certs/ca-certificates.crt"):
        if candidate and Path(candidate).is_file():
            return Path(candidate)
    return None


@dataclass(frozen=True)
class TrustStore:
    """The roots a reader trusts, and a sentence saying where they came from."""

    roots: tuple[x509.Certificate, ...]
    described: str

    @classmethod
    def default(cls, extra: Sequence[Path] = (), *, system: bool = True) -> TrustStore:
        """System bundle (unless ``system=False``) + pinned authorities + the reader's own PEMs."""
        parts: list[str] = []
        roots: list[x509.Certificate] = []
        bundle = system_bundle() if system else None
        if bundle is not None:
            with warnings.catch_warnings():  # a few old roots have a non-positive serial; they still load
                warnings.simplefilter("ignore")
                found = load_certs(bundle)
            roots += found
            parts.append(f"system CA bundle {bundle} ({len(found)} roots)")
        pinned = pinned_authorities()
        roots += [load_certs(a.root)[0] for a in pinned]
        parts.append(f"{len(pinned)} pinned public authorities ({', '.join(a.name for a in pinned)})")
        for path in extra:
            roots += load_certs(Path(path))
            parts.append(f"reader anchor {path}")
        return cls(tuple(_unique(roots)), " + ".join(parts))

    def write_bundle(self, path: Path) -> Path:
        """All roots as one PEM file, for ``openssl ts -verify -CAfile``."""
        path.write_bytes(b"".join(c.public_bytes(serialization.Encoding.PEM) for c in self.roots))
        return path


@dataclass(frozen=True)
class TokenCheck:
    """A verified token: its signed time, what anchors it, and the anchoring certificates."""

    signed_time: datetime
    anchor: Anchor
    signer: x509.Certificate
    intermediates: tuple[x509.Certificate, ...]
    root: x509.Certificate

    def chain_pem(self) -> bytes:
        """The anchoring root then the intermediates: what ``proof/tsa/<a>/ca.pem`` publishes."""
        return b"".join(c.public_bytes(serialization.Encoding.PEM) for c in (self.root, *self.intermediates))


def check_token(token: bytes, data: bytes, store: TrustStore, *, folder_ca: Path | None, folder_tsa: Path | None,
                authority: str) -> TokenCheck:
    """Verify a token over ``data``: its signer's chain first against the reader's store, then
    (labelled "operator") against the folder's own root; a token neither accepts raises :class:`StampError`.

    The chain is built by ``cryptography``'s path validation, which treats every certificate of the
    token or the folder as untrusted; only then is the token's signature checked with ``rfc3161-client``
    given exactly that chain (it trusts whatever intermediates it is given, so it never sees others)."""
    resp = decode_reply(token, authority)
    folder_roots = load_certs(folder_ca) if folder_ca is not None and folder_ca.is_file() else []
    signer = _signer(resp, folder_tsa, authority)
    when = facts_of(resp, authority).signed_time
    untrusted = [c for c in _unique([*_embedded(resp), *folder_roots]) if fingerprint(c) != fingerprint(signer)]
    anchor: Anchor = "reader"
    chain, why = _chain(signer, untrusted, store.roots, when)
    if chain is None and folder_roots:
        anchor = "operator"
        chain, _ = _chain(signer, untrusted, folder_roots, when)
    if chain is None:
        raise StampError(f"{authority}: its certificate chains to no trusted root ({why})")
    problem = _verify(resp, data, signer, chain[1:-1], chain[-1:])
    if problem is not None:
        raise StampError(f"{authority}: token does not verify ({problem})")
    return TokenCheck(when, anchor, signer, tuple(chain[1:-1]), chain[-1])


def _chain(signer: x509.Certificate, untrusted: list[x509.Certificate], roots: Sequence[x509.Certificate],
           when: datetime) -> tuple[list[x509.Certificate] | None, str]:
    """The validated path signer → … → root at the token's signed time, or None and why."""
    if not roots:
        return None, "no root to check against"
    ca_policy = ExtensionPolicy.permit_all().require_present(x509.BasicConstraints, Criticality.AGNOSTIC, None)
    builder = PolicyBuilder().store(Store(list(roots))).time(when).extension_policies(
        ca_policy=ca_policy, ee_policy=ExtensionPolicy.permit_all())
    try:
        return list(builder.build_client_verifier().verify(signer, untrusted).chain), ""
    except (VerificationError509, ValueError) as exc:
        return None, str(exc)


def _signer(resp: TimeStampResponse, folder_tsa: Path | None, authority: str) -> x509.Certificate:
    if folder_tsa is not None and folder_tsa.is_file():
        return load_certs(folder_tsa)[0]
    cert = signer_certificate(resp)
    if cert is None:
        raise StampError(f"{authority}: the token carries no signing certificate and none is published")
    return cert


def _embedded(resp: TimeStampResponse) -> list[x509.Certificate]:
    return [x509.load_der_x509_certificate(der) for der in resp.signed_data.certificates]


def _verify(resp: TimeStampResponse, data: bytes, signer: x509.Certificate, inter: Iterable[x509.Certificate],
            roots: Sequence[x509.Certificate]) -> str | None:
    """None if the token verifies with these roots, else the verifier's reason."""
    if not roots:
        return "no root to check against"
    builder = VerifierBuilder(tsa_certificate=signer, intermediates=list(inter), roots=list(roots))
    try:
        builder.build().verify_message(resp, data)
    except (VerificationError, ValueError) as exc:
        return str(exc)
    return None


def _unique(certs: Iterable[x509.Certificate]) -> list[x509.Certificate]:
    seen: dict[str, x509.Certificate] = {}
    for cert in certs:
        seen.setdefault(fingerprint(cert), cert)
    return list(seen.values())

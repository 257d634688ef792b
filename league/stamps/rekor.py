"""The transparency log: a Sigstore Rekor ``hashedrekord`` entry per stamped list.

Rekor has no hash-only entry type, so the league signs each list's bytes (ECDSA P-256, SHA-256)
with its own signing key; the entry carries the digest, the signature and the public key. The
client is a small httpx client (the ``sigstore`` package's Rekor client is private API).

What an entry proves and what it does not is written down in ``docs/stamps.md``. In short: it
shows the key holder presented this digest to a log the operator does not run, at the log's
``integratedTime``, and the inclusion proof ties the entry to one tree head; it says nothing about
whether the list's content is true, and the time is Rekor's word (no RFC 3161 token).
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from league.jsonvalue import Json, JsonObject
from league.stamps.filecache import loaded
from league.stamps.interface import Artifact, BackendKind, StampError

ENTRIES_PATH = "/api/v1/log/entries"
#: The logID of Sigstore's public Rekor (rekor.sigstore.dev): SHA-256 of its public key.
PUBLIC_REKOR_LOG_ID = "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d"


# ------------------------------------------------------------------------------ the signing key
def public_key_path(private_path: Path) -> Path:
    """``keys/league-signing.pem`` → ``keys/league-signing.pub.pem`` (the file that gets published)."""
    return private_path.with_name(private_path.stem + ".pub.pem")


def generate_signing_key(path: Path | str) -> Path:
    """Make the league's ECDSA P-256 signing key (``league init``); returns the public key's path.

    Refuses to overwrite an existing key: replacing it would orphan every published entry.
    """
    path = Path(path)
    if path.exists():
        raise StampError(f"signing key {path} already exists; refusing to overwrite it",
                         fix="keep the key (published entries name its public half) or move it away first")
    path.parent.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption())
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as fh:
        fh.write(pem)
    pub = public_key_path(path)
    pub.write_bytes(public_pem(key))
    return pub


def load_signing_key(path: Path) -> ec.EllipticCurvePrivateKey:
    try:
        key = serialization.load_pem_private_key(path.read_bytes(), password=None)
    except FileNotFoundError:
        raise StampError(f"signing key {path} not found", fix="run `league init` to make one") from None
    except ValueError as exc:
        raise StampError(f"signing key {path} is not a PEM private key ({exc})") from exc
    if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
        raise StampError(f"signing key {path} is not an ECDSA P-256 key")
    return key


def public_pem(key: ec.EllipticCurvePrivateKey) -> bytes:
    return key.public_key().public_bytes(serialization.Encoding.PEM,
                                         serialization.PublicFormat.SubjectPublicKeyInfo)


# ------------------------------------------------------------------------------ entry format
def build_entry(data: bytes, key: ec.EllipticCurvePrivateKey) -> JsonObject:
    """The ``hashedrekord`` 0.0.1 proposal: SHA-256 of ``data``, a signature over ``data``, the public key."""
    signature = key.sign(data, ec.ECDSA(hashes.SHA256()))
    return {
        "apiVersion": "0.0.1",
        "kind": "hashedrekord",
        "spec": {
            "signature": {
                "content": base64.b64encode(signature).decode("ascii"),
                "publicKey": {"content": base64.b64encode(public_pem(key)).decode("ascii")},
            },
            "data": {"hash": {"algorithm": "sha256", "value": hashlib.sha256(data).hexdigest()}},
        },
    }


@dataclass(frozen=True)
class RekorEntry:
    """One log entry as Rekor returns it (``{uuid: {body, integratedTime, logID, logIndex, verification}}``)."""

    uuid: str
    log_index: int
    integrated_time: int
    log_id: str
    body: dict[str, Any]
    body_b64: str
    inclusion: dict[str, Any] | None

    @property
    def integrated_at(self) -> datetime:
        return datetime.fromtimestamp(self.integrated_time, UTC)

    @property
    def digest_hex(self) -> str:
        return str(self.body["spec"]["data"]["hash"]["value"])


def parse_response(payload: Any) -> RekorEntry:
    """Read the first entry of a Rekor answer; a clear StampError when a field is missing or wrong."""
    if not isinstance(payload, dict) or not payload:
        raise StampError("Rekor answer is not an object keyed by entry UUID")
    uuid, entry = next(iter(payload.items()))
    try:
        body_b64 = str(entry["body"])
        body = json.loads(base64.b64decode(body_b64, validate=True))
        inclusion = (entry.get("verification") or {}).get("inclusionProof")
        return RekorEntry(str(uuid), int(entry["logIndex"]), int(entry["integratedTime"]), str(entry["logID"]),
                          body, body_b64, inclusion)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StampError(f"Rekor entry {uuid} is malformed ({exc.__class__.__name__}: {exc})") from exc


# ------------------------------------------------------------------------------ offline checks
def leaf_hash(body: bytes) -> bytes:
    """RFC 6962 leaf hash: SHA-256(0x00 || entry body)."""
    return hashlib.sha256(b"\x00" + body).digest()


def _node(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def root_from_inclusion(index: int, size: int, leaf: bytes, path: list[bytes]) -> bytes:
    """RFC 9162 §2.1.3.2: recompute the tree root from a leaf and its inclusion path."""
    if not 0 <= index < size:
        raise StampError(f"inclusion proof index {index} is outside a tree of size {size}")
    fn, sn, r = index, size - 1, leaf
    for p in path:
        if sn == 0:
            raise StampError("inclusion proof is longer than the tree is deep")
        if fn & 1 or fn == sn:
            r = _node(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = _node(r, p)
        fn, sn = fn >> 1, sn >> 1
    if sn != 0:
        raise StampError("inclusion proof is shorter than the tree is deep")
    return r


def verify_entry(entry: RekorEntry, data: bytes, public_key: bytes | None = None) -> str:
    """Check an entry against the list it should log; returns a one-line summary or raises StampError."""
    digest = hashlib.sha256(data).hexdigest()
    spec = entry.body.get("spec", {})
    if entry.body.get("kind") != "hashedrekord":
        raise StampError(f"Rekor entry {entry.log_index} is a {entry.body.get('kind')!r}, not a hashedrekord")
    if entry.digest_hex != digest:
        raise StampError(f"Rekor entry {entry.log_index} logs sha256 {entry.digest_hex}, the list is {digest}")
    logged_key = base64.b64decode(spec["signature"]["publicKey"]["content"])
    if public_key is not None and _key_der(logged_key) != _key_der(public_key):
        raise StampError(f"Rekor entry {entry.log_index} was signed by a key other than the published league key")
    _check_signature(logged_key, base64.b64decode(spec["signature"]["content"]), data, entry.log_index)
    _check_leaf(entry)
    return f"logIndex {entry.log_index}, integrated {entry.integrated_at:%Y-%m-%dT%H:%M:%SZ}"


def _key_der(pem: bytes) -> bytes:
    try:
        key = serialization.load_pem_public_key(pem)
    except ValueError as exc:
        raise StampError(f"not a PEM public key ({exc})") from exc
    return key.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)


def _check_signature(pem: bytes, signature: bytes, data: bytes, index: int) -> None:
    key = serialization.load_pem_public_key(pem)
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise StampError(f"Rekor entry {index}: the logged key is not an EC key")
    try:
        key.verify(signature, data, ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise StampError(f"Rekor entry {index}: the signature does not verify over the list") from None


def _check_leaf(entry: RekorEntry) -> None:
    """The UUID ends with the leaf hash of the body; the inclusion proof leads to its root hash."""
    leaf = leaf_hash(base64.b64decode(entry.body_b64))
    if not entry.uuid.endswith(leaf.hex()):
        raise StampError(f"Rekor entry {entry.log_index}: UUID does not match the body's leaf hash")
    proof = entry.inclusion
    if not proof:
        return
    try:
        path = [bytes.fromhex(h) for h in proof["hashes"]]
        root = root_from_inclusion(int(proof["logIndex"]), int(proof["treeSize"]), leaf, path)
        expected = bytes.fromhex(proof["rootHash"])
    except (KeyError, TypeError, ValueError) as exc:
        raise StampError(f"Rekor entry {entry.log_index}: inclusion proof is malformed ({exc})") from exc
    if root != expected:
        raise StampError(f"Rekor entry {entry.log_index}: inclusion proof does not lead to root {proof['rootHash']}")


# ------------------------------------------------------------------------------ the client
class RekorBackend:
    """POST a hashedrekord and keep Rekor's answer (``.rekor.json``) beside the list."""

    kind: BackendKind = "rekor"
    name = "rekor"

    def __init__(self, url: str, key_path: Path, *, timeout: float = 15.0,
                 client: httpx.Client | None = None) -> None:
        self.url = url.rstrip("/")
        self.key_path = key_path
        self.timeout = timeout
        self._client = client or httpx.Client(timeout=timeout)

    def stamp(self, data: bytes) -> Artifact:
        proposal = build_entry(data, loaded(self.key_path, load_signing_key))
        payload = self._submit(proposal)
        entry = parse_response(payload)
        verify_entry(entry, data)
        return Artifact(kind="rekor", name="rekor", suffix=".rekor.json",
                        data=json.dumps(payload, indent=1, sort_keys=True).encode("utf-8") + b"\n",
                        signed_time=entry.integrated_at, log_index=entry.log_index,
                        detail=f"{self.url} logIndex {entry.log_index}")

    def _submit(self, proposal: JsonObject) -> Json:
        r = self._request("POST", self.url + ENTRIES_PATH, payload=proposal)
        if r.status_code == 409 and r.headers.get("location"):
            r = self._request("GET", httpx.URL(self.url).join(r.headers["location"]))
        if r.status_code not in (200, 201):
            raise StampError(f"Rekor {self.url} answered HTTP {r.status_code}: {r.text[:300]}")
        try:
            answer: Json = r.json()
        except ValueError as exc:
            raise StampError(f"Rekor {self.url} answered with something that is not JSON ({exc})") from exc
        return answer

    def _request(self, method: str, url: str | httpx.URL, *, payload: Json = None,
                 params: dict[str, int] | None = None) -> httpx.Response:
        """One call to the log (httpx's own defaults for a body and parameters not given)."""
        try:
            return self._client.request(method, url, timeout=self.timeout, json=payload, params=params)
        except httpx.HTTPError as exc:
            raise StampError(f"cannot reach Rekor at {self.url} ({exc.__class__.__name__}: {exc})") from exc

    def get_by_index(self, index: int) -> RekorEntry:
        """Look an entry up again (``GET /api/v1/log/entries?logIndex=N``), e.g. for a reader's check."""
        r = self._request("GET", self.url + ENTRIES_PATH, params={"logIndex": index})
        if r.status_code != 200:
            raise StampError(f"Rekor {self.url} has no entry {index} (HTTP {r.status_code})")
        return parse_response(r.json())

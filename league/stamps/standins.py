"""Local stand-ins for the public stamp services, on 127.0.0.1, for the offline demo.

The demo cannot reach the public OpenTimestamps calendars or Sigstore's Rekor, but the reader's
steps 6 and 10 should still run on a demo folder. These stand-ins speak the real wire formats, so
the league's own backends (:mod:`league.stamps.ots`, :mod:`league.stamps.rekor`) are exercised
unchanged, and what they publish is checked by ``league verify`` like a live league's proofs:

- :class:`LocalCalendar`: ``POST /digest`` answers a pending ``.ots`` fragment (a nonce, SHA-256,
  a pending attestation naming this calendar); ``GET /timestamp/<hex>`` always answers "pending":
  there is no Bitcoin here, so a demo never claims level 2.
- :class:`LocalRekor`: ``POST /api/v1/log/entries`` checks the ``hashedrekord`` proposal (the
  signature over the digest with the given key), appends it to an RFC 6962 Merkle tree and answers
  with a real inclusion proof, ``integratedTime`` from the league's clock and the stand-in's own
  ``logID`` (:data:`LOCAL_LOG_ID`), which ``league verify`` reports as not Sigstore's public log.

Both are the operator's own services: they prove nothing to an outsider, and the docs say so.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import socket
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed
from opentimestamps.core.notary import PendingAttestation
from opentimestamps.core.op import OpAppend, OpSHA256
from opentimestamps.core.serialize import BytesSerializationContext
from opentimestamps.core.timestamp import Timestamp

from league.jsonvalue import JsonObject
from league.stamps.rekor import ENTRIES_PATH, leaf_hash

#: The stand-in log's identity: not the public Rekor's (league.stamps.rekor.PUBLIC_REKOR_LOG_ID).
LOCAL_LOG_ID = hashlib.sha256(b"forecast-league local Rekor stand-in (demo, not a public log)").hexdigest()
#: Entry UUIDs are a tree id (16 hex digits) followed by the leaf hash, as Rekor's are.
TREE_ID = "0000000000000de0"


class _Server(ThreadingHTTPServer):
    """A threading server whose connections' threads are joined when it stops (a connection a client still
    holds open is ended first), so none outlives the stand-in: the demo's parent serves them during the season
    and forks again to publish, which it does only while it runs no other thread (league.demo.fork_safe)."""

    daemon_threads = False
    block_on_close = True

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        super().__init__(("127.0.0.1", 0), handler)
        self._open: set[socket.socket] = set()
        self._open_lock = threading.Lock()

    def process_request(self, request: socket.socket | tuple[bytes, socket.socket],
                        client_address: tuple[str, int]) -> None:
        with self._open_lock:
            if isinstance(request, socket.socket):  # (always: a TCP server's request is its socket)
                self._open.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: socket.socket | tuple[bytes, socket.socket]) -> None:
        with self._open_lock:
            if isinstance(request, socket.socket):
                self._open.discard(request)
        super().shutdown_request(request)

    def end_connections(self) -> None:
        with self._open_lock:
            open_now = list(self._open)
        for sock in open_now:
            with contextlib.suppress(OSError):  # already closed by its client
                sock.shutdown(socket.SHUT_RDWR)


@contextmanager
def _serving(handler: type[BaseHTTPRequestHandler], name: str) -> Iterator[str]:
    server = _Server(handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, name=name, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.end_connections()
        server.server_close()  # joins the connections' threads
        thread.join(timeout=5)


class _Handler(BaseHTTPRequestHandler):
    def _send(self, code: int, body: bytes, ctype: str = "application/octet-stream",
              location: str = "") -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        if location:
            self.send_header("Location", location)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _body(self) -> bytes:
        return self.rfile.read(int(self.headers.get("Content-Length", "0")))

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002 - the stdlib's signature
        pass


# ------------------------------------------------------------------------------ OpenTimestamps
class LocalCalendar:
    """A calendar that only ever has pending commitments (no Bitcoin offline)."""

    def __init__(self) -> None:
        self.url = ""
        self.submitted: list[bytes] = []

    def submit(self, digest: bytes) -> bytes:
        ts = Timestamp(digest)
        tip = ts.ops.add(OpAppend(os.urandom(8))).ops.add(OpSHA256())
        tip.attestations.add(PendingAttestation(self.url))
        self.submitted.append(digest)
        ctx = BytesSerializationContext()
        ts.serialize(ctx)
        return bytes(ctx.getbytes())

    @contextmanager
    def serve(self) -> Iterator[str]:
        calendar = self

        class Handler(_Handler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                body = self._body()
                if self.path != "/digest" or len(body) != 32:
                    self._send(400, b"expected POST /digest with a 32-byte digest")
                    return
                self._send(200, calendar.submit(body))

            def do_GET(self) -> None:  # noqa: N802
                self._send(404, b"Pending confirmation in Bitcoin blockchain")

        with _serving(Handler, "local-calendar") as url:
            self.url = url
            yield url


# ------------------------------------------------------------------------------ Rekor
def tree_root(leaves: list[bytes]) -> bytes:
    """RFC 6962 Merkle tree hash of a non-empty list of leaf hashes."""
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return hashlib.sha256(b"\x01" + tree_root(leaves[:k]) + tree_root(leaves[k:])).digest()


def audit_path(index: int, leaves: list[bytes]) -> list[bytes]:
    """RFC 6962 §2.1.1 PATH(m, D[n]), leaf side first (what ``root_from_inclusion`` walks)."""
    if len(leaves) == 1:
        return []
    k = _split(len(leaves))
    if index < k:
        return [*audit_path(index, leaves[:k]), tree_root(leaves[k:])]
    return [*audit_path(index - k, leaves[k:]), tree_root(leaves[:k])]


def _split(n: int) -> int:
    """The largest power of two below ``n`` (n > 1)."""
    k = 1
    while k * 2 < n:
        k *= 2
    return k


class LocalRekor:
    """An append-only log of hashedrekord entries with real inclusion proofs."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self.url = ""
        self.now = now
        self.leaves: list[bytes] = []
        self._lock = threading.Lock()

    def log(self, proposal: JsonObject) -> JsonObject:
        """Append a checked proposal; Rekor's answer shape ``{uuid: {body, integratedTime, …}}``."""
        check_proposal(proposal)
        body = json.dumps(proposal, sort_keys=True, separators=(",", ":")).encode("utf-8")
        leaf = leaf_hash(body)
        with self._lock:
            self.leaves.append(leaf)
            index, leaves = len(self.leaves) - 1, list(self.leaves)
        proof: JsonObject = {"logIndex": index, "treeSize": len(leaves), "rootHash": tree_root(leaves).hex(),
                 "hashes": [h.hex() for h in audit_path(index, leaves)], "checkpoint": ""}
        entry: JsonObject = {"body": base64.b64encode(body).decode("ascii"),
                             "integratedTime": int(self.now().timestamp()), "logID": LOCAL_LOG_ID, "logIndex": index,
                             "verification": {"inclusionProof": proof}}
        return {TREE_ID + leaf.hex(): entry}

    @contextmanager
    def serve(self) -> Iterator[str]:
        log = self

        class Handler(_Handler):
            def do_POST(self) -> None:  # noqa: N802 - the stdlib's name
                try:
                    if self.path != ENTRIES_PATH:
                        raise ValueError(f"unknown path {self.path}")
                    answer = log.log(json.loads(self._body()))
                except (ValueError, KeyError, TypeError) as exc:
                    self._send(400, json.dumps({"code": 400, "message": str(exc)}).encode(), "application/json")
                    return
                self._send(201, json.dumps(answer).encode(), "application/json")

        with _serving(Handler, "local-rekor") as url:
            self.url = url
            yield url


def check_proposal(proposal: dict[str, Any]) -> None:
    """What Rekor checks of a hashedrekord 0.0.1: its shape, and the signature over the digest."""
    if proposal.get("kind") != "hashedrekord" or proposal.get("apiVersion") != "0.0.1":
        raise ValueError("not a hashedrekord 0.0.1 proposal")
    spec = proposal["spec"]
    if spec["data"]["hash"]["algorithm"] != "sha256":
        raise ValueError("only sha256 digests are logged")
    key = serialization.load_pem_public_key(base64.b64decode(spec["signature"]["publicKey"]["content"]))
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise ValueError("the public key is not an EC key")
    digest = bytes.fromhex(spec["data"]["hash"]["value"])
    try:
        key.verify(base64.b64decode(spec["signature"]["content"]), digest, ec.ECDSA(Prehashed(hashes.SHA256())))
    except InvalidSignature:
        raise ValueError("the signature does not verify over the digest") from None

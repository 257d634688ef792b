"""Local stand-ins on 127.0.0.1 for the network services the stamps talk to.

- an OpenTimestamps calendar (POST /digest, GET /timestamp/<hex>) speaking the real wire format,
  which "mines" a commitment into a made-up block when the test says so;
- a Rekor log (POST /api/v1/log/entries) that checks the proposal and answers with the recorded
  201 answer in tests/assets/stamps/rekor/;
- two independent local RFC 3161 authorities served over HTTP.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from opentimestamps.core.notary import BitcoinBlockHeaderAttestation, PendingAttestation
from opentimestamps.core.op import OpAppend, OpSHA256
from opentimestamps.core.serialize import BytesSerializationContext
from opentimestamps.core.timestamp import Timestamp

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "stamps"
BLOCK_HEIGHT = 900123
BLOCK_TIME = int(datetime(2026, 3, 2, 15, 0, tzinfo=UTC).timestamp())


def _serve(handler: type[BaseHTTPRequestHandler]) -> tuple[ThreadingHTTPServer, str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_address[1]}"


class Calendar:
    """State of the calendar stand-in: commitments received and the block they were mined in."""

    def __init__(self) -> None:
        self.url = ""
        self.commitments: dict[bytes, bytes] = {}  # calendar commitment -> block merkle root (once mined)
        self.submitted: list[bytes] = []
        self.mined = False
        self.fail = False

    def submit(self, digest: bytes) -> bytes:
        ts = Timestamp(digest)
        tip = ts.ops.add(OpAppend(os.urandom(8))).ops.add(OpSHA256())
        tip.attestations.add(PendingAttestation(self.url))
        self.commitments[tip.msg] = b""
        self.submitted.append(digest)
        return _ser(ts)

    def upgrade(self, commitment: bytes) -> bytes | None:
        if not self.mined or commitment not in self.commitments:
            return None
        ts = Timestamp(commitment)
        tip = ts.ops.add(OpAppend(b"block-sibling")).ops.add(OpSHA256())
        tip.attestations.add(BitcoinBlockHeaderAttestation(BLOCK_HEIGHT))
        self.commitments[commitment] = tip.msg
        return _ser(ts)


def _ser(ts: Timestamp) -> bytes:
    ctx = BytesSerializationContext()
    ts.serialize(ctx)
    return bytes(ctx.getbytes())


def _calendar_handler(cal: Calendar) -> type[BaseHTTPRequestHandler]:
    class H(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if cal.fail or self.path != "/digest" or len(body) != 32:
                self._send(500, b"calendar down")
                return
            self._send(200, cal.submit(body))

        def do_GET(self) -> None:  # noqa: N802
            answer = cal.upgrade(bytes.fromhex(self.path.rsplit("/", 1)[-1]))
            self._send(200, answer) if answer else self._send(404, b"Pending confirmation in Bitcoin blockchain")

        def _send(self, code: int, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    return H


@pytest.fixture(scope="module")
def calendar() -> Iterator[Calendar]:
    cal = Calendar()
    server, url = _serve(_calendar_handler(cal))
    cal.url = url
    yield cal
    server.shutdown()
    server.server_close()


class RekorLog:
    def __init__(self) -> None:
        self.url = ""
        self.proposals: list[dict[str, Any]] = []
        self.answer = json.loads((ASSETS / "rekor" / "entry-201.json").read_text())
        self.conflict = False
        self.next_index = 171234568

    def answer_for(self, proposal: dict[str, Any]) -> dict[str, Any]:
        """The recorded answer when the proposal is the recorded one; else one of the same shape."""
        uuid, recorded = next(iter(self.answer.items()))
        logged = json.loads(base64.b64decode(recorded["body"]))
        if logged["spec"]["data"] == proposal["spec"]["data"]:
            return dict(self.answer)
        body = json.dumps(proposal, separators=(",", ":"), sort_keys=True).encode()
        leaf = hashlib.sha256(b"\x00" + body).hexdigest()
        self.next_index += 1
        proof = {"checkpoint": "", "hashes": [], "logIndex": 0, "rootHash": leaf, "treeSize": 1}
        entry = {**recorded, "body": base64.b64encode(body).decode(), "logIndex": self.next_index,
                 "verification": {**recorded["verification"], "inclusionProof": proof}}
        return {uuid[:16] + leaf: entry}


def _rekor_handler(log: RekorLog) -> type[BaseHTTPRequestHandler]:
    class H(BaseHTTPRequestHandler):
        def do_POST(self) -> None:  # noqa: N802
            proposal = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
            log.proposals.append(proposal)
            if not _valid_proposal(proposal):
                self._send(400, {"code": 400, "message": "invalid hashedrekord"})
            elif log.conflict:
                uuid = next(iter(log.answer))
                self._send(409, {"code": 409, "message": "an equivalent entry already exists in the transparency log"},
                           location=f"/api/v1/log/entries/{uuid}")
            else:
                self._send(201, log.answer_for(proposal))

        def do_GET(self) -> None:  # noqa: N802
            self._send(200, log.answer)

        def _send(self, code: int, doc: Any, location: str = "") -> None:
            body = json.dumps(doc).encode()
            self.send_response(code)
            self.send_header("Content-Type", "application/json")
            if location:
                self.send_header("Location", location)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: Any) -> None:
            pass

    return H


def _valid_proposal(p: dict[str, Any]) -> bool:
    """What Rekor checks for a hashedrekord: the signature verifies over the digest with the given key."""
    try:
        spec = p["spec"]
        key = serialization.load_pem_public_key(base64.b64decode(spec["signature"]["publicKey"]["content"]))
        digest = bytes.fromhex(spec["data"]["hash"]["value"])
        from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

        assert isinstance(key, ec.EllipticCurvePublicKey)
        key.verify(base64.b64decode(spec["signature"]["content"]), digest, ec.ECDSA(Prehashed(hashes.SHA256())))
        shape = p["kind"] == "hashedrekord" and p["apiVersion"] == "0.0.1"
        return bool(shape and spec["data"]["hash"]["algorithm"] == "sha256")
    except Exception:
        return False


@pytest.fixture(scope="module")
def rekor() -> Iterator[RekorLog]:
    log = RekorLog()
    server, url = _serve(_rekor_handler(log))
    log.url = url
    yield log
    server.shutdown()
    server.server_close()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()

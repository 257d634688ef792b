"""Rekor hashedrekord: request building, the league key, and parsing the recorded answer."""

from __future__ import annotations

import base64
import hashlib
import json
import stat
from pathlib import Path

import httpx
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

from league.stamps.interface import StampError
from league.stamps.rekor import (
    RekorBackend,
    build_entry,
    generate_signing_key,
    leaf_hash,
    load_signing_key,
    parse_response,
    public_key_path,
    root_from_inclusion,
    verify_entry,
)

REKOR = Path(__file__).resolve().parents[2] / "assets" / "stamps" / "rekor"
LIST = (REKOR / "list.txt").read_bytes()
PUB = (REKOR / "test-signing.pub.pem").read_bytes()


def recorded() -> dict:  # type: ignore[type-arg]
    return json.loads((REKOR / "entry-201.json").read_text())


def test_generate_signing_key(tmp_path: Path) -> None:
    key_file = tmp_path / "keys" / "league-signing.pem"
    pub = generate_signing_key(key_file)
    assert pub == public_key_path(key_file) and pub.name == "league-signing.pub.pem"
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    key = load_signing_key(key_file)
    assert key.curve.name == "secp256r1"
    loaded = serialization.load_pem_public_key(pub.read_bytes())
    assert isinstance(loaded, ec.EllipticCurvePublicKey)
    with pytest.raises(StampError, match="refusing to overwrite"):
        generate_signing_key(key_file)


def test_load_signing_key_errors(tmp_path: Path) -> None:
    with pytest.raises(StampError, match="not found"):
        load_signing_key(tmp_path / "missing.pem")
    (tmp_path / "bad.pem").write_text("nope")
    with pytest.raises(StampError, match="not a PEM"):
        load_signing_key(tmp_path / "bad.pem")


def test_entry_follows_the_hashedrekord_schema() -> None:
    key = load_signing_key(REKOR / "test-signing.pem")
    entry = build_entry(LIST, key)
    assert entry["apiVersion"] == "0.0.1" and entry["kind"] == "hashedrekord"
    assert entry["spec"]["data"] == {"hash": {"algorithm": "sha256", "value": hashlib.sha256(LIST).hexdigest()}}
    assert base64.b64decode(entry["spec"]["signature"]["publicKey"]["content"]) == PUB
    public = serialization.load_pem_public_key(PUB)
    assert isinstance(public, ec.EllipticCurvePublicKey)
    public.verify(base64.b64decode(entry["spec"]["signature"]["content"]), LIST, ec.ECDSA(hashes.SHA256()))


def test_recorded_answer_parses_and_verifies() -> None:
    entry = parse_response(recorded())
    assert entry.log_index == 171234567 and entry.integrated_time == 1772458800
    assert entry.digest_hex == hashlib.sha256(LIST).hexdigest()
    assert verify_entry(entry, LIST, PUB) == "logIndex 171234567, integrated 2026-03-02T13:40:00Z"


def test_entry_for_another_list_is_refused() -> None:
    with pytest.raises(StampError, match="logs sha256"):
        verify_entry(parse_response(recorded()), LIST + b"x", PUB)


def test_entry_signed_by_another_key_is_refused() -> None:
    other = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
    with pytest.raises(StampError, match="key other than the published"):
        verify_entry(parse_response(recorded()), LIST, other)


def test_tampered_inclusion_proof_is_refused() -> None:
    doc = recorded()
    proof = next(iter(doc.values()))["verification"]["inclusionProof"]
    proof["hashes"][0] = "00" * 32
    with pytest.raises(StampError, match="does not lead to root"):
        verify_entry(parse_response(doc), LIST, PUB)


def test_uuid_must_match_the_body() -> None:
    doc = recorded()
    uuid, entry = next(iter(doc.items()))
    with pytest.raises(StampError, match="UUID"):
        verify_entry(parse_response({uuid[:-4] + "0000": entry}), LIST, PUB)


@pytest.mark.parametrize("payload", [[], {}, {"u": {"body": "%%%"}}, {"u": {"logIndex": 1}}, "text"])
def test_malformed_answers_are_stamp_errors(payload: object) -> None:
    with pytest.raises(StampError):
        parse_response(payload)


def test_inclusion_of_a_single_leaf_tree() -> None:
    leaf = leaf_hash(b"body")
    assert root_from_inclusion(0, 1, leaf, []) == leaf
    with pytest.raises(StampError):
        root_from_inclusion(1, 1, leaf, [])
    with pytest.raises(StampError):
        root_from_inclusion(0, 1, leaf, [leaf])


def _transport(answers: list[httpx.Response], seen: list[httpx.Request]) -> httpx.MockTransport:
    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return answers.pop(0)
    return httpx.MockTransport(handle)


def test_backend_posts_the_proposal_and_keeps_the_answer() -> None:
    seen: list[httpx.Request] = []
    client = httpx.Client(transport=_transport([httpx.Response(201, json=recorded())], seen))
    art = RekorBackend("https://rekor.example", REKOR / "test-signing.pem", client=client).stamp(LIST)
    assert seen[0].method == "POST" and seen[0].url.path == "/api/v1/log/entries"
    assert json.loads(seen[0].content)["kind"] == "hashedrekord"
    assert art.log_index == 171234567 and art.suffix == ".rekor.json"
    assert json.loads(art.data) == recorded()


def test_backend_follows_a_conflict_to_the_existing_entry() -> None:
    seen: list[httpx.Request] = []
    answers = [httpx.Response(409, headers={"Location": "/api/v1/log/entries/abc"}, json={"code": 409}),
               httpx.Response(200, json=recorded())]
    client = httpx.Client(transport=_transport(answers, seen))
    art = RekorBackend("https://rekor.example", REKOR / "test-signing.pem", client=client).stamp(LIST)
    assert [r.method for r in seen] == ["POST", "GET"] and seen[1].url.path == "/api/v1/log/entries/abc"
    assert art.log_index == 171234567


def test_backend_reports_http_errors() -> None:
    client = httpx.Client(transport=_transport([httpx.Response(400, json={"message": "bad"})], []))
    with pytest.raises(StampError, match="HTTP 400"):
        RekorBackend("https://rekor.example", REKOR / "test-signing.pem", client=client).stamp(LIST)

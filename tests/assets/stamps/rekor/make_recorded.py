"""Write the recorded Rekor answer used by tests/unit/stamps/test_stamps_rekor.py (run once, kept as data).

There is no network here, so this builds the answer Rekor's API (POST /api/v1/log/entries, 201)
gives for a hashedrekord entry, field by field per its OpenAPI schema: {uuid: {body, integratedTime,
logID, logIndex, verification: {inclusionProof, signedEntryTimestamp}}}. The body, UUID (tree id +
RFC 6962 leaf hash) and inclusion proof are computed here independently of the league's code (plain
hashlib, an RFC 6962 tree of 8 leaves). The checkpoint signature and signedEntryTimestamp are
placeholders: they would need Rekor's private key, and the league does not check them offline.
"""

import base64
import hashlib
import json
from pathlib import Path

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec

HERE = Path(__file__).parent
key = serialization.load_pem_private_key((HERE / "test-signing.pem").read_bytes(), password=None)
data = (HERE / "list.txt").read_bytes()
pub = key.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
body = {
    "apiVersion": "0.0.1",
    "kind": "hashedrekord",
    "spec": {
        "data": {"hash": {"algorithm": "sha256", "value": hashlib.sha256(data).hexdigest()}},
        "signature": {
            "content": base64.b64encode(key.sign(data, ec.ECDSA(hashes.SHA256()))).decode(),
            "publicKey": {"content": base64.b64encode(pub).decode()},
        },
    },
}
body_bytes = json.dumps(body, separators=(",", ":"), sort_keys=True).encode()


def h(b):
    return hashlib.sha256(b).digest()


def mth(leaves):
    if len(leaves) == 1:
        return leaves[0]
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    return h(b"\x01" + mth(leaves[:k]) + mth(leaves[k:]))


def path(m, leaves):
    if len(leaves) == 1:
        return []
    k = 1
    while k * 2 < len(leaves):
        k *= 2
    if m < k:
        return path(m, leaves[:k]) + [mth(leaves[k:])]
    return path(m - k, leaves[k:]) + [mth(leaves[:k])]


INDEX, SIZE = 5, 8
leaves = [h(b"\x00" + f"other entry {i}".encode()) for i in range(SIZE)]
leaf = h(b"\x00" + body_bytes)
leaves[INDEX] = leaf
root = mth(leaves)
tree_id = "24296fb24b8ad77a"
uuid = tree_id + leaf.hex()
checkpoint = (f"rekor.sigstore.dev - 2605736670972794746\n{SIZE}\n{base64.b64encode(root).decode()}\n\n"
              "\u2014 rekor.sigstore.dev wNI9ajBFAiEA-placeholder-not-a-real-signature\n")
answer = {
    uuid: {
        "body": base64.b64encode(body_bytes).decode(),
        "integratedTime": 1772458800,
        "logID": "c0d23d6ad406973f9559f3ba2d1ca01f84147d8ffc5b8445c224f98b9591801d",
        "logIndex": 171234567,
        "verification": {
            "inclusionProof": {
                "checkpoint": checkpoint,
                "hashes": [p.hex() for p in path(INDEX, leaves)],
                "logIndex": INDEX,
                "rootHash": root.hex(),
                "treeSize": SIZE,
            },
            "signedEntryTimestamp": base64.b64encode(b"placeholder: Rekor's signature over the entry").decode(),
        },
    }
}
(HERE / "entry-201.json").write_text(json.dumps(answer, indent=2) + "\n")

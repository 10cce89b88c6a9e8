"""A software passkey for the functions tier: an ES256 key pair that answers WebAuthn's
`create` (attestation "none") and `get` as a platform authenticator would, built with
`cryptography` and `cbor2` (what the `webauthn` package verifies)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import struct

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SoftPasskey:
    """One authenticator holding resident credentials (rp id -> (credential id, key, user handle))."""

    def __init__(self) -> None:
        self.creds: dict[str, tuple[bytes, ec.EllipticCurvePrivateKey, bytes]] = {}
        self.count = 0

    def _client_data(self, kind: str, challenge: str, origin: str) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge, "origin": origin, "crossOrigin": False}).encode()

    def create(self, options: dict, origin: str) -> dict:
        rp_id = options["rp"]["id"]
        cred_id = os.urandom(32)
        key = ec.generate_private_key(ec.SECP256R1())
        nums = key.public_key().public_numbers()
        cose = cbor2.dumps({1: 2, 3: -7, -1: 1, -2: nums.x.to_bytes(32, "big"), -3: nums.y.to_bytes(32, "big")})
        self.creds[rp_id] = (cred_id, key, unb64url(options["user"]["id"]))
        auth_data = (
            hashlib.sha256(rp_id.encode()).digest()
            + bytes([0x01 | 0x04 | 0x40])  # user present, verified, attested credential data
            + struct.pack(">I", self.count)
            + bytes(16)  # AAGUID
            + struct.pack(">H", len(cred_id))
            + cred_id
            + cose
        )
        att = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth_data})
        client = self._client_data("webauthn.create", options["challenge"], origin)
        return {
            "id": b64url(cred_id),
            "rawId": b64url(cred_id),
            "type": "public-key",
            "response": {"clientDataJSON": b64url(client), "attestationObject": b64url(att), "transports": ["internal"]},
            "clientExtensionResults": {},
        }

    def get(self, options: dict, origin: str, rp_id: str | None = None) -> dict:
        rp_id = rp_id or options["rpId"]
        cred_id, key, handle = self.creds[rp_id]
        self.count += 1
        auth_data = hashlib.sha256(rp_id.encode()).digest() + bytes([0x05]) + struct.pack(">I", self.count)
        client = self._client_data("webauthn.get", options["challenge"], origin)
        sig = key.sign(auth_data + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {
            "id": b64url(cred_id),
            "rawId": b64url(cred_id),
            "type": "public-key",
            "response": {
                "clientDataJSON": b64url(client),
                "authenticatorData": b64url(auth_data),
                "signature": b64url(sig),
                "userHandle": b64url(handle),
            },
            "clientExtensionResults": {},
        }

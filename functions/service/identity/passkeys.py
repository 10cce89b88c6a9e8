"""Passkeys: WebAuthn registration and authentication, verified here with `webauthn` (PyPI).

**Relying party.** The RP id is the site's domain: `WEBAUTHN_RP_ID` (template.yaml: the stack's
`DomainName`) when set, and then a ceremony's `Origin` must be `https://<rp id>` (or one of
`WEBAUTHN_ORIGINS`); when unset (the stack's CloudFront domain, `make dev`), the RP id is the
host of the request's `Origin` (https, or http on `localhost`). That is safe because a passkey is
bound to the RP id it was made for (kept with it, `rp`): a sign-in is verified against the
passkey's own RP id and origin, which only a page of that origin can make the browser assert.

**Challenges** are kept server-side (`Store.put_challenge`, `CHALLENGE_TTL`), single use
(`Store.take_challenge` deletes as it reads) and bound to their ceremony, RP and origin.

**Discoverable credentials.** A passkey is made with `residentKey: required`; its user handle is
the person id, so sign-in needs no name: the assertion's `userHandle` names the person, whose
stored passkey (`Store.credential`) verifies it. Nothing personal is asked or kept: the
passkey's user name is "Mafia" and a short prefix of the person id.

`webauthn` is imported on first use: the other REST routes keep their cold start.
"""

from __future__ import annotations

import base64
import json
import os
import secrets
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

from ..infra.errors import ServiceError

CHALLENGE_TTL = 300  # seconds a ceremony may take (the options' own timeout is 120 s)
TIMEOUT_MS = 120_000
RP_NAME = "Mafia"
MAX_CREDENTIAL_BYTES = 16_000  # a credential's JSON as the client sends it


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class RelyingParty:
    id: str
    origin: str


def relying_party(origin: str | None, env: dict | None = None) -> RelyingParty:
    """The RP a ceremony from `origin` (the request's `Origin` header) runs for; 400
    `passkey_origin` for an origin passkeys may not be used from."""
    env = os.environ if env is None else env
    bad = ServiceError("passkey_origin", "passkeys work from the site's own address only")
    if not origin:
        raise bad
    parts = urlsplit(origin.strip())
    host = (parts.hostname or "").lower()
    if not host or parts.path not in ("", "/"):
        raise bad
    plain = f"{parts.scheme}://{parts.netloc}"
    pinned = env.get("WEBAUTHN_RP_ID", "").strip().lower()
    if pinned:
        allowed = {f"https://{pinned}"} | {
            o.strip().rstrip("/") for o in env.get("WEBAUTHN_ORIGINS", "").split(",") if o.strip()
        }
        if plain not in allowed:
            raise bad
        return RelyingParty(pinned, plain)
    if parts.scheme == "https" or (parts.scheme == "http" and host == "localhost"):
        return RelyingParty(host, plain)
    raise bad


def registration_options(rp: RelyingParty, person_id: str, existing: list[dict]) -> tuple[dict, str]:
    """(the `PublicKeyCredentialCreationOptions` as JSON for `navigator.credentials.create`,
    the challenge, base64url)."""
    import webauthn
    from webauthn.helpers.structs import (
        AuthenticatorSelectionCriteria,
        PublicKeyCredentialDescriptor,
        ResidentKeyRequirement,
        UserVerificationRequirement,
    )

    opts = webauthn.generate_registration_options(
        rp_id=rp.id,
        rp_name=RP_NAME,
        user_name=f"Mafia {person_id[:6]}",
        user_display_name=f"Mafia {person_id[:6]}",
        user_id=person_id.encode("ascii"),
        timeout=TIMEOUT_MS,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED,
        ),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=unb64url(c["id"])) for c in existing],
    )
    return json.loads(webauthn.options_to_json(opts)), b64url(opts.challenge)


def authentication_options(rp: RelyingParty) -> tuple[dict, str]:
    """(the `PublicKeyCredentialRequestOptions` as JSON for `navigator.credentials.get`: no
    allowed list, the browser offers the site's passkeys, the challenge, base64url)."""
    import webauthn
    from webauthn.helpers.structs import UserVerificationRequirement

    opts = webauthn.generate_authentication_options(
        rp_id=rp.id, timeout=TIMEOUT_MS, user_verification=UserVerificationRequirement.PREFERRED
    )
    return json.loads(webauthn.options_to_json(opts)), b64url(opts.challenge)


def _refused(exc: Exception) -> ServiceError:
    return ServiceError("passkey_refused", "the passkey's answer did not verify", 401)


def verify_registration(credential: dict, challenge: str, rp: RelyingParty, now: int) -> dict:
    """The passkey a registration response makes (what `Store.put_credential` keeps), or 401
    `passkey_refused`."""
    import webauthn

    try:
        out = webauthn.verify_registration_response(
            credential=credential,
            expected_challenge=unb64url(challenge),
            expected_rp_id=rp.id,
            expected_origin=rp.origin,
        )
    except Exception as exc:  # the library's InvalidRegistrationResponse, and any malformed part
        raise _refused(exc) from None
    return {
        "id": b64url(out.credential_id),
        "publicKey": b64url(out.credential_public_key),
        "signCount": int(out.sign_count),
        "rp": rp.id,
        "origin": rp.origin,
        "created": int(now),
        "lastUsed": int(now),
    }


def user_handle(credential: dict) -> tuple[str, str]:
    """(the person id an assertion's user handle names, its credential id), or 401."""
    try:
        handle = unb64url(credential["response"]["userHandle"]).decode("ascii")
        cred_id = credential["id"]
        if not isinstance(cred_id, str) or len(cred_id) > 1400:
            raise ValueError
        unb64url(cred_id)
    except Exception:
        raise ServiceError("passkey_refused", "the passkey's answer names no account here", 401) from None
    return handle, cred_id


def verify_authentication(credential: dict, challenge: str, stored: dict) -> int:
    """Verify an assertion against the stored passkey (its own RP id and origin); its new sign
    count, or 401 `passkey_refused`."""
    import webauthn

    try:
        out = webauthn.verify_authentication_response(
            credential=credential,
            expected_challenge=unb64url(challenge),
            expected_rp_id=stored["rp"],
            expected_origin=stored["origin"],
            credential_public_key=unb64url(stored["publicKey"]),
            credential_current_sign_count=int(stored["signCount"]),
        )
    except Exception as exc:
        raise _refused(exc) from None
    return int(out.new_sign_count)


def new_challenge_id() -> str:
    return secrets.token_urlsafe(16)


def credential_size_ok(credential: Any) -> bool:
    return isinstance(credential, dict) and len(json.dumps(credential)) <= MAX_CREDENTIAL_BYTES

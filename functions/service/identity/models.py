"""The account routes' bodies and answers (handlers/rest.py `/account...`; docs/protocol.md)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ..protocol.models import Answer, Model

ChallengeId = Annotated[str, Field(pattern=r"^[A-Za-z0-9_-]{22}$")]


class Ceremony(Model):
    """`POST /account/passkeys`, `POST /account/session`: the challenge's id from the options
    and the browser's `PublicKeyCredential`, as JSON (base64url fields)."""

    challengeId: ChallengeId
    credential: dict[str, Any]


class CeremonyOptions(Answer):
    """The options for `navigator.credentials.create` / `get` (base64url binary fields), and the
    challenge's id to send back with the answer (single use, 5 minutes)."""

    challengeId: str
    options: dict[str, Any]


class SignedIn(Answer):
    """A session: send it as `Authorization: Session <session>` until `expires` (Unix seconds)."""

    session: str
    person: str
    expires: int


class PersonInfo(Answer):
    id: str
    created: int
    casualGames: int


class PasskeyInfo(Answer):
    id: str
    created: int
    lastUsed: int


class AccountInfo(Answer):
    """The signed-in person's own account: its id, its counts, its passkeys."""

    person: PersonInfo
    passkeys: list[PasskeyInfo]


class Done(Answer):
    ok: bool = True

"""The account routes' operations (handlers/rest.py `/account...`; docs/protocol.md "Account"):
create a passkey (a new person, or another passkey of the signed-in one), sign in with one,
list them, sign out, delete a passkey, "delete me". Over an injected store, session key and
clock; every refusal is a code and a message, nothing stored.
"""

from __future__ import annotations

from collections.abc import Callable

from ..features import limits
from ..infra.errors import ServiceError
from ..infra.telemetry import count, logger
from . import passkeys, persons, played, sessions

# a ceremony's options write a challenge item: a budget per address (features/limits.py)
CEREMONY = limits.Budget("passkey", window=600, per_device=0, per_ip=60)
SIGNED_OUT = ("signed_out", "sign in first")


class Account:
    def __init__(self, store, key: Callable[[], bytes], now: Callable[[], float]) -> None:
        self.store = store
        self.key = key
        self.now = now

    # ---- who is asking
    def _person(self, session: str | None) -> dict | None:
        if not session:
            return None
        return persons.signed_in(self.store, session, int(self.now()), self.key())

    def _require(self, session: str | None) -> dict:
        person = self._person(session)
        if person is None:
            raise ServiceError(*SIGNED_OUT, 401)
        return person

    def _signed_in(self, person: dict) -> dict:
        token, _, expiry = sessions.issue(person["id"], int(self.now()), self.key())
        return {"session": token, "person": person["id"], "expires": expiry}

    def _challenge(self, challenge_id: str, kind: str) -> dict:
        found = self.store.take_challenge(challenge_id)
        if found is None or found.get("kind") != kind:
            raise ServiceError("challenge_expired", "that sign-in took too long or was used: try again", 400)
        return found

    # ---- registration
    def register_options(self, session: str | None, origin: str | None, ip: str | None) -> dict:
        """Options to create a passkey: for the signed-in person (another passkey) or a new one."""
        rp = passkeys.relying_party(origin)
        person = self._person(session)
        limits.spend(self.store, CEREMONY, None, ip)
        now = int(self.now())
        pid = person["id"] if person else sessions.new_person_id()
        existing = self.store.credentials(pid) if person else []
        options, challenge = passkeys.registration_options(rp, pid, existing)
        cid = passkeys.new_challenge_id()
        data = {"kind": "register", "challenge": challenge, "person": pid, "new": person is None, "rp": rp.id,
                "origin": rp.origin}  # fmt: skip
        self.store.put_challenge(cid, data, now + passkeys.CHALLENGE_TTL)
        return {"challengeId": cid, "options": options}

    def register(self, challenge_id: str, credential: dict, session: str | None, origin: str | None) -> dict:
        rp = passkeys.relying_party(origin)
        ch = self._challenge(challenge_id, "register")
        if (ch["rp"], ch["origin"]) != (rp.id, rp.origin):
            raise ServiceError("passkey_origin", "passkeys work from the site's own address only")
        now = int(self.now())
        if ch["new"]:
            person = persons.new_person(now)
            person["id"] = ch["person"]
        else:
            person = self._require(session)
            if person["id"] != ch["person"]:
                raise ServiceError(*SIGNED_OUT, 401)
        cred = passkeys.verify_registration(credential, ch["challenge"], rp, now)
        if ch["new"]:
            self.store.put_person(person)
            count("PersonsCreated")
        self.store.put_credential(person["id"], cred)
        logger.info("passkey registered", extra={"person": person["id"]})
        return self._signed_in(person)

    # ---- sign-in
    def signin_options(self, origin: str | None, ip: str | None) -> dict:
        rp = passkeys.relying_party(origin)
        limits.spend(self.store, CEREMONY, None, ip)
        options, challenge = passkeys.authentication_options(rp)
        cid = passkeys.new_challenge_id()
        data = {"kind": "signin", "challenge": challenge, "rp": rp.id, "origin": rp.origin}
        self.store.put_challenge(cid, data, int(self.now()) + passkeys.CHALLENGE_TTL)
        return {"challengeId": cid, "options": options}

    def signin(self, challenge_id: str, credential: dict, origin: str | None) -> dict:
        rp = passkeys.relying_party(origin)
        ch = self._challenge(challenge_id, "signin")
        if (ch["rp"], ch["origin"]) != (rp.id, rp.origin):
            raise ServiceError("passkey_origin", "passkeys work from the site's own address only")
        pid, cred_id = passkeys.user_handle(credential)
        stored = self.store.credential(pid, cred_id) if sessions.PERSON_PATTERN.fullmatch(pid) else None
        person = self.store.person(pid) if stored else None
        if stored is None or person is None:
            raise ServiceError("passkey_refused", "the passkey's answer names no account here", 401)
        sign_count = passkeys.verify_authentication(credential, ch["challenge"], stored)
        if person.get("banned"):  # every passkey of a banned person (docs/rules.md, "Ranked play")
            raise ServiceError(*persons.BANNED, 403)
        self.store.put_credential(pid, {**stored, "signCount": sign_count, "lastUsed": int(self.now())})
        logger.info("signed in", extra={"person": pid})
        return self._signed_in(person)

    # ---- the signed-in person's own
    def me(self, session: str | None) -> dict:
        person = self._require(session)
        return {
            "person": {"id": person["id"], "created": person["created"],
                       "casualGames": played.casual_games(self.store, person)},  # fmt: skip
            "passkeys": [
                {"id": c["id"], "created": c["created"], "lastUsed": c.get("lastUsed", c["created"])}
                for c in self.store.credentials(person["id"])
            ],
        }

    def signout(self, session: str | None) -> None:
        found = sessions.claims(session, int(self.now()), self.key())
        if found is not None:
            self.store.revoke_session(found.sid, found.expiry)

    def delete_passkey(self, session: str | None, cred_id: str) -> dict:
        person = self._require(session)
        held = [c["id"] for c in self.store.credentials(person["id"])]
        if cred_id not in held:
            raise ServiceError("not_found", "no such passkey", 404)
        if len(held) == 1:
            raise ServiceError("last_passkey", "this is your only passkey: delete the account instead", 409)
        self.store.delete_credential(person["id"], cred_id)
        return self.me(session)

    def delete_me(self, session: str | None) -> None:
        person = self._require(session)
        found = sessions.claims(session, int(self.now()), self.key())
        persons.delete(self.store, person["id"])
        if found is not None:
            self.store.revoke_session(found.sid, found.expiry)
        logger.info("person deleted", extra={"person": person["id"]})

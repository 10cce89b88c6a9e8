"""Passkey sign-in over REST (service/identity/; docs/protocol.md, "Account"): real WebAuthn
answers made by a software authenticator (passkeykit.py) and verified by the `webauthn`
package, on the in-memory store."""

from __future__ import annotations

import pytest
from passkeykit import SoftPasskey

from service.identity import persons, sessions

pytestmark = pytest.mark.memstore

KEY = "s" * 40
SITE = "https://mafia.example"


@pytest.fixture
def acct(api, svc):
    svc.sessions = sessions.SessionKey(secret_id="test", fetch=lambda _: KEY)
    return api


def call(api, method, path, body=None, session=None, origin=SITE):
    headers = {"Origin": origin} if origin else {}
    if session:
        headers["Authorization"] = f"Session {session}"
    return api.rest(method, path, body, headers=headers)


def register(api, key: SoftPasskey, session=None, origin=SITE) -> dict:
    status, opts = call(api, "POST", "/account/passkeys/options", session=session, origin=origin)
    assert status == 200, opts
    cred = key.create(opts["options"], origin)
    status, out = call(api, "POST", "/account/passkeys", {"challengeId": opts["challengeId"], "credential": cred},
                       session=session, origin=origin)  # fmt: skip
    assert status == 201, out
    return out


def sign_in(api, key: SoftPasskey, origin=SITE) -> tuple[int, dict]:
    status, opts = call(api, "POST", "/account/session/options", origin=origin)
    assert status == 200, opts
    cred = key.get(opts["options"], origin)
    return call(api, "POST", "/account/session", {"challengeId": opts["challengeId"], "credential": cred},
                origin=origin)  # fmt: skip


def test_a_passkey_makes_a_person_signs_in_and_signs_out(acct):
    key = SoftPasskey()
    made = register(acct, key)
    person = acct.svc.store.person(made["person"])
    assert person == {"id": made["person"], "created": int(acct.clock()), "casualGames": 0, "banned": False,
                      "coolDownUntil": 0}  # fmt: skip
    assert len(made["person"]) == 22  # 128 random bits, base64url
    status, me = call(acct, "GET", "/account", session=made["session"])
    assert status == 200 and me["person"]["id"] == made["person"] and len(me["passkeys"]) == 1
    status, again = sign_in(acct, key)
    assert status == 201 and again["person"] == made["person"] and again["session"] != made["session"]
    assert call(acct, "DELETE", "/account/session", session=again["session"])[0] == 200
    status, body = call(acct, "GET", "/account", session=again["session"])
    assert (status, body["error"]["code"]) == (401, "signed_out")  # revoked
    assert call(acct, "GET", "/account", session=made["session"])[0] == 200  # another session stays


def test_a_challenge_is_single_use_and_bound_to_its_origin(acct):
    key = SoftPasskey()
    status, opts = call(acct, "POST", "/account/passkeys/options")
    cred = key.create(opts["options"], SITE)
    body = {"challengeId": opts["challengeId"], "credential": cred}
    assert call(acct, "POST", "/account/passkeys", body)[0] == 201
    status, out = call(acct, "POST", "/account/passkeys", body)
    assert (status, out["error"]["code"]) == (400, "challenge_expired")
    status, opts = call(acct, "POST", "/account/session/options")
    wrong = key.get(opts["options"], "https://evil.example", rp_id="mafia.example")
    status, out = call(acct, "POST", "/account/session", {"challengeId": opts["challengeId"], "credential": wrong})
    assert (status, out["error"]["code"]) == (401, "passkey_refused")
    status, out = call(acct, "POST", "/account/session/options", origin="http://mafia.example")
    assert (status, out["error"]["code"]) == (400, "passkey_origin")


def test_a_challenge_past_its_ttl_is_refused(acct):
    key = SoftPasskey()
    _, opts = call(acct, "POST", "/account/passkeys/options")
    acct.clock.advance(301)
    cred = key.create(opts["options"], SITE)
    status, out = call(acct, "POST", "/account/passkeys", {"challengeId": opts["challengeId"], "credential": cred})
    assert (status, out["error"]["code"]) == (400, "challenge_expired")


def test_a_forged_assertion_is_refused_and_stores_nothing(acct):
    key = SoftPasskey()
    made = register(acct, key)
    _, opts = call(acct, "POST", "/account/session/options")
    cred = key.get(opts["options"], SITE)
    cred["response"]["signature"] = cred["response"]["signature"][:-4] + "AAAA"
    before = acct.svc.store.credentials(made["person"])
    status, out = call(acct, "POST", "/account/session", {"challengeId": opts["challengeId"], "credential": cred})
    assert (status, out["error"]["code"]) == (401, "passkey_refused")
    assert acct.svc.store.credentials(made["person"]) == before


def test_several_passkeys_per_person_and_delete_me_removes_them_all(acct):
    phone, laptop = SoftPasskey(), SoftPasskey()
    made = register(acct, phone)
    second = register(acct, laptop, session=made["session"])
    assert second["person"] == made["person"]
    status, me = call(acct, "GET", "/account", session=made["session"])
    assert len(me["passkeys"]) == 2
    status, me = call(acct, "DELETE", f"/account/passkeys/{me['passkeys'][0]['id']}", session=made["session"])
    assert status == 200 and len(me["passkeys"]) == 1
    status, out = call(acct, "DELETE", f"/account/passkeys/{me['passkeys'][0]['id']}", session=made["session"])
    assert (status, out["error"]["code"]) == (409, "last_passkey")
    acct.svc.store.put_credential(made["person"], {"id": "rating-like", "created": 1})  # anything kept under the person
    assert call(acct, "DELETE", "/account", session=made["session"])[0] == 200
    assert acct.svc.store.person(made["person"]) is None and acct.svc.store.credentials(made["person"]) == []
    assert sign_in(acct, phone)[1]["error"]["code"] == "passkey_refused"
    assert call(acct, "GET", "/account", session=second["session"])[0] == 401


def test_ranked_play_a_banned_persons_every_passkey_is_refused(acct):
    phone, laptop = SoftPasskey(), SoftPasskey()
    made = register(acct, phone)
    register(acct, laptop, session=made["session"])
    persons.ban(acct.svc.store, made["person"])
    for key in (phone, laptop):
        status, out = sign_in(acct, key)
        assert (status, out["error"]["code"]) == (403, "banned")
    status, out = call(acct, "GET", "/account", session=made["session"])
    assert (status, out["error"]["code"]) == (403, "banned")

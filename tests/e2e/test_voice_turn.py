"""The credentials the service mints are the ones a real TURN server accepts (coturn with
`use-auth-secret`, started by the offline stack's own starter, local/turn.py): an Allocate
request (RFC 8656, ops/turn_check.py: the smoke's TURN row) signed with a fresh credential gets
a relay address; one whose expiry has passed, or signed with another secret, is refused 401."""

from __future__ import annotations

import time

import pytest

from local.turn import TurnServer
from ops.turn_check import allocate, parse_url
from service.features import turn


@pytest.fixture(scope="module")
def coturn():
    server = TurnServer()
    server.start()
    yield server
    server.stop()


def minted(coturn: TurnServer, now: float, secret: str | None = None) -> tuple[tuple[str, int], dict]:
    servers = turn.Servers(urls=(coturn.url,), secret_id="local", fetch=lambda _: secret or coturn.secret)
    ice = servers.credential("ABCD.p3", now)
    return parse_url(ice["urls"][0]), ice


def test_a_minted_turn_credential_allocates_a_relay_on_coturn(coturn):
    (host, port), ice = minted(coturn, time.time())
    assert (host, port) == (coturn.host, coturn.port)
    ok, relay = allocate(host, port, ice["username"], ice["credential"])
    assert ok, relay
    assert relay.startswith("127.0.0.1:")  # the relay address a peer sees, not ours


def test_an_expired_turn_credential_is_refused(coturn):
    (host, port), ice = minted(coturn, time.time() - turn.TTL_SECONDS - 60)  # expired a minute ago
    assert allocate(host, port, ice["username"], ice["credential"]) == (False, "allocation refused: error 401")


def test_a_turn_credential_of_another_secret_is_refused(coturn):
    (host, port), ice = minted(coturn, time.time(), secret="not-" + coturn.secret)
    assert allocate(host, port, ice["username"], ice["credential"]) == (False, "allocation refused: error 401")

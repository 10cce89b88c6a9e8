"""Abuse limits and the leavers' cool-down (docs/operations.md, "Abuse limits"; docs/rules.md,
"Leaving public games"): budgets per device and address in DynamoDB with TTL, refusals that
answer 429 with a code and store nothing, and the device that left public games mid-game
waiting before quick play seats it again. On moto, the clock stepped."""

from __future__ import annotations

import json

import boto3
import pytest
from fnkit import CTX, ws_event

from handlers import rest, ws_connect
from local import events
from service.features import leavers, limits
from service.infra import storage

DEVICE = "device-key-of-a-phone-0001"
OTHER = "device-key-of-a-phone-0002"
LEAVER_A = "device-key-of-a-leaver-0001"  # each leaver test its own device: the table lives
LEAVER_B = "device-key-of-a-leaver-0002"  # for the session, and every test starts at one time


def create(api, ip="203.0.113.7", device=DEVICE, **body):
    event = events.rest_event(
        method="POST",
        path="/rooms",
        headers={"Content-Type": "application/json"},
        body=json.dumps({"name": "Ann", **({"device": device} if device else {}), **body}),
        source_ip=ip,
    )
    out = rest.handler(event, CTX)
    headers = {
        **(out.get("headers") or {}),
        **{k: v[-1] for k, v in (out.get("multiValueHeaders") or {}).items()},
    }
    return out["statusCode"], json.loads(out["body"]), headers


def items(api, prefix, window=None):
    """Every stored item whose key starts with `prefix` (a test-only Scan; the moto table lives
    for the session, so a test looks at its own window's budget items only)."""
    table = api.svc.store.table
    found = boto3.client("dynamodb").scan(TableName=table)["Items"]
    return [
        i
        for i in found
        if i["pk"]["S"].startswith(prefix) and (window is None or i["sk"]["S"] == f"W#{window}")
    ]


def test_room_creation_is_limited_per_device_and_the_refusal_stores_nothing(api, monkeypatch):
    """A device's budget of new rooms per window: the next one is 429 `too_many_requests` with the
    seconds until the window ends (body and Retry-After); no room, no count is written."""
    monkeypatch.setattr(
        limits, "CREATE_ROOM", limits.Budget("createRoom", window=600, per_device=3, per_ip=100)
    )
    api.clock.t = 6_000_000.0 + 100  # 100 s into a window
    for _ in range(3):
        status, body, _ = create(api)
        assert status == 201, body
    before = items(api, "")
    status, body, headers = create(api)
    assert status == 429 and body["error"]["code"] == "too_many_requests"
    assert body["error"]["retryAfter"] == 500 and headers["Retry-After"] == "500"
    assert items(api, "") == before  # nothing stored: no room, no count moved
    assert create(api, device=OTHER)[0] == 201  # another device has its own budget
    api.clock.advance(500)  # the next window
    assert create(api)[0] == 201


def test_room_creation_is_limited_per_address_which_no_item_names(api, monkeypatch):
    """An address's budget counts every device behind it; its items hold an HMAC of the address
    and the window, never the address, and expire (TTL) a minute after their window."""
    monkeypatch.setattr(
        limits, "CREATE_ROOM", limits.Budget("createRoom", window=600, per_device=100, per_ip=2)
    )
    monkeypatch.setenv("MAFIA_LIMIT_KEY", "stack-id-of-this-test")
    api.clock.t = 6_000_000.0
    assert create(api, device="a" * 20)[0] == 201
    assert create(api, device="b" * 20)[0] == 201
    status, body, _ = create(api, device="c" * 20)
    assert status == 429 and body["error"]["code"] == "too_many_requests"
    assert create(api, ip="198.51.100.9", device="d" * 20)[0] == 201  # another address
    stored = items(api, storage.LIMIT_PREFIX, window=6_000_000)
    assert stored and all("203.0.113.7" not in json.dumps(i) for i in stored)
    assert all("a" * 20 not in json.dumps(i) for i in stored)  # the device key only as its hash
    assert {int(i["expiresAt"]["N"]) for i in stored} == {6_000_000 + 600 + limits.TTL_SLACK_SECONDS}


def test_a_loopback_address_has_no_address_budget(api, monkeypatch):
    """The offline stack's clients all come from 127.0.0.1: no address budget there (API Gateway
    never reports a loopback source)."""
    monkeypatch.setattr(
        limits, "CREATE_ROOM", limits.Budget("createRoom", window=600, per_device=100, per_ip=1)
    )
    for i in range(3):
        assert create(api, ip="127.0.0.1", device=f"{i}" * 20)[0] == 201


def test_a_bad_request_spends_no_budget(api, monkeypatch):
    """Bad input is refused before the budget is counted (and stores nothing)."""
    monkeypatch.setattr(
        limits, "CREATE_ROOM", limits.Budget("createRoom", window=600, per_device=1, per_ip=100)
    )
    api.clock.t = 7_000_000.0
    status, body, _ = create(api, options={"afkLimit": 7})
    assert status == 400 and body["error"]["code"] == "bad_options"
    assert items(api, storage.LIMIT_PREFIX, window=7_000_000) == []
    assert create(api)[0] == 201


def test_a_budget_admits_exactly_its_count_in_a_window(api):
    """The count is one conditional update (the condition admits, not a read before it): the
    budget's count is admitted, every later request refused with the seconds left."""
    budget = limits.Budget("quickPlay", window=600, per_device=5, per_ip=100)
    admitted = 0
    for _ in range(12):
        try:
            limits.spend(api.svc.store, budget, DEVICE, "203.0.113.7", now=1_000.0)
            admitted += 1
        except limits.RateLimited as exc:
            assert exc.status == 429 and exc.code == "too_many_requests" and exc.retry_after == 200
    assert admitted == 5


# ---------------------------------------------------------------- leavers
def leave_public_game(api, pid="p3", device=None):
    """A public room (the host option quick play's rooms carry), a running game, and seat `pid` leaving it;
    `device`: the key its connect sent (`?device=`, as web/js/session.js does)."""
    api.start(6, preset="city")
    snap = api.snapshot()
    api.svc.store.save(snap, dict(snap.room, options={**snap.room["options"], "public": True}), snap.state)
    if device:
        query = {"room": api.code, "token": api.tokens[pid], "device": device}
        assert ws_connect.handler(ws_event("$connect", f"c{pid}d", query=query), CTX)["statusCode"] == 200
    api.send(f"c{pid}", {"action": "leave"})


def test_a_device_that_left_two_public_games_in_an_hour_waits_before_quick_play(api):
    """One leave: no wait. The second within the hour: WAIT_SECONDS from the last leave, and
    quick play's check answers 429 `leaver_cooldown` with the seconds; after the wait, none."""
    svc = api.svc
    assert svc.leaver_wait(LEAVER_A) == 0
    leave_public_game(api, device=LEAVER_A)
    assert svc.leaver_wait(LEAVER_A) == 0
    api.clock.advance(600)
    leave_public_game(api, device=LEAVER_A)
    assert svc.leaver_wait(LEAVER_A) == leavers.WAIT_SECONDS
    with pytest.raises(limits.RateLimited) as refused:
        svc.admit_quick_play(LEAVER_A, "203.0.113.7")
    assert refused.value.code == "leaver_cooldown" and refused.value.retry_after == leavers.WAIT_SECONDS
    window = int(api.clock.t // limits.QUICK_PLAY.window) * limits.QUICK_PLAY.window
    assert items(api, storage.LIMIT_PREFIX, window) == []  # the refusal spent no budget either
    assert svc.leaver_wait(OTHER) == 0  # another device does not wait
    api.clock.advance(leavers.WAIT_SECONDS)
    assert svc.leaver_wait(LEAVER_A) == 0
    svc.admit_quick_play(LEAVER_A, "203.0.113.7")  # admitted now


def test_leaves_are_kept_by_device_hash_with_a_short_ttl_and_only_for_public_rooms(api):
    """The items name the device's hash only and expire within hours; a friends' room (not
    public) records nothing."""
    mine = storage.side_key(storage.LEAVER_KIND, leavers.auth.hash_token(LEAVER_B))[0]
    leave_public_game(api, device=LEAVER_B)
    stored = items(api, mine)
    assert len(stored) == 1 and LEAVER_B not in json.dumps(stored)
    ttl = int(stored[0]["expiresAt"]["N"]) - api.clock.t
    assert 0 < ttl <= leavers.WINDOW_SECONDS + leavers.LEAVES_KEPT * leavers.WAIT_SECONDS
    # a room made with a link between friends
    api.start(6, preset="city")
    query = {"room": api.code, "token": api.tokens["p3"], "device": LEAVER_B}
    assert ws_connect.handler(ws_event("$connect", "cp3d", query=query), CTX)["statusCode"] == 200
    api.send("cp3", {"action": "leave"})
    assert len(items(api, mine)) == 1


def test_the_wait_grows_with_each_leave_and_ends_an_hour_after(api):
    """The rule in numbers (leavers.wait_for): K-1 leaves none; the K-th WAIT_SECONDS; each more
    one WAIT_SECONDS more, from the last; leaves older than an hour do not count."""
    w = leavers.WAIT_SECONDS
    assert leavers.wait_for([0.0], 10.0) == 0
    assert leavers.wait_for([0.0, 100.0], 100.0) == w
    assert leavers.wait_for([0.0, 100.0, 200.0], 200.0) == 2 * w
    assert leavers.wait_for([0.0, 100.0], 100.0 + w) == 0


def test_a_seat_handed_on_for_idling_counts_as_a_leave(api):
    """Closing the tab is how most people leave: in a public room a seat handed on for idling
    (docs/rules.md, "Idle seats") counts towards its device's cool-down like a `leave`."""
    from test_afk import room_seat, until

    device = "device-key-of-an-idler-0001"
    api.start(6, preset="city", options={"afkLimit": 2})
    snap = api.snapshot()
    api.svc.store.save(snap, dict(snap.room, options={**snap.room["options"], "public": True}), snap.state)
    query = {"room": api.code, "token": api.tokens["p2"], "device": device}
    assert ws_connect.handler(ws_event("$connect", "cp2d", query=query), CTX)["statusCode"] == 200
    until(api, lambda: room_seat(api, "p2").get("bot"))
    stored = items(api, storage.side_key(storage.LEAVER_KIND, leavers.auth.hash_token(device))[0])
    assert [i["sk"]["S"] for i in stored] == [f"L#{api.code}#p2"]


# ---------------------------------------------------------------- the viewer behind CloudFront
EDGE = "130.176.0.9"  # one CloudFront edge: API Gateway's sourceIp for everyone behind it


def call(viewer=None, *, secret=None, cloudfront=True, headers=None, device=DEVICE, ip=EDGE):
    """POST /rooms as API Gateway delivers it: through CloudFront (its secret and the viewer's
    address added, `local/events.py`), or around it (`cloudfront=False`: the headers as sent)."""
    event = events.rest_event(
        method="POST",
        path="/rooms",
        headers={"Content-Type": "application/json", **(headers or {})},
        body=json.dumps({"name": "Ann", "device": device}),
        source_ip=ip,
        viewer=viewer,
        origin_secret=secret,
        cloudfront=cloudfront,
    )
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"])


def test_two_viewers_behind_one_edge_keep_separate_address_budgets(api, monkeypatch):
    """Everyone behind one CloudFront edge has one sourceIp: the budget follows the viewer
    CloudFront reports, so one player spending theirs leaves the other's whole."""
    monkeypatch.setattr(
        limits, "CREATE_ROOM", limits.Budget("createRoom", window=600, per_device=100, per_ip=2)
    )
    api.clock.t = 8_000_000.0
    for i in range(2):
        assert call("198.51.100.20", device=f"first-viewer-{i:08d}")[0] == 201
    status, body = call("198.51.100.20", device="first-viewer-99999999")
    assert status == 429 and body["error"]["code"] == "too_many_requests"
    for i in range(2):  # same edge, another viewer: a budget of its own
        assert call("2001:db8::7", device=f"second-viewer-{i:08d}")[0] == 201


def test_a_call_around_cloudfront_is_refused_and_spends_nothing(api, monkeypatch):
    """The execute-api URL called directly (no origin secret): 403 `forbidden` in our error
    shape, before any budget or room is written; a wrong secret the same."""
    monkeypatch.setattr(
        limits, "CREATE_ROOM", limits.Budget("createRoom", window=600, per_device=1, per_ip=100)
    )
    api.clock.t = 8_100_000.0
    before = items(api, "")
    for kwargs in ({"cloudfront": False}, {"secret": "not-the-secret"}, {"secret": ""}):
        status, body = call("198.51.100.30", **kwargs)
        assert status == 403 and body == {
            "error": {"code": "forbidden", "message": "this API answers through the site only"}
        }
    assert items(api, "") == before
    assert call("198.51.100.30")[0] == 201  # the same request through CloudFront


def test_a_forged_viewer_address_without_the_secret_is_refused(api):
    """A caller around CloudFront cannot pick its own budget: its CloudFront-Viewer-Address is
    refused with the request; through CloudFront, a viewer's own copy is replaced by CloudFront's."""
    forged = {"CloudFront-Viewer-Address": "203.0.113.250:1234"}
    assert call(cloudfront=False, headers=forged)[0] == 403
    event = events.rest_event(method="GET", path="/rooms", headers=forged, viewer="198.51.100.40")
    assert event["headers"]["CloudFront-Viewer-Address"] == f"198.51.100.40:{events.VIEWER_PORT}"
    assert event["multiValueHeaders"]["CloudFront-Viewer-Address"] == [f"198.51.100.40:{events.VIEWER_PORT}"]


def test_no_origin_secret_configured_refuses_every_call(api, monkeypatch):
    """A function without its secret (a broken deploy) refuses everything, never admits all."""
    monkeypatch.setenv("MAFIA_ORIGIN_SECRET", "")
    assert call("198.51.100.50", secret="")[0] == 403


@pytest.mark.parametrize(
    ("value", "address"),
    [
        ("198.51.100.10:46532", "198.51.100.10"),
        ("2001:db8::1:46532", "2001:db8::1"),
        ("[2001:db8::1]:46532", "2001:db8::1"),
        ("198.51.100.10", None),  # no port: not CloudFront's shape
        ("not-an-address:1", None),
        ("", None),
        (None, None),
    ],
)
def test_the_viewer_address_is_read_from_cloudfront_s_ip_and_port(value, address):
    assert rest.viewer_address(value) == address


def test_a_conflicting_budget_transaction_is_retried_not_refused(api, monkeypatch):
    """A transaction cancelled by another on the same items (TransactionConflict) says nothing
    about the budget: tried again (with a pause, recorded here), and admitted."""
    pauses: list[float] = []
    monkeypatch.setattr(limits, "_pause", pauses.append)
    store = api.svc.store
    real = store.spend_budget
    cancels = iter([storage.Busy("TransactionConflict")] * (limits.ATTEMPTS - 1))

    def flaky(*args):
        for exc in cancels:
            raise exc
        return real(*args)

    monkeypatch.setattr(store, "spend_budget", flaky)
    budget = limits.Budget("quickPlay", window=600, per_device=1, per_ip=100)
    limits.spend(store, budget, "device-of-a-retry-00001", "198.51.100.60", now=9_000_000.0)
    assert len(pauses) == limits.ATTEMPTS - 1
    with pytest.raises(limits.RateLimited):  # that one was counted: the budget of 1 is spent
        limits.spend(store, budget, "device-of-a-retry-00001", "198.51.100.60", now=9_000_000.0)


def test_a_budget_transaction_cancelled_every_time_answers_busy_not_429(api, monkeypatch):
    """Conflicts or throttles on every attempt: `503 busy` (try again), never `429`."""
    monkeypatch.setattr(limits, "_pause", lambda s: None)
    calls = []

    def busy(*args):
        calls.append(args)
        raise storage.Busy("ThrottlingError")

    monkeypatch.setattr(api.svc.store, "spend_budget", busy)
    status, body = call("198.51.100.70")
    assert status == 503 and body["error"]["code"] == "busy"
    assert len(calls) == limits.ATTEMPTS


def test_a_request_through_cloudfront_without_a_viewer_address_is_counted(api, monkeypatch):
    """Were the origin request policy to stop forwarding CloudFront-Viewer-Address, only the
    device budgets would hold: the request still answers, and the metric NoViewerAddress says so."""
    counted: list[str] = []
    monkeypatch.setattr(rest, "count", lambda name, *a, **k: counted.append(name))
    event = events.rest_event(
        method="POST", path="/rooms", headers={"Content-Type": "application/json"},
        body=json.dumps({"name": "Ann", "device": "device-without-a-viewer-01"}),
    )  # fmt: skip
    event["headers"].pop("CloudFront-Viewer-Address")
    event["multiValueHeaders"].pop("CloudFront-Viewer-Address")
    assert rest.handler(event, CTX)["statusCode"] == 201
    assert counted == ["NoViewerAddress"]
    assert rest.handler(events.rest_event(method="GET", path="/rooms", query={"public": "1"}), CTX)["statusCode"] == 200
    assert counted == ["NoViewerAddress"]  # a read spends no budget and reads no address

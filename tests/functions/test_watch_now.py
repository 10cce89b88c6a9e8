"""Watch now (docs/rules.md, "Public rooms": Watch now): the running public games of a language, listed for
spectators by one Query of the public indexes' `watch#` partitions (never a Scan, never a
lobby), each opening the spectator view, where a watcher sees public information only."""

from __future__ import annotations

import json

import pytest
from fnkit import CTX

from handlers import rest
from local import events
from service.infra import storage
from service.room import public

pytestmark = pytest.mark.fresh_aws  # an empty table: the lists hold this test's rooms only

NAMES = ("Zenobia", "Quillon", "Mortimer", "Winifred")


def get_list(watch: bool = True, **query) -> tuple[int, dict]:
    q = {"public": "1", **({"watch": "1"} if watch else {}), **{k: str(v) for k, v in query.items()}}
    out = rest.handler(events.rest_event(method="GET", path="/rooms", query=q, headers={}), CTX)
    return out["statusCode"], json.loads(out["body"])


def watched(lang="en", preset=None) -> list[str]:
    status, body = get_list(lang=lang, **({"preset": preset} if preset else {}))
    assert status == 200, body
    return [r["roomCode"] for r in body["rooms"]]


def public_game(api, names=NAMES, lang="en", **options) -> list[str]:
    """A running public game of four people (the host pressed start), each connected as c<pid>."""
    api.create(names[0], lang=lang, options={"public": True, "autoStart": 12, **options})
    pids = ["p1"] + [api.join(n) for n in names[1:]]
    for pid in pids:
        assert api.connect(f"c{pid}", pid) == 200
    for pid in pids[1:]:
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running", api.gw.last("cp1", "error")
    return pids


class Recorder:
    """The store's DynamoDB client, with every call's name and arguments noted."""

    def __init__(self, client):
        self.client = client
        self.calls: list[tuple[str, dict]] = []

    def __getattr__(self, name):
        attr = getattr(self.client, name)
        if not callable(attr) or name == "exceptions":
            return attr

        def call(**kw):
            self.calls.append((name, kw))
            return attr(**kw)

        return call


def test_watch_now_lists_running_public_games_with_public_facts_only(api):
    private = api.start(4)  # a private game: never listed
    assert private and watched() == []
    public_game(api)
    code = api.code
    status, body = get_list(lang="en")
    assert status == 200
    assert body == {
        "rooms": [
            {"roomCode": code, "lang": "en", "preset": "classic", "seats": 4, "maxPlayers": 12, "status": "running"}
        ],
        "cursor": None,
    }
    # a game is never on the lobbies' list, nor in another language's
    assert get_list(watch=False, lang="en")[1]["rooms"] == []
    assert watched(lang="ko") == [] and watched(preset="city") == [] and watched(preset="classic") == [code]


def test_watch_now_is_one_query_of_a_sparse_index_never_a_scan(api, svc, monkeypatch):
    public_game(api)
    rec = Recorder(svc.store.client)
    monkeypatch.setattr(svc.store, "client", rec)
    assert watched() == [api.code]
    queries = [(kw["IndexName"], kw["ExpressionAttributeValues"][":p"]["S"]) for n, kw in rec.calls if n == "query"]
    assert queries == [("PublicByLang", "watch#en")]
    assert not [n for n, _ in rec.calls if n == "scan"]
    rec.calls.clear()
    assert watched(preset="classic") == [api.code]
    queries = [(kw["IndexName"], kw["ExpressionAttributeValues"][":p"]["S"]) for n, kw in rec.calls if n == "query"]
    assert queries == [("PublicByPreset", "watch#en#classic")]


def test_a_game_leaves_watch_now_when_nobody_is_connected_when_it_lapses_and_when_it_ends(api):
    pids = public_game(api)
    code = api.code
    assert watched() == [code]
    # no write for WATCH_SECONDS: its rank falls below the Query's bound (no read at all)
    api.clock.advance(public.WATCH_SECONDS + 1)
    assert watched() == []
    # a write (someone's action) lists it again; everyone gone takes it off
    api.send("cp2", {"action": "sync"})
    api.connect("cp1b", "p1")
    assert watched() == [code]
    for pid in pids:
        api.disconnect(f"c{pid}")
    api.disconnect("cp1b")
    assert watched() == [] and "pubLang" not in api.item()
    # a game over is no longer watched either: track_watch on the room as the end leaves it
    room = api.snapshot().room
    here = {public.humans(room)[0]["id"]}
    public.track_watch(room, here, api.clock())
    assert "watching" in room
    room["status"] = "ended"
    public.track_watch(room, here, api.clock())
    assert "watching" not in room and storage.index_attributes(code, room) == {}


def test_a_lobby_cursor_is_refused_on_watch_now(api):
    for i in range(3):
        api.create(f"H{i}", options={"public": True})
    status, body = get_list(watch=False, lang="en", limit=1)
    assert status == 200 and body["cursor"]
    status, body = get_list(lang="en", cursor=body["cursor"])
    assert status == 400 and body["error"]["code"] == "bad_cursor"


def test_a_watcher_opens_a_listed_game_and_sees_public_information_only(api):
    """The list's code opens the spectator view (a connection with no token): it reads the
    aliases of the anonymous deal, never a real name, a token, a device or a living seat's role."""
    pids = public_game(api)
    (code,) = watched()
    assert api.connect("watcher", room=code) == 200
    api.send("watcher", {"action": "sync"})
    frames = api.gw.to("watcher")
    views = [f for f in frames if f["type"] == "view"]
    assert views, frames
    text = json.dumps(frames)
    for name in NAMES:
        assert name not in text
    for token in api.tokens.values():
        assert token not in text
    room = api.snapshot().room
    for seat in room["players"]:
        for secret in (seat.get("tokenHash"), *(seat.get("devices") or ())):
            assert not secret or secret not in text
    state = api.state()
    alive = {p["id"] for p in state["players"] if p["alive"]}
    view = views[-1]["view"]
    assert view["you"] is None and view["private"] is None and view["room"]["host"] is None
    assert {p["id"] for p in view["players"]} == {p["id"] for p in state["players"]}
    for p in view["players"]:
        assert p["role"] is None and p["id"] in alive  # nobody dead yet: no role is public
    assert len(pids) == 4

"""Public rooms (docs/rules.md, "Public rooms"): the list (one Query of a sparse index, paged),
its entries appearing and leaving with the lobby, quick play (the fullest lobby, races for the
last seat), the protecting defaults and the start by itself."""

from __future__ import annotations

import json
import threading

import pytest
from fnkit import CTX

from handlers import rest
from local import events, template
from service.room import public

pytestmark = pytest.mark.fresh_aws  # an empty table: the list holds this test's rooms only


def get_list(api, **query) -> tuple[int, dict]:
    q = {"public": "1", **{k: str(v) for k, v in query.items()}}
    event = events.rest_event(method="GET", path="/rooms", query=q, headers={})
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"])


def listed(api, lang="en", preset=None) -> list[str]:
    query = {"lang": lang, **({"preset": preset} if preset else {})}
    status, body = get_list(api, **query)
    assert status == 200, body
    return [r["roomCode"] for r in body["rooms"]]


def public_room(api, name="Ann", lang="en", preset="classic", **options) -> str:
    return api.create(name, preset=preset, lang=lang, options={"public": True, **options})


def quick(api, name, lang="en", preset=None) -> tuple[int, dict]:
    body = {"name": name, "lang": lang, **({"preset": preset} if preset else {})}
    return api.rest("POST", "/quickplay", body)


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


# ---------------------------------------------------------------- the list
def test_a_public_room_is_listed_with_public_facts_only_and_a_private_one_is_not(api):
    code = public_room(api)
    api.create("Bob")  # private
    status, body = get_list(api, lang="en")
    assert status == 200
    assert body == {
        "rooms": [
            {
                "roomCode": code,
                "lang": "en",
                "preset": "classic",
                "seats": 1,
                "maxPlayers": 12,
                "status": "lobby",
            }
        ],
        "cursor": None,
    }
    assert listed(api, lang="ko") == [] and listed(api, preset="city") == []
    assert listed(api, preset="classic") == [code]


def test_the_list_is_the_same_for_every_viewer_and_may_be_cached_for_seconds(api):
    """CloudFront keeps the list for the seconds its Cache-Control gives (template.yaml,
    PublicListCachePolicy: a key of its query strings only), so its answer must name no viewer:
    two viewers at other addresses, one of them seated in a listed room with its token and a
    cookie, get the same answer, headers and all. No other answer carries a Cache-Control."""
    code = public_room(api)
    token = api.tokens["p1"]
    q = {"public": "1", "lang": "en", "preset": "classic", "limit": "5"}
    seated = {"Authorization": f"Bearer {token}", "Cookie": "seat=p1", "Origin": "https://example.org",
              "Content-Type": "application/json"}  # fmt: skip
    # what CloudFront forwards of a viewer's headers on /api/rooms (RoomsOriginRequestPolicy);
    # not Origin: the CORS headers it would add vary by viewer while the key does not
    policy = template.load()["Resources"]["RoomsOriginRequestPolicy"]["Properties"]["OriginRequestPolicyConfig"]
    forwarded = {h.lower() for h in policy["HeadersConfig"]["Headers"]}
    assert "origin" not in forwarded and policy["QueryStringsConfig"]["QueryStringBehavior"] == "none"
    answers = []
    for viewer, sent in (("198.51.100.7:1234", seated), ("[2001:db8::5]:443", {})):
        headers = {k: v for k, v in sent.items() if k.lower() in forwarded}
        out = rest.handler(events.rest_event(method="GET", path="/rooms", query=q, headers=headers, viewer=viewer), CTX)
        answers.append({k: v for k, v in out.items()})
    assert answers[0] == answers[1]
    assert answers[0]["statusCode"] == 200 and json.loads(answers[0]["body"])["rooms"][0]["roomCode"] == code
    assert answers[0]["multiValueHeaders"]["Cache-Control"] == [rest.LIST_CACHE] == ["public, max-age=5"]
    refused = rest.handler(events.rest_event(method="GET", path="/rooms", query={**q, "cursor": "x"}), CTX)
    assert refused["statusCode"] == 400 and "Cache-Control" not in refused["multiValueHeaders"]
    created = rest.handler(events.rest_event(method="POST", path="/rooms", body=json.dumps({"name": "Cy"}),
                                             headers={"Content-Type": "application/json"}), CTX)  # fmt: skip
    summary = rest.handler(events.rest_event(method="GET", path=f"/rooms/{code}"), CTX)
    for out in (created, summary):
        assert out["statusCode"] in (200, 201) and "Cache-Control" not in out["multiValueHeaders"], out


def test_the_list_is_one_query_of_a_sparse_index_never_a_scan(api, svc, monkeypatch):
    for i in range(3):
        public_room(api, name=f"H{i}")
    rec = Recorder(svc.store.client)
    monkeypatch.setattr(svc.store, "client", rec)
    assert len(listed(api)) == 3
    assert [name for name, _ in rec.calls] == ["query"]
    assert rec.calls[0][1]["IndexName"] == "PublicByLang"
    rec.calls.clear()
    listed(api, preset="classic")
    assert [(n, kw["IndexName"]) for n, kw in rec.calls] == [("query", "PublicByPreset")]
    # the index holds listed rooms only: a private room's item has none of its keys
    code = api.create("Pia")
    assert "pubLang" not in api.item() and code not in listed(api)


def test_the_list_is_paged_latest_active_first_with_an_opaque_cursor(api):
    codes = {}
    for seats in (1, 3, 2, 4, 1):
        code = public_room(api, name="H")
        for i in range(2, seats + 1):
            api.join(f"G{i}", code)
        codes[code] = seats
        api.clock.advance(1)
    seen, cursor, pages = [], None, 0
    while True:
        status, body = get_list(api, lang="en", limit=2, **({"cursor": cursor} if cursor else {}))
        assert status == 200, body
        assert len(body["rooms"]) <= 2
        seen += [(r["roomCode"], r["seats"]) for r in body["rooms"]]
        pages += 1
        cursor = body["cursor"]
        if cursor is None:
            break
    assert sorted(c for c, _ in seen) == sorted(codes) and pages >= 3
    # the latest to lapse first (here the newest: nobody connected, each lapses 90 s after it
    # was made): live entries sort ahead of any stale one (docs/rules.md, "Public rooms")
    assert [c for c, _ in seen] == list(reversed(codes))


def test_a_cursor_of_another_list_or_made_up_is_refused(api):
    for _ in range(3):
        public_room(api)
    _, body = get_list(api, lang="en", limit=1)
    other = get_list(api, lang="ko", cursor=body["cursor"])
    assert other[0] == 400 and other[1]["error"]["code"] == "bad_cursor"
    for junk in ("x", "eyJhIjoxfQ", "%%%"):
        status, out = get_list(api, lang="en", cursor=junk)
        assert status == 400 and out["error"]["code"] == "bad_cursor", junk
    for bad in ({"lang": "de"}, {"limit": 0}, {"limit": 99}, {"preset": "poker"}):
        assert get_list(api, **bad)[0] == 400, bad
    event = events.rest_event(method="GET", path="/rooms", query={"lang": "en"}, headers={})
    assert rest.handler(event, CTX)["statusCode"] == 400  # the list is asked for by name


def test_a_public_room_leaves_the_list_when_it_starts(api):
    public_room(api, name="P1", autoStart=12)
    code = api.code
    for i in range(2, 5):
        api.join(f"P{i}")
    for pid in ("p1", "p2", "p3", "p4"):
        api.connect(f"c{pid}", pid)
    assert listed(api) == [code]
    for pid in ("p2", "p3", "p4"):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running"
    # off the lobbies' list; its game is on "Watch now" (test_watch_now.py), another partition
    assert listed(api) == [] and api.item()["pubLang"]["S"] == "watch#en"


def test_a_public_room_leaves_the_list_when_it_fills(api):
    code = public_room(api, preset="classic", autoStart=12)
    for i in range(2, 12):
        api.join(f"G{i}", code)
    assert listed(api) == [code]
    api.join("G12", code)
    assert listed(api) == [] and "pubPreset" not in api.item()


def test_an_idle_public_room_leaves_the_list_and_comes_back_when_someone_connects(api):
    code = public_room(api)
    api.clock.advance(public.EMPTY_GRACE_SECONDS - 1)
    assert listed(api) == [code]
    api.clock.advance(2)  # its creator never came
    assert listed(api) == []
    assert quick(api, "Zed")[1]["roomCode"] != code  # quick play does not seat anyone there either
    api.connect("cp1", "p1")
    assert code in listed(api)
    api.disconnect("cp1")
    api.clock.advance(public.EMPTY_GRACE_SECONDS + 1)
    assert code not in listed(api)


def test_the_host_switches_the_room_public_in_the_lobby_and_back(api):
    code = api.create("Ann")
    api.connect("cp1", "p1")
    assert listed(api) == []
    api.send("cp1", {"action": "setOptions", "options": {"public": True}})
    assert listed(api) == [code]
    opts = api.snapshot().room["options"]
    assert opts["anonymous"] and opts["kidSafeChat"] and opts["substitutes"]  # the defaults came with it
    api.send("cp1", {"action": "setOptions", "options": {"public": True, "anonymous": False}})
    assert api.snapshot().room["options"]["anonymous"] is True  # never while public (docs/rules.md, "Public rooms")
    api.send("cp1", {"action": "setOptions", "options": {}})
    assert listed(api) == []
    api.send("cp1", {"action": "setOptions", "options": {"anonymous": False}})
    assert api.snapshot().room["options"]["anonymous"] is False  # a private room: the host's choice


# ---------------------------------------------------------------- the defaults
def test_public_rooms_are_anonymous_kid_safe_with_substitutes_by_default(api):
    public_room(api)
    opts = api.snapshot().room["options"]
    assert opts == {
        "public": True,
        "anonymous": True,
        "kidSafeChat": True,
        "substitutes": True,
        "substituteApproval": False,
        "afkLimit": 3,  # an idle seat is warned, then opened to a substitute (docs/rules.md, "Idle seats")
        "afkReplace": "substitute",
    }
    public_room(api, afkLimit=5, afkReplace="bot")  # what protects nobody less stays the host's
    assert api.snapshot().room["options"]["afkLimit"] == 5
    status, body = api.rest(
        "POST", "/rooms", {"name": "C", "preset": "city", "options": {"public": True, "untimed": True}}
    )
    assert status == 400 and body["error"]["code"] == "bad_options"


def test_the_host_of_a_public_game_sees_nothing_another_player_does_not(api):
    public_room(api, name="P1", autoStart=12)
    for i in range(2, 6):
        api.join(f"P{i}")
    for pid in ("p1", "p2", "p3", "p4", "p5"):
        api.connect(f"c{pid}", pid)
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start"})
    assert api.snapshot().room["status"] == "running"

    def shape(value):
        if isinstance(value, dict):
            return {k: shape(v) for k, v in value.items() if k != "you"}
        if isinstance(value, list):
            return [shape(v) for v in value]
        return type(value).__name__

    views = {c: api.gw.last(c)["view"] for c in ("cp1", "cp2", "cp3", "cp4", "cp5")}
    host_room = dict(views["cp1"]["room"])
    # the host alone learns that it is the host (its own seat id); nobody else sees who is
    assert host_room.pop("host") == views["cp1"]["you"]["id"]
    for c in views:
        room = dict(views[c]["room"])
        assert room.pop("host") in (None, views[c]["you"]["id"])
        assert room == host_room  # the room block: the same for every seat
        assert [set(p) for p in views[c]["players"]] == [set(p) for p in views["cp1"]["players"]]
        assert set(views[c]) == set(views["cp1"])
    # the roles the host's screen knows are the engine's own view of that seat: the room adds none
    import mafia_engine as me

    host = views["cp1"]["you"]["id"]
    engine = {p["id"]: p.get("role") for p in me.view(me.load(api.state()), host)["players"]}
    assert {p["id"]: p.get("role") for p in views["cp1"]["players"]} == engine
    assert not any(p["host"] for p in views["cp2"]["players"])  # anonymous: no host seat shown


# ---------------------------------------------------------------- quick play
def test_quick_play_seats_in_the_fullest_compatible_lobby(api):
    small = public_room(api, name="A")
    full = public_room(api, name="B")
    for i in range(2, 4):
        api.join(f"G{i}", full)
    ko = public_room(api, name="C", lang="ko")
    for i in range(2, 6):
        api.join(f"K{i}", ko)
    city = public_room(api, name="D", preset="city")
    for i in range(2, 6):
        api.join(f"D{i}", city)
    status, body = quick(api, "Zed", preset="classic")
    assert status == 201 and set(body) == {"roomCode", "playerId", "token", "wsUrl"}
    assert body["roomCode"] == full and body["playerId"] == "p4"
    assert quick(api, "Yan")[1]["roomCode"] == city  # any preset: the fullest of the language
    assert small in listed(api)
    # the seat token works as a join's does
    assert api.connect("cz", token=body["token"], room=full) == 200


def test_quick_play_makes_a_public_room_when_none_fits(api):
    public_room(api, lang="ru")
    status, body = quick(api, "Ann", lang="en", preset="city")
    assert status == 201 and body["playerId"] == "p1"
    room = api.snapshot(body["roomCode"]).room
    assert room["preset"] == "city" and room["lang"] == "en" and room["options"]["public"]
    assert listed(api, preset="city") == [body["roomCode"]]


def test_quick_play_refuses_bad_input_and_changes_nothing(api):
    for body in (
        {"name": ""},
        {"name": "A", "lang": "de"},
        {"name": "A", "preset": "poker"},
        {"name": "A", "x": 1},
    ):
        status, out = api.rest("POST", "/quickplay", body)
        assert status == 400, body
    assert listed(api) == []


def test_twenty_clients_racing_for_the_last_seats_never_overfill_the_room(api, svc):
    code = public_room(api, name="H", autoStart=12)
    for i in range(2, 11):
        api.join(f"G{i}", code)  # 10 of 12 seats taken
    answers: list = []
    errors: list = []
    barrier = threading.Barrier(20)

    def play(i):
        barrier.wait()
        try:
            answers.append(svc.quick_play(f"Racer{i}", "en", "classic"))
        except Exception as exc:  # noqa: BLE001 - counted below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert len(answers) == 20
    room = api.snapshot(code).room
    assert len(room["players"]) == 12
    seated_here = [a for a in answers if a["roomCode"] == code]
    assert len(seated_here) == 2
    assert {p["id"] for p in room["players"]} >= {a["playerId"] for a in seated_here}
    for other in {a["roomCode"] for a in answers} - {code}:
        assert len(api.snapshot(other).room["players"]) <= 12
    # every answer is a distinct seat
    assert len({(a["roomCode"], a["playerId"]) for a in answers}) == 20


# ---------------------------------------------------------------- start by itself
def test_a_public_lobby_with_enough_people_starts_by_itself_with_bots(api, svc):
    code = public_room(api, name="P1")
    for i in range(2, 4):
        api.join(f"P{i}")
    for pid in ("p1", "p2", "p3"):
        api.connect(f"c{pid}", pid)
    # three people: the longer wait a lobby with anyone in it states (no stranger waits forever)
    assert api.snapshot().room["autoStartAt"] == api.clock() + public.WAIT_SECONDS
    api.join("P4")
    room = api.snapshot().room
    at = room["autoStartAt"]
    assert at == api.clock() + public.COUNTDOWN_SECONDS
    assert room["timer"] == [public.LOBBY_PHASE, at]  # the Scheduler's guarantee is armed
    assert api.fire(public.LOBBY_PHASE)["outcome"] == "too_early"
    assert api.snapshot().room["status"] == "lobby"
    api.clock.advance(public.COUNTDOWN_SECONDS)
    assert api.fire(public.LOBBY_PHASE)["outcome"] == "started"
    room = api.snapshot().room
    assert room["status"] == "running"
    assert len(room["players"]) == public.FILL_TO and sum(p["bot"] for p in room["players"]) == 4
    assert code not in listed(api) and api.item()["pubLang"]["S"] == "watch#en"  # "Watch now" lists the game


def test_any_request_after_the_countdown_starts_the_game(api):
    public_room(api, name="P1", autoStartBots=False)
    for i in range(2, 5):
        api.join(f"P{i}")
    for pid in ("p1", "p2", "p3", "p4"):
        api.connect(f"c{pid}", pid)
    assert api.snapshot().room.get("autoStartAt")  # four people deal a classic game without bots
    api.clock.advance(public.COUNTDOWN_SECONDS + 1)
    api.send("cp2", {"action": "ping", "id": "h"})  # a heartbeat
    room = api.snapshot().room
    assert room["status"] == "running" and not any(p["bot"] for p in room["players"])


def test_a_public_lobby_without_bots_and_too_few_people_has_no_countdown(api):
    public_room(api, name="P1", autoStart=2, autoStartBots=False)
    api.join("P2")
    assert "autoStartAt" not in api.snapshot().room


def test_a_nudge_at_the_end_of_the_countdown_starts_the_game_and_one_before_writes_nothing(api):
    public_room(api, name="P1")
    for i in range(2, 5):
        api.join(f"P{i}")
    for pid in ("p1", "p2", "p3", "p4"):
        api.connect(f"c{pid}", pid)
    version = api.snapshot().version
    api.send("cp3", {"action": "nudge", "phase": public.LOBBY_PHASE})
    assert api.snapshot().version == version and api.errors("cp3") == []
    api.clock.advance(public.COUNTDOWN_SECONDS)
    api.send("cp3", {"action": "nudge", "phase": public.LOBBY_PHASE})
    assert api.snapshot().room["status"] == "running"


# ---------------------------------------------------------------- public means protected (docs/rules.md, "Public rooms")
def test_public_means_protected_creation_refuses_contrary_options_with_a_code_and_stores_nothing(api):
    """`POST /rooms` with `public: true` and a protection switched off is refused
    (`public_protected`, naming the option), and nothing is listed."""
    for contrary in (
        {"kidSafeChat": False},
        {"anonymous": False},
        {"substitutes": False},
        {"substituteApproval": True},
        {"afkLimit": 0},
    ):
        status, body = api.rest("POST", "/rooms", {"name": "Ann", "options": {"public": True, **contrary}})
        assert status == 400, contrary
        assert (
            body["error"]["code"] == "public_protected" and next(iter(contrary)) in body["error"]["message"]
        )
    assert listed(api) == []


def test_public_means_protected_set_options_while_listed_keeps_every_protection(api):
    """`setOptions` on a listed room never drops a protection: options left out come back as
    the public defaults, contrary ones are refused and the stored options stay as they were."""
    code = public_room(api)
    api.connect("cp1", "p1")
    api.send("cp1", {"action": "setOptions", "options": {"public": True, "afkLimit": 4}})
    opts = api.snapshot().room["options"]
    assert opts["anonymous"] and opts["kidSafeChat"] and opts["substitutes"]
    assert opts["substituteApproval"] is False and opts["afkLimit"] == 4
    before = api.snapshot().room["options"]
    api.send("cp1", {"action": "setOptions", "options": {"public": True, "anonymous": False}})
    assert api.errors("cp1")[-1]["code"] == "public_protected"
    assert api.snapshot().room["options"] == before
    assert listed(api) == [code]


def test_public_means_protected_quick_play_never_seats_anyone_in_an_unprotected_listed_room(api):
    """A listed room stored before the rule with a protection off (kid-safe chat here) is
    skipped by quick play, which makes a protected room instead."""
    code = public_room(api)
    snap = api.snapshot(code)
    api.svc.store.save(
        snap, dict(snap.room, options={**snap.room["options"], "kidSafeChat": False}), snap.state
    )
    status, body = quick(api, "Kid")
    assert status == 201 and body["roomCode"] != code
    assert api.snapshot(body["roomCode"]).room["options"]["kidSafeChat"] is True


def test_public_means_protected_a_listed_lobby_summary_names_no_person_host_or_bot(api):
    code = public_room(api, name="Annabel")
    api.join("Boris", code)
    api.connect("cp1", "p1")
    api.send("cp1", {"action": "addBot"})
    status, body = api.rest("GET", f"/rooms/{code}")
    assert status == 200
    text = json.dumps(body)
    assert "Annabel" not in text and "Boris" not in text
    assert body["host"] is None
    assert len(body["players"]) == 3
    assert not any(p["host"] or p["bot"] or p["connected"] or p["name"] for p in body["players"])
    # a private lobby's summary is unchanged: the host's friends read the names
    private = api.create("Carla")
    assert "Carla" in json.dumps(api.rest("GET", f"/rooms/{private}")[1])


# ---------------------------------------------------------------- live rooms only (docs/rules.md, "Public rooms")
@pytest.mark.parametrize("abandoned", [0, 20, 30])
def test_the_list_and_quick_play_see_live_rooms_only_whatever_lies_abandoned(
    api, svc, monkeypatch, abandoned
):
    """Lobbies whose people left (never written again before their TTL) keep their index keys;
    still the first page (one Query) holds the live lobbies, and quick play seats a stranger in
    one of them instead of opening yet another room."""
    stale = set()
    for i in range(abandoned):
        stale.add(public_room(api, name=f"Gone{i}"))
        api.join(f"Left{i}", api.code)  # the fullest rooms: they sorted first before
        api.join(f"Left{i}b", api.code)
    api.clock.advance(public.EMPTY_GRACE_SECONDS + 5)  # every one of them is idle now
    live = {public_room(api, name=f"Here{i}") for i in range(5)}
    rec = Recorder(svc.store.client)
    monkeypatch.setattr(svc.store, "client", rec)
    assert set(listed(api)) == live  # the default page (20): every live room, none stale
    assert [name for name, _ in rec.calls] == ["query"]
    _, body = get_list(api, lang="en", limit=5)
    assert {r["roomCode"] for r in body["rooms"]} == live
    rec.calls.clear()
    status, seat = quick(api, "Stranger")
    assert status == 201 and seat["roomCode"] in live
    assert [name for name, _ in rec.calls][0] == "query"


@pytest.mark.parametrize("racers", [12, 30, 60])
def test_a_race_converges_strangers_pressing_play_now_together_fill_the_fewest_rooms(api, svc, racers):
    """docs/rules.md, "Public rooms": `racers` strangers press "Play now" at once on an empty list for one
    language and preset: they fill ceil(racers / 12) classic rooms (one forming lobby at a
    time, claimed by a conditional create), not one room each."""
    answers: list = []
    errors: list = []
    barrier = threading.Barrier(racers)

    def play(i):
        barrier.wait()
        try:
            answers.append(svc.quick_play(f"Racer{i}", "ko", "classic"))
        except Exception as exc:  # noqa: BLE001 - counted below
            errors.append(exc)

    threads = [threading.Thread(target=play, args=(i,)) for i in range(racers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(answers) == racers
    rooms = {a["roomCode"] for a in answers}
    assert len({(a["roomCode"], a["playerId"]) for a in answers}) == racers
    assert len(rooms) == -(-racers // 12), sorted(len(api.snapshot(c).room["players"]) for c in rooms)

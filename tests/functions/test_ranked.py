"""Ranked play's room rules on the in-memory store (docs/rules.md, "Ranked play"): the ratings
feature rates a ranked game at its end in the room's one write, the ladders and a person's page
read it back, a leave costs a cool-down, a season rolls over with the clock, nothing ranked shows
before the end."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
from fnkit import CTX
from test_game import play
from test_public_strangers import play_out

from handlers import rest
from local import events
from service.features import ratings as feature
from service.identity import persons, sessions
from service.infra.storage import RATING_KIND, SideItem, WritePlan
from service.ranked import ratings as rt
from service.ranked import records

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

N = 5  # classic's smallest table: one mafia, four town


def person(pid: str) -> str:
    return f"person-secret-{pid}"


def make_ranked(api, prior: dict[str, rt.Rating] | None = None, season: str | None = None) -> None:
    """What ranked quick play leaves on a room (scripted): the option, each seat's person, the
    ratings read when seating them."""

    def change(c):
        c.room["ranked"] = True
        for seat in c.room["players"]:
            seat["person"] = person(seat["id"])
            who = records.handle(person(seat["id"]))
            feature.note_rating(c.room, who, (prior or {}).get(seat["id"], rt.Rating()), season)
        return c.changed()

    api.svc.pipeline.run(api.code, change)


def ranked_game(api, seed: int = 3, prior=None, season=None, **options) -> dict:
    api.lobby(N, **({"options": options} if options else {}))
    make_ranked(api, prior, season or rt.season_of(api.clock.t))
    for pid in (f"p{i}" for i in range(2, N + 1)):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start", "id": "start"})
    assert api.snapshot().room["status"] == "running"
    if options.get("anonymous"):
        play_out(api, api.code, seed)  # fresh seat ids: each connection plays its own seat
    else:
        play(api, N, seed)
    room = api.snapshot().room
    assert room["status"] == "ended"
    return room


def handles() -> dict[str, str]:
    return {f"p{i}": records.handle(person(f"p{i}")) for i in range(1, N + 1)}


def test_ranked_game_is_rated_at_its_end_in_the_rooms_write(api):
    room = ranked_game(api)
    store, season = api.svc.store, rt.season_of(api.clock.t)
    won = {p["id"]: p["won"] for p in api.state()["result"]["players"]}
    for pid, who in handles().items():
        r = records.season_rating(store, who, season, "en")
        assert r.games == 1 and r.wins == int(won[pid])
        assert (r.mu > rt.MU) == won[pid]
        page = records.person_page(store, who, season, "en")
        assert page["standing"]["tier"] == "placement" and page["games"][0]["room"] == api.code
    ladder, _, _ = store.ladder_page("en", season, 10, None)
    assert sorted(e["handle"] for e in ladder) == sorted(handles().values())
    assert [e["points"] for e in ladder] == sorted((e["points"] for e in ladder), reverse=True)
    # the side's balance and the table size are rated too, off the ladder
    ents = records.preset_entities(store, "classic")
    assert {rt.balance_entity("classic", N, "town"), rt.balance_entity("classic", N, "mafia")} <= set(ents)
    # the end's view: each seat's move, the viewer's own
    end = api.gw.last("cp1")["view"]["room"]["ranked"]
    assert end["you"]["handle"] == handles()["p1"] and (end["you"]["delta"] > 0) == won["p1"]
    assert len(end["table"]) == N
    assert room["rating"]["outcome"]


def test_no_rating_or_person_id_in_any_view_or_frame_before_the_end(api):
    room = ranked_game(api, seed=5, anonymous=True)  # as ranked quick play's rooms are
    assert room["options"]["anonymous"]
    secrets = [person(f"p{i}") for i in range(1, N + 1)] + list(handles().values())
    ended = False
    for _conn, frame in api.gw.sent:
        text = json.dumps(frame)
        if frame.get("type") == "view" and (frame["view"].get("result") is not None):
            ended = True
        if not ended:
            assert not any(s in text for s in secrets), text[:300]
            assert '"mu"' not in text and '"points"' not in text and '"handle"' not in text
    assert ended
    # the end names each seat's move, the viewer's own by its (fresh) seat id
    seat = next(p["id"] for p in room["players"] if p["person"] == person("p1"))
    assert api.gw.last("cp1")["view"]["room"]["ranked"]["you"]["seat"] == seat
    status, summary = api.rest("GET", f"/rooms/{api.code}")
    assert status == 200 and not any(s in json.dumps(summary) for s in secrets[:N])


def test_leaving_a_ranked_game_alive_costs_a_loss_and_a_cool_down(api):
    api.lobby(N)
    make_ranked(api, season=rt.season_of(api.clock.t))
    for pid in (f"p{i}" for i in range(2, N + 1)):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start", "id": "start"})
    t_leave = api.clock.t
    api.send("cp2", {"action": "leave", "id": "bye"})
    who = handles()["p2"]
    until = records.cooldown_until(api.svc.store, who, api.clock.t)
    assert until == pytest.approx(t_leave + rt.COOLDOWN_STEPS[0])
    with pytest.raises(records.Cooldown) as refused:
        records.require_no_cooldown(api.svc.store, who, api.clock.t)
    assert refused.value.status == 429 and "UTC" in refused.value.message
    assert refused.value.as_dict()["retryAfter"] == rt.COOLDOWN_STEPS[0]
    play(api, N, 4)
    assert api.snapshot().room["status"] == "ended"
    r = records.season_rating(api.svc.store, who, rt.season_of(api.clock.t), "en")
    assert r.games == 1 and r.wins == 0 and r.mu < rt.MU  # a loss, whatever the side did


def test_a_leave_whose_seat_a_bot_took_at_once_costs_no_cool_down(api):
    api.lobby(N)
    make_ranked(api, season=rt.season_of(api.clock.t))
    for pid in (f"p{i}" for i in range(2, N + 1)):
        api.send(f"c{pid}", {"action": "ready"})
    api.send("cp1", {"action": "start", "id": "start"})

    def bot_takes_p3(c):  # an idle seat handed to a bot (room/afk.py), scripted
        from service.room import substitutes

        return c.changed(substitutes.bot_takes(c.room, c.state, "p3", c.now))

    api.svc.pipeline.run(api.code, bot_takes_p3)
    who = handles()["p3"]
    leaves = api.svc.store.side_items(records.LEAVE_KIND, who, 10)
    assert len(leaves) == 1 and leaves[0].data["waived"]
    assert records.cooldown_until(api.svc.store, who, api.clock.t) == 0.0


def test_season_rollover_a_game_counts_in_the_month_it_ends_and_starts_it_afresh(api):
    api.clock.t = datetime(2026, 12, 31, 23, 58, tzinfo=UTC).timestamp()
    old = {pid: rt.Rating(mu=30.0, sigma=3.0, games=9, wins=6) for pid in handles()}
    # last season's ladder already holds these people
    snap = api.svc.store.load(api.create("Seed"))
    items = tuple(
        SideItem(RATING_KIND, who, "2026-12#en", {**old[pid].as_dict(), "points": 1500, "games": 9,
                                                    "ladder": {"lang": "en", "season": "2026-12"}}, 2_000_000_000)
        for pid, who in handles().items()
    )  # fmt: skip
    api.svc.store.save(snap, snap.room, None, WritePlan(side_items=items))
    ranked_game(api, seed=3, prior=old, season="2026-12")
    assert rt.season_of(api.clock.t) == "2027-01"  # the clock stepped past midnight, UTC
    store = api.svc.store
    for who in handles().values():
        r = records.season_rating(store, who, "2027-01", "en")
        assert r.games == 1  # placement again: a new season's rating starts afresh
        assert records.season_rating(store, who, "2026-12", "en").games == 9  # last season's stays
    new_ladder = store.ladder_page("en", "2027-01", 10, None)[0]
    old_ladder = store.ladder_page("en", "2026-12", 10, None)[0]
    assert all(e["games"] == 1 for e in new_ladder) and len(new_ladder) == N
    assert all(e["games"] == 9 and e["points"] == 1500 for e in old_ladder) and len(old_ladder) == N


# ---------------------------------------------------------------- ranked quick play (REST)
KEY = b"k" * 32


@pytest.fixture
def signed(svc, fake_clock):
    """`signed(casual)`: a stored person who finished `casual` casual games, and a session."""
    svc.sessions = sessions.SessionKey(secret_id="test", fetch=lambda _: KEY.decode())

    def make(casual: int = rt.RANKED_AFTER_CASUAL) -> tuple[dict, dict]:
        person = {**persons.new_person(int(fake_clock())), "casualGames": casual}
        svc.store.put_person(person)
        token = sessions.issue(person["id"], int(fake_clock()), KEY)[0]
        return person, {"Authorization": f"Session {token}"}

    return make


def play_ranked(api, headers: dict, name: str, device: str) -> tuple[int, dict]:
    return api.rest(
        "POST", "/quickplay", {"name": name, "lang": "en", "ranked": True, "device": device}, headers
    )


def store_rating(api, person: dict, r: rt.Rating) -> None:
    snap = api.svc.store.load(api.create("Seed"))
    season = rt.season_of(api.clock.t)
    item = records.rating_items(season, "en", "classic", {records.handle(person["id"]): r}, api.clock.t)
    api.svc.store.save(snap, snap.room, None, WritePlan(side_items=tuple(item)))


def test_play_ranked_needs_a_session_and_finished_casual_games(api, signed):
    status, body = play_ranked(api, {}, "Zed", "D" * 20)
    assert status == 401 and body["error"]["code"] == "sign_in_required"
    _, novice = signed(casual=rt.RANKED_AFTER_CASUAL - 1)
    status, body = play_ranked(api, novice, "Zed", "D" * 20)
    assert (
        status == 403 and body["error"]["code"] == "ranked_locked" and "1 to go" in body["error"]["message"]
    )


def test_play_ranked_seats_similar_ratings_together_the_band_widening_with_the_wait(api, signed):
    (_, ha), (_, hb), (far, hf) = signed(), signed(), signed()
    store_rating(api, far, rt.Rating(mu=18.5, sigma=2.0, games=10))  # 1500 points: 500 above the others
    status, first = play_ranked(api, ha, "Ann", "A" * 20)
    assert status == 201 and set(first) == {"roomCode", "playerId", "token", "wsUrl"}
    room = api.snapshot(first["roomCode"]).room
    assert room["ranked"] and room["options"]["public"] and room["options"]["anonymous"]
    api.code = first["roomCode"]
    assert api.connect("ca", token=first["token"]) == 200  # in the lobby: it stays listed
    api.send("ca", {"action": "sync"})
    lobby = api.gw.last("ca")["view"]["room"]["ranked"]["band"]
    assert lobby["start"] == rt.BAND_START and lobby["perSecond"] == rt.BAND_PER_SECOND
    status, second = play_ranked(api, hb, "Bob", "B" * 20)
    assert status == 201 and second["roomCode"] == first["roomCode"]  # a similar rating: one table
    status, apart = play_ranked(api, hf, "Cat", "C" * 20)
    assert status == 201 and apart["roomCode"] != first["roomCode"]  # too far for a new lobby's band
    (far2, hf2) = signed()
    store_rating(api, far2, rt.Rating(mu=18.5, sigma=2.0, games=10))
    api.clock.advance(45)  # the first lobby has waited: its band is 100 + 10 x 45 = 550 points
    status, later = play_ranked(api, hf2, "Dee", "E" * 20)
    assert status == 201 and later["roomCode"] in (first["roomCode"], apart["roomCode"])
    assert (
        api.snapshot(first["roomCode"]).room["players"][-1]["person"] == far2["id"]
        or later["roomCode"] == apart["roomCode"]
    )


def test_a_ranked_leave_refuses_play_ranked_saying_until_when(api, signed):
    person, headers = signed()
    snap = api.svc.store.load(api.create("Seed"))
    leave = records.leave_item(records.handle(person["id"]), "ROOM", "p2", api.clock.t - 60, waived=False)
    api.svc.store.save(snap, snap.room, None, WritePlan(side_items=(leave,)))
    status, body = play_ranked(api, headers, "Zed", "D" * 20)
    assert status == 429 and body["error"]["code"] == "ranked_cooldown"
    assert body["error"]["retryAfter"] == rt.COOLDOWN_STEPS[0] - 60 and "UTC" in body["error"]["message"]


def get(api, path: str, **query: str) -> tuple[int, dict]:
    event = events.rest_event(method="GET", path=path, query=query or None, headers={})
    out = rest.handler(event, CTX)
    return out["statusCode"], json.loads(out["body"])


def test_the_ladder_and_a_persons_page_are_read_over_rest_and_delete_me_clears_them(api):
    ranked_game(api, seed=3)
    season = rt.season_of(api.clock.t)
    status, page = get(api, "/ladder", lang="en", limit="2")
    assert status == 200 and page["season"] == season and len(page["rows"]) == 2 and page["cursor"]
    status, rest_of = get(api, "/ladder", lang="en", limit="10", cursor=page["cursor"])
    assert status == 200 and len(rest_of["rows"]) == N - 2 and rest_of["cursor"] is None
    assert all(r["tier"] == "placement" for r in page["rows"] + rest_of["rows"])
    assert get(api, "/ladder", lang="ru", cursor=page["cursor"])[0] == 400  # another ladder's cursor
    assert get(api, "/ladder", lang="en", season="2026-13")[0] == 400
    who = handles()["p1"]
    status, mine = get(api, f"/people/{who}", lang="en")
    assert status == 200 and mine["standing"]["games"] == 1 and mine["games"][0]["room"] == api.code
    assert get(api, "/people/NOT-A-HANDLE")[0] == 400
    assert not any(person(f"p{i}") in json.dumps([page, rest_of, mine]) for i in range(1, N + 1))
    # "delete me" takes the person off the ladder, their games and ratings with them
    persons.delete(api.svc.store, person("p1"))
    assert who not in [r["handle"] for r in get(api, "/ladder", lang="en")[1]["rows"]]
    assert get(api, f"/people/{who}", lang="en")[1]["games"] == []


# ---------------------------------------------------------------- racers converge, one ranked game at a time
@pytest.mark.parametrize("racers", [4, 12])
def test_a_ranked_race_converges_racers_on_an_empty_list_fill_the_fewest_lobbies(api, signed, monkeypatch, racers):
    """docs/rules.md, "Ranked play": `racers` signed-in people of one rating bucket press "Play
    ranked" at once on an empty list: interleaved as a race is at its worst (every racer read the
    list while it was empty, then each seats in turn), they fill ceil(racers / 12) lobbies (the
    window's forming lobby of their language and bucket, claimed by a conditional create), not
    one each. A racer of another bucket (500 points above) forms a lobby of its own."""
    people = [signed() for _ in range(racers)]
    far, far_headers = signed()
    store_rating(api, far, rt.Rating(mu=18.5, sigma=2.0, games=10))  # 1500 points: bucket 5
    empty = api.svc.store.list_public

    def read_while_empty(index, partition, limit, start, now):  # every racer's read came first
        rows, last, n = empty(index, partition, limit, start, now)
        return [r for r in rows if not partition.startswith("ranked#")], last, n

    monkeypatch.setattr(api.svc.store, "list_public", read_while_empty)
    answers = []
    for i, (_, headers) in enumerate(people):
        status, body = play_ranked(api, headers, f"Racer{i}", f"{i:020d}")
        assert status == 201, body
        answers.append(body)
    status, apart = play_ranked(api, far_headers, "Far", "F" * 20)
    assert status == 201
    rooms = {a["roomCode"] for a in answers}
    assert len(rooms) == -(-racers // 12), sorted(len(api.snapshot(c).room["players"]) for c in rooms)
    assert apart["roomCode"] not in rooms
    for code in rooms:
        room = api.snapshot(code).room
        assert room["ranked"] and room["options"]["anonymous"]
        assert {s["person"] for s in room["players"]} <= {p["id"] for p, _ in people}
    assert rt.bucket_of(rt.points(rt.Rating())) == 0 and rt.bucket_of(1049) == 0 and rt.bucket_of(950) == 0
    assert rt.bucket_of(949) == -1 and rt.bucket_of(1050) == 1 and rt.bucket_of(1500) == 5


def test_one_ranked_game_at_a_time_a_second_ranked_seat_is_refused_whatever_device(api, signed):
    """docs/rules.md, "Ranked play": a person who holds a seat of a ranked lobby or running game
    takes no seat of another ranked room, from "Play ranked" or from a modified client's direct
    join of a listed ranked lobby, whatever device key: `409 ranked_seated`, nothing stored. The
    game's end (or leaving its lobby) frees them."""
    (ann, ha), (bob, hb) = signed(), signed()
    store_rating(api, bob, rt.Rating(mu=18.5, sigma=2.0, games=10))  # far apart: two lobbies
    status, mine = play_ranked(api, ha, "Ann", "A" * 20)
    assert status == 201
    status, other = play_ranked(api, hb, "Bob", "B" * 20)
    assert status == 201 and other["roomCode"] != mine["roomCode"]
    before = {c: api.snapshot(c).version for c in (mine["roomCode"], other["roomCode"])}
    seats = api.svc.store.side_items(records.SEAT_KIND, records.handle(ann["id"]), 10)
    # Play ranked again, from another device: refused while the lobby holds her
    status, body = play_ranked(api, ha, "Ann", "Z" * 20)
    assert status == 409 and body["error"]["code"] == "ranked_seated" and "another ranked game" in body["error"]["message"]
    # a modified client joins another ranked lobby by its code directly: refused as well
    status, body = api.rest(
        "POST", f"/rooms/{other['roomCode']}/players", {"name": "Ann", "device": "Y" * 20}, ha
    )
    assert status == 409 and body["error"]["code"] == "ranked_seated"
    assert {c: api.snapshot(c).version for c in before} == before  # nothing stored
    assert api.svc.store.side_items(records.SEAT_KIND, records.handle(ann["id"]), 10) == seats

    def running(c):  # the lobby starts (scripted): a running game holds her just the same
        c.room["status"] = "running"
        return c.changed()

    api.svc.pipeline.run(mine["roomCode"], running)
    status, body = play_ranked(api, ha, "Ann", "X" * 20)
    assert status == 409 and body["error"]["code"] == "ranked_seated"

    def ended(c):
        c.room["status"] = "ended"
        return c.changed()

    api.svc.pipeline.run(mine["roomCode"], ended)  # the game is over: she is free
    status, again = play_ranked(api, ha, "Ann", "X" * 20)
    assert status == 201 and again["roomCode"] not in (mine["roomCode"], other["roomCode"])
    # a joined seat is recorded in the join's own write: Bob, seated by a join, is held too
    cat, hc = signed()
    status, joined = play_ranked(api, hc, "Cat", "C" * 20)
    assert status == 201 and joined["roomCode"] == again["roomCode"]
    assert records.seated_elsewhere(api.svc.store, cat["id"]) == again["roomCode"]

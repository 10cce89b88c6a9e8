"""The REST side of a room: create it, take a seat in its lobby, read its public summary."""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Callable
from typing import TYPE_CHECKING

import mafia_engine as me

from ..features import aliases, fairness, ratings
from ..identity import persons
from ..infra import auth, clock, migrations
from ..infra.errors import ServiceError
from ..infra.storage import RANKED_PREFIX, SideItem, Store
from ..infra.telemetry import count, logger
from ..protocol import views
from ..protocol.roomcode import ROOM_ALPHABET, ROOM_CODE_LENGTH
from ..ranked import ratings as rt
from ..ranked import records
from . import public, substitutes
from .change import Context, Outcome
from .operations import new_seat, next_player_id, require_room_for
from .setup import public_defaults, require_valid_options, room_setup_error

if TYPE_CHECKING:
    from .pipeline import Pipeline

CODE_TRIES = 20


def create_room(
    store: Store,
    ws_url: str,
    name: str,
    preset: str,
    options: dict,
    lang: str,
    device: str | None = None,
    ip: str | None = None,
    code: str | None = None,
    person: dict | None = None,
    ranked: bool = False,
    prepare: Callable[[dict], None] | None = None,
    side_items: Callable[[str], tuple[SideItem, ...]] | None = None,
) -> dict | None:
    """A new room with its creator as host and first player (p1); the creator's device key
    and address are noted on its seat (one person, one seat: quick play's own rooms too).
    `code`: this code or none (None when it is taken: quick play's forming lobby). `person`: the
    creator's signed-in person record (identity/persons.py), noted on the seat; `ranked`: a
    ranked room (`room["ranked"]`: one seat per person, signed in; ranked quick play's rooms).
    `side_items(code)`: items written with the room or not at all (a ranked creator's seat record)."""
    options = dict(options)
    options.pop("preset", None)
    options = public_defaults(options)  # a public room: anonymous, kid-safe, substitutes unless given
    require_valid_options(preset, options, 1)
    token = auth.new_token()
    room = {
        "v": migrations.ROOM_VERSION,  # the room data's shape (service/infra/migrations.py)
        "preset": preset,
        "options": options,
        "status": "lobby",
        "host": "p1",
        "nextId": 2,
        "seed": fairness.new_secret(),  # the game's secret: every random draw derives from it
        "deal": fairness.new_deal(),  # its commitment's salt, the phones' values (docs/rules.md)
        "lang": lang,
        "players": [new_seat("p1", name, auth.hash_token(token))],
        "views": {},
        "timer": None,
        "archive": {"seq": 0, "first": 1, "buffers": {}},
    }
    if ranked:
        room["ranked"] = True
    persons.note_person(room["players"][0], persons.seat_person(room, person))
    substitutes.note_device(room["players"][0], device)
    public.note_address(room["players"][0], ip)
    if prepare is not None:  # ranked quick play: the ratings read for the room (features/ratings.py)
        prepare(room)
    public.track(room, set(), clock.now())  # listed from its first write (service/room/public.py)
    for _ in range(1 if code else CODE_TRIES):
        room["code"] = code or "".join(secrets.choice(ROOM_ALPHABET) for _ in range(ROOM_CODE_LENGTH))
        if store.create(room["code"], room, side_items(room["code"]) if side_items else ()):
            logger.info("room created", extra={"room": room["code"], "player": "p1"})
            return {"roomCode": room["code"], "playerId": "p1", "token": token, "wsUrl": ws_url}
    if code:
        return None
    raise ServiceError("busy", "could not find a free room code", 503)


FORMING_SECONDS = 30  # quick play's forming lobbies of a language and preset change codes this often
FORMING_SLOTS = 8  # forming lobbies tried in turn (the first full: the next) before a random room


def forming_code(lang: str, preset: str, now: float, slot: int, bucket: int | None = None) -> str:
    """The code of quick play's `slot`th forming lobby of `lang` and `preset` in this
    `FORMING_SECONDS` window: every container derives the same, so racers on an empty list
    claim one room by a conditional create and the others join it (docs/rules.md, "Public rooms": "A race
    converges"). Known to anyone who knows the rule: a code taken by someone else's room is
    skipped (the join's checks: public, protected, this language and preset, live).
    `bucket`: ranked quick play's, per rating bucket too (`ratings.bucket_of`): a code of its own.
    """
    window = int(now // FORMING_SECONDS)
    kind = "forming" if bucket is None else f"ranked#{bucket}"
    digest = hashlib.sha256(f"{kind}#{lang}#{preset}#{window}#{slot}".encode()).digest()
    return "".join(ROOM_ALPHABET[b % len(ROOM_ALPHABET)] for b in digest[:ROOM_CODE_LENGTH])


def party_code(party: str, slot: int) -> str:
    """The code of the `slot`th lobby of a table playing again together (`party`: the ended public
    game's `room.party`, read only by the people seated at its end): the first to press "Play
    again with this table" makes it by a conditional create, the others join it; once it is full
    or started, the next slot (docs/rules.md, "Public rooms": "Play again together")."""
    digest = hashlib.sha256(f"party#{party}#{slot}".encode()).digest()
    return "".join(ROOM_ALPHABET[b % len(ROOM_ALPHABET)] for b in digest[:ROOM_CODE_LENGTH])


def join_room(
    pipeline: Pipeline,
    ws_url: str,
    code: str,
    name: str,
    device: str | None = None,
    check: Callable[[Context], None] | None = None,
    ip: str | None = None,
    person: dict | None = None,
    elsewhere: Callable[[], str | None] | None = None,
) -> dict:
    """A new seat in a lobby: the next player id and a fresh token. `device`: the key the
    joining device keeps; a device that holds a seat of this room takes no second one.
    `person`: the signed-in person record, noted on the seat (a ranked room: required, and one
    seat per person: identity/persons.py `seat_person`).
    `elsewhere()`: the ranked room where the person holds a seat now (`records.seated_elsewhere`,
    asked once, and only of a ranked room): another ranked room refuses them (`409
    ranked_seated`: one ranked game at a time).
    `check`: more conditions on the room as this attempt read it (quick play: service/room/public.py);
    the write is conditional on that reading, so of two racing for the last seat one gets it."""
    token = auth.new_token()
    held: list[str | None] = []  # elsewhere()'s answer, read once whatever the retries

    def change(c: Context) -> Outcome:
        if c.room["status"] != "lobby":
            raise ServiceError("already_started", "the game has already started", 409)
        if check is not None:
            check(c)
        require_room_for(c.room, name, 409)
        # a ranked room: signed in, one seat per person whatever device or socket (identity/persons.py)
        person_id = persons.seat_person(c.room, person)
        if persons.ranked(c.room) and elsewhere is not None:  # one ranked game at a time
            if not held:
                held.append(elsewhere())
            records.require_not_seated_elsewhere(held[0], c.room["code"])
        if substitutes.played(c.room, device):  # one person, one seat (docs/rules.md, "Substitutes")
            raise ServiceError("device_seated", "this device already holds a seat in this room", 409)
        public.require_one_seat(c.room, ip)  # a public room: one seat per address (docs/rules.md)
        pid = next_player_id(c.room)
        c.room["players"].append(new_seat(pid, name, auth.hash_token(token)))
        persons.note_person(c.room["players"][-1], person_id)
        substitutes.note_device(c.room["players"][-1], device)
        public.note_address(c.room["players"][-1], ip)
        if c.room.get("host") is None:  # everyone left the lobby: the newcomer runs it
            c.room["host"] = pid
        return c.changed(result={"playerId": pid, "token": token, "wsUrl": ws_url})

    out = pipeline.run(code, change)
    logger.info("player joined", extra={"room": code, "player": out["playerId"]})
    return out


def quick_play(
    pipeline: Pipeline,
    store: Store,
    ws_url: str,
    now: float,
    name: str,
    lang: str,
    preset: str | None,
    device: str | None,
    ip: str | None = None,
    party: str | None = None,
    before_create: Callable[[], None] | None = None,
    person: dict | None = None,
) -> dict:
    """A seat in the fullest listed lobby that fits, or a new public room: the answer of a
    create (`roomCode`, `playerId`, `token`, `wsUrl`). `party`: an ended public game's table
    playing again together: its own lobby first (`party_code`), made by the first to ask.
    `before_create`: called once before the first room this call may make (the client's
    creation budget: a refusal makes none)."""
    if lang not in public.LANGS:
        raise ServiceError("bad_request", f"lang: one of {', '.join(public.LANGS)}")
    spend = _once(before_create)  # the creation budget, before the first room this call may make
    if party:
        spend()
        out = _claim_or_join(
            pipeline,
            store,
            ws_url,
            name,
            lang,
            preset,
            device,
            ip,
            [party_code(party, s) for s in range(FORMING_SLOTS)],
            person=person,
        )
        if out is not None:
            logger.info("quick play seated a table playing again", extra={"room": out["roomCode"]})
            return out
    index, partition = ("PublicByPreset", f"{lang}#{preset}") if preset else ("PublicByLang", lang)
    items, _, _ = store.list_public(index, partition, public.QUICK_CANDIDATES, None, now)
    # the page holds live lobbies only, the latest active first: the fullest of them first
    for it in sorted(items, key=lambda it: -it["seats"]):
        code = it["roomCode"]
        try:
            out = join_room(
                pipeline,
                ws_url,
                code,
                name,
                device,
                check=public.join_check(lang, preset),
                ip=ip,
                person=person,
            )
        except ServiceError as exc:
            if exc.code in public.SKIP:
                count("QuickPlaySkips")
                continue
            raise
        logger.info("quick play seated", extra={"room": code, "player": out["playerId"]})
        return {"roomCode": code, **out}
    # no live lobby read: the forming lobbies of this window, claimed by a conditional create
    # (the first racer makes it, the others join it; a full one: the next slot)
    chosen = preset or "classic"
    spend()
    codes = [forming_code(lang, chosen, now, slot) for slot in range(FORMING_SLOTS)]
    out = _claim_or_join(pipeline, store, ws_url, name, lang, preset, device, ip, codes, person=person)
    if out is not None:
        return out
    count("QuickPlayRooms")
    made = create_room(store, ws_url, name, chosen, {"public": True}, lang, device, ip, person=person)
    assert made is not None
    return made


# ---------------------------------------------------------------- ranked quick play
def ranked_quick_play(
    pipeline: Pipeline,
    store: Store,
    ws_url: str,
    now: float,
    name: str,
    lang: str,
    preset: str | None,
    person: dict,
    device: str | None,
    ip: str | None = None,
) -> dict:
    """ "Play ranked": a seat in a ranked lobby of `lang` whose table's mean rating is within its
    band of the person's (the band widens with the lobby's wait: `ratings.band`), or a new
    anonymous public ranked room (docs/rules.md, "Ranked play"). The person's season rating and
    the preset's pseudo-players and bot are read here (the room's feature rates from them at the
    end: features/ratings.py). Answers as quick play; the lobby's views state its band."""
    if lang not in public.LANGS:
        raise ServiceError("bad_request", f"lang: one of {', '.join(public.LANGS)}")
    who = records.handle(person["id"])
    season = rt.season_of(now)
    mine = records.season_rating(store, who, season, lang)
    pts = rt.points(mine)
    partition = f"{RANKED_PREFIX}{lang}#{preset}" if preset else f"{RANKED_PREFIX}{lang}"
    items, _, _ = store.list_public(
        "PublicByPreset" if preset else "PublicByLang", partition, public.QUICK_CANDIDATES, None, now
    )
    casual = public.join_check(lang, preset)

    def check(c: Context) -> None:
        casual(c)
        if not c.room.get("ranked"):
            raise ServiceError("not_public", "this room is not ranked", 409)
        block = c.room.get("rating") or {}
        width = rt.band(c.now - float(block.get("since", c.now)))
        if abs(pts - float(block.get("center", pts))) > width:
            raise ServiceError("out_of_band", "this table's ratings are too far from yours for now", 409)
        ratings.note_rating(c.room, who, mine, season)
        ratings.recenter(c.room)

    for it in sorted(items, key=lambda it: -it["seats"]):
        code = it["roomCode"]
        try:
            out = join_room(pipeline, ws_url, code, name, device, check=check, ip=ip, person=person)
        except ServiceError as exc:
            if exc.code in public.SKIP or exc.code == "out_of_band":
                count("QuickPlaySkips")
                continue
            raise
        logger.info("ranked quick play seated", extra={"room": code, "player": out["playerId"]})
        return {"roomCode": code, **out}
    chosen = preset or "classic"
    entities = records.preset_entities(store, chosen)

    def prepare(room: dict) -> None:
        for entity, data in entities.items():
            ratings.note_rating(room, entity, rt.Rating.of(data), None)
        ratings.note_rating(room, who, mine, season)
        room["rating"]["since"] = now
        ratings.recenter(room)

    def make(code: str | None) -> dict | None:
        made = create_room(
            store,
            ws_url,
            name,
            chosen,
            {"public": True},
            lang,
            device,
            ip,
            code=code,
            person=person,
            ranked=True,
            prepare=prepare,
            side_items=lambda c: (records.seat_item(person["id"], c, now),),
        )
        if made is not None:
            count("QuickPlayRooms")
        return made

    # no ranked lobby read took them: the forming lobbies of this window and rating bucket, as
    # quick play's (the first racer makes it by a conditional create, the others join it; a
    # full one or one out of band: the next slot), then a room of a random code
    bucket = rt.bucket_of(pts)
    for slot in range(FORMING_SLOTS):
        code = forming_code(lang, chosen, now, slot, bucket)
        made = make(code)
        if made is not None:
            return made
        try:
            out = join_room(pipeline, ws_url, code, name, device, check=check, ip=ip, person=person)
        except ServiceError as exc:
            if exc.code in public.SKIP or exc.code == "out_of_band":
                continue
            raise
        logger.info("ranked quick play joined a forming lobby", extra={"room": code, "player": out["playerId"]})
        return {"roomCode": code, **out}
    made = make(None)
    assert made is not None
    return made


def _once(fn: Callable[[], None] | None) -> Callable[[], None]:
    """`fn` at its first call only (None: nothing)."""
    done = False

    def call() -> None:
        nonlocal done
        if fn is not None and not done:
            done = True
            fn()

    return call


def _claim_or_join(
    pipeline: Pipeline,
    store: Store,
    ws_url: str,
    name: str,
    lang: str,
    preset: str | None,
    device: str | None,
    ip: str | None,
    codes: list[str],
    person: dict | None = None,
) -> dict | None:
    """A seat in the first of `codes` that takes it: a public room made there by a conditional
    create (quick play's forming lobbies, a table's party lobbies), else joined (the join's
    checks: public, protected, this language and preset, live); None when none took it."""
    chosen = preset or "classic"
    for code in codes:
        made = create_room(
            store, ws_url, name, chosen, {"public": True}, lang, device, ip, code=code, person=person
        )
        if made is not None:
            count("QuickPlayRooms")
            return made
        try:
            out = join_room(
                pipeline,
                ws_url,
                code,
                name,
                device,
                check=public.join_check(lang, preset),
                ip=ip,
                person=person,
            )
        except ServiceError as exc:
            if exc.code in public.SKIP:
                continue
            raise
        return {"roomCode": code, **out}
    return None


def seat_fate(pipeline: Pipeline, code: str, token: str | None) -> dict:
    """What became of the seat `token` held in room `code` (`{"fate": ...}`: models.SeatFate), for
    a page whose reconnect is refused (a refused WebSocket handshake carries no reason): its seat
    was handed on while the page was offline, say, and the farewell frame was lost. The answer
    is one word, the same key for every fate: no seat id, no name, nobody who took it, no bot
    (docs/rules.md, "Idle seats"). A wrong, unknown or ill-formed token answers `unknown`, after
    the same work as any other token: every seat's every hash is compared, in constant time."""
    try:
        room = pipeline.load(code).room
    except ServiceError as exc:
        if exc.code == "room_not_found":
            return {"fate": "gone"}
        raise
    return {"fate": fate_of(room, token)}


def _same(stored: str, digest: str) -> bool:
    return hmac.compare_digest(stored, digest) and bool(stored)


def fate_of(room: dict, token: str | None) -> str:
    """`held` (a seat's token), `removed` (a seat the host removed: its `kickedHash`), `left`
    (the newest token a departed seat retired), `handedOn` (any other retired token: an idle
    seat handed to a bot or a substitute, an absent one a substitute took), else `unknown`."""
    shaped = bool(token) and auth.token_shaped(token or "")
    digest = auth.hash_token(token if shaped and token else "")  # the same work for any token
    found = {"held": False, "removed": False, "left": False, "handedOn": False}
    for seat in room["players"]:
        held = _same(seat.get("tokenHash", ""), digest)
        kicked = _same(seat.get("kickedHash", ""), digest)
        former = [_same(h, digest) for h in seat.get("formerHashes", [])]
        newest = bool(former) and former[-1]
        found["held"] |= held
        found["removed"] |= kicked
        found["left"] |= newest and bool(seat.get("left"))
        found["handedOn"] |= any(former) and not (newest and bool(seat.get("left")))
    if not shaped:
        return "unknown"
    return next((fate for fate, hit in found.items() if hit), "unknown")


def summary(pipeline: Pipeline, code: str) -> dict:
    """The public lobby summary (no tokens, no roles)."""
    snap = pipeline.load(code)
    room = snap.room
    connected = {p for p in snap.conns.values() if p}
    phase = "lobby"
    if snap.state is not None:
        phase = (me.dump(me.load(snap.state)).get("phase") or {}).get("kind", "unknown")
    if public.is_public(room) and room["status"] == "lobby":
        # a public lobby's code is on the list: its summary names no person, host or bot, and
        # says nobody's presence (docs/rules.md, "Public rooms")
        connected = set()
        players = [{**p, "name": "", "bot": False} for p in room["players"]]
        room = {**room, "host": None, "players": players}
    # an anonymous game: every field through the one gate (aliases.gate)
    return aliases.summary(
        room,
        {
            "roomCode": room["code"],
            "preset": room["preset"],
            "options": views.shown_options(room["preset"], room["options"]),
            "status": room["status"],
            "phase": phase,
            "host": room["host"],
            "maxPlayers": views.preset_info(room["preset"])["maxPlayers"],
            "setupError": room_setup_error(room) if room["status"] == "lobby" else None,
            "players": [
                {
                    "id": p["id"],
                    "name": p["name"],
                    "ready": bool(p.get("ready")),
                    "host": p["id"] == room["host"],
                    "bot": bool(p.get("bot")),
                    "connected": p["id"] in connected,
                    "left": bool(p.get("left")),  # left a running game: the seat is closed
                }
                for p in room["players"]
            ],
            # seats the host removed (ids only): a refused device learns why its seat is gone
            "removed": list(room.get("removed", [])),
        },
    )

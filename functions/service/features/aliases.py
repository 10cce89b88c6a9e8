"""Anonymous games (host option `anonymous`): every seat is shown by an alias drawn for the game.

At `start` (`deal`) the room reorders its seats and gives each a fresh id (`p<nextId>`, in
the new order) from the game secret's `aliases` key (`rng.alias_draw`), so neither the seat order, nor
an id, nor a colour derived from one says who joined when; the lobby showed names with the
old ids and join order, and those ids are gone. Each seat gets an alias (adjective + animal,
no word used twice in a game), kept as indices in `room["anon"]`; the words live here only,
in ko/ru/en, and views carry all three (`players[].alias`), so each client renders the
viewer's language (docs/rules.md, "Anonymous games").

While the game runs (`masked`), every public field the room layer puts on the wire goes
through one gate, `gate`, with one rule per field (`FIELDS`): the views' per-seat facts
(`facts`), the room block (`room_facts`: no host seat, no scores), the REST summary
(`summary`), errors (`refusal`). Host, bot and ready marks are hidden (the lobby showed them
next to the real names), and so is presence: every seat reads present, bots too, so neither a
bot nor a player offline at the start is singled out. The bots' names (`bot_names`) and the one
error that quoted a seat's name (`name_of`) use the aliases. After the end, real names and
aliases go out together.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from mafia_engine import rng

from .base import Feature, ViewParts

LANGS = ("en", "ko", "ru")

# (en, ko, ru masculine, ru feminine): the Russian adjective agrees with the animal's gender.
ADJECTIVES: tuple[tuple[str, str, str, str], ...] = (
    ("Brave", "용감한", "Храбрый", "Храбрая"),
    ("Quiet", "조용한", "Тихий", "Тихая"),
    ("Clever", "영리한", "Умный", "Умная"),
    ("Swift", "날쌘", "Быстрый", "Быстрая"),
    ("Gentle", "온순한", "Кроткий", "Кроткая"),
    ("Sleepy", "졸린", "Сонный", "Сонная"),
    ("Lucky", "운 좋은", "Везучий", "Везучая"),
    ("Curious", "호기심 많은", "Любопытный", "Любопытная"),
    ("Bold", "대담한", "Смелый", "Смелая"),
    ("Calm", "침착한", "Спокойный", "Спокойная"),
    ("Merry", "명랑한", "Весёлый", "Весёлая"),
    ("Shy", "수줍은", "Робкий", "Робкая"),
    ("Wise", "지혜로운", "Мудрый", "Мудрая"),
    ("Proud", "당당한", "Гордый", "Гордая"),
    ("Sly", "약삭빠른", "Хитрый", "Хитрая"),
    ("Tiny", "작은", "Маленький", "Маленькая"),
    ("Golden", "황금빛", "Золотой", "Золотая"),
    ("Silver", "은빛", "Серебряный", "Серебряная"),
    ("Patient", "참을성 있는", "Терпеливый", "Терпеливая"),
    ("Polite", "예의 바른", "Вежливый", "Вежливая"),
    ("Jolly", "유쾌한", "Задорный", "Задорная"),
    ("Mighty", "힘센", "Могучий", "Могучая"),
    ("Nimble", "재빠른", "Ловкий", "Ловкая"),
    ("Grumpy", "심술궂은", "Ворчливый", "Ворчливая"),
)

# (en, ko, ru, ru gender "m" | "f")
ANIMALS: tuple[tuple[str, str, str, str], ...] = (
    ("Fox", "여우", "Лиса", "f"),
    ("Owl", "부엉이", "Сова", "f"),
    ("Bear", "곰", "Медведь", "m"),
    ("Wolf", "늑대", "Волк", "m"),
    ("Hare", "토끼", "Заяц", "m"),
    ("Otter", "수달", "Выдра", "f"),
    ("Badger", "오소리", "Барсук", "m"),
    ("Heron", "왜가리", "Цапля", "f"),
    ("Lynx", "스라소니", "Рысь", "f"),
    ("Beaver", "비버", "Бобр", "m"),
    ("Crane", "두루미", "Журавль", "m"),
    ("Deer", "사슴", "Олень", "m"),
    ("Hedgehog", "고슴도치", "Ёж", "m"),
    ("Squirrel", "다람쥐", "Белка", "f"),
    ("Tiger", "호랑이", "Тигр", "m"),
    ("Panda", "판다", "Панда", "f"),
    ("Raven", "까마귀", "Ворон", "m"),
    ("Seal", "물범", "Тюлень", "m"),
    ("Turtle", "거북", "Черепаха", "f"),
    ("Penguin", "펭귄", "Пингвин", "m"),
    ("Dolphin", "돌고래", "Дельфин", "m"),
    ("Magpie", "까치", "Сорока", "f"),
    ("Camel", "낙타", "Верблюд", "m"),
    ("Goose", "거위", "Гусь", "m"),
)


def words(adjective: int, animal: int) -> dict[str, str]:
    """One alias in every language: {"en": "Brave Fox", "ko": "용감한 여우", "ru": "Храбрая Лиса"}."""
    en, ko, ru_m, ru_f = ADJECTIVES[adjective]
    a_en, a_ko, a_ru, gender = ANIMALS[animal]
    return {"en": f"{en} {a_en}", "ko": f"{ko} {a_ko}", "ru": f"{ru_f if gender == 'f' else ru_m} {a_ru}"}


# ---------------------------------------------------------------- the deal (room layer, `start`)
def deal(room: dict, conns: dict[str, str | None]) -> dict[str, str]:
    """At `start` of an anonymous game: shuffle the seats, give each a fresh id and an alias.

    Everything the room keys by player id follows the new ids (host, scores, each viewer's own
    view counter, so a client's `version` never goes back), and the seats' live connections
    are rewritten: the answer, connection id -> new player id, is written with the room in the
    start's one transaction. Not anonymous: nothing changes (and an old game's aliases are
    forgotten)."""
    room.pop("anon", None)
    if not room["options"].get("anonymous"):
        return {}
    # the game secret's own `aliases` key (mafia_engine/rng.py): says nothing about the deal
    draw = rng.alias_draw(room["seed"], len(room["players"]), len(ADJECTIVES), len(ANIMALS))
    seats = [room["players"][i] for i in draw["order"]]
    renamed: dict[str, str] = {}
    for seat in seats:
        new = f"p{room['nextId']}"
        room["nextId"] += 1
        renamed[seat["id"]] = seat["id"] = new
    room["players"] = seats
    adjectives, animals = draw["adjectives"], draw["animals"]
    room["anon"] = {"aliases": {s["id"]: [a, b] for s, a, b in zip(seats, adjectives, animals, strict=True)}}
    if room.get("host") in renamed:
        room["host"] = renamed[room["host"]]
    for key in ("scores", "viewSeq", "views"):
        if room.get(key):
            room[key] = {renamed.get(k, k): v for k, v in room[key].items()}
    return {conn_id: renamed[pid] for conn_id, pid in conns.items() if pid in renamed}


# ---------------------------------------------------------------- where names leave the server
def anonymous(room: dict) -> bool:
    """This room's current (or last) game was dealt anonymously."""
    return bool(room.get("anon"))


def masked(room: dict) -> bool:
    """Names are hidden now: an anonymous game that has started and not ended."""
    return anonymous(room) and room.get("status") == "running"


def alias_of(room: dict, pid: str) -> dict[str, str] | None:
    pair = (room.get("anon") or {}).get("aliases", {}).get(pid)
    return words(*pair) if pair else None


def name_of(room: dict, seat: dict) -> str:
    """The name the table may read for `seat` now: its alias in the room's language while masked."""
    alias = alias_of(room, seat["id"]) if masked(room) else None
    return alias[room.get("lang") or "en"] if alias else seat["name"]


# ---------------------------------------------------------------- the one gate
# While an anonymous game runs, every public field the room layer puts on the wire goes
# through `gate`: a view's per-seat facts ("player"), a view's room block ("room"), the REST
# summary ("summary", its seats as a spectator's "player") and an error ("error"). Each field
# has one rule below; a field without a rule is dropped (fail closed), and
# tests/functions/test_anonymous.py lists these fields and checks every built field has a rule.
KEEP, ALIAS, PRESENT, NOBODY, OWN, NONE, EMPTY = "keep", "alias", "present", "nobody", "own", "none", "empty"
FIELDS: dict[str, dict[str, str]] = {
    "player": {
        "id": KEEP,  # a fresh id dealt at the start (deal)
        "name": ALIAS,  # the alias in the room's language
        "alias": KEEP,  # the alias in every language
        "connected": PRESENT,  # presence is hidden until the end: every seat, bots too, reads present
        "ready": NOBODY,  # the lobby's marks are tied to the names it showed
        "host": OWN,  # only in the host's own view (its controls)
        "bot": NOBODY,  # a bot reads as a person
        "left": KEEP,  # leaving a running game is public (the engine's public line)
    },
    "room": {
        "code": KEEP,
        "host": OWN,
        # hidden while masked: the host's return cleared it in the frame that dropped its seat
        # from `openSeats` (and any seat's return matched against it names the host)
        "hostAwaySince": NONE,
        "status": KEEP,
        "scores": EMPTY,  # wins of earlier games are tied to the lobby's names
        "setupError": KEEP,
        "idleOptions": KEEP,
        "narrator": KEEP,  # the host's switch for the room's screens (displays.py), no seat
        "lang": KEEP,  # the room's language, the same for everyone
        "screens": KEEP,  # how many displays are connected: a count, no seat
        "displayGen": KEEP,  # how many times the host revoked the screens: a count, no seat
        "autoStartAt": KEEP,  # a public lobby's countdown: a time, the same for everyone
        "anonymous": KEEP,
        "openSeats": KEEP,  # seat numbers and fresh ids (substitutes.room_facts)
        "substituted": KEEP,
        "seatRequests": OWN,  # newcomers waiting for the host's tap: the host's view only
    },
    "summary": {
        "roomCode": KEEP,
        "preset": KEEP,
        "options": KEEP,
        "status": KEEP,
        "phase": KEEP,
        "host": NONE,
        "maxPlayers": KEEP,
        "setupError": KEEP,
        "players": KEEP,  # each seat through the "player" rules, as a spectator reads it
        "removed": KEEP,  # fresh ids: the table saw each removal
    },
    "error": {
        "id": KEEP,  # the sender's own frame id
        "code": KEEP,
        "message": KEEP,  # names a seat only by `name_of` (its alias) or its fresh id
    },
}


def _open(room: dict) -> bool:
    """`gate` passes every field as it is: a room that is not anonymous, or back in its lobby."""
    return not anonymous(room) or room.get("status") == "lobby"


def gate(room: dict, kind: str, fields: dict, viewer: str | None = None, seat: str | None = None) -> dict:
    """`fields` of `kind` ("player" of `seat`, "room", "summary", "error") as `viewer` may read
    them now. While masked each field follows its rule in `FIELDS` and a field without one is
    dropped; once the game is over a seat's real `name` goes out beside its `alias`; in a room
    that is not anonymous, or back in the lobby, `fields` as they are."""
    if _open(room):
        return fields
    if kind == "summary" and "players" in fields:
        fields = {
            **fields,
            "players": [gate(room, "player", p, None, p.get("id")) for p in fields["players"]],
        }
    if kind == "player" and seat is not None:
        alias = alias_of(room, seat)
        if alias is None:
            return fields
        fields = {**fields, "alias": alias}
    if kind == "room":
        fields = {**fields, "anonymous": True}
    if not masked(room):
        return fields
    is_host = viewer is not None and viewer == room.get("host")
    rules = FIELDS[kind]
    out: dict = {}
    for key, value in fields.items():
        rule = rules.get(key)
        if rule is None:
            continue  # fail closed: a field nobody declared never leaves while masked
        if rule == ALIAS:
            value = fields["alias"][room.get("lang") or "en"] if fields.get("alias") else value
        elif rule == PRESENT:
            value = True
        elif rule == NOBODY:
            value = False
        elif rule == OWN:
            if kind == "player":
                value = bool(value) and seat == viewer and is_host
            elif key == "host":
                value = value if is_host else None
            else:
                value = value if is_host else []
        elif rule == NONE:
            value = None
        elif rule == EMPTY:
            value = type(value)()
        out[key] = value
    return out


def facts(room: dict, extras: dict[str, dict], viewer: str | None) -> dict[str, dict]:
    """The views' per-seat room facts, each through `gate` ("player")."""
    return {pid: gate(room, "player", fact, viewer, pid) for pid, fact in extras.items()}


def room_facts(room: dict, block: dict, viewer: str | None) -> dict:
    """The views' room block through `gate` ("room")."""
    return gate(room, "room", block, viewer)


def bot_names(room: dict, names: dict[str, str]) -> dict[str, str]:
    """The names bots use in their lines (final text in the room's language): aliases while masked."""
    if not masked(room):
        return names
    return {p["id"]: name_of(room, p) for p in room["players"]}


def refusal(room: dict, exc: Any) -> Any:
    """A refused frame's error (a `ServiceError`) through `gate` ("error"): its code and message
    as the table may read them (the sender's frame id is its own)."""
    fields = gate(room, "error", {"id": exc.frame_id, "code": exc.code, "message": exc.message})
    exc.code, exc.message = fields.get("code", "refused"), fields.get("message", "")
    return exc


def summary(room: dict, fields: dict) -> dict:
    """The REST summary through `gate` ("summary"; its seats as a spectator reads them)."""
    return gate(room, "summary", fields)


# ---------------------------------------------------------------- the feature (features/base.py)
def _gate_view(room: dict, state: Any, viewer: str | None, parts: ViewParts) -> ViewParts:
    """The last step of every view: each seat's facts and the room block through `gate`
    (in a room that is not anonymous, or back in its lobby, it passes every field as it is:
    then the parts as they are, without a call per seat)."""
    if _open(room):
        return parts
    return replace(
        parts, players=facts(room, dict(parts.players), viewer), block=room_facts(room, parts.block, viewer)
    )


FEATURE = Feature("aliases", refuse=refusal, view=_gate_view)

"""Anonymous games (host option `anonymous`): every seat is shown by an alias drawn for the game.

At `start` (`deal`) the room reorders its seats and gives each a fresh id (`p<nextId>`, in
the new order) from the game secret's `aliases` key (`rng.alias_draw`), so neither the seat order, nor
an id, nor a colour derived from one says who joined when; the lobby showed names with the
old ids and join order, and those ids are gone. Each seat gets an alias (adjective + animal,
no word used twice in a game), kept as indices in `room["anon"]`; the words live here only,
in ko/ru/en, and views carry all three (`players[].alias`), so each client renders the
viewer's language (docs/rules.md, "Anonymous games").

While the game runs (`masked`), every place where the room layer puts a name on the wire asks
this module: the views' player facts (`facts`), the room block (`room_facts`: no host seat, no
scores), the REST summary (`summary_players`), the bots' names (`bot_names`) and the one error
that quoted a seat's name (`name_of`). Host, bot and ready marks are hidden too: the lobby
showed them next to the real names. After the end, real names and aliases go out together.
"""

from __future__ import annotations

from typing import Any

from mafia_engine import rng

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


def facts(room: dict, extras: dict[str, dict], viewer: str | None) -> dict[str, dict]:
    """The views' per-seat room facts: while masked, the alias for the name and no host, bot
    or ready mark (the host's own view keeps its own host mark, for its controls); once the
    game is over, each seat's real `name` beside its `alias`."""
    if not anonymous(room) or room.get("status") == "lobby":
        return extras
    hide = masked(room)
    host = room.get("host")
    out = {}
    for pid, fact in extras.items():
        alias = alias_of(room, pid)
        if alias is None:
            out[pid] = fact
            continue
        fact = {**fact, "alias": alias}
        if hide:
            fact.update(
                name=alias[room.get("lang") or "en"],
                ready=False,
                bot=False,
                host=pid == host and pid == viewer,
            )
        out[pid] = fact
    return out


def room_facts(room: dict, block: dict, viewer: str | None) -> dict:
    """The views' room block: `anonymous`; while masked, the host seat only in the host's own
    view and no scores (wins of earlier games are tied to names the lobby showed)."""
    if not anonymous(room) or room.get("status") == "lobby":
        return block
    block = {**block, "anonymous": True}
    if masked(room):
        block["host"] = viewer if viewer is not None and viewer == room.get("host") else None
        block["scores"] = {}
    return block


def bot_names(room: dict, names: dict[str, str]) -> dict[str, str]:
    """The names bots use in their lines (final text in the room's language): aliases while masked."""
    if not masked(room):
        return names
    return {p["id"]: name_of(room, p) for p in room["players"]}


def summary_players(room: dict, players: list[dict]) -> list[dict]:
    """The REST summary's seats, as `facts` shows them to a spectator."""
    if not anonymous(room) or room.get("status") == "lobby":
        return players
    hide = masked(room)
    out = []
    for p in players:
        alias = alias_of(room, p["id"])
        if alias is not None:
            p = {**p, "alias": alias}
            if hide:
                p.update(name=alias[room.get("lang") or "en"], ready=False, bot=False, host=False)
        out.append(p)
    return out


def summary_host(room: dict) -> Any:
    """The summary's `host`: no seat while masked."""
    return None if masked(room) else room.get("host")

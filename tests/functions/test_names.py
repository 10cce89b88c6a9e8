"""Names that cannot impersonate a seat: the Unicode TR39 confusable skeleton, case-folded both
ways round, with invisible and default-ignorable characters removed before a name is compared
and before it is shown (docs/protocol.md, "Names"; functions/service/protocol/names.py)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.memstore  # room rules: the in-memory store (tests/functions/conftest.py)

SEATS = ("Host", "Max", "Nina", "Zoe", "Yuri")

# (what an impersonator types, the seat it would pass for); each is refused as `name_taken`
IMPERSONATIONS = [
    # Greek capitals: case folding first read Η as "n", Ν as "v", Υ as "u", and had no μ, ζ
    ("\u0397ost", "Host"),  # Η GREEK CAPITAL ETA
    ("\u039cax", "Max"),  # Μ GREEK CAPITAL MU
    ("\u039dina", "Nina"),  # Ν GREEK CAPITAL NU
    ("\u0396oe", "Zoe"),  # Ζ GREEK CAPITAL ZETA
    ("\u03a5uri", "Yuri"),  # Υ GREEK CAPITAL UPSILON
    # "Host" + a character drawn as nothing: it showed as "Host"
    ("Host\u3164", "Host"),  # HANGUL FILLER
    ("Host\u115f", "Host"),  # HANGUL CHOSEONG FILLER
    ("Host\u1160", "Host"),  # HANGUL JUNGSEONG FILLER
    ("Host\uffa0", "Host"),  # HALFWIDTH HANGUL FILLER
    ("Host\u2800", "Host"),  # BRAILLE PATTERN BLANK
    ("Host\u034f", "Host"),  # COMBINING GRAPHEME JOINER
    ("Host\u17b4", "Host"),  # KHMER VOWEL INHERENT AQ
    ("H\u3164ost", "Host"),
    # other scripts' look-alikes
    ("\u13bbost", "Host"),  # Ꮋ CHEROKEE LETTER MI
    ("\ua4e7ost", "Host"),  # ꓧ LISU LETTER XA
    ("H\u0585st", "Host"),  # օ ARMENIAN SMALL LETTER OH
    ("\u029cost", "Host"),  # ʜ LATIN LETTER SMALL CAPITAL H
    ("\u041dost", "Host"),  # Н CYRILLIC CAPITAL EN (refused before too)
    ("\u043dost", "Host"),  # н CYRILLIC SMALL EN (drawn as a small capital H)
    ("host", "Host"),
    ("MAX", "Max"),
    ("N\u0456na", "Nina"),  # і CYRILLIC SMALL BYELORUSSIAN-UKRAINIAN I
    ("Zo\u0435", "Zoe"),  # е CYRILLIC SMALL IE
    ("\u04aeuri", "Yuri"),  # Ү CYRILLIC CAPITAL STRAIGHT U
]

# names that must stay allowed and distinct from one another in one room
KOREAN = ("민수", "민지", "지민", "서연", "서윤", "하은", "하윤", "지훈", "지호", "수민")
RUSSIAN = ("Маша", "Миша", "Саша", "Паша", "Даша", "Наташа", "Настя", "Юра", "Юля", "Оля")


def summary(api, code: str) -> dict:
    status, out = api.rest("GET", f"/rooms/{code}")
    assert status == 200, out
    return out


def seated(api) -> None:
    api.create(SEATS[0], preset="city")
    for name in SEATS[1:]:
        api.join(name)


@pytest.mark.parametrize(("twin", "seat"), IMPERSONATIONS, ids=[ascii(t) for t, _ in IMPERSONATIONS])
def test_a_name_drawn_like_a_seats_name_is_taken(api, twin, seat):
    seated(api)
    status, out = api.rest("POST", f"/rooms/{api.code}/players", {"name": twin})
    assert (status, out.get("error", {}).get("code")) == (409, "name_taken"), (twin, seat, out)


@pytest.mark.parametrize(
    "invisible", ["\u3164", "\u115f", "\u1160", "\uffa0", "\u2800", "\u034f", "\u17b4", "\u17b5"]
)
def test_invisible_characters_are_removed_from_the_name_shown(api, invisible):
    api.create("Ann")
    code = api.code
    status, out = api.rest("POST", f"/rooms/{code}/players", {"name": f"Bo{invisible}b{invisible}"})
    assert status == 201, out
    assert [p["name"] for p in summary(api, code)["players"]] == ["Ann", "Bob"]


@pytest.mark.parametrize("names", [KOREAN, RUSSIAN], ids=["korean", "russian"])
def test_korean_and_russian_names_stay_allowed_and_distinct(api, names):
    api.create(names[0], preset="city", lang="ko" if names is KOREAN else "ru")
    for name in names[1:]:
        status, out = api.rest("POST", f"/rooms/{api.code}/players", {"name": name})
        assert status == 201, (name, out)
    assert [p["name"] for p in summary(api, api.code)["players"]] == list(names)

"""No text key can reach a screen untranslated: every key the client builds from the names
the engine declares (roles, teams, tasks, phases, chat channels, event kinds, death causes,
options and their choices, presets) exists in all three languages, and every key the client
names outright in web/js does too. Checked statically: the dictionaries are read from
web/js/i18n/{en,ko,ru}.js (flat `"key": "text"` lines, one file per language), the engine's names from mafia_engine itself, so a role, channel or event added
to the engine without words fails here, before any browser shows `chat.channel.yakuza`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mafia_engine as me
from mafia_engine.presets import PRESETS
from mafia_engine.tasks import TASKS

WEB = Path(__file__).resolve().parents[2] / "web" / "js"
LANGS = ("en", "ko", "ru")
LINE = re.compile(r'^\s*"([^"\\]+)":\s*"((?:[^"\\]|\\.)*)",?\s*$')


def _flat(path: Path) -> dict[str, str]:
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        m = LINE.match(line)
        if m:
            out[m.group(1)] = m.group(2)
    return out


def dictionaries() -> dict[str, dict[str, str]]:
    """The dictionaries, one file per language, as web/js/i18n.js imports them."""
    return {lang: _flat(WEB / "i18n" / f"{lang}.js") for lang in LANGS}


def test_one_file_per_language_holds_every_key() -> None:
    """One i18n layout: web/js/i18n/ holds en.js, ko.js and ru.js and nothing else, and
    i18n.js loads just those, each on demand (a file per feature holding all three languages gave a new key
    two possible homes)."""
    assert sorted(p.name for p in (WEB / "i18n").iterdir()) == [f"{lang}.js" for lang in sorted(LANGS)]
    imported = re.findall(
        r'^  \w+: \(\) => import\("\./i18n/([^"]+)"\),$', (WEB / "i18n.js").read_text(encoding="utf-8"), re.M
    )
    assert sorted(imported) == [f"{lang}.js" for lang in sorted(LANGS)]


def test_the_dictionary_reader_reads_every_line() -> None:
    """Each key line of the files is read (a line the pattern missed would hide a key)."""
    for lang in LANGS:
        text = (WEB / "i18n" / f"{lang}.js").read_text(encoding="utf-8")
        lines = [x for x in text.splitlines() if x.strip().startswith('"')]
        assert len(_flat(WEB / "i18n" / f"{lang}.js")) == len(lines), lang
    assert len(dictionaries()["en"]) > 500


def _engine_source() -> str:
    root = Path(me.__file__).parent
    return "\n".join(p.read_text(encoding="utf-8") for p in root.rglob("*.py"))


def engine_keys() -> set[str]:
    """Keys built from the engine's declarations (the client's `t(\\`role.${...}\\`)` and kin)."""
    keys: set[str] = set()
    src = _engine_source()
    for name, preset in PRESETS.items():
        # the roles each registered preset declares (a test-only preset registered and
        # removed by another test leaves its roles in ``me.ROLES``; it has no words here)
        for role in preset.roles:
            keys |= {f"role.{role.id}", f"roledesc.{role.id}", f"team.{role.team}"}
        keys.add(f"preset.{name}")
        keys |= {f"chat.channel.{channel}" for channel in preset.channels}
        # the night box says the task in words (web/js/game/phases.js, taskBox); day tasks
        # are buttons with words of their own
        keys |= {f"task.{task}" for task in preset.tasks if TASKS[task].night or task in ("sleep", "done")}
        keys |= {f"phase.{kind}" for kind in preset.phases if kind != "ended"}
        for spec in preset.options:
            keys.add(f"opt.{spec.key}")
            for choice in getattr(spec, "choices", None) or ():
                if isinstance(choice, str) and choice not in ("on", "off"):
                    keys.add(f"opt.value.{choice}")
    # public events: g.event("kind", ...) anywhere in the engine; deaths by cause
    kinds = set(re.findall(r'\.event\(\s*"(\w+)"', src))
    handled = {"death", "nomination", "confirm", "voteResult", "trialVote", "allOrNone", "judges", "end"}
    keys |= {f"event.{kind}" for kind in kinds - handled}
    causes = set(re.findall(r'\.kill\([^,()]+(?:\[[^\]]*\])?,\s*"(\w+)"', src))
    causes |= set(re.findall(r'public="(\w+)"', src))
    keys |= {f"event.death.{by}" for by in causes}
    return keys


def test_the_engine_declares_what_this_test_reads() -> None:
    """The readings above find the names (an empty regex match would pass anything)."""
    keys = engine_keys()
    for key in (
        "role.yakuza",
        "team.yakuza",
        "chat.channel.yakuza",
        "phase.speech",
        "task.ninjaCheck",
        "event.quietNight",
        "event.paused",
        "event.death.removed",
        "event.death.night",
        "opt.expansion",
    ):
        assert key in keys, key


@pytest.mark.parametrize("lang", LANGS)
def test_every_key_built_from_the_engines_names_exists(lang: str) -> None:
    d = dictionaries()[lang]
    missing = sorted(k for k in engine_keys() if k not in d)
    assert missing == [], f"{lang} lacks {missing}"


# `t("some.key")`, `has("some.key")` and the like, written out in the client's code
LITERAL = re.compile(r'\b(?:t|has|errorText|hint|button)\(\s*"([a-zA-Z]+(?:\.[\w@]+)+)"')
KEY_ARG = re.compile(r'(?:Key|key):\s*"([a-z]+\.[\w.]+)"|\b\w*Key\s*=\s*"([a-z]+\.[\w.]+)"')


def client_literal_keys() -> set[str]:
    keys: set[str] = set()
    for path in WEB.rglob("*.js"):
        if "i18n" in path.parts or "vendor" in path.parts:
            continue
        text = path.read_text(encoding="utf-8")
        keys |= set(LITERAL.findall(text))
        for a, b in KEY_ARG.findall(text):
            keys.add(a or b)
    return keys


@pytest.mark.parametrize("lang", LANGS)
def test_every_key_the_client_names_outright_exists(lang: str) -> None:
    d = dictionaries()[lang]
    keys = client_literal_keys()
    assert len(keys) > 200
    missing = sorted(k for k in keys if k not in d and f"{k}@kid" not in d)
    assert missing == [], f"{lang} lacks {missing}"

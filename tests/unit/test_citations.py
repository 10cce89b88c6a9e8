"""Comments cite what a reader of the repository can open.

Every comment, docstring and string of the code (Python, JS, CSS, HTML, YAML, shell, the
Makefile) that cites a rule names a rulebook file that exists (`docs/rulebooks/`, see its
README), and none names a tracker issue by number or a document that lives outside the
repository (the project's shared folder): the reason is said in words, or the `docs/` file
and section that records it is named. A bare section sign is allowed only in a file that
names `docs/rulebooks/000-classic.txt` (its module docstring says "cited as §n").

The files are the repository's own (`git ls-files`, new files not yet added included), the
rulebooks and the rest of `docs/` excepted (they are what the code cites, not code). The bad
examples below are split in two so that this file passes its own check.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Files another branch is rewriting at the same time; checked once that branch is merged.
# Empty it then: every entry is a file this test does not read yet.
NOT_YET_CHECKED: frozenset[str] = frozenset()

CODE_SUFFIXES = (".py", ".js", ".mjs", ".css", ".html", ".yaml", ".yml", ".sh")
CODE_NAMES = ("Makefile",)

# the word issue (or issues) followed by a number, with or without "#"
ISSUE = re.compile(r"\b[Ii]ssues?\s*#?\d+")
# the shared folder's documents (the contract, design, mission and style notes, by file name or
# followed by a section sign) and the folder itself
OUTSIDE = re.compile(
    r"\b(?:CONTRACT|DESIGN|MISSION|STYLE)(?:\.md\b|\s*§)"
    r"|(?:\.\./|/work/)shared/"
    r"|\bshared/seeds\b"
)
RULEBOOK = re.compile(r"docs/rulebooks/[\w-]+(?:\.[A-Za-z]+)?")
CLASSIC = "docs/rulebooks/000-classic.txt"


def code_files() -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return sorted(
        f
        for f in out.split("\0")
        if f
        and not f.startswith("docs/")
        and not f.startswith("web/vendor/")  # third-party files, kept unchanged (their READMEs)
        and (f.endswith(CODE_SUFFIXES) or Path(f).name in CODE_NAMES)
        and (ROOT / f).is_file()
    )


def findings(text: str, root: Path = ROOT) -> list[str]:
    """What is wrong with the citations in ``text``, one line each (line number: what)."""
    found = []
    for n, line in enumerate(text.splitlines(), 1):
        for m in ISSUE.finditer(line):
            found.append(f"{n}: names an issue ({m.group()!r}): say the reason or cite docs/")
        for m in OUTSIDE.finditer(line):
            found.append(f"{n}: cites a document outside the repository ({m.group()!r})")
        for m in RULEBOOK.finditer(line):
            if not (root / m.group()).is_file():
                found.append(f"{n}: cites {m.group()!r}, which does not exist")
        if "§" in line and CLASSIC not in text:
            found.append(f"{n}: a bare § in a file that never names {CLASSIC}")
    return found


def test_the_checked_files_are_the_code():
    files = code_files()
    assert "layers/engine/mafia_engine/presets/classic/__init__.py" in files
    assert "web/js/app.js" in files and "web/style.css" in files and "Makefile" in files
    assert "template.yaml" in files and "tests/unit/test_citations.py" in files
    assert not [f for f in files if f.startswith("docs/")]
    assert NOT_YET_CHECKED <= set(files), "an entry of NOT_YET_CHECKED is no file of the repository"


def test_every_rulebook_the_readme_maps_exists():
    readme = (ROOT / "docs/rulebooks/README.md").read_text(encoding="utf-8")
    for name in ("000-classic.txt", "001-city.txt", "003-original.txt"):
        assert f"`{name}`" in readme
        assert (ROOT / "docs/rulebooks" / name).is_file()


@pytest.mark.parametrize(
    "text, what",
    [
        ("# see iss" + "ue 15 §5", "names an issue"),
        ('"""' + "Iss" + "ue 13" + ': the reveal."""', "names an issue"),
        ("// (" + "iss" + "ues #12" + ")", "names an issue"),
        ("(" + "CONTRACT" + ".md §2)", "outside the repository"),
        ("// REST calls (" + "CONTRACT" + " §3)", "outside the repository"),
        ("# " + "DESIGN" + ".md says so", "outside the repository"),
        ("# ../sha" + "red/seeds/000", "outside the repository"),
        ("# docs/rulebooks/" + "002-none.txt §1", "does not exist"),
        ("# the night (" + "§5.5)", "a bare §"),
    ],
)
def test_a_bad_citation_is_found(text, what):
    found = findings(text)
    assert any(what in f for f in found), found


@pytest.mark.parametrize(
    "text",
    [
        "# docs/rulebooks/000-classic.txt §5.5: the last pick counts",
        '"""docs/rulebooks/001-city.txt «Ночь», docs/rulebooks/003-original.txt «◎3단계 낮: 재판»."""',
        '"""Sections of docs/rulebooks/000-classic.txt are cited as §n."""\n# §4.1: the table',
        '# docs/protocol.md, "Heartbeat"; the style.css transition; a tissue 15 mm wide',
    ],
)
def test_a_good_citation_passes(text):
    assert findings(text) == []


def test_code_cites_only_what_the_repository_has():
    bad = {}
    for f in code_files():
        if f in NOT_YET_CHECKED:
            continue
        found = findings((ROOT / f).read_text(encoding="utf-8"))
        if found:
            bad[f] = found
    assert not bad, "\n".join(f"{f}:{line}" for f, lines in bad.items() for line in lines)

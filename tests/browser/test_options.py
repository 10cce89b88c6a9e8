"""The client's copy of the engine's option specs is current."""

from __future__ import annotations

from .option_specs import TARGET, render


def test_option_specs_match_the_engine():
    assert TARGET.read_text(encoding="utf-8") == render(), (
        "web/js/game/option-specs.js is stale: run `.venv/bin/python -m tests.browser.option_specs`"
    )


def engine_counts(name: str, raw: dict, n: int) -> dict | None:
    """What mafia_engine deals for `n` players with these options (None when refused)."""
    from collections import Counter

    from mafia_engine import options as engine_options
    from mafia_engine.errors import InvalidAction
    from mafia_engine.presets import PRESETS

    p = PRESETS[name]
    try:
        opts = engine_options.normalise(p.options, raw, name)
        if p.check_options:
            opts = p.check_options(raw, opts)
        return dict(Counter(p.deal(opts, n)))
    except InvalidAction:
        return None


def deal_cases() -> list[tuple[str, dict, int]]:
    from itertools import combinations

    cases = []
    extras = ["soldier", "politician", "medium", "lovers"]
    subsets = [list(c) for k in range(len(extras) + 1) for c in combinations(extras, k)]
    for n in range(4, 13):
        for mafia in ["auto", 1, 2, 3]:
            for extra in subsets:
                cases.append(("classic", {"mafiaCount": mafia, "extraRoles": extra}, n))
    for n in range(5, 17):
        for mafia in ["auto", 1, 2, 3, 4]:
            for police in (True, False):
                for doctor in (True, False):
                    cases.append(("city", {"mafiaCount": mafia, "police": police, "doctor": doctor}, n))
    for n in range(8, 17):
        for expansion in (True, False):
            cases.append(("original", {"expansion": expansion}, n))
    return cases


def test_rules_sheet_role_counts_match_the_engine_deal(browser, stack, console_errors):
    """The rules sheet's "roles in this game" (web/js/game/deal.js) is what the engine deals."""
    import sys

    from .option_specs import REPO

    sys.path[:0] = [str(REPO / "layers" / "engine")]
    cases = deal_cases()
    page = browser.new_page()
    page.goto(stack.url)
    got = page.evaluate(
        """async (cases) => {
          const m = await import('./js/game/deal.js');
          return cases.map(([preset, opts, n]) => m.roleCounts(preset, opts, n));
        }""",
        cases,
    )
    page.close()
    wrong = [(c, g, engine_counts(*c)) for c, g in zip(cases, got, strict=True) if g != engine_counts(*c)]
    assert not wrong, f"{len(wrong)} of {len(cases)} differ, e.g. {wrong[:3]}"

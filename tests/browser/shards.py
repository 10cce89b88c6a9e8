"""The browser tier as several processes (`make test`: BROWSER_SHARD=1/2 and 2/2, each beside the
other parts, so a page's waits for a push leave the core to them): whole files per shard (their
module fixtures stay in one process), balanced by the seconds each file took.

SECONDS: each file's seconds in a loaded clean-clone run (pytest --durations, 2026-12-04; the
table rounds since they reuse their pages, 2026-12-05; voice, strangers, watch, the seat card and
the fair deal estimated from loaded runs, 2026-12-06; strangers, presets, a11y, chat log and voice
from a loaded clean clone's slowest tests, 2026-12-06, where shard 2 ran 976 s and shard 1 676 s;
the whole ranked game from two copies run at once at load 10, 2026-12-06: 41-46 s); a file not listed counts DEFAULT_PER_TEST seconds a test. A stale figure only unbalances the shards:
every file still runs in exactly one of them (tests/unit/test_browser_shards.py).
"""

from __future__ import annotations

from tests import shards as _shards

SECONDS = {
    "test_voice": 140, "test_strangers": 110, "test_watch_now": 30, "test_seat_request_card": 30, "test_public_home": 40, "test_table_round3": 12, "test_a11y": 100,
    "test_device": 45, "test_table_round2": 35, "test_game": 56, "test_presets": 150,
    "test_seats": 43, "test_removed_seat": 42, "test_anonymous": 27, "test_substitutes": 27,
    "test_deployed_site": 24, "test_display": 24, "test_chat_log": 35, "test_city_night": 19,
    "test_away": 17, "test_fair_deal": 40, "test_notes": 14, "test_role_card": 14,
    "test_socket_cap": 14, "test_chat_drafts": 11, "test_feedback": 10, "test_i18n": 10,
    "test_private_link": 10, "test_connection": 9, "test_inroom": 9, "test_layout": 9,
    "test_afk": 4, "test_install": 3, "test_page_pool": 3, "test_options": 2, "test_voice_turn": 42, "test_ranked": 30,
    "test_passkeys": 14, "test_ranked_game": 50,
}
DEFAULT_PER_TEST = 1.5


def parse(spec: str) -> tuple[int, int]:
    """"k/n" -> (k, n), 1 <= k <= n."""
    return _shards.parse(spec, "BROWSER_SHARD")


def assign(tests_per_file: dict[str, int], count: int) -> dict[str, int]:
    """Each file's shard (1..count): the heaviest file first, each to the lightest shard."""
    return _shards.assign(tests_per_file, count, SECONDS, DEFAULT_PER_TEST)

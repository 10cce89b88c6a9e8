"""The functions tier as two processes in `make test` and `make check` (HANDLERS_SHARD=1/2 and
2/2, tests/shards.py): whole files per shard, balanced by the CPU seconds each file took (the
process's CPU around each test, reaped children included; the tier in one process on a quiet
machine, 2026-12-07); a file not listed counts DEFAULT_PER_TEST seconds a test. `make check`
leaves the `whole_game` tests out, which changes the weights: its shards are balanced by
QUICK_SECONDS (the same measure, `make check`'s tests only, the larger of its CPU and half its
wall seconds: a few files wait on subprocesses). Every file that took 0.6 s or more is listed;
the others took ~0.02 s a test.
"""

from __future__ import annotations

SECONDS = {
    "test_chat_archive": 7.5, "test_side_channels": 6.9, "test_fuzz": 6.1, "test_view_patches": 6,
    "test_room_upgrades": 5.8, "test_public_rooms": 4.5, "test_cold_imports": 3.4, "test_bot_clock": 3.2,
    "test_admission_burst": 2.8, "test_site_deploy": 2.7, "test_schemas": 2.1, "test_voice_relay": 2.1,
    "test_deploy_artifacts": 2, "test_consistency": 1.8, "test_game": 1.8, "test_ranked": 1.6,
    "test_reports": 1.6, "test_anonymous": 1.5, "test_local_rooms": 1.5, "test_afk": 1.4, "test_limits": 1.3,
    "test_moto_fixes": 0.9, "test_dead_timers": 0.9, "test_store_contract": 0.8, "test_fair_deal": 0.7,
    "test_watch_now": 0.7, "test_voice_turn": 0.7,
}
QUICK_SECONDS = {
    "test_view_patches": 6.6, "test_site_deploy": 5.4, "test_public_rooms": 5.3, "test_chat_archive": 4.8,
    "test_cold_imports": 3.5, "test_admission_burst": 3, "test_voice_relay": 2.6, "test_side_channels": 2.3,
    "test_deploy_artifacts": 2.2, "test_schemas": 2, "test_ranked": 1.7, "test_consistency": 1.7,
    "test_reports": 1.6, "test_afk": 1.6, "test_room_upgrades": 1.4, "test_bot_clock": 1.3,
    "test_local_rooms": 1.2, "test_limits": 1.2, "test_store_contract": 1.2, "test_moto_fixes": 0.9,
    "test_dead_timers": 0.9, "test_liveness": 0.8, "test_anonymous": 0.8, "test_connect": 0.7,
    "test_voice_turn": 0.6, "test_watch_now": 0.6,
}
DEFAULT_PER_TEST = 0.02
QUICK_DEFAULT_PER_TEST = 0.02

"""Every bench in bench/ runs in its quick mode and prints one JSON object with its keys
(never a timing check: figures belong to the bench, pass/fail to the keys and the counts
that say the bench measured what it claims)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def run_bench(name: str, *args: str, timeout: float = 240.0) -> dict:
    out = subprocess.run([sys.executable, f"bench/{name}", *args], cwd=REPO, capture_output=True,
                         text=True, timeout=timeout)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = [line for line in out.stdout.splitlines() if line.startswith("{")]
    assert len(lines) == 1, out.stdout[-3000:]
    result = json.loads(lines[0])
    assert isinstance(result.get("method"), str) and result["method"], "each bench says how it measured"
    return result


def test_e2e_bench_quick_times_actions_by_their_frames():
    out = run_bench("e2e.py", "--quick")
    for key in ("rooms", "players", "actions", "p50_ms", "p99_ms", "ack_p50_ms", "baseline_p50_ms",
                "baseline_p99_ms", "ratio_p99", "p99_split_ms", "p50_split_ms", "views_per_action", "max_message_bytes",
                "phase_end_lateness_p50_s", "phase_end_lateness_p99_s", "refused", "unchanged",
                "missing_views", "untraced", "version_gaps", "version_repeats", "views_out_of_order",
                "pushes_by_cause", "sent_by_action", "echoes", "load"):
        assert key in out, key
    assert out["rooms"] == 2 and out["actions"] > 0 and out["echoes"] > 0
    # What makes the figures the truth, never a timing: every frame sent is found in the
    # stack's trace, every socket is known, and every view an action posted reached its socket.
    assert out["untraced"] == 0 and out["sockets_known"] == out["players"], out
    assert out["missing_views"] == 0 and out["version_gaps"] == 0, out
    assert out["pushes_by_cause"].get("action", 0) > 0, out
    # where the tail goes: spans of each timed action that add up to its time (one machine's
    # clocks). Each stamp is taken no later than what it marks, so no span of any action is below
    # zero by more than the two clocks' bracket and the rounding, however busy the machine.
    tail = out["p99_split_ms"]
    assert set(tail) == {"actions", "to_gateway", "queue", "handler", "posts", "write", "to_client"}, tail
    assert tail["actions"] >= 1, tail
    assert set(out["min_split_ms"]) == set(tail) - {"actions"} and min(out["min_split_ms"].values()) >= -0.2, out
    # what the containers ran while the tail waited, and the tail's own actions, by their frames
    held = out["p99_holders"]
    assert len(held["tail"]) == tail["actions"] and all(a in out["sent_by_action"] for a, _, _ in held["tail"]), held
    assert held["longest_invocations"] and all(ms >= 0 for _, ms in held["longest_invocations"]), held
    # the sweep: each load's headline figures, lightest first, and where latency bends
    assert [lv["rooms"] for lv in out["sweep"]] == [1, 2], out["sweep"]
    assert all(lv["actions"] > 0 and lv["p99_ms"] is not None for lv in out["sweep"]), out["sweep"]
    assert out["sweep"][0]["p99_vs_lightest"] == 1.0 and set(out["bend"]) == {"rooms", "rule"}, out


def test_a_view_that_arrives_after_a_newer_one_is_late_and_a_version_never_received_is_a_gap():
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("bench_e2e", REPO / "bench" / "e2e.py")
    e2e = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = e2e  # its dataclasses look their module up
    spec.loader.exec_module(e2e)

    def socket(*versions):
        frames = [SimpleNamespace(data={"type": "view", "version": v}) for v in versions]
        return SimpleNamespace(frames=[SimpleNamespace(data={"type": "error"}), *frames])

    assert e2e.socket_versions([socket(3, 4, 6, 5, 7)]) == (0, 0, 1)  # raced, none lost
    assert e2e.socket_versions([socket(3, 4, 6, 7, 7)]) == (1, 1, 0)  # 5 never came; 7 twice


@pytest.mark.parametrize(
    ("name", "args", "keys"),
    [
        ("engine.py", ("--quick",), ("games", "actions", "actions_per_s", "views_per_s", "max_view_bytes")),
        ("fuzz.py", ("--quick",), ("requestedFrames", "passed", "frames")),
        ("memory.py", ("--quick",), ("games", "rss_mb_after_first", "rss_mb_after_all", "growth_mb",
                                     "failed_games", "stack_exit")),
        ("original_draws.py", ("--quick",), ("now", "before_issue_14")),
        ("patch_sizes.py", ("--quick",), ("seats", "actions", "by_type", "all", "total_bytes",
                                          "full_view_mean_bytes", "chat_line_mean_bytes",
                                          "chat_patch_mean_bytes", "patch_us_mean")),
        ("views.py", ("--quick",), ("views",)),
        ("voice.py", ("--quick",), ("perOpenedPair", "perPairOnce", "presets", "signalOnce")),
        ("coldload.py", ("--quick",), ("bytes_method", "after")),
        ("fanout.py", ("--quick",), ("cpu_us_per_push", "cpu_us_per_push_serial", "wall_ms_per_fanout",
                                     "split_us_per_push", "new_client_cpu_us_per_push", "connections_opened")),
    ],
)
def test_bench_quick_mode_prints_its_keys(name, args, keys):
    out = run_bench(name, *args)
    for key in keys:
        assert key in out, (key, out)
    if name == "coldload.py":  # measured a load that fetched scripts, with its figures
        after = out["after"]
        for key in ("js_bytes", "all_bytes", "requests", "script_requests", "levels", "cold_ms", "repeat_ms"):
            assert key in after, (key, after)
        assert after["script_requests"] > 0 and after["levels"] >= 1, after
    if name == "fuzz.py":
        assert out["passed"] and out["frames"] > 0, out
    if name == "views.py":
        assert all(v["same_bytes"] and v["bytes"] > 0 for v in out["views"].values()), out
    if name == "voice.py":
        # one pair's exchange: an offer, an answer and each side's ICE candidates, up and down
        assert out["perOpenedPair"]["frames"] >= 4 and out["perOpenedPair"]["down"] > 1000, out
        classic = out["presets"]["classic"]["phaseChanges"]
        assert classic["roleReveal>greeting"]["opened"] == 28, classic  # the first day joins all
        assert classic["discussion>vote"]["bytesPerChange"] == 0, classic  # a kept pair costs nothing
        assert set(out["presets"]) == {"classic", "city", "original"}, out
        # signal once: each of 12 seats' 66 pairs at most one offer and one answer per game
        for name, game in out["signalOnce"].items():
            assert game["after"]["pairExchanges"] <= 66 and out["perPairOnce"]["frames"] == 2, (name, game)
            assert game["before"]["framesUp"] > game["after"]["framesUp"] > 0, (name, game)
        # a whole game's signals at 12 seats: every opened pair's frames up, each relayed once down
        game = out["perGame"]["presets"]["classic"]
        assert game["pairsOpened"] >= 66 and game["signalsUp"] == game["signalsDown"], game  # day 1 joins all
        assert game["signalsUp"] == round(game["pairsOpened"] * out["perGame"]["framesPerPair"]), game
        assert set(out["perGame"]["presets"]) == set(out["presets"]) and game["costUsd"] > 0, out
    if name == "fanout.py":
        # the real client, kept alive: every push reached the server, over at most one
        # connection per pool thread (never one per push)
        assert out["cpu_us_per_push"] > 0 and out["split_us_per_push"]["total"] > 0, out
        assert 1 <= out["connections_opened"] <= 16, out  # the pool has 16 threads
    if name == "memory.py":
        assert out["failed_games"] == 0 and out["stack_exit"] == 0, out


def test_bot_day_bench_quick_times_a_day_of_speeches_in_game_seconds():
    out = run_bench("bot_day.py", "--quick")
    assert out["games"] == 1 and out["runs"][0]["days"], out
    day = out["runs"][0]["days"][0]
    assert day["turns"] >= 7 and day["seconds"] >= day["longestTurn"] > 0, out


def test_ladder_bench_quick_reads_each_page_with_one_query_and_counts_its_units():
    out = run_bench("ladder.py", "--quick")
    assert out["page_size"] > 0 and out["items_written"] > 0
    ladders = out["ladders"]
    assert [lad["entries"] for lad in ladders] == [0, 100, 300]
    for lad in ladders:
        for key in ("pages", "rows_shown", "queries_per_page", "scans", "calls_per_page",
                    "max_formula_rcu_per_page", "max_moto_rcu_per_page", "bytes_per_entry"):
            assert key in lad, key
        # every row of this ladder, and none of another language's or season's: one Query a page
        assert lad["rows_shown"] == lad["entries"] and lad["scans"] == 0, lad
        assert lad["calls_per_page"] == [["Query"]] and lad["queries_per_page"] == 1, lad
        assert lad["pages"] == max(1, -(-lad["entries"] // out["page_size"])), lad


def test_public_list_bench_quick_reads_each_page_with_one_query_and_counts_its_units():
    out = run_bench("public_list.py", "--quick")
    for key in ("rooms_listed", "pages_by_lang", "pages_by_preset", "calls_per_page", "entry_bytes",
                "rcu_per_page_20", "rcu_per_page_50", "moto_rcu_per_page_20", "entries_per_4kb_unit"):
        assert key in out, key
    # every room listed was seen once, private rooms never; each page was one Query, no Scan
    assert out["rooms_seen_by_lang"] == out["rooms_listed"] and out["pages_by_lang"] >= 2, out
    assert out["calls_per_page"] == [["Query"]], out
    assert 0 < out["rcu_per_page_20"] <= 1.0, out
    # docs/rules.md, "Public rooms": abandoned lobbies ahead of live ones never hide them (keys and facts, no timing)
    for run in out["abandoned_ahead_of_5_live"]:
        assert run["list_calls_first_page"] == ["Query"], run
        assert run["list_live_shown"] == run["live"] == run["list_rooms_shown"], run
        assert run["list_entries_read"] == run["live"] and run["quick_play_seated_live"], run
    assert [r["abandoned"] for r in out["abandoned_ahead_of_5_live"]][:2] == [0, 20], out


def test_load_bench_quick_prints_frames_per_second_per_route_with_and_without_voice():
    out = run_bench("load.py", "--quick")
    for key in ("recorded", "assumptions", "limits", "without_voice", "with_voice", "public_list", "quick"):
        assert key in out, key
    for mode in ("without_voice", "with_voice"):
        figures = out[mode]
        for key in ("per_table_per_s", "per_game", "phase_change_burst", "tables", "tables_at_limit",
                    "lambda_busy_s_per_table", "room_partition"):
            assert key in figures, (mode, key)
        rates = figures["per_table_per_s"]
        for route in ("ws $connect", "ws $default", "ws $disconnect", "push PostToConnection",
                      "rest POST /rooms", "rest POST /rooms/{code}/players", "scheduler CreateSchedule",
                      "lambda timer (Scheduler)", "dynamodb reads", "dynamodb writes", "ws inbound (stage throttle)"):
            assert rates.get(route, 0) > 0, (mode, route, rates)
        assert set(figures["tables"]) == {"10", "100"}, figures["tables"]
        assert set(figures["tables_at_limit"]) >= {"ws_stage_rate", "ws_new_connections", "rest_stage_rate",
                                                   "lambda_concurrency", "scheduler_create", "ddb_table_wru"}
    # voice adds signal frames up ($default) and their relays down, nothing else
    quiet, loud = out["without_voice"]["per_game"], out["with_voice"]["per_game"]
    assert "ws $default:signal" not in quiet and loud["ws $default:signal"] > 0, loud
    assert loud["push PostToConnection"] - quiet["push PostToConnection"] == loud["ws $default:signal"]
    assert out["recorded"]["phase_changes_per_game"] > 0 and out["recorded"]["ping_cost"]["ws $default:ping"] == 1
    # the public list: one GET per phone every POLL_S; cached, one origin call per key per interval
    public = out["public_list"]
    assert public["per_phone_rps"] == 1 / public["poll_s"]
    assert all(v["cached_origin_rps"] <= public["origin_rps_cached_max"] for v in public["by_phones"].values())


def test_bot_clock_bench_quick_runs_the_issue_47_classifier_per_preset():
    out = run_bench("bot_clock.py", "--quick")
    assert set(out["presets"]) == {"classic", "city", "original"}
    for figures in out["presets"].values():
        for key in ("games", "lines", "bot_lines", "line_accuracy", "line_chance", "seats", "seat_accuracy"):
            assert key in figures, key
        assert figures["lines"] > figures["bot_lines"] > 0  # both kinds of seat talked
    assert set(out["late"]) == {"classic", "city", "original"}  # the wakes delivered as Scheduler does
    for figures in out["late"].values():
        assert {"line_accuracy", "line_chance", "seat_accuracy"} <= set(figures)


def test_voice_load_bench_quick_measures_every_pair_of_three_throttled_pages():
    out = run_bench("voice_load.py", "--quick")
    for key in ("seats", "pagesOpened", "joined", "throttle", "pairs", "pairsConnected", "pairsFlowing",
                "allFlowing", "bytesPerPairPerS", "packetsLost", "jitterMs", "connectS", "load", "failed"):
        assert key in out, (key, out)
    # what makes it a measurement of three throttled pages: each opened, joined and was sampled per pair
    assert out["throttle"] == 4 and out["pagesOpened"] == out["joined"] == 3 and out["pairs"] == 6, out
    assert set(out["bytesPerPairPerS"]) == {"min", "p50", "max"} and out["load"]["before"]["cpus"] >= 1, out

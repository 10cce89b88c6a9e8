"""bench/backend.py keeps running: its quick mode (every figure from a small run: a 4-player game,
one handler's cold start) runs in a subprocess, and its one JSON line has every figure. Never a
time. The full figures, every handler's, are `make bench`'s."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
QUICK_HANDLERS = {"ws_default"}  # bench/backend.py QUICK
FIGURES = {
    "game", "aws_calls_per_action", "aws_calls_per_action_by_operation", "floor_calls_per_action",
    "calls_over_floor_per_action", "scans", "pushes_per_action", "changed_views_per_action",
    "pushes_without_a_changed_view", "changed_views_not_pushed", "max_push_bytes", "p50_push_bytes",
    "p95_push_bytes", "in_game_push_bytes", "max_room_item_bytes", "max_room_item_bytes_long_game", "long_game_city_16",
    "long_game", "handler_cpu_ratio", "handler_seconds", "raw_boto3_seconds", "import_ratio",
    "import_ratio_by_handler", "import_ratio_shipped", "import_ratio_shipped_by_handler",
    "first_event_ratio", "first_event", "cost_per_game_usd", "cost_per_20_minute_game_usd",
    "cost_breakdown_usd", "cost_inputs", "by_action_kind", "spectator_fanout", "pushes_as", "memory_sizes",
    "handler_cpu_split", "handler_cpu_ratio_median",
}  # fmt: skip


def test_the_backend_bench_runs_and_reports_every_figure():
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_ENDPOINT_URL", "POWERTOOLS_"))}
    out = subprocess.run(
        [sys.executable, str(ROOT / "bench" / "backend.py"), "--quick"],
        capture_output=True, text=True, env=env, cwd=ROOT, timeout=240,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    figures = json.loads(out.stdout.strip().splitlines()[-1])
    assert set(figures) == FIGURES
    for key in ("import_ratio_by_handler", "import_ratio_shipped_by_handler"):
        assert set(figures[key]) == QUICK_HANDLERS, key
    assert set(figures["first_event"]["by_handler"]) == QUICK_HANDLERS
    assert set(figures["first_event"]) >= {"by_handler", "first_event_s", "boto3_and_clients_s", "max"}
    assert figures["scans"] == 0 and figures["game"]["players"] == 4 and figures["game"]["actions"] > 0
    # per-action latency and the game's cost at each compared memory size (docs/operations.md,
    # "Memory size"): more memory, a larger vCPU share, less of the handler's own time
    sizes = figures["memory_sizes"]
    assert list(sizes) == ["512", "1024", "1769"] and sizes["1769"]["vcpu"] == 1.0
    assert sizes["512"]["handler_cpu_ms_per_action"] > sizes["1024"]["handler_cpu_ms_per_action"]
    assert all({"latency_ms_per_action", "cost_per_game_usd"} <= set(v) for v in sizes.values())

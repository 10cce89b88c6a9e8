"""`make test` on a fresh machine: the browser tier's system packages (Chromium, the Korean and
emoji fonts of the screenshots) are installed by `scripts/ensure-browser.sh`, which `make test`
runs. Checked here on a machine made to look fresh: `CHROMIUM` points at a missing file and
stand-ins for `fc-list`, `id` and `apt-get` come first on PATH (apt-get only records its
arguments), so nothing is installed for real."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCRIPT = REPO / "scripts" / "ensure-browser.sh"
EVERYTHING = "chromium-headless-shell chromium fonts-nanum fonts-noto-color-emoji"


def _tool(bin_dir: Path, name: str, body: str) -> None:
    path = bin_dir / name
    path.write_text(f"#!/usr/bin/env bash\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


def fresh_machine(tmp_path: Path, *, uid: int = 0, chromium: bool = False, fonts: str = "") -> dict:
    """An environment in which the script sees the given machine."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    _tool(bin_dir, "id", f"echo {uid}")
    _tool(bin_dir, "fc-list", f"printf '%s' {fonts!r}")
    _tool(bin_dir, "apt-get", f'echo "$*" >> {tmp_path / "apt.log"}')
    if chromium:  # the headless shell (the pages) and the full browser (voice)
        _tool(tmp_path, "chromium-headless-shell", "exit 0")
        _tool(tmp_path, "chromium", "exit 0")
    return {
        **os.environ,
        "PATH": f"{bin_dir}:{os.environ['PATH']}",
        "CHROMIUM": str(tmp_path / "chromium-headless-shell"),
        "MEDIA_CHROMIUM": str(tmp_path / "chromium"),
    }


def run(env: dict, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(SCRIPT)], env={**env, **extra}, capture_output=True, text=True, timeout=30, check=False
    )


def test_without_chromium_as_root_the_dry_run_says_it_would_install_everything(tmp_path):
    out = run(fresh_machine(tmp_path), ENSURE_BROWSER_DRY_RUN="1")
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == f"would run: apt-get update && apt-get install -y {EVERYTHING}"
    assert not (tmp_path / "apt.log").exists()


def test_without_chromium_as_root_it_installs_chromium_and_the_fonts_with_apt_get(tmp_path):
    out = run(fresh_machine(tmp_path))
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "apt.log").read_text().splitlines() == ["update -qq", f"install -y -qq {EVERYTHING}"]


def test_without_root_it_stops_with_one_line_giving_the_exact_command(tmp_path):
    out = run(fresh_machine(tmp_path, uid=1000))
    assert out.returncode != 0
    assert out.stderr.strip().splitlines() == [
        f"browser tests need {EVERYTHING}: run as root: apt-get update && apt-get install -y {EVERYTHING}"
    ]
    assert not (tmp_path / "apt.log").exists()


def test_only_what_is_missing_is_installed(tmp_path):
    env = fresh_machine(tmp_path, chromium=True, fonts="/usr/share/fonts/NanumGothic.ttf: NanumGothic\n")
    out = run(env, ENSURE_BROWSER_DRY_RUN="1")
    assert out.stdout.strip() == "would run: apt-get update && apt-get install -y fonts-noto-color-emoji"


def test_with_everything_present_it_does_nothing(tmp_path):
    fonts = "/a/NanumGothic.ttf: NanumGothic\n/b/NotoColorEmoji.ttf: Noto Color Emoji\n"
    out = run(fresh_machine(tmp_path, uid=1000, chromium=True, fonts=fonts))
    assert (out.returncode, out.stdout, out.stderr) == (0, "", "")


def test_make_test_runs_the_install_step_before_the_browser_tier():
    out = subprocess.run(
        ["make", "-n", "test"], cwd=REPO, capture_output=True, text=True, timeout=60, check=True
    )
    # every command that runs the browser tier (a shard of it) runs the install step first
    runs = [line for line in out.stdout.splitlines() if "pytest tests/browser" in line]
    assert runs
    for line in runs:
        assert -1 < line.find("scripts/browser-ready.sh") < line.find("pytest tests/browser"), line
    ready = (REPO / "scripts" / "browser-ready.sh").read_text().splitlines()
    assert ready[-1] == "exec scripts/ensure-browser.sh"


def test_ci_is_a_thin_call_of_make_test():
    commands = [
        line
        for line in (REPO / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.startswith("#")
    ]
    assert commands[-1] == "exec make test"
    assert not any("apt-get" in line for line in commands)

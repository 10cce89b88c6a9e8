"""axe-core in the browser tier: inject the pinned copy (tests/browser/package.json, installed
by `make browser-deps`) into a page and list what it finds."""

from __future__ import annotations

import json
import os
from pathlib import Path

from playwright.sync_api import Page

AXE_JS = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
MISSING_AXE = f"axe-core is missing at {AXE_JS}: run `make browser-deps` (npm ci in tests/browser)."
BLOCKING = ("critical", "serious")

# Every rule axe has for WCAG 2.x A/AA and its best practices; `color-contrast` included.
# First the screen's transitions end (day turns to night over 0.6 s, style.css): colours
# caught half-way fail `color-contrast` although no player reads them so.
RUN_JS = """async () => {
  const settled = Promise.all(document.getAnimations().map((a) => a.finished.catch(() => null)));
  await Promise.race([settled, new Promise((ok) => setTimeout(ok, 2000))]);
  const r = await window.axe.run(document, { resultTypes: ["violations"] });
  return r.violations.map((v) => ({
    id: v.id, impact: v.impact, nodes: v.nodes.length,
    targets: v.nodes.slice(0, 3).map((n) => n.target.join(" ") + " :: " + (n.failureSummary || "").split("\\n")[1]),
  }));
}"""


def audit(page: Page) -> list[dict]:
    """axe's violations on the page as it is now: [{id, impact, nodes, targets}]."""
    if not page.evaluate("() => Boolean(window.axe)"):
        page.add_script_tag(path=str(AXE_JS))
    return page.evaluate(RUN_JS)


def blocking(violations: list[dict]) -> list[dict]:
    return [v for v in violations if v["impact"] in BLOCKING]


def record(where: str, violations: list[dict]) -> None:
    """Append one line per audit to $AXE_REPORT (a JSON-lines file) when it is set: the
    per-screen counts for a review; the tests' verdicts never depend on it."""
    path = os.environ.get("AXE_REPORT")
    if not path:
        return
    counts = {v["id"]: v["nodes"] for v in violations}
    impacts = {v["id"]: v["impact"] for v in violations}
    with open(path, "a", encoding="utf-8") as f:
        f.write(json.dumps({"where": where, "counts": counts, "impacts": impacts}, ensure_ascii=False) + "\n")

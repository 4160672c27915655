"""Section: the notebook page in headless Chromium, with N memories in one scope.

For each size the memory root gets N records of the project scope (``seed_root``), and
``mymcp notebook --no-browser`` serves it; one headless Chromium (Debian's ``chromium``,
driven by Playwright) logs in through the printed address once. Each row gives:

- the memory list on screen: from the start of navigating to ``/notebook/`` to the first
  frame painted after the whole tree is built (the page notes that moment), median and
  slowest of several loads, and the same seen from outside (navigation to the moment the
  page says it is ready, as Playwright sees it);
- a search, timed in the page around its ``fetch`` of ``/notebook/api/search`` (which calls
  ``memory_recall``): in the project scope and in all six scopes, median and 95th
  percentile over a set of realistic queries, after one warm-up query;
- the size of the overview the page loads.

The targets: with 1,000 memories the list is on screen within 1 s, and a search answers
within 100 ms. Without Chromium or Playwright the section prints one line saying what to
install.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from common import print_table, queries, seed_root

from tests.mnemosyne.notebook.browser_support import MISSING, READY, launch
from tests.processes import running_notebook

LOADS = 7
QUERIES = 30
HEADER = (
    "memories",
    "list on screen ms",
    "slowest ms",
    "seen outside ms",
    "search 1 scope ms",
    "p95 ms",
    "search 6 scopes ms",
    "p95 ms",
    "overview KiB",
)
SEARCH = """async ([query, scope]) => {
  const csrf = window.__csrf || (window.__csrf =
    (await (await fetch('api/session')).json()).csrf);
  const started = performance.now();
  const response = await fetch('api/search', {method: 'POST',
    headers: {'Content-Type': 'application/json', 'X-MyMCP-CSRF': csrf},
    body: JSON.stringify({query, scope})});
  await response.json();
  return performance.now() - started;
}"""


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def _loads(context: Any, url: str, count: int) -> tuple[list[float], list[float]]:
    inside, outside = [], []
    page = context.new_page()
    for _ in range(LOADS):
        started = time.perf_counter()
        page.goto(url)
        page.wait_for_selector(READY, timeout=30_000)
        outside.append((time.perf_counter() - started) * 1000)
        inside.append(float(page.get_attribute("body", "data-ready-ms") or "nan"))
        shown = page.locator("#tree button.memory").count()
        if shown != count:
            raise RuntimeError(f"the page shows {shown} memories of {count}")
    page.close()
    return inside, outside


def _searches(context: Any, url: str, scope: str | None) -> list[float]:
    page = context.new_page()
    page.goto(url)
    page.wait_for_selector(READY)
    page.evaluate(SEARCH, ["warm up", scope])
    spent = [float(page.evaluate(SEARCH, [query, scope])) for query in queries(QUERIES)]
    page.close()
    return spent


def _row(browser: Any, size: int) -> tuple[object, ...]:
    with tempfile.TemporaryDirectory(prefix="mymcp-bench-notebook-") as workspace:
        base = Path(workspace)
        seed_root(base / "memory", size)
        with running_notebook(base) as notebook:
            context = browser.new_context()
            login = context.new_page()
            login.goto(notebook.login_url)
            login.wait_for_selector(READY, timeout=30_000)
            overview = login.evaluate("fetch('api/overview').then(r => r.text())")
            login.close()
            url = f"{notebook.base_url}/notebook/"
            inside, outside = _loads(context, url, size)
            one = _searches(context, url, "project")
            six = _searches(context, url, None)
            context.close()
    return (
        f"{size:,}",
        f"{statistics.median(inside):.0f}",
        f"{max(inside):.0f}",
        f"{statistics.median(outside):.0f}",
        f"{statistics.median(one):.1f}",
        f"{_percentile(one, 0.95):.1f}",
        f"{statistics.median(six):.1f}",
        f"{_percentile(six, 0.95):.1f}",
        f"{len(overview.encode()) / 1024:.0f}",
    )


def run(sizes: Sequence[int]) -> None:
    """Print one row per size of the notebook (memories in one scope)."""
    if MISSING is not None:
        print(f"notebook page: {MISSING}")
        return
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch(playwright)
        try:
            rows = [_row(browser, size) for size in sizes]
        finally:
            browser.close()
    print_table(
        "the notebook page in headless Chromium (targets at 1,000: list under 1,000 ms, "
        "search under 100 ms)",
        HEADER,
        rows,
    )

"""The app in a real browser: Debian's headless Chromium driven by Playwright.

Starts ``streamlit run explorer/app.py`` on a free port, as on a fresh install: numba's
cache is an empty folder of the test's own (``NUMBA_CACHE_DIR``; the developer's cache
is left alone), so the compiled kernels must be compiled first.  It opens the app like a
first-time user (the sample collection trains by itself, with the NumPy reference while
the kernels compile elsewhere, and says so), checks that the held-out curve has three
points within 30 seconds, starts a run with the button, waits for its curve to have
three points, opens the Topics page and checks that words appear and the intertopic map is
drawn, opens the Documents page's "Topics over time" (the sample's year column), checks
that the kernels were compiled into the test's cache, and saves screenshots to
``SVI_TOPICS_ARTIFACTS`` (default ``tests/explorer/artifacts/``, ignored by git).
Skipped only when ``/usr/bin/chromium`` is missing outside CI; in CI it must run.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from tests.explorer._streamlit_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ARTIFACTS = Path(os.environ.get("SVI_TOPICS_ARTIFACTS", Path(__file__).resolve().parent / "artifacts"))
MEASUREMENTS = re.compile(r"Held-out measurements of (#\d+)[^:]*: (\d+)")
# a fresh install's first visitor sees the first run's curve within this, long before the ~60 s compile ends
# (what the limit guards: a first run that waits for the compiled kernels); on a 2-core machine with the
# compile beside it the first curve measured 9.9-16.4 s, so 15 s failed now and then; with the tests run two
# at a time (pytest-xdist) beside it, 33.8 s once
FIRST_CURVE_SECONDS = 45.0
COMPILING_NOTE = "Compiling the fast kernels"
SWITCHED_NOTE = "Trained with the NumPy reference for its first"


@pytest.fixture
def numba_cache(tmp_path: Path) -> Path:
    """An empty numba cache for the server: a fresh install's, without touching the developer's."""
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    return cache


@pytest.fixture
def diagnosis() -> list:
    """Receives the server's :class:`ServerDiagnosis` (see ``_wait``)."""
    return []


@pytest.fixture
def server(tmp_path: Path, numba_cache: Path, diagnosis: list):
    env = {**os.environ, "SVI_TOPICS_HOME": str(tmp_path / "home"), "SVI_TOPICS_AUTOSTART": "1",
           "SVI_TOPICS_ORPHAN_GRACE": "0", "PYTHONUNBUFFERED": "1", "NUMBA_CACHE_DIR": str(numba_cache)}
    env.pop("SVI_TOPICS_DEFAULT_SAMPLE", None)  # the real first-time experience: the default sample
    with streamlit_server(env, tmp_path / "streamlit.log", diagnosis) as url:
        yield url


def _measurements(page, run: str) -> int:
    text = page.locator("body").inner_text()
    counts = [int(n) for name, n in MEASUREMENTS.findall(text) if name == run]
    return max(counts, default=0)


def _wait(page, predicate, timeout: float = 90.0, diagnosis: list | None = None) -> None:
    """Poll ``predicate`` until it holds; after ``timeout`` seconds fail with what the page and the server show.

    On failure the page is saved as ``timed-out.png`` in the artifacts, and the message
    holds the page's text and, if ``diagnosis`` holds the server's, its log with the
    stacks of all its threads (the server is ended to get them).
    """
    started = time.monotonic()
    while not predicate():
        if time.monotonic() - started >= timeout:
            page.screenshot(path=str(ARTIFACTS / "timed-out.png"))
            text = page.locator("body").inner_text()
            server = diagnosis[0].report() if diagnosis else ""
            pytest.fail(f"timed out after {timeout:.0f} s waiting in the browser; the page ({page.url}) shows:\n"
                        f"{text[-4000:]}\n{server}")
        page.wait_for_timeout(300)


def _compiled_into(cache: Path) -> list[str]:
    """The LDA step kernels numba wrote to ``cache`` (its index files)."""
    return sorted(path.name for path in cache.rglob("lda._fit_all-*.nbi"))


def test_first_visit_trains_and_shows_topics(server, tmp_path, numba_cache, diagnosis):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1100})
        try:
            page = context.new_page()
            opened = time.monotonic()
            page.goto(server)
            # a first-time user sees the sample training by itself, at once, though nothing is compiled yet
            notes = []

            def first_curve() -> bool:
                text = page.locator("body").inner_text()
                notes.extend(note for note in (COMPILING_NOTE, SWITCHED_NOTE) if note in text)
                return _measurements(page, "#1") >= 3

            _wait(page, first_curve, timeout=90.0, diagnosis=diagnosis)
            seconds = time.monotonic() - opened
            page.screenshot(path=str(ARTIFACTS / "train-first-visit.png"))
            assert seconds <= FIRST_CURVE_SECONDS, f"the first curve took {seconds:.1f} s to get three points"
            if not notes:  # the compile goes on for about a minute, so the note must still show: once in ~30
                # runs no poll before the curve caught it (cause not found), so look for 15 s more
                deadline = time.monotonic() + 15.0
                while not notes and time.monotonic() < deadline:
                    first_curve()
                    page.wait_for_timeout(300)
            if not notes:  # say what the next person needs to find the cause
                cached = _compiled_into(numba_cache)
                text = page.locator("body").inner_text()
                server_log = diagnosis[0].report() if diagnosis else ""
                pytest.fail(f"the page did not say that it trains with the NumPy reference while compiling; the "
                            f"first curve came after {seconds:.1f} s; LDA kernels in the test's numba cache now: "
                            f"{cached or 'none'}; the page shows:\n{text[-3000:]}\n{server_log}")
            assert re.search(r"[?&]workspace=[A-Za-z0-9_-]{22}", page.url), "the private workspace is not in the URL"
            # start a run with the button: its curve gets three points too
            page.get_by_role("button", name="Start a new run").click()
            _wait(page, lambda: _measurements(page, "#2") >= 3, diagnosis=diagnosis)
            assert page.get_by_text("Traceback").count() == 0
            page.screenshot(path=str(ARTIFACTS / "train.png"))
            page.get_by_role("link", name="Topics").click()
            page.get_by_text("Relevance λ").wait_for(timeout=30_000)
            card_titles = page.get_by_text(re.compile(r"^Topic \d+: \w+, \w+, \w+"))
            _wait(page, lambda: card_titles.count() >= 3)  # cards with their top words
            page.wait_for_timeout(1500)
            page.screenshot(path=str(ARTIFACTS / "topics.png"))
            assert page.get_by_text("Traceback").count() == 0
            # the intertopic map (LDAvis' view in Altair) and the chosen topic's words beside it
            heading = page.get_by_text("Intertopic map", exact=True)
            heading.wait_for(timeout=30_000)
            heading.scroll_into_view_if_needed()
            page.get_by_text("Words of topic").wait_for(timeout=30_000)
            _wait(page, lambda: page.locator("[data-testid='stVegaLiteChart']").count() >= 2)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(ARTIFACTS / "topics-intertopic-map.png"))
            assert page.get_by_text("Traceback").count() == 0
            # the sample has a year column: the Documents page charts the topics over time
            page.get_by_role("link", name="Documents").click()
            over_time = page.get_by_role("tab", name="Topics over time")
            # under a loaded CI machine the page took more than Playwright's 30 s to draw its tabs once
            _wait(page, lambda: over_time.count() >= 1, diagnosis=diagnosis)
            over_time.click()
            page.get_by_text("A topic's share of a period").wait_for(timeout=30_000)
            page.wait_for_timeout(1500)
            page.screenshot(path=str(ARTIFACTS / "topics-over-time.png"))
            assert page.get_by_text("Traceback").count() == 0
        finally:
            context.close()
    # the kernels were compiled into the test's own cache (numba honours NUMBA_CACHE_DIR for them)
    end = time.monotonic() + 120
    while not _compiled_into(numba_cache):
        assert time.monotonic() < end, "the LDA kernels never reached the test's numba cache"
        time.sleep(0.5)

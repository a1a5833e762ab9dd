"""The app in a real browser: Debian's headless Chromium driven by Playwright.

Starts ``streamlit run explorer/app.py`` on a free port, opens it like a first-time user
(the sample collection trains by itself), starts a run with the button, waits for the
held-out curve to have three points, opens the Topics page and checks that words
appear, and saves screenshots to ``SVI_TOPICS_ARTIFACTS`` (default
``tests/explorer/artifacts/``, ignored by git).  Skipped only when ``/usr/bin/chromium``
is missing outside CI; in CI it must run.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CHROMIUM = "/usr/bin/chromium"
ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("SVI_TOPICS_ARTIFACTS", Path(__file__).resolve().parent / "artifacts"))
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
MEASUREMENTS = re.compile(r"Held-out measurements of (#\d+)[^:]*: (\d+)")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_server(url: str, process: subprocess.Popen, timeout: float = 60.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with code {process.returncode}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as answer:
                if answer.read().strip() == b"ok":
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError("streamlit did not answer within a minute")


@pytest.fixture
def server(tmp_path: Path):
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing; the browser test must run in CI")
        pytest.skip(f"{CHROMIUM} is not installed")
    port = _free_port()
    env = {**os.environ, "SVI_TOPICS_HOME": str(tmp_path / "home"), "SVI_TOPICS_AUTOSTART": "1",
           "SVI_TOPICS_ORPHAN_GRACE": "0", "PYTHONUNBUFFERED": "1"}
    env.pop("SVI_TOPICS_DEFAULT_SAMPLE", None)  # the real first-time experience: the default sample
    log = (tmp_path / "streamlit.log").open("wb")
    process = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "explorer/app.py", "--server.port", str(port),
         "--server.address", "127.0.0.1", "--server.headless", "true", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_for_server(url, process)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


def _measurements(page, run: str) -> int:
    text = page.locator("body").inner_text()
    counts = [int(n) for name, n in MEASUREMENTS.findall(text) if name == run]
    return max(counts, default=0)


def _wait(page, predicate, timeout: float = 90.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out waiting in the browser"
        page.wait_for_timeout(300)


def test_first_visit_trains_and_shows_topics(server, tmp_path):
    from playwright.sync_api import sync_playwright

    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path / "chromium-profile"), executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 1100})
        try:
            page = context.new_page()
            page.goto(server)
            # a first-time user sees the sample training by itself
            _wait(page, lambda: _measurements(page, "#1") >= 3)
            page.screenshot(path=str(ARTIFACTS / "train-first-visit.png"))
            # start a run with the button: its curve gets three points too
            page.get_by_role("button", name="Start a new run").click()
            _wait(page, lambda: _measurements(page, "#2") >= 3)
            assert page.get_by_text("Traceback").count() == 0
            page.screenshot(path=str(ARTIFACTS / "train.png"))
            page.get_by_role("link", name="Topics").click()
            page.get_by_text("Relevance λ").wait_for(timeout=30_000)
            card_titles = page.get_by_text(re.compile(r"^Topic \d+: \w+, \w+, \w+"))
            _wait(page, lambda: card_titles.count() >= 3)  # cards with their top words
            page.wait_for_timeout(1500)
            page.screenshot(path=str(ARTIFACTS / "topics.png"))
            assert page.get_by_text("Traceback").count() == 0
        finally:
            context.close()

"""The workspace token in a real browser (issue 15): in the address, kept across pages and reloads, one per person.

Starts ``streamlit run explorer/app.py`` (no automatic run) and drives Debian's headless
Chromium with Playwright; skipped when ``/usr/bin/chromium`` is missing outside CI.
"""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

import pytest

from explorer import workspace
from tests.explorer._streamlit_server import CHROMIUM, CHROMIUM_ARGS, streamlit_server

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TOKEN = re.compile(r"[?&]workspace=([A-Za-z0-9_-]+)")


@pytest.fixture
def server(tmp_path: Path):
    env = {**os.environ, "SVI_TOPICS_HOME": str(tmp_path / "home"), "SVI_TOPICS_AUTOSTART": "0",
           "SVI_TOPICS_DEFAULT_SAMPLE": "synthetic", "SVI_TOPICS_ORPHAN_GRACE": "0"}
    env.pop(workspace.MODE_VARIABLE, None)
    with streamlit_server(env, tmp_path / "streamlit.log") as url:
        yield url


def _token(page, timeout: float = 30.0, other_than: str | None = None) -> str:
    """The workspace token in the page's address, once it is there."""
    end = time.monotonic() + timeout
    while True:
        found = TOKEN.search(page.url)
        if found and found.group(1) != other_than:
            return found.group(1)
        assert time.monotonic() < end, f"no workspace token in {page.url}"
        page.wait_for_timeout(200)


def test_the_token_is_in_the_address_kept_across_pages_and_reloads_and_differs_per_person(server):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context().new_page()
            page.goto(server)
            token = _token(page)
            assert workspace.valid_token(token)
            page.get_by_text("Workspace: private").wait_for(timeout=30_000)
            page.get_by_role("link", name="Export / import").click()
            page.get_by_text("No checkpoint yet.").wait_for(timeout=30_000)
            assert _token(page) == token  # navigation cleared the address; the app put the token back
            page.reload()
            page.get_by_text("No checkpoint yet.").wait_for(timeout=30_000)
            assert _token(page) == token
            other = browser.new_context().new_page()  # another person
            other.goto(server)
            assert _token(other) not in ("", token)
            refused = browser.new_context().new_page()
            refused.goto(f"{server}/?workspace=..%2F..%2Fetc")
            refused.get_by_text("The workspace in this page's address is not valid").wait_for(timeout=30_000)
            assert workspace.valid_token(_token(refused, other_than="..%2F..%2Fetc"))
            assert page.get_by_text("Traceback").count() == 0
        finally:
            browser.close()


def test_a_loaded_model_file_is_kept_after_a_reload_and_only_in_its_workspace(server, tmp_path):
    """A model file loaded on the Export page outlives a reload (browse only here); another person never sees it."""
    from playwright.sync_api import expect, sync_playwright

    import engine

    corpus = engine.Corpus.from_texts(list(engine.make_synthetic_corpus(n_docs=60, n_topics=3, seed=1,
                                                                        readable=True).texts()))
    model = engine.LDA(n_topics=3, n_words=corpus.n_words, seed=0)
    trainer = engine.SVI(model, corpus=corpus.counts, seed=0, batch_size=20)
    trainer.run(n_docs=60)
    path = tmp_path / "mymodel.npz"
    engine.save_model(path, model, corpus.vocabulary, trainer=trainer, labels={0: "Planets"})
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS)
        try:
            page = browser.new_context().new_page()
            page.goto(server)
            page.get_by_role("link", name="Export / import").click()
            page.get_by_text("No checkpoint yet.").wait_for(timeout=30_000)
            page.locator("input[type=file]").set_input_files(str(path))
            page.get_by_text("It is kept with this workspace's checkpoints below").wait_for(timeout=30_000)
            page.reload()
            expect(page.get_by_role("combobox", name="Checkpoint")).to_have_value(
                re.compile(r"^mymodel\.npz \(loaded\) — started"), timeout=30_000)
            # its documents are not in this workspace: browse only
            assert page.get_by_role("button", name="Resume training").is_disabled()
            page.get_by_role("button", name="Open to browse").click()
            # navigate only once the click's rerun has added the run (a page switch would cut that rerun short)
            expect(page.get_by_role("combobox", name="Run shown on every page")).to_have_value(
                re.compile(r"mymodel.*\(checkpoint\)"), timeout=30_000)
            page.get_by_role("link", name="Topics").click()
            page.get_by_text("Planets").first.wait_for(timeout=30_000)
            other = browser.new_context().new_page()  # another person, on the same server
            other.goto(server)
            other.get_by_role("link", name="Export / import").click()
            other.get_by_text("No checkpoint yet.").wait_for(timeout=30_000)
            assert page.get_by_text("Traceback").count() == 0
        finally:
            browser.close()

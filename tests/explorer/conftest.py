"""Fixtures of the explorer tests: a private home folder, no background leftovers.

Every test gets its own ``SVI_TOPICS_HOME`` (checkpoints, stored collections), the small
synthetic sample as the default collection, and no automatic first run unless it asks for
one.  After each test the Streamlit caches are cleared (which stops the runs of AppTest
sessions, their session-scoped lease being released with no grace period) and every
training thread a test left running is stopped.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest
import streamlit as st

from engine.data.synthetic import make_synthetic_corpus
from engine.inference.run import TrainingRun
from explorer.engine_api import Corpus
from explorer.storage import Collection

APP = str(Path(__file__).resolve().parents[2] / "explorer" / "app.py")


@pytest.fixture(autouse=True)
def explorer_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "svi-home"
    monkeypatch.setenv("SVI_TOPICS_HOME", str(home))
    monkeypatch.delenv("SVI_TOPICS_CHECKPOINTS", raising=False)
    monkeypatch.setenv("SVI_TOPICS_ORPHAN_GRACE", "0")
    monkeypatch.setenv("SVI_TOPICS_AUTOSTART", "0")
    monkeypatch.setenv("SVI_TOPICS_DEFAULT_SAMPLE", "synthetic")
    monkeypatch.setenv("SVI_TOPICS_CHECKPOINT_SECONDS", "1")
    yield home
    st.cache_resource.clear()
    st.cache_data.clear()
    for obj in gc.get_objects():
        if isinstance(obj, TrainingRun) and obj.is_alive:
            obj.stop(timeout=5.0)


@pytest.fixture
def app_path() -> str:
    return APP


@pytest.fixture(scope="module")
def collection() -> Collection:
    """A small collection of 300 synthetic documents from 4 known topics, shared by a test module."""
    synthetic = make_synthetic_corpus(n_docs=300, n_topics=4, seed=1)
    return Collection.of(Corpus.from_texts(list(synthetic.texts())), "synthetic test", "test")

"""Fixtures of the explorer tests: a private home folder, no background leftovers.

Every test gets its own ``SVI_TOPICS_HOME`` (checkpoints, stored collections), the small
synthetic sample as the default collection, and no automatic first run unless it asks for
one.  After each test the Streamlit caches are cleared (which stops the runs of AppTest
sessions, their session-scoped lease being released with no grace period) and every
training thread a test left running is stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from engine.data.synthetic import make_synthetic_corpus
from explorer.engine_api import Corpus
from explorer.storage import Collection
from tests._explorer_env import APP, private_home


@pytest.fixture(autouse=True)
def explorer_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    yield from private_home(tmp_path, monkeypatch)


@pytest.fixture
def app_path() -> str:
    return APP


@pytest.fixture(scope="module")
def collection() -> Collection:
    """A small collection of 300 synthetic documents from 4 known topics, shared by a test module."""
    synthetic = make_synthetic_corpus(n_docs=300, n_topics=4, seed=1)
    return Collection.of(Corpus.from_texts(list(synthetic.texts())), "synthetic test", "test")

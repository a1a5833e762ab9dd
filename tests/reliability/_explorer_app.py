"""Helpers of the explorer's reliability tests: a private home folder, AppTest sessions, crafted model files.

The test modules call :func:`private_home` from an autouse fixture of their own (this
folder has no conftest), and build every hostile input here, in the test's ``tmp_path``.
"""

from __future__ import annotations

import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from streamlit.testing.v1 import AppTest

import engine
from explorer.state import Keys
from tests._explorer_env import APP, private_home  # noqa: F401  private_home: the modules' autouse fixtures call it


def app(token: str | None = None) -> AppTest:
    """A new browser session (optionally opened with ``?workspace=<token>``), after its first run."""
    at = AppTest.from_file(APP, default_timeout=60)
    if token is not None:
        at.query_params["workspace"] = token
    at.run()
    assert not at.exception, at.exception
    return at


def page(at: AppTest, name: str) -> None:
    at.switch_page(f"views/{name}.py")
    at.run()
    assert not at.exception, at.exception


def runs(at: AppTest):
    return at.session_state[Keys.runs]


def until(at: AppTest, predicate, timeout: float = 30.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out waiting for the app"
        time.sleep(0.15)
        at.run()
        assert not at.exception, at.exception
    at.run()
    assert not at.exception, at.exception


def train_to_the_end(at: AppTest, target_docs: int = 1_000):
    """Start a run on the collection in use and wait until it finished (its checkpoint is written)."""
    page(at, "train")
    at.number_input(key=Keys.target_docs).set_value(target_docs)
    at.button(key=Keys.train_start).click().run()
    assert not at.exception, at.exception
    record = runs(at).latest()
    until(at, lambda: record.status == "finished")
    return record


def model_file(path: Path, vocabulary: list[str], n_topics: int = 3, explorer: object = None,
               trained: bool = True) -> bytes:
    """A small LDA model file with this vocabulary and this ``extra["explorer"]`` (None: left out)."""
    rng = np.random.default_rng(0)
    dense = rng.poisson(1.0, size=(40, len(vocabulary))).astype(float)
    dense[:, 0] += 1  # no empty document
    counts = sp.csr_matrix(dense)
    model = engine.LDA(n_topics=n_topics, n_words=len(vocabulary), seed=0)
    trainer = engine.SVI(model, counts, batch_size=10, seed=0)
    if trained:
        trainer.run(n_steps=3)
    extra = {} if explorer is None else {"explorer": explorer}
    engine.save_model(path, model, vocabulary, trainer=trainer, extra=extra)
    return path.read_bytes()


def upload_model(at: AppTest, name: str, data: bytes) -> None:
    """Load a model file on the Export page, as a user would."""
    page(at, "export")
    at.file_uploader(key=Keys.model_upload).upload(name, data)
    at.run()
    assert not at.exception, at.exception

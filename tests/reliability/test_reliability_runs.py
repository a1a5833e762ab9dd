"""Training runs and their checkpoints under faults (issue 15, cases 7 and 9, and kill -9 mid-write)."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

import engine
from engine.errors import VocabularyMismatchError
from engine.inference import run as run_module
from engine.io.model_files import load_model


def _wait(run, seconds=60.0):
    deadline = time.monotonic() + seconds
    while run.is_alive and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not run.is_alive, "the run did not end in time"


def _run(corpus, checkpoint, **options):
    model = engine.LDA(n_topics=4, n_words=corpus.n_words, seed=0)
    trainer = engine.SVI(model, corpus.counts, batch_size=20, seed=0)
    return engine.TrainingRun(trainer, vocabulary=corpus.vocabulary, checkpoint_path=checkpoint, **options)


def test_a_failed_checkpoint_write_keeps_training_and_the_previous_checkpoint(planted_corpus, tmp_path,
                                                                             monkeypatch):
    checkpoint = tmp_path / "run.npz"
    run = _run(planted_corpus, checkpoint, checkpoint_every_seconds=1e-6, target_docs=400)
    real_save = run_module.save_model
    calls = []

    def full_disk_after_the_first(*args, **kwargs):
        calls.append(1)
        if len(calls) > 1:
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_save(*args, **kwargs)

    monkeypatch.setattr(run_module, "save_model", full_disk_after_the_first)
    run.start()
    _wait(run)
    snap = run.snapshot()
    assert snap.status == "finished" and snap.error is None and snap.docs_seen >= 400  # training went on
    assert "No space left on device" in snap.checkpoint_error
    assert "the previous checkpoint is kept" in snap.checkpoint_error
    kept = load_model(checkpoint)  # the first checkpoint, whole
    assert kept.trainer_state["docs_seen"] < snap.docs_seen
    assert len(calls) > 2  # it kept trying


def test_a_checkpoint_folder_that_cannot_be_written_is_refused_before_training(planted_corpus, tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist; create it first"):
        _run(planted_corpus, tmp_path / "missing" / "run.npz")
    with pytest.raises(ValueError, match="is a folder"):
        _run(planted_corpus, tmp_path)
    with pytest.raises(OSError, match="cannot be written"):
        _run(planted_corpus, "/proc/run.npz")  # unwritable even for root


def test_resuming_on_other_words_of_the_same_number_is_refused(planted_corpus, tmp_path):
    checkpoint = tmp_path / "run.npz"
    run = _run(planted_corpus, checkpoint, target_docs=100)
    run.start()
    _wait(run)
    other = list(planted_corpus.vocabulary)
    other[0], other[1] = other[1], other[0]
    with pytest.raises(VocabularyMismatchError, match="column 0"):
        engine.TrainingRun.resume_from(checkpoint, planted_corpus.counts, vocabulary=other)
    resumed = engine.TrainingRun.resume_from(checkpoint, planted_corpus.counts, vocabulary=planted_corpus.vocabulary)
    assert resumed.snapshot().docs_seen == run.snapshot().docs_seen


_WRITER = textwrap.dedent(
    """
    import sys
    import time
    import engine
    corpus = engine.make_synthetic_corpus(n_docs=400, n_topics=4, seed=1)
    model = engine.LDA(n_topics=4, n_words=corpus.n_words, seed=0)
    trainer = engine.SVI(model, corpus.counts, batch_size=20, seed=0)
    run = engine.TrainingRun(trainer, vocabulary=corpus.vocabulary, checkpoint_path=sys.argv[1],
                             checkpoint_every_seconds=1e-6)
    run.start()
    print("started", flush=True)
    while run.is_alive:
        time.sleep(0.05)
    """
)


@pytest.mark.parametrize("delay", [0.3, 0.7, 1.1])
def test_kill_9_while_checkpoints_are_written_leaves_a_checkpoint_that_resumes(tmp_path, delay):
    """A process killed at any moment leaves the last whole checkpoint and no half-written file."""
    checkpoint = tmp_path / "run.npz"
    env = {**os.environ, "NUMBA_NUM_THREADS": "1"}
    process = subprocess.Popen([sys.executable, "-c", _WRITER, str(checkpoint)], stdout=subprocess.PIPE,
                               env=env, text=True)
    assert process.stdout.readline().strip() == "started"
    deadline = time.monotonic() + 60
    while not checkpoint.exists() and time.monotonic() < deadline and process.poll() is None:
        time.sleep(0.01)
    assert process.poll() is None, "the training process ended on its own"
    time.sleep(delay)  # checkpoints are being written back to back now
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    process.stdout.close()
    loaded = load_model(checkpoint)
    assert loaded.trainer_state["docs_seen"] > 0 and np.all(np.isfinite(loaded.model.lambda_))
    leftovers = [p.name for p in tmp_path.iterdir() if p.name != "run.npz"]
    corpus = engine.make_synthetic_corpus(n_docs=400, n_topics=4, seed=1)
    resumed = engine.TrainingRun.resume_from(checkpoint, corpus.counts, vocabulary=corpus.vocabulary,
                                             target_docs=loaded.trainer_state["docs_seen"] + 40)
    resumed.start()
    _wait(resumed)
    assert resumed.snapshot().status == "finished"
    assert all(name.startswith(".run.npz") for name in leftovers)  # at most an abandoned temporary, never run.npz

"""The step floor (``step_floor="running"``, the default): update t from the random start is at least 1/(t + 1).

So the random topics never weigh more than one minibatch: after t updates their weight,
prod_k (1 - rho_k), is at most prod_k k / (k + 1) = 1/(t + 1) (benchmarks/RESULTS.md run 37).
"""

from __future__ import annotations

import numpy as np
import pytest

import engine
from tests.engine._resume import resume_from_checkpoint


@pytest.fixture(scope="module")
def corpus():
    return engine.make_synthetic_corpus(n_docs=120, n_topics=4, seed=3).counts


def _models(n_words: int, **settings):
    return [engine.LDA(n_topics=4, n_words=n_words, seed=0, first_pass_steps=0, **settings),  # S a step
            engine.HDP(n_topics=10, doc_truncation=4, n_words=n_words, seed=0, births=0, **settings)]


@pytest.mark.parametrize("index", [0, 1], ids=["LDA", "HDP"])
def test_each_update_from_the_random_start_is_at_least_one_over_t_plus_one(corpus, index):
    model = _models(corpus.shape[1])[index]
    assert model.step_floor == "running"
    trainer = engine.SVI(model, corpus, batch_size=30, kappa=0.9, tau=64.0, seed=0)
    taken = [trainer.step().rho for _ in range(12)]
    expected = [max((t + 64.0) ** -0.9, 1.0 / (t + 1)) for t in range(1, 13)]
    np.testing.assert_allclose(taken, expected, rtol=1e-15)
    assert np.prod(1.0 - np.array(taken)) <= 1.0 / 13 + 1e-15  # the random start's weight after 12 updates
    assert model.training_clock()["updates_from_start"] == 12
    # a plan drawn before training gives the same steps
    fresh = _models(corpus.shape[1])[index]
    assert [fresh.planned_step_size(t, (t + 64.0) ** -0.9) for t in range(1, 13)] == pytest.approx(taken, rel=1e-15)


@pytest.mark.parametrize("index", [0, 1], ids=["LDA", "HDP"])
def test_the_engines_schedule_and_the_paper_preset_are_unchanged(corpus, index):
    """(t + 1)^-0.9 >= 1/(t + 1): at kappa 0.9, tau 1 the floor never binds, so lambda is the same to the bit."""
    runs = []
    for settings in ({}, {"step_floor": "none"}):
        model = _models(corpus.shape[1], **settings)[index]
        trainer = engine.SVI(model, corpus, batch_size=30, seed=0)
        rhos = [trainer.step().rho for _ in range(8)]
        runs.append((rhos, model.lambda_))
    assert runs[0][0] == runs[1][0]
    np.testing.assert_array_equal(runs[0][1], runs[1][1])
    paper = _models(corpus.shape[1], preset="paper")[index]
    assert paper.step_floor == "none"
    taken = engine.SVI(paper, corpus, batch_size=30, kappa=0.9, tau=64.0, seed=0).step().rho
    assert taken == pytest.approx(65.0 ** -0.9)


def test_topics_set_by_hand_or_loaded_without_a_count_take_the_schedule(corpus, tmp_path):
    trained = engine.LDA(n_topics=4, n_words=corpus.shape[1], seed=0)
    engine.SVI(trained, corpus, batch_size=30, seed=0).run(n_steps=3)
    by_hand = engine.LDA(n_topics=4, n_words=corpus.shape[1], seed=0)
    by_hand.lambda_ = trained.lambda_
    assert by_hand.training_clock()["updates_from_start"] is None
    assert engine.SVI(by_hand, corpus, batch_size=30, kappa=0.9, tau=64.0, seed=0).step().rho == pytest.approx(
        65.0 ** -0.9)
    clock = trained.training_clock()
    older = {key: value for key, value in clock.items() if key != "updates_from_start"}  # a file from before
    trained.restore_training_clock(older)
    assert trained.step_size_for(0.001) == 0.001
    for bad in (-1, 2.5, True, "3"):
        with pytest.raises(ValueError, match="updates_from_start must be a whole number >= 0 or null"):
            trained.restore_training_clock({**clock, "updates_from_start": bad})


@pytest.mark.parametrize("index", [0, 1], ids=["LDA", "HDP"])
def test_a_resumed_run_keeps_counting_from_its_random_start(corpus, index, tmp_path):
    """Checkpointed after 3 updates at tau = 64 and continued: the same steps and topics as a run never stopped."""
    whole = _models(corpus.shape[1])[index]
    engine.SVI(whole, corpus, batch_size=30, kappa=0.9, tau=64.0, seed=0).run(n_docs=240)
    part = _models(corpus.shape[1])[index]
    trainer = engine.SVI(part, corpus, batch_size=30, kappa=0.9, tau=64.0, seed=0)
    trainer.run(n_docs=90)
    assert part.training_clock()["updates_from_start"] == 3
    resumed = resume_from_checkpoint(part, trainer, corpus, tmp_path / "run.npz", total_docs=240, batch_size=30)
    assert resumed.training_clock()["updates_from_start"] == 8
    np.testing.assert_allclose(resumed.lambda_, whole.lambda_, rtol=1e-6 if whole.dtype == "float64" else 1e-5)


def test_the_hdps_birth_rounds_keep_the_count(corpus):
    """A birth round rewrites lambda (through its setter) but the topics are still the trained ones."""
    model = engine.HDP(n_topics=10, doc_truncation=4, n_words=corpus.shape[1], seed=0)
    trainer = engine.SVI(model, corpus, batch_size=30, kappa=0.9, tau=64.0, seed=0)
    taken = [trainer.step().rho for _ in range(10)]
    assert model.training_clock()["birth_rounds"] >= 1
    assert model.training_clock()["updates_from_start"] == 10
    np.testing.assert_allclose(taken, [max((t + 64.0) ** -0.9, 1.0 / (t + 1)) for t in range(1, 11)], rtol=1e-15)

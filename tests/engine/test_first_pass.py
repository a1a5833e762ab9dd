"""LDA's first pass over a small collection: at least ``first_pass_steps`` updates (smaller minibatches)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.inference.svi import minibatch_update, scheduled_rho
from engine.models.lda import first_pass_batch_size


def _corpus(n_docs: int, n_words: int = 40, seed: int = 0) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    counts = sp.csr_matrix(rng.poisson(0.4, size=(n_docs, n_words)).astype(np.float64))
    counts[np.flatnonzero(counts.getnnz(axis=1) == 0), 0] = 1.0  # no empty document
    return counts


def _sizes(model, counts, n_steps: int, **svi_options) -> list[int]:
    trainer = engine.SVI(model, corpus=counts, seed=0, **svi_options)
    return [trainer.step().batch_size for _ in range(n_steps)]


@pytest.mark.parametrize(("n_docs", "batch_size", "steps", "expected"), [
    (400, 256, 16, 25),     # 400 / 16
    (1000, 256, 16, 63),    # ceil(1000 / 16)
    (4096, 256, 16, 256),   # 16 steps of S already
    (5000, 256, 16, 256),
    (400, 10, 16, 10),      # S smaller than the first pass would take
    (400, 256, 0, 256),     # switched off
    (3, 256, 16, 1),        # at least one document
])
def test_first_pass_batch_size(n_docs, batch_size, steps, expected):
    assert first_pass_batch_size(n_docs, batch_size, steps) == expected


def test_default_lda_takes_sixteen_steps_in_its_first_pass_then_s():
    counts = _corpus(400)
    model = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    assert model.first_pass_steps == 16
    assert _sizes(model, counts, 19) == [25] * 16 + [256] * 3
    assert model.training_clock()["epochs_seen"] == pytest.approx(16 * 25 / 400 + 3 * 256 / 400)


def test_a_first_pass_that_does_not_divide_evenly_ends_after_the_pass():
    counts = _corpus(1000)
    model = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    sizes = _sizes(model, counts, 18)
    assert sizes == [63] * 16 + [256] * 2  # the 16th step reaches into the second pass: 1,008 documents
    assert sum(sizes[:15]) < 1000 <= sum(sizes[:16])


@pytest.mark.parametrize("options", [{"preset": "paper"}, {"first_pass_steps": 0}])
def test_the_paper_preset_and_zero_steps_take_s_from_the_start(options):
    counts = _corpus(400)
    model = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0, **options)
    assert _sizes(model, counts, 3) == [256, 256, 256]


def test_the_hdp_and_an_explicit_small_s_are_left_alone():
    counts = _corpus(400)
    hdp = engine.HDP(n_topics=8, doc_truncation=3, n_words=counts.shape[1], seed=0)
    assert _sizes(hdp, counts, 2) == [256, 256]
    lda = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    assert _sizes(lda, counts, 3, batch_size=10) == [10, 10, 10]


def test_topics_set_by_hand_are_not_a_random_start():
    counts = _corpus(400)
    model = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    model.lambda_ = np.random.default_rng(1).gamma(100.0, 0.01, size=(4, counts.shape[1]))
    assert _sizes(model, counts, 2) == [256, 256]


def test_a_new_trainer_finishes_the_models_first_pass():
    counts = _corpus(400)
    model = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    assert _sizes(model, counts, 10) == [25] * 10
    assert _sizes(model, counts, 8) == [25] * 6 + [256] * 2  # 250 of the pass's 400 documents were left


def test_a_first_pass_step_scales_its_minibatch_by_d_over_its_own_size():
    counts = _corpus(400)
    trained = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    trainer = engine.SVI(trained, corpus=counts, seed=0)
    trainer.step()
    # the same update by hand: the first 25 documents of the trainer's permutation, scaled by 400 / 25
    by_hand = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    drawer = engine.SVI(by_hand, corpus=counts, seed=0)
    batch = drawer._next_batch(25)
    minibatch_update(by_hand, counts[batch], 1, 400, scheduled_rho(by_hand, 1, drawer.kappa, drawer.tau), 0)
    np.testing.assert_array_equal(trained.lambda_, by_hand.lambda_)
    # scaled as a minibatch of S = 256 (400 / 256 instead of 400 / 25), the update would differ
    wrong = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    engine.SVI(wrong, corpus=counts, seed=0)
    stats = wrong.local_step(counts[batch], rng=np.random.default_rng(0))
    wrong.global_step(stats, scale=400 / 256, rho=scheduled_rho(wrong, 1, drawer.kappa, drawer.tau))
    assert not np.allclose(trained.lambda_, wrong.lambda_)


def test_first_pass_steps_is_validated_and_saved(tmp_path):
    with pytest.raises(ValueError, match="first_pass_steps"):
        engine.SVI(engine.LDA(n_topics=4, n_words=40, first_pass_steps=-1), corpus=_corpus(50))
    counts = _corpus(400)
    model = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0, first_pass_steps=8)
    _sizes(model, counts, 3)
    path = tmp_path / "model.npz"
    engine.save_model(path, model)
    loaded_model = engine.load_model(path).model
    assert loaded_model.first_pass_steps == 8
    assert _sizes(loaded_model, counts, 6) == [50] * 5 + [256]  # the clock came along: 150 documents were read


def test_a_run_checkpointed_in_its_first_pass_continues_exactly(tmp_path):
    """Saved after 5 of the first pass's 16 steps and resumed: the same steps and topics as a run never stopped."""
    from tests.engine._resume import resume_from_checkpoint

    counts = _corpus(400)
    whole = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    engine.SVI(whole, counts, seed=0).run(n_docs=1200)
    part = engine.LDA(n_topics=4, n_words=counts.shape[1], seed=0)
    trainer = engine.SVI(part, counts, seed=0)
    trainer.run(n_docs=125)
    assert trainer.t == 5 and trainer.next_batch_size == 25
    resumed = resume_from_checkpoint(part, trainer, counts, tmp_path / "run.npz", total_docs=1200, batch_size=256)
    assert resumed.training_clock() == pytest.approx(whole.training_clock())
    assert resumed.training_clock()["updates_from_start"] == 16 + 4  # 400 in 16 steps, then 800 in 4 of 256 (1,024)
    np.testing.assert_allclose(resumed.lambda_, whole.lambda_, rtol=1e-10)

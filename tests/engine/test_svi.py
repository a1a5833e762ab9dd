"""The SVI loop: sampling, schedule, determinism, validation, mid-run changes."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from tests.engine._reference import planted_counts


@pytest.fixture(name="X")
def planted_x():
    return planted_counts(n_docs=120)[0]


def _trainer(X, **kwargs):
    # S a step: these tests count steps (the first pass's smaller ones are in test_first_pass.py)
    model = engine.LDA(n_topics=4, n_words=X.shape[1], seed=kwargs.pop("model_seed", 0), first_pass_steps=0)
    return engine.SVI(model, X, **({"batch_size": 16} | kwargs))


def test_report_carries_t_rho_and_documents_seen(X):
    trainer = _trainer(X, kappa=0.8, tau=3.0)
    first = trainer.step()
    second = trainer.step()
    assert (first.t, second.t) == (1, 2)
    # the schedule (t + 3)^-0.8, raised to 1/(t + 1) from the random start (step_floor)
    assert first.rho == pytest.approx(max((1 + 3.0) ** -0.8, 1 / 2)) == 0.5
    assert second.rho == pytest.approx(max((2 + 3.0) ** -0.8, 1 / 3)) == pytest.approx(1 / 3)
    assert second.docs_seen == 32 and second.batch_size == 16
    assert second.epoch == pytest.approx(32 / 120)
    assert second.local_iterations >= 1


def test_epoch_sampling_visits_every_document_once_per_epoch(X):
    trainer = _trainer(X, batch_size=7)
    batches = [trainer._next_batch(7) for _ in range(40)]
    flat = np.concatenate(batches)
    first, second = flat[:120], flat[120:240]
    assert sorted(first.tolist()) == list(range(120))
    assert sorted(second.tolist()) == list(range(120))
    assert first.tolist() != second.tolist()  # reshuffled each epoch


def test_sampling_with_replacement_is_uniform(X):
    trainer = _trainer(X, batch_size=120, sampling="replacement")
    counts = np.zeros(120)
    for t in range(50):
        trainer.t = t
        np.add.at(counts, trainer._next_batch(120), 1)
    # 6000 draws from 120 documents: each about 50 times; repeats inside a batch happen
    assert counts.min() > 20 and counts.max() < 90


def test_explicit_document_ids_reproduce_a_run(X):
    a, b = _trainer(X), _trainer(X)
    batches = [np.arange(i, i + 16) for i in range(0, 64, 16)]
    for batch in batches:
        a.step(doc_ids=batch)
        b.step(doc_ids=batch.tolist())
    np.testing.assert_array_equal(a.model.lambda_, b.model.lambda_)
    with pytest.raises(ValueError, match="doc_ids"):
        a.step(doc_ids=[500])


def test_same_seed_same_result_bit_for_bit_and_different_seeds_differ(X):
    runs = []
    for seed, model_seed in [(0, 0), (0, 0), (1, 0), (0, 1)]:
        trainer = _trainer(X, seed=seed, model_seed=model_seed)
        trainer.run(n_steps=12)
        runs.append(trainer.model.lambda_)
    np.testing.assert_array_equal(runs[0], runs[1])
    assert not np.array_equal(runs[0], runs[2])
    assert not np.array_equal(runs[0], runs[3])


def test_random_gamma_start_is_seeded_per_step(X):
    def run(seed):
        model = engine.LDA(n_topics=4, n_words=X.shape[1], gamma_init="random")
        trainer = engine.SVI(model, X, batch_size=16, seed=seed)
        trainer.run(n_steps=5)
        return model.lambda_

    np.testing.assert_array_equal(run(0), run(0))
    assert not np.array_equal(run(0), run(1))


def test_run_stops_at_documents_or_steps_and_callback_can_stop(X):
    trainer = _trainer(X)
    trainer.run(n_docs=50)
    assert trainer.docs_seen == 64
    trainer.run(n_steps=2)
    assert trainer.t == 6
    trainer.run(n_steps=10, callback=lambda report: report.t < 8)
    assert trainer.t == 8
    with pytest.raises(ValueError, match="exactly one"):
        trainer.run()


def test_schedule_change_takes_effect_at_the_next_step(X):
    trainer = _trainer(X, kappa=0.9, tau=1.0)
    trainer.step()
    trainer.set_schedule(kappa=0.6, tau=2.0, batch_size=30)
    report = trainer.step()
    assert report.rho == pytest.approx((2 + 2.0) ** -0.6)  # above the step floor's 1/3
    assert report.batch_size == 30
    with pytest.raises(ValueError, match="batch_size"):
        trainer.set_schedule(batch_size=1000)
    assert trainer.batch_size == 30  # a rejected change leaves the schedule as it was


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kappa": 1.5}, r"kappa must be in \[0, 1\]"),
        ({"kappa": -0.1}, "kappa"),
        ({"tau": -1.0}, "tau must be"),
        ({"batch_size": 0}, "batch_size"),
        ({"batch_size": 121}, r"batch_size must be in \[1, 120\]"),
        ({"sampling": "stratified"}, "sampling"),
    ],
)
def test_invalid_trainer_settings_are_rejected(X, kwargs, match):
    with pytest.raises(ValueError, match=match):
        _trainer(X, **kwargs)


def test_the_default_minibatch_is_the_whole_corpus_when_it_is_smaller(X):
    """Unset, S is engine.DEFAULT_BATCH_SIZE, or every document of a smaller corpus (X has 120)."""
    small = engine.SVI(engine.LDA(n_topics=4, n_words=X.shape[1]), X)
    assert small.batch_size == X.shape[0] < engine.DEFAULT_BATCH_SIZE
    assert small.step().batch_size == X.shape[0] // 16 + 1  # the first pass: at least 16 steps (test_first_pass.py)
    small.run(n_docs=X.shape[0])
    assert small.step().batch_size == X.shape[0]
    large = sp.vstack([X] * 3).tocsr()
    assert engine.SVI(engine.LDA(n_topics=4, n_words=X.shape[1]), large).batch_size == engine.DEFAULT_BATCH_SIZE


def test_kappa_outside_the_convergent_range_warns(X):
    with pytest.warns(UserWarning, match="convergence is not guaranteed"):
        _trainer(X, kappa=0.3)


def test_state_dict_continues_a_run_exactly(X):
    straight = _trainer(X, batch_size=25)
    straight.run(n_steps=9)
    first = _trainer(X, batch_size=25)
    first.run(n_steps=4)
    state, lambda_ = first.state_dict(), first.model.lambda_.copy()
    model = engine.LDA(n_topics=4, n_words=X.shape[1])
    model.lambda_ = lambda_
    resumed = engine.SVI(model, X, batch_size=3)
    resumed.load_state_dict(state)
    resumed.run(n_steps=5)
    # the copied lambda has its lazily pending decay applied: equal to rounding
    np.testing.assert_allclose(resumed.model.lambda_, straight.model.lambda_, rtol=1e-12)
    assert resumed.t == 9 and resumed.docs_seen == straight.docs_seen


def test_diverged_update_raises(X, monkeypatch):
    trainer = _trainer(X)
    original = trainer.model.local_step

    def poisoned(docs, rng=None):
        stats = original(docs, rng)
        stats.topic_word[0, 0] = np.inf
        return stats

    monkeypatch.setattr(trainer.model, "local_step", poisoned)
    before = trainer.model.lambda_.copy()
    with pytest.raises(engine.DivergedError, match="non-finite"):
        trainer.step()
    np.testing.assert_array_equal(trainer.model.lambda_, before)  # the failed step changed nothing
    assert trainer.t == 0


def test_empty_corpus_is_rejected():
    import scipy.sparse as sp

    model = engine.LDA(n_topics=2, n_words=5)
    with pytest.raises(engine.EmptyCorpusError, match="no documents"):
        engine.SVI(model, sp.csr_matrix((0, 5)), batch_size=1)

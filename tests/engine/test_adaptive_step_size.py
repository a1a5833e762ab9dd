"""The adaptive step size (Ranganath, Wang, Blei & Xing 2013) as an SVI option: formula, range, state."""

from __future__ import annotations

import json

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from tests.engine._reference import planted_counts


@pytest.fixture(name="X")
def planted_x():
    return planted_counts(n_docs=120)[0]


def _trainer(X, **kwargs):
    model = engine.LDA(n_topics=4, n_words=X.shape[1], seed=0)
    return engine.SVI(model, X, **({"batch_size": 16, "step_size": "adaptive", "seed": 3} | kwargs))


def test_rate_follows_the_formula_over_three_steps_from_its_start():
    # two start gradients, then three updates, all written out by hand
    start = [np.array([[1.0, -2.0], [0.0, 2.0]]), np.array([[3.0, 0.0], [-2.0, 2.0]])]
    updates = [np.array([[0.5, 1.0], [1.0, -1.0]]), np.array([[-1.0, 0.0], [2.0, 0.0]]),
               np.array([[2.0, 2.0], [0.0, 1.0]])]
    state = engine.AdaptiveStepSize.start(start)
    g_bar = np.array([[2.0, -1.0], [-1.0, 2.0]])  # mean of the two
    h_bar = (1 + 4 + 0 + 4 + 9 + 0 + 4 + 4) / 2  # mean squared norm: (9 + 17) / 2 = 13
    window = 2.0
    np.testing.assert_allclose(state.g_bar, g_bar)
    assert (state.h_bar, state.window) == (h_bar, window)
    for g in updates:
        g_bar = (1 - 1 / window) * g_bar + g / window
        h_bar = (1 - 1 / window) * h_bar + np.sum(g * g) / window
        expected = np.sum(g_bar * g_bar) / h_bar
        window = window * (1 - expected) + 1
        rho, state = state.update(g)
        assert rho == pytest.approx(expected, rel=1e-14)
        assert 0 < rho <= 1
        np.testing.assert_allclose(state.g_bar, g_bar, rtol=1e-14)
        assert state.h_bar == pytest.approx(h_bar, rel=1e-14)
        assert state.window == pytest.approx(window, rel=1e-14)
    # the first update by hand: g_bar = [[1.25, 0], [0, 0.5]], h_bar = 13/2 + 3.25/2 = 8.125
    assert engine.AdaptiveStepSize.start(start).update(updates[0])[0] == pytest.approx((1.5625 + 0.25) / 8.125)


def test_svi_steps_use_the_rate_of_their_own_gradient(X):
    trainer = _trainer(X, adaptive_init_batches=3)
    first = trainer.step(doc_ids=np.arange(16))
    state = trainer.adaptive_state
    assert first.rho == pytest.approx(min(1.0, np.sum(state.g_bar ** 2) / state.h_bar), rel=1e-12)
    assert state.window == pytest.approx(3 * (1 - first.rho) + 1, rel=1e-12)
    model = trainer.model
    for t, docs in enumerate([np.arange(16, 32), np.arange(40, 56)], start=2):
        before = model.lambda_.astype(np.float64).copy()
        # lambda_hat = eta + D/S * sum_d phi_d w_d, from an independent local step (gamma starts at ones)
        stats = model.copy().local_step(X[docs])
        lambda_hat = np.full_like(before, model.eta)
        lambda_hat[:, stats.columns] += X.shape[0] / docs.size * stats.topic_word
        g = lambda_hat - before
        w = state.window
        g_bar = (1 - 1 / w) * state.g_bar + g / w
        h_bar = (1 - 1 / w) * state.h_bar + np.sum(g * g) / w
        rho = np.sum(g_bar ** 2) / h_bar
        report = trainer.step(doc_ids=docs)
        assert report.t == t and report.rho == pytest.approx(rho, rel=1e-10)
        # the usual blend with that rho
        np.testing.assert_allclose(model.lambda_, (1 - rho) * before + rho * lambda_hat, rtol=1e-10)
        state = trainer.adaptive_state
        assert state.window == pytest.approx(w * (1 - rho) + 1, rel=1e-10)


def test_rho_stays_in_zero_one_and_a_single_start_batch_keeps_it_at_one(X):
    trainer = _trainer(X)
    rhos = [trainer.step().rho for _ in range(30)]
    assert all(0 < rho <= 1 for rho in rhos)
    assert min(rhos) < 0.5  # it does adapt
    assert trainer.rho == rhos[-1]
    single = _trainer(X, adaptive_init_batches=1)
    assert [single.step().rho for _ in range(5)] == [1.0] * 5


def test_the_schedule_is_the_default_and_switching_works_both_ways(X):
    scheduled = engine.SVI(engine.LDA(n_topics=4, n_words=X.shape[1], seed=0), X, batch_size=16, seed=3)
    assert scheduled.step_size == "schedule" and scheduled.adaptive_state is None
    trainer = _trainer(X, step_size="schedule", kappa=0.8, tau=2.0)
    trainer.run(n_steps=2)
    trainer.set_schedule(step_size="adaptive")
    third = trainer.step()
    assert trainer.adaptive_state is not None and 0 < third.rho <= 1
    trainer.set_schedule(step_size="schedule")
    assert trainer.adaptive_state is None
    assert trainer.step().rho == pytest.approx((4 + 2.0) ** -0.8)
    trainer.set_schedule(step_size="adaptive")  # starts afresh from the topics of now
    trainer.step()
    assert trainer.adaptive_state.window <= engine.DEFAULT_ADAPTIVE_INIT_BATCHES


def test_state_dict_resumes_an_adaptive_run_exactly(X, tmp_path):
    reference = _trainer(X)
    reference.run(n_steps=6)
    resumed_from = _trainer(X)
    resumed_from.run(n_steps=3)
    state = json.loads(json.dumps(resumed_from.state_dict()))  # JSON-able
    path = engine.save_model(tmp_path / "run.npz", resumed_from.model, trainer=resumed_from)
    loaded = engine.load_model(path)
    for saved in (state, loaded.trainer_state):
        trainer = engine.SVI(resumed_from.model.copy(), X, batch_size=16)  # the schedule until loaded
        trainer.load_state_dict(saved)
        assert trainer.step_size == "adaptive"
        np.testing.assert_array_equal(trainer.adaptive_state.g_bar, resumed_from.adaptive_state.g_bar)
        trainer.run(n_steps=3)
        np.testing.assert_array_equal(trainer.model.lambda_, reference.model.lambda_)
        assert trainer.rho == reference.rho
        assert trainer.adaptive_state.window == reference.adaptive_state.window


def test_a_state_without_step_size_loads_as_the_schedule(X):
    trainer = _trainer(X, step_size="schedule")
    state = trainer.state_dict()
    for key in ("step_size", "adaptive_init_batches", "last_rho", "adaptive"):
        state.pop(key)
    other = _trainer(X)
    other.load_state_dict(state)
    assert other.step_size == "schedule" and other.adaptive_state is None


def test_empty_documents_give_no_nan():
    X = planted_counts(n_docs=60)[0].tolil()
    X[::3] = 0  # every third document is empty
    X = sp.csr_matrix(X)
    trainer = _trainer(X, batch_size=4)
    for _ in range(5):
        trainer.step()
    empty = np.flatnonzero(np.diff(X.indptr) == 0)[:4]
    report = trainer.step(doc_ids=empty)  # a minibatch of empty documents only
    assert np.isfinite(report.rho) and 0 < report.rho <= 1
    assert np.all(np.isfinite(trainer.model.lambda_))
    assert np.all(np.isfinite(trainer.adaptive_state.g_bar)) and np.isfinite(trainer.adaptive_state.h_bar)


def test_the_hdp_and_unknown_rules_are_rejected(X):
    hdp = engine.HDP(n_topics=6, doc_truncation=3, n_words=X.shape[1], seed=0)
    with pytest.raises(ValueError, match="adaptive step size is available for LDA only"):
        engine.SVI(hdp, X, batch_size=16, step_size="adaptive")
    trainer = engine.SVI(hdp, X, batch_size=16)
    with pytest.raises(ValueError, match="LDA only"):
        trainer.set_schedule(step_size="adaptive")
    with pytest.raises(ValueError, match="step_size"):
        _trainer(X, step_size="constant")
    with pytest.raises(ValueError, match="adaptive_init_batches"):
        _trainer(X, adaptive_init_batches=0)
    with pytest.raises(ValueError, match="at least one gradient"):
        engine.AdaptiveStepSize.start([])


def test_a_zero_gradient_gives_a_unit_step():
    state = engine.AdaptiveStepSize.start([np.zeros((2, 3))] * 2)
    rho, state = state.update(np.zeros((2, 3)))
    assert rho == 1.0 and state.window == 1.0


def test_the_number_of_start_batches_is_capped_also_in_a_loaded_state(X):
    from engine.inference.schedule import MAX_ADAPTIVE_INIT_BATCHES

    assert _trainer(X, adaptive_init_batches=MAX_ADAPTIVE_INIT_BATCHES).adaptive_init_batches == 100
    with pytest.raises(ValueError, match=r"adaptive_init_batches must be in \[1, 100\], got 101"):
        _trainer(X, adaptive_init_batches=MAX_ADAPTIVE_INIT_BATCHES + 1)
    state = _trainer(X).state_dict()
    state["adaptive_init_batches"] = 10**9  # from a file: days of local steps before the first update
    trainer = _trainer(X)
    with pytest.raises(ValueError, match=r"adaptive_init_batches must be in \[1, 100\], got 1000000000"):
        trainer.load_state_dict(state)


def test_the_start_sums_a_stream_of_gradients_as_the_mean_of_all_of_them():
    rng = np.random.default_rng(0)
    gradients = [rng.normal(size=(3, 5)) * 10.0 ** rng.integers(-3, 4) for _ in range(7)]
    streamed = engine.AdaptiveStepSize.start(g for g in gradients)  # a generator: summed as it comes
    np.testing.assert_allclose(streamed.g_bar, np.mean(gradients, axis=0), rtol=1e-12, atol=1e-12)
    assert streamed.h_bar == pytest.approx(np.mean([np.sum(g * g) for g in gradients]), rel=1e-12)
    assert streamed.window == 7.0

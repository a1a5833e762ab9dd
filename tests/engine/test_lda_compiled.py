"""The compiled local step is held to the NumPy reference it replaces."""

from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.models.lda import restrict_columns
from tests.engine._reference import planted_counts

compiled = pytest.importorskip("engine.kernels.compiled.lda")


def _pair(X, **kwargs):
    params = {"n_topics": 6, "n_words": X.shape[1], "seed": 4, "topic_init": "exponential"} | kwargs
    reference = engine.LDA(**params, kernel="numpy")
    fast = engine.LDA(**params, kernel="compiled")
    reference.initialize(X.shape[0])
    fast.initialize(X.shape[0])  # the same random start, counted as one (the step floor)
    np.testing.assert_array_equal(fast.lambda_, reference.lambda_)
    return reference, fast


@pytest.mark.parametrize("local_update", ["mean_field", "zero_order"])
@pytest.mark.parametrize(("dtype", "rtol"), [("float64", 1e-7), ("float32", 2e-2)])
def test_local_step_equals_the_numpy_reference(dtype, rtol, local_update):
    X, _ = planted_counts(n_docs=150, seed=1)
    reference, fast = _pair(X, dtype=dtype, local_update=local_update)
    a, b = reference.local_step(X), fast.local_step(X)
    np.testing.assert_allclose(b.doc_topic, a.doc_topic, rtol=rtol)
    np.testing.assert_allclose(b.topic_word, a.topic_word, rtol=rtol, atol=1e-6)
    assert b.topic_word.sum() == pytest.approx(X.sum(), rel=1e-5)
    if dtype == "float64":  # the same iterations: every output array of the kernel is written
        assert b.n_iter.min() >= 1
        np.testing.assert_array_equal(b.n_iter, a.n_iter)


def test_float32_kernel_agrees_with_float64():
    """The float32 kernel sums in float32; with the same topics it lands where float64 does.

    Measured (paper preset): gamma within 2e-5 (of values up to 60), statistics
    within 1e-6 relative; the bounds leave a factor of 5 to 10.
    """
    X, _ = planted_counts(n_docs=150, seed=1)
    reference = engine.LDA(n_topics=6, n_words=X.shape[1], seed=4, topic_init="exponential", kernel="numpy",
                           preset="paper")
    reference.initialize(X.shape[0])
    engine.SVI(reference, X, batch_size=30, seed=1).run(n_steps=4)
    double = engine.LDA(n_topics=6, n_words=X.shape[1], kernel="compiled", preset="paper")
    single = engine.LDA(n_topics=6, n_words=X.shape[1], kernel="compiled", dtype="float32", preset="paper")
    double.lambda_ = reference.lambda_
    single.lambda_ = reference.lambda_.astype(np.float32)
    a, b = double.local_step(X), single.local_step(X)
    assert b.doc_topic.dtype == np.float32
    np.testing.assert_allclose(b.doc_topic, a.doc_topic, rtol=1e-5, atol=2e-4)
    np.testing.assert_allclose(b.topic_word, a.topic_word, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("local_update", ["mean_field", "zero_order"])
def test_several_svi_steps_give_the_same_lambda(local_update):
    X, _ = planted_counts(n_docs=300, seed=2)
    reference, fast = _pair(X, local_update=local_update)
    for model in (reference, fast):
        engine.SVI(model, X, batch_size=40, kappa=0.7, tau=4.0, seed=1).run(n_steps=12)
    np.testing.assert_allclose(fast.lambda_, reference.lambda_, rtol=1e-6)


@pytest.mark.parametrize("acceleration", ["none", "squarem"])
def test_underflowing_documents_fall_back_to_the_exact_reference(acceleration, monkeypatch):
    """Documents whose normalisers fall below the kernel's threshold are refitted by the NumPy reference.

    Real underflow needs topics no test can hold in float64, so the threshold is raised (0.3,
    of normalisers rescaled per word to a largest term of 1) until some documents cross it.
    """
    X, _ = planted_counts(n_docs=60, seed=3)
    reference, fast = _pair(X, local_acceleration=acceleration, local_update="zero_order")  # CVB0 cannot underflow
    for model in (reference, fast):
        engine.SVI(model, X, batch_size=30, seed=1).run(n_steps=2)
    fast.lambda_ = reference.lambda_
    rescued = []
    rescue = compiled._rescue_lost
    monkeypatch.setattr(compiled, "_tiny", lambda dtype, n_topics: 0.3)
    monkeypatch.setattr(compiled, "_rescue_lost", lambda *args: rescued.append(int(args[3].sum())) or rescue(*args))
    a, b = reference.local_step(X), fast.local_step(X)
    assert len(rescued) == 1 and 0 < rescued[0] < 60
    assert np.all(np.isfinite(b.doc_topic)) and np.all(np.isfinite(b.topic_word))
    np.testing.assert_allclose(b.doc_topic, a.doc_topic, rtol=1e-9)
    np.testing.assert_allclose(b.topic_word, a.topic_word, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("kernel", ["numpy", "compiled"])
@pytest.mark.parametrize("local_update", ["mean_field", "zero_order"])
def test_a_fold_in_without_statistics_fits_the_very_gamma_of_the_full_step(kernel, local_update):
    X, _ = planted_counts(n_docs=150, seed=1)
    model = engine.LDA(n_topics=6, n_words=X.shape[1], seed=4, kernel=kernel, local_update=local_update)
    engine.SVI(model, X, batch_size=30, seed=1).run(n_steps=3)
    counts, columns = restrict_columns(X)
    job = model._local_job(model._require_topics(), columns, columns, model._initial_doc_topic(150, None))
    full = job.run(counts)
    np.testing.assert_array_equal(job.fold_in(counts), full.doc_topic)
    gamma = model.local_step(X, rng=np.random.default_rng(model.seed)).doc_topic
    np.testing.assert_array_equal(model.transform(X), gamma / gamma.sum(axis=1, keepdims=True))


@pytest.mark.parametrize("acceleration", ["none", "squarem"])
def test_a_fold_in_without_statistics_rescues_underflowing_documents_too(acceleration, monkeypatch):
    """A threshold of "underflow" raised far above real underflow (0.3, of normalisers rescaled per word to a
    largest term of 1) sends some documents to the exact reference."""
    X, _ = planted_counts(n_docs=60, seed=3)
    model = engine.LDA(n_topics=6, n_words=X.shape[1], seed=4, kernel="compiled", local_acceleration=acceleration,
                       local_update="zero_order")  # CVB0 has no normaliser that can underflow
    engine.SVI(model, X, batch_size=30, seed=1).run(n_steps=2)
    rescued = []
    rescue = compiled._rescue_lost
    monkeypatch.setattr(compiled, "_tiny", lambda dtype, n_topics: 0.3)
    monkeypatch.setattr(compiled, "_rescue_lost", lambda *args: rescued.append(int(args[3].sum())) or rescue(*args))
    counts, columns = restrict_columns(X)
    job = model._local_job(model._require_topics(), columns, columns, model._initial_doc_topic(60, None))
    full = job.run(counts)
    gamma = job.fold_in(counts)
    assert len(rescued) == 2 and 0 < rescued[1] == rescued[0] < 60  # some documents, the same in both
    assert np.all(np.isfinite(gamma))
    np.testing.assert_array_equal(gamma, full.doc_topic)


def test_unknown_kernel_is_rejected():
    with pytest.raises(ValueError, match="kernel"):
        engine.LDA(n_topics=2, n_words=3, kernel="gpu").settings()


@pytest.mark.parametrize(("dtype", "rtol"), [("float64", 1e-7), ("float32", 2e-2)])
def test_squarem_local_step_equals_the_numpy_reference(dtype, rtol):
    X, _ = planted_counts(n_docs=150, seed=1)
    reference, fast = _pair(X, dtype=dtype, local_acceleration="squarem", local_update="zero_order")
    for model in (reference, fast):  # topics where documents need many updates
        engine.SVI(model, X, batch_size=30, seed=1).run(n_steps=3)
    fast.lambda_ = reference.lambda_
    a, b = reference.local_step(X), fast.local_step(X)
    np.testing.assert_allclose(b.doc_topic, a.doc_topic, rtol=rtol)
    np.testing.assert_allclose(b.topic_word, a.topic_word, rtol=rtol, atol=1e-6)
    if dtype == "float64":
        np.testing.assert_array_equal(b.n_iter, a.n_iter)


@pytest.mark.parametrize("acceleration", ["none", "squarem"])
@pytest.mark.parametrize(("dtype", "rtol"), [("float64", 1e-7), ("float32", 2e-2)])
def test_a_mixed_auto_step_equals_the_numpy_reference(dtype, rtol, acceleration):
    """The "auto" update on short and long documents in one minibatch: CVB0 on the first, zero-order on the rest."""
    X, _ = planted_counts(n_docs=150, seed=1)
    X = X.tolil()
    for d in range(0, X.shape[0], 2):  # every other document cut to its first three words
        X.rows[d], X.data[d] = X.rows[d][:3], X.data[d][:3]
    X = X.tocsr()
    lengths = np.asarray(X.sum(axis=1)).ravel()
    threshold = int(lengths[1::2].min())
    assert (lengths[::2] < threshold).all() and (lengths[1::2] >= threshold).all()
    reference, fast = _pair(X, dtype=dtype, local_update="auto", cvb0_words=threshold,
                            local_acceleration=acceleration)
    a, b = reference.local_step(X), fast.local_step(X)
    np.testing.assert_allclose(b.doc_topic, a.doc_topic, rtol=rtol)
    np.testing.assert_allclose(b.topic_word, a.topic_word, rtol=rtol, atol=1e-6)
    assert b.topic_word.sum() == pytest.approx(X.sum(), rel=1e-5)
    if dtype == "float64":
        np.testing.assert_array_equal(b.n_iter, a.n_iter)

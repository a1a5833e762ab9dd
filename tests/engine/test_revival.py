"""Revival of unused LDA topics (revive_topics): the split of the largest topic, its bookkeeping, consistency."""

from __future__ import annotations

import json

import numpy as np
import pytest

import engine
from engine.models.lazy_topics import LazyTopics
from tests.engine._reference import planted_counts
from tests.engine._resume import resume_from_checkpoint


def _model_with_topics(lam: np.ndarray, **options) -> engine.LDA:
    model = engine.LDA(n_topics=lam.shape[0], n_words=lam.shape[1], seed=0, revive_topics=True, **options)
    model.lambda_ = lam
    return model


def test_each_small_topic_takes_half_of_the_largest_topic_in_turn():
    rng = np.random.default_rng(0)
    eta = 0.01
    # excess masses 100, 40, 2, 30, 1 (mean 34.6): topics 2 and 4 hold less than 0.5 / K of the words
    excess = rng.dirichlet(np.ones(12), size=5) * np.array([100.0, 40.0, 2.0, 30.0, 1.0])[:, None]
    model = _model_with_topics(eta + excess)
    assert model._revive().tolist() == [2, 4]
    after = model.lambda_ - eta
    # topic 2 took half of topic 0; then topic 4 half of the largest, a half of 0 (~50 > 40)
    np.testing.assert_allclose(after[0] + after[2] + after[4], excess[0], rtol=1e-12)
    np.testing.assert_array_equal(after[[1, 3]], excess[[1, 3]])  # the others are untouched
    pieces = after[[0, 2, 4]] / excess[0]
    assert np.all(pieces >= 0.45**2 - 1e-12) and np.all(pieces <= 0.55 + 1e-12)
    assert np.sort(pieces.mean(axis=1)) == pytest.approx([0.25, 0.25, 0.5], abs=0.05)
    np.testing.assert_allclose(model._require_topics().excess_totals(), after.sum(axis=1), rtol=1e-12)


def test_the_largest_topic_is_split_and_the_pseudo_counts_are_conserved():
    eta = 0.05
    excess = np.array([[10.0, 20.0, 30.0, 40.0], [10.0, 10.0, 10.0, 10.0], [0.01, 0.02, 0.0, 0.0]])
    model = _model_with_topics(eta + excess, eta=eta)
    assert model._revive().tolist() == [2]
    after = model.lambda_ - eta
    np.testing.assert_allclose(after[0] + after[2], excess[0], rtol=1e-12)
    np.testing.assert_array_equal(after[1], excess[1])
    fraction = after[0] / excess[0]
    assert np.all((fraction >= 0.45) & (fraction <= 0.55))
    assert np.unique(fraction).size == 4  # drawn word by word, so the halves differ
    # the store's running totals are the dense topics'
    np.testing.assert_allclose(model._require_topics().excess_totals(), after.sum(axis=1), rtol=1e-12)


def test_the_split_is_seeded_and_differs_between_revivals():
    excess = np.array([[5.0] * 6, [4.0] * 6, [1e-3] * 6])
    first = _model_with_topics(0.01 + excess)
    second = _model_with_topics(0.01 + excess)
    first._revive()
    second._revive()
    np.testing.assert_array_equal(first.lambda_, second.lambda_)
    second.lambda_ = 0.01 + excess
    second._revive()  # its second revival draws other proportions
    assert not np.array_equal(first.lambda_, second.lambda_)


def test_no_topic_is_revived_when_all_are_in_use():
    X, _ = planted_counts(n_docs=60, n_topics=4, seed=3)
    model = engine.LDA(n_topics=4, n_words=X.shape[1], seed=0, revive_topics=True)
    engine.SVI(model, X, batch_size=20, seed=0).run(n_docs=5 * X.shape[0])
    before = model.lambda_.copy()
    assert model._revive().size == 0
    np.testing.assert_array_equal(model.lambda_, before)


def test_a_split_applies_the_pending_decay_exactly():
    rng = np.random.default_rng(1)
    lam = 0.1 + rng.gamma(1.0, 1.0, size=(3, 8))
    store = LazyTopics(lam, 0.1)
    store.blend(rng.gamma(1.0, 1.0, size=(3, 2)), np.array([1, 5]), scale=2.0, rho=0.3)
    before = store.dense().copy()
    share = np.linspace(0.45, 0.55, 8)
    store.split_row(0, 2, share)
    expected = before.copy()
    expected[0] = 0.1 + (before[0] - 0.1) * share
    expected[2] = 0.1 + (before[0] - 0.1) * (1 - share)
    np.testing.assert_allclose(store.dense(), expected, rtol=1e-12)
    np.testing.assert_allclose(store.excess_totals(), (expected - 0.1).sum(axis=1), rtol=1e-12)
    # later blends still see every column's decay right
    store.blend(np.ones((3, 1)), np.array([3]), scale=1.0, rho=0.5)
    expected = 0.5 * expected + 0.5 * 0.1
    expected[:, 3] += 0.5
    np.testing.assert_allclose(store.dense(), expected, rtol=1e-12)


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_training_with_revival_stays_consistent_and_recovers_the_topics(dtype):
    # more topics than the corpus has: some fall out of use and are revived, again and again
    X, truth = planted_counts(n_docs=400, n_topics=4, seed=5)
    model = engine.LDA(n_topics=8, n_words=X.shape[1], seed=1, revive_topics=True, dtype=dtype)
    trainer = engine.SVI(model, X, batch_size=50, seed=1)
    calls = []
    original = model._revive
    model._revive = lambda: calls.append(original()) or calls[-1]
    trainer.run(n_docs=12 * X.shape[0])
    assert len(calls) >= 10  # once per epoch after the first
    assert sum(c.size for c in calls) >= 1  # something was revived
    lam = model.lambda_
    assert np.all(np.isfinite(lam)) and lam.min() > 0
    # the store's running totals match the dense topics after the splits
    totals = model._require_topics().excess_totals()
    np.testing.assert_allclose(totals, (lam.astype(np.float64) - model.eta).sum(axis=1), rtol=1e-4)
    # every true topic is still found: best cosine match above 0.9
    found = model.expected_topics()
    cos = (truth / np.linalg.norm(truth, axis=1, keepdims=True)) @ (found / np.linalg.norm(found, axis=1,
                                                                                            keepdims=True)).T
    assert cos.max(axis=1).min() > 0.9
    # and no topic is a junk one: each is close to a true topic (a split of one)
    assert cos.max(axis=0).min() > 0.8


def test_batch_vi_never_revives():
    X, _ = planted_counts(n_docs=60, n_topics=4, seed=3)
    model = engine.LDA(n_topics=6, n_words=X.shape[1], seed=0, revive_topics=True)
    trainer = engine.BatchVI(model, X)
    model._revive = lambda *args: pytest.fail("batch VI revived a topic")
    for _ in range(3):
        trainer.step()


def test_a_checkpointed_run_revives_exactly_as_an_uninterrupted_one(tmp_path):
    X, _ = planted_counts(n_docs=200, n_topics=4, seed=5)
    # S a step, so that the revivals fall as counted (the first pass's smaller steps: test_first_pass.py)
    straight = engine.LDA(n_topics=12, n_words=X.shape[1], seed=1, first_pass_steps=0)
    engine.SVI(straight, X, batch_size=40, seed=2).run(n_docs=6 * X.shape[0])
    assert straight.training_clock()["revivals"] == 2  # after the first epoch and the second

    first = engine.LDA(n_topics=12, n_words=X.shape[1], seed=1, first_pass_steps=0)
    trainer = engine.SVI(first, X, batch_size=40, seed=2)
    trainer.run(n_docs=int(1.6 * X.shape[0]))  # between the two revivals
    assert first.training_clock()["revivals"] == 1
    resumed = resume_from_checkpoint(first, trainer, X, tmp_path / "checkpoint.npz", 6 * X.shape[0], batch_size=40)
    assert resumed.training_clock() == pytest.approx(straight.training_clock())
    # the checkpoint holds lambda with the pending decay applied: equal to rounding
    np.testing.assert_allclose(resumed.lambda_, straight.lambda_, rtol=1e-10)


@pytest.mark.parametrize(("clock", "problem"), [
    ({"epochs_seen": 2.0, "last_revival": 1.0}, "holds epochs_seen, last_revival, revivals and last_split"),
    ({"epochs_seen": 2.0, "last_revival": 1.0, "revivals": 1, "last_split": 3.0}, "last_split \\(3.0\\) is after"),
    ({"epochs_seen": 2.0, "last_revival": 1.0, "revivals": 1, "last_split": None}, "last_split must be a finite"),
    ({"epochs_seen": -1.0, "last_revival": 0.0, "revivals": 0}, "epochs_seen must be a finite number >= 0"),
    ({"epochs_seen": 1.0, "last_revival": 2.0, "revivals": 1}, "is after its epochs_seen"),
    ({"epochs_seen": 2.0, "last_revival": 1.0, "revivals": -1}, "revivals must be a whole number"),
    ({"epochs_seen": "2", "last_revival": 1.0, "revivals": 1}, "epochs_seen must be a finite number"),
    ([1, 2], "the training clock must be a JSON object"),
])
def test_a_malformed_training_clock_in_a_model_file_is_refused(tmp_path, clock, problem):
    X, _ = planted_counts(n_docs=60, n_topics=4, seed=3)
    model = engine.LDA(n_topics=4, n_words=X.shape[1], seed=0)
    engine.SVI(model, X, batch_size=20, seed=0).run(n_steps=2)
    path = engine.save_model(tmp_path / "model.npz", model)
    with np.load(path) as npz:
        arrays = {key: npz[key] for key in npz.files}
    meta = json.loads(bytes(arrays.pop("metadata")).decode("utf-8"))
    meta["clock"] = clock
    forged = tmp_path / "forged.npz"
    np.savez_compressed(forged, **arrays, metadata=np.frombuffer(json.dumps(meta).encode("utf-8"), dtype=np.uint8))
    with pytest.raises(engine.ModelFileError, match=problem):
        engine.load_model(forged)


# ------------------------------------------------------------------ copies tied
def _copies_model(lam: np.ndarray) -> engine.LDA:
    model = engine.LDA(n_topics=lam.shape[0], n_words=lam.shape[1], seed=0, eta=0.01)
    model.lambda_ = lam
    return model


def _gamma(shares: np.ndarray, length: float = 40.0, alpha: float = 0.2) -> np.ndarray:
    """The minibatch's gamma for documents whose words fall on the topics in proportions ``shares``."""
    return alpha + length * shares


def test_tie_rows_gives_the_mean_and_keeps_the_pending_decay_and_the_mass():
    rng = np.random.default_rng(2)
    lam = 0.1 + rng.gamma(1.0, 1.0, size=(4, 9))
    store = LazyTopics(lam, 0.1)
    store.blend(rng.gamma(1.0, 1.0, size=(4, 3)), np.array([0, 4, 7]), scale=3.0, rho=0.4)
    before = store.dense().copy()
    store.tie_rows(np.array([1, 3]))
    expected = before.copy()
    expected[[1, 3]] = before[[1, 3]].mean(axis=0)
    np.testing.assert_allclose(store.dense(), expected, rtol=1e-12)
    np.testing.assert_allclose(store.excess_totals(), (expected - 0.1).sum(axis=1), rtol=1e-12)
    assert store.excess_totals()[[1, 3]].sum() == pytest.approx((before[[1, 3]] - 0.1).sum(), rel=1e-12)


def test_two_halves_of_one_topics_words_used_evenly_by_documents_are_tied():
    rng = np.random.default_rng(3)
    V = 40
    base = rng.dirichlet(np.ones(V)) * 2000
    wobble = rng.uniform(0.8, 1.2, V)  # halves that drift apart word by word: JS well under 0.1
    other = np.roll(base, 20)
    lam = 0.01 + np.vstack([base * wobble / 2, other, base / wobble / 2])
    model = _copies_model(lam)
    # 30 documents on topics 0 and 2 in about equal parts, 30 on topic 1
    even = np.zeros((60, 3))
    even[:30, 0] = rng.uniform(0.4, 0.6, 30)
    even[:30, 2] = 1 - even[:30, 0]
    even[30:, 1] = 1.0
    groups = model._tie_copies(_gamma(even))
    assert [g.tolist() for g in groups] == [[0, 2]]
    after = model.lambda_
    np.testing.assert_array_equal(after[0], after[2])
    np.testing.assert_allclose(after[0] + after[2], lam[0] + lam[2], rtol=1e-12)
    np.testing.assert_array_equal(after[1], lam[1])


def test_topics_that_documents_tell_apart_or_that_differ_are_not_tied():
    rng = np.random.default_rng(4)
    V = 40
    base = rng.dirichlet(np.ones(V)) * 2000
    wobble = rng.uniform(0.8, 1.2, V)
    close = 0.01 + np.vstack([base * wobble / 2, base / wobble / 2])
    # the same two close topics, each document using mostly one of them: a useful split
    apart = np.zeros((40, 2))
    apart[:20, 0], apart[:20, 1] = 0.9, 0.1
    apart[20:, 0], apart[20:, 1] = 0.1, 0.9
    assert _copies_model(close)._tie_copies(_gamma(apart)) == []
    # two different topics that every document uses half and half: far apart, so kept
    far = 0.01 + np.vstack([base, np.roll(base, 20)])
    half = np.full((40, 2), 0.5)
    model = _copies_model(far)
    assert model._tie_copies(_gamma(half)) == []
    np.testing.assert_array_equal(model.lambda_, far)
    # too few documents use the close pair to judge it: the others are about a third topic
    few = np.zeros((40, 3))
    few[:5, :2] = 0.5
    few[5:, 2] = 1.0
    assert _copies_model(np.vstack([close, far[1]]))._tie_copies(_gamma(few)) == []
    few[:12, :2] = 0.5  # enough of them
    few[:12, 2] = 0.0
    assert [g.tolist() for g in _copies_model(np.vstack([close, far[1]]))._tie_copies(_gamma(few))] == [[0, 1]]


def test_tied_topics_stay_identical_under_further_steps():
    X, _ = planted_counts(n_docs=200, n_topics=4, seed=6)
    model = engine.LDA(n_topics=6, n_words=X.shape[1], seed=0, revive_topics=False)
    trainer = engine.SVI(model, X, batch_size=40, seed=0)
    trainer.run(n_steps=3)
    model._require_topics().tie_rows(np.array([1, 4]))
    trainer.run(n_steps=10)
    np.testing.assert_allclose(model.lambda_[1], model.lambda_[4], rtol=1e-12)


def test_surplus_topics_on_planted_data_end_as_tied_copies_and_predict_as_the_true_topics():
    """K = 12 for 4 planted topics: the split copies are tied into groups, one per true topic, every topic live."""
    X, truth = planted_counts(n_docs=600, n_topics=4, seed=7, doc_length=60, alpha=0.1)
    train, observed, heldout = engine.heldout_split(X, n_test=100, seed=0)
    scores = {}
    for name, tie in (("tied", True), ("untied", False)):
        model = engine.LDA(n_topics=12, n_words=X.shape[1], seed=0)
        if not tie:
            model._tie_copies = lambda doc_topic: []
        engine.SVI(model, train, batch_size=100, seed=0).run(n_docs=15 * train.shape[0])
        scores[name] = engine.predictive_log_likelihood(model, observed, heldout)
        if tie:
            distinct = np.unique(model.duplicate_of())
            topics = model.expected_topics()[distinct]
            shares = model.word_shares()
    cosine = (topics @ truth.T) / np.outer(np.linalg.norm(topics, axis=1), np.linalg.norm(truth, axis=1))
    assert len(distinct) <= 5 and shares.min() >= 0.25 / 12
    assert cosine.max(axis=0).min() >= 0.99  # every planted topic is one of the distinct topics
    assert cosine.max(axis=1).min() >= 0.95  # and every distinct topic is a planted one
    assert scores["tied"] > scores["untied"] + 0.03

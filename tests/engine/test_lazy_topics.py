"""Lazily applied SVI decay equals the eager update of every column."""

from __future__ import annotations

import numpy as np
import pytest

from engine.models._eager_topics import blend_topics
from engine.models.lazy_topics import LazyTopics


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("word_major", [False, True])  # NumPy blend; compiled blend on (words, topics) statistics
def test_lazy_blend_equals_eager_blend(dtype, word_major):
    rng = np.random.default_rng(0)
    K, V, eta = 4, 50, 0.01
    eager = rng.gamma(2.0, 1.0, size=(K, V)).astype(dtype)
    lazy = LazyTopics(eager, eta)
    for t in range(1, 40):
        rho = (t + 2.0) ** -0.7
        columns = np.sort(rng.choice(V, size=7, replace=False))
        topic_word = rng.gamma(1.0, 1.0, size=(K, 7)).astype(dtype)
        if word_major:  # the layout the compiled local step returns: a transposed (words, topics) array
            topic_word = np.ascontiguousarray(topic_word.T).T
        eager = blend_topics(eager, topic_word, columns, eta, 3.0, rho)
        lazy.blend(topic_word, columns, 3.0, rho)
        probe = rng.choice(V, size=5, replace=False)
        rtol = 1e-10 if dtype == np.float64 else 1e-4
        np.testing.assert_allclose(lazy.columns(probe), eager[:, probe], rtol=rtol)
        np.testing.assert_allclose(lazy.row_totals()[:, 0], eager.sum(axis=1), rtol=rtol)
    np.testing.assert_allclose(lazy.dense(), eager, rtol=1e-10 if dtype == np.float64 else 1e-4)


def test_rho_one_replaces_everything_and_dense_is_read_only():
    lazy = LazyTopics(np.full((2, 5), 3.0), eta=0.5)
    lazy.blend(np.array([[1.0], [2.0]]), np.array([3]), scale=2.0, rho=1.0)
    expected = np.full((2, 5), 0.5)
    expected[:, 3] += [2.0, 4.0]
    np.testing.assert_array_equal(lazy.dense(), expected)
    with pytest.raises(ValueError, match="read-only"):
        lazy.dense()[0, 0] = 1.0


def test_permuting_topics_keeps_pending_decay():
    lazy = LazyTopics(np.array([[1.0, 2.0], [3.0, 4.0]]), eta=0.0)
    lazy.blend(np.array([[0.0], [0.0]]), np.array([0]), scale=1.0, rho=0.5)
    lazy.permute_rows(np.array([1, 0]))
    np.testing.assert_allclose(lazy.dense(), [[1.5, 2.0], [0.5, 1.0]])


@pytest.mark.parametrize("workload", [None, "HDP:zero_order:{dtype}"])  # NumPy's copy; the compiled move in place
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_permuting_topics_is_exact_and_keeps_the_store_c_contiguous(dtype, workload):
    if workload is not None:
        pytest.importorskip("numba")
        workload = workload.format(dtype=np.dtype(dtype).name)
    rng = np.random.default_rng(0)
    lazy = LazyTopics(rng.gamma(1.0, 1.0, size=(6, 600)).astype(dtype), eta=0.01)
    lazy.blend(rng.gamma(1.0, 1.0, size=(6, 3)).astype(dtype), np.array([2, 9, 500]), scale=2.0, rho=0.3)
    before, totals = lazy.stored_rows(np.arange(600))[0].copy(), lazy.excess_totals()
    for order in ([3, 0, 5, 1, 4, 2], [0, 1, 2, 3, 4, 5], [0, 2, 1, 3, 5, 4], [5, 4, 3, 2, 1, 0]):
        order = np.array(order)
        lazy.permute_rows(order, workload=workload)
        after = lazy.stored_rows(np.arange(600))[0]
        assert after.flags.c_contiguous and after.dtype == dtype
        np.testing.assert_array_equal(after, np.ascontiguousarray(before[:, order]))  # bit for bit
        np.testing.assert_array_equal(lazy.excess_totals(), totals[order])
        before, totals = after.copy(), totals[order]


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_moving_columns_in_place_equals_taking_them(dtype):
    numba_kernels = pytest.importorskip("engine.kernels.compiled.lazy_topics")
    rng = np.random.default_rng(1)
    for n_words, n_topics in ((1, 2), (255, 7), (257, 150), (1000, 40)):
        store = rng.random((n_words, n_topics)).astype(dtype)
        order = np.arange(n_topics)
        picked = np.sort(rng.choice(n_topics, size=max(2, n_topics // 3), replace=False))
        order[picked] = rng.permutation(picked)
        moved = np.flatnonzero(order != np.arange(n_topics))
        expected = np.take(store, order, axis=1)
        numba_kernels.move_columns(store, order[moved], moved)
        np.testing.assert_array_equal(store, expected)

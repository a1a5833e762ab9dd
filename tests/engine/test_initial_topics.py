"""The random start of lambda (engine.models._base.initial_topics), drawn in blocks on several threads."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from engine.models._base import _TOPICS_PER_DRAW, initial_topics


@pytest.fixture
def one_thread():
    previous = numba.get_num_threads()
    numba.set_num_threads(1)
    yield
    numba.set_num_threads(previous)


@pytest.mark.parametrize("method", ["gamma", "exponential"])
def test_start_is_the_block_streams_whatever_the_threads(method, one_thread):
    """Block b of rows comes from default_rng([seed, b]), row by row, on one thread as on several."""
    K, V, D, eta = 2 * _TOPICS_PER_DRAW + 3, 50, 400, 0.05
    serial = initial_topics(K, V, D, eta, method, 7, "float64")
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    threaded = initial_topics(K, V, D, eta, method, 7, "float64")
    np.testing.assert_array_equal(serial, threaded)
    for block in range(3):
        rng = np.random.default_rng([7, block])
        for k in range(block * _TOPICS_PER_DRAW, min(K, (block + 1) * _TOPICS_PER_DRAW)):
            if method == "gamma":
                expected = rng.gamma(100.0, 1.0 / 100.0, size=V)
            else:
                expected = eta + rng.exponential(D * 100.0 / (K * V), size=V)
            np.testing.assert_allclose(serial[k], expected, rtol=1e-15)
    assert not np.array_equal(serial[0], serial[_TOPICS_PER_DRAW])  # the blocks are different streams


def test_float32_start_is_the_float64_start_rounded():
    start = initial_topics(20, 30, 100, 0.01, "gamma", 3, "float64")
    start32 = initial_topics(20, 30, 100, 0.01, "gamma", 3, "float32")
    assert start32.dtype == np.float32
    np.testing.assert_array_equal(start32, start.astype(np.float32))


def test_gamma_start_has_the_moments_of_gamma_100_over_100():
    """Mean 1 and standard deviation 1/10 (Gamma(100, 1/100)), all rows alike; different seeds differ."""
    start = initial_topics(40, 5000, 100, 0.01, "gamma", 0, "float64")
    assert abs(start.mean() - 1.0) < 1e-3
    assert abs(start.std() - 0.1) < 1e-3
    np.testing.assert_allclose(start.mean(axis=1), 1.0, atol=0.01)
    assert not np.array_equal(start, initial_topics(40, 5000, 100, 0.01, "gamma", 1, "float64"))

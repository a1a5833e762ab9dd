"""The vectorised exp, log and digamma of the compiled kernels (engine/kernels/compiled/numerics.py) against SciPy."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import psi

compiled_math = pytest.importorskip("engine.kernels.compiled.numerics")


def test_vectorised_digamma_and_exp_match_scipy_and_numpy():
    x = np.concatenate([np.logspace(-300, 8, 400), np.linspace(1e-3, 30.0, 400)])
    n = x.size
    ours = x.copy()
    compiled_math.digamma_inplace(ours, np.empty(n), np.empty(n), np.empty(n, dtype=np.int64), np.empty(n))
    np.testing.assert_allclose(ours, psi(x), rtol=1e-13, atol=1e-14)
    y = np.linspace(-700.0, 0.0, 2001)
    ours = y.copy()
    compiled_math.exp_inplace(ours, np.empty(y.size, dtype=np.int64))
    np.testing.assert_allclose(ours, np.exp(y), rtol=4e-16, atol=0)
    y = np.linspace(-87.0, 0.0, 2001, dtype=np.float32)
    ours = y.copy()
    compiled_math.exp_inplace(ours, np.empty(y.size, dtype=np.int64))
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours, np.exp(y.astype(np.float64)), rtol=2e-7, atol=0)


def test_psi_values_clamps_zero_to_the_smallest_argument():
    """A zero prior (a topic with no stick mass) gives psi(1e-300), a finite number, not -inf."""
    got = compiled_math.psi_values([0.0, 1.0, 2.5])
    np.testing.assert_allclose(got, psi(np.array([1e-300, 1.0, 2.5])), rtol=1e-13)
    assert np.all(np.isfinite(got))


def test_vectorised_log_matches_numpy_from_the_smallest_normal_to_the_largest_number():
    rng = np.random.default_rng(0)
    x = np.concatenate([[compiled_math.SMALLEST_NORMAL, 1.0, 2.0, np.sqrt(2.0), np.nextafter(np.sqrt(2.0), 3.0),
                         0.5, np.finfo(np.float64).max], np.logspace(-307, 308, 4000), rng.uniform(0.5, 2.0, 4000),
                        1.0 + rng.uniform(-1e-9, 1e-9, 100), rng.random(1000, dtype=np.float32).astype(np.float64)])
    ours = x.copy()
    compiled_math.log_inplace(ours, np.empty(x.size, dtype=np.int64))
    expected = np.log(x)
    # relative to |log x| + 1: near x = 1 log x is tiny, and both carry the rounding of x itself
    assert np.max(np.abs(ours - expected) / (np.abs(expected) + 1.0)) < 4e-16
    assert ours[1] == 0.0 and ours[2] == np.log(2.0)

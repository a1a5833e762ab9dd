"""The vectorised exp and digamma of the compiled kernels (engine/kernels/compiled/numerics.py) against SciPy."""

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

"""The step-size schedule and the Dirichlet / stick-breaking expectations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import integrate, stats

from engine import step_size
from engine.models.expectations import dirichlet_expectation, exp_dirichlet_expectation, stick_expectation


def test_step_size_is_the_paper_schedule():
    assert step_size(1, 0.9, 1.0) == pytest.approx(2.0 ** -0.9)
    assert step_size(1, 0.7, 0.0) == 1.0
    assert step_size(5, 0.0, 10.0) == 1.0
    ts = np.arange(1, 1000)
    rho = step_size(ts, 0.6, 2.0)
    assert np.all(np.diff(rho) < 0) and rho.max() <= 1.0
    np.testing.assert_allclose(rho, (ts + 2.0) ** -0.6)


def test_dirichlet_expectation_against_beta_integral():
    a, b = 2.5, 0.7
    expected = stats.beta(a, b).expect(np.log)
    assert dirichlet_expectation(np.array([a, b]))[0] == pytest.approx(expected, rel=1e-6)


def test_exp_dirichlet_expectation_is_a_row_rescaling():
    conc = np.array([[1e-6, 3.0, 0.5], [2.0, 2.0, 9.0]])
    scaled = exp_dirichlet_expectation(conc)
    assert np.all(np.isfinite(scaled)) and np.allclose(scaled.max(axis=1), 1.0)
    ratio = scaled[1] / np.exp(dirichlet_expectation(conc[1]))
    np.testing.assert_allclose(ratio, ratio[0])


def test_stick_expectation_against_monte_carlo_free_formula():
    sticks = np.array([[1.0, 2.0], [3.0, 0.5], [0.8, 0.8]])
    out = stick_expectation(sticks)
    assert out.shape == (4,)
    elog_v = [stats.beta(a, b).expect(np.log) for a, b in sticks]
    elog_1mv = [integrate.quad(lambda x, a=a, b=b: np.log1p(-x) * stats.beta(a, b).pdf(x), 0, 1)[0] for a, b in sticks]
    expected = [elog_v[0], elog_v[1] + elog_1mv[0], elog_v[2] + elog_1mv[0] + elog_1mv[1], sum(elog_1mv)]
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_stick_weights_sum_to_one_in_expectation_of_log_space():
    # exp(E[log sigma]) <= E[sigma] and the expected sigma sum to 1 for any truncation
    sticks = np.array([[1.0, 1.0]] * 5)
    assert np.exp(stick_expectation(sticks)).sum() < 1.0

"""The corpus sticks of the HDP in count form: every update keeps a_k = 1 + N_k, b_k = omega + sum_{l>k} N_l."""

from __future__ import annotations

import numpy as np


def stick_counts(sticks: np.ndarray, omega: float) -> np.ndarray:
    """N_k, length K, of the sticks (a_k, b_k), shape (K - 1, 2)."""
    return np.concatenate((sticks[:, 0] - 1.0, sticks[-1:, 1] - omega))


def sticks_from_counts(counts: np.ndarray, omega: float) -> np.ndarray:
    """(a_k, b_k) = (1 + N_k, omega + sum_{l>k} N_l) for k < K, shape (K - 1, 2)."""
    later = np.cumsum(counts[::-1])[::-1]
    return np.stack((1.0 + counts[:-1], omega + later[1:]), axis=1)

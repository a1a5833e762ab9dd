"""The Robbins-Monro step-size schedule of stochastic variational inference."""

from __future__ import annotations

import numpy as np

__all__ = ["DEFAULT_BATCH_SIZE", "DEFAULT_KAPPA", "DEFAULT_TAU", "step_size"]

# The schedule every entry point starts from (engine.SVI, the CLI, the app): the paper's
# kappa and tau, which also measured best with the default LDA on the panel of
# collections in benchmarks/RESULTS.md ("Topic quality"); the app's former 0.7 / 64
# left many topics dead there.
DEFAULT_KAPPA = 0.9
DEFAULT_TAU = 1.0
DEFAULT_BATCH_SIZE = 256


def step_size(t: int | np.ndarray, kappa: float, tau: float) -> float | np.ndarray:
    """Step size rho_t = (t + tau) ** -kappa for the t-th update, t = 1, 2, ...

    Hoffman, Blei, Wang & Paisley (2013), eq. for rho_t: with kappa in (0.5, 1]
    and tau >= 0 the steps satisfy sum rho_t = inf and sum rho_t**2 < inf, so the
    stochastic natural-gradient ascent converges.  Counting t from 1 keeps
    rho_t <= 1 for every tau >= 0; kappa = 0 gives rho_t = 1 (batch VI when the
    minibatch is the whole corpus).

    Parameters
    ----------
    t : int or ndarray of int
        Update number, starting at 1.
    kappa : float
        Forgetting rate in [0, 1].
    tau : float
        Delay, >= 0; it down-weights the first updates.
    """
    return (np.asarray(t, dtype=float) + tau) ** -kappa if np.ndim(t) else float((t + tau) ** -kappa)

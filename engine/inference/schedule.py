"""The Robbins-Monro step-size schedule of stochastic variational inference."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

__all__ = [
    "DEFAULT_ADAPTIVE_INIT_BATCHES", "DEFAULT_BATCH_SIZE", "DEFAULT_KAPPA", "DEFAULT_TAU", "MAX_ADAPTIVE_INIT_BATCHES",
    "STEP_SIZES",
    "AdaptiveStepSize", "step_size",
]

# The schedule every entry point starts from (engine.SVI, the CLI, the app): the paper's
# kappa and tau, which also measured best with the default LDA on the panel of
# collections in benchmarks/RESULTS.md ("Topic quality"); the app's former 0.7 / 64
# left many topics dead there.
DEFAULT_KAPPA = 0.9
DEFAULT_TAU = 1.0
DEFAULT_BATCH_SIZE = 256
# how rho is chosen: the kappa/tau schedule below, or the adaptive rule of AdaptiveStepSize.
# The schedule stays the default: at K = 50 the adaptive rule lost held-out likelihood on more of
# the panel and check collections than it gained on (benchmarks/RESULTS.md, runs 13 and 50).
STEP_SIZES = ("schedule", "adaptive")
DEFAULT_ADAPTIVE_INIT_BATCHES = 5  # minibatches that start the adaptive rule's averages (the paper's few samples)
# at most this many: each is a local step of a minibatch, and a trainer state read from a file names the number
MAX_ADAPTIVE_INIT_BATCHES = 100


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


@dataclass(frozen=True)
class AdaptiveStepSize:
    """The adaptive step size of Ranganath, Wang, Blei & Xing (ICML 2013), as an immutable state.

    With the noisy natural gradient g_t = lambda_hat_t - lambda_t of an update (lambda_hat
    the intermediate global parameters of its minibatch), the rule keeps moving averages
    with window tau_t,

        g_bar <- (1 - 1/tau_t) g_bar + g_t / tau_t,
        h_bar <- (1 - 1/tau_t) h_bar + g_t . g_t / tau_t,

    takes rho_t = g_bar . g_bar / h_bar (the step that minimises the expected distance to
    the batch optimum, estimated from the averages) and sets tau_{t+1} = tau_t (1 - rho_t) + 1:
    a large step forgets the averages, a small one lengthens their memory.  By Jensen's
    inequality g_bar . g_bar <= h_bar, so rho_t is in (0, 1].

    Attributes
    ----------
    g_bar : ndarray of shape (n_topics, n_words)
        Moving average of the noisy natural gradient (float64).
    h_bar : float
        Moving average of its squared norm.
    window : float
        The paper's tau_t, the averages' memory in updates (>= 1).
    """

    g_bar: np.ndarray
    h_bar: float
    window: float

    @classmethod
    def start(cls, gradients: Iterable[np.ndarray]) -> AdaptiveStepSize:
        """The paper's start: averages of a few gradients at the initial parameters, tau_1 = their number.

        ``gradients`` may be a generator: they are summed as they come, so one sum and
        one gradient are held at a time, not all of them (each is n_topics x n_words).
        """
        g_sum, norms = None, []
        for gradient in gradients:
            gradient = np.asarray(gradient, dtype=np.float64)
            g_sum = gradient.copy() if g_sum is None else np.add(g_sum, gradient, out=g_sum)
            norms.append(_squared_norm(gradient))
        if g_sum is None:
            raise ValueError("the adaptive step size starts from at least one gradient, got none")
        return cls(g_bar=g_sum / len(norms), h_bar=float(np.mean(norms)), window=float(len(norms)))

    def update(self, gradient: np.ndarray) -> tuple[float, AdaptiveStepSize]:
        """Fold in the gradient of this update; returns (rho_t, the state for the next update)."""
        weight = 1.0 / self.window
        g_bar = (1.0 - weight) * self.g_bar + weight * np.asarray(gradient, dtype=np.float64)
        h_bar = (1.0 - weight) * self.h_bar + weight * _squared_norm(gradient)
        rho = self.ratio(g_bar, h_bar)
        return rho, AdaptiveStepSize(g_bar=g_bar, h_bar=h_bar, window=self.window * (1.0 - rho) + 1.0)

    @staticmethod
    def ratio(g_bar: np.ndarray, h_bar: float) -> float:
        """rho = g_bar . g_bar / h_bar, kept in (0, 1]."""
        if h_bar <= 0.0:  # every gradient so far was zero: the parameters are at their optimum, any rho is the same
            return 1.0
        # rounding can push the ratio a hair above 1; exactly zero only if g_bar is, which would stop training
        return float(min(1.0, max(_squared_norm(g_bar) / h_bar, np.finfo(np.float64).tiny)))


def _squared_norm(array: np.ndarray) -> float:
    flat = np.asarray(array, dtype=np.float64).ravel()
    return float(np.dot(flat, flat))

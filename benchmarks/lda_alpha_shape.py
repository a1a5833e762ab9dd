"""Probe (issue 13, run 24): LDA with a learned asymmetric alpha of fixed total, at K beyond 100.

The direct-assignment HDP gives each document theta_d ~ Dirichlet(a0 beta) over all K topics,
beta the corpus-level weights.  Without beta's stick-breaking prior that is LDA whose alpha
keeps its total a0 and learns only its shape m = alpha / a0: maximising the Dirichlet bound
D [log Gamma(a0) - sum_k log Gamma(a0 m_k)] + sum_k (a0 m_k - 1) sum_d E[log theta_dk] over
the simplex gives psi(a0 m_k) = S_k + c (S the minibatch's mean E[log theta_d]), c such that
sum_k m_k = 1 (Minka's fixed point for the mean at a fixed precision).  The target is
blended in with rho_t like the engine's learned alpha (``learn_alpha=True``, whose total
runs away upwards under the zero-order step, run 18).  One JSON line per run::

    cd benchmarks
    NUMBA_NUM_THREADS=1 python lda_alpha_shape.py --out /tmp/shape.jsonl --configs \\
        '{"lda100": {"K": 100}, "shape150": {"K": 150, "a0": 15, "revive_topics": false}}'
"""

from __future__ import annotations

import time

import _probe
import numpy as np
import quality
from scipy.special import polygamma, psi

import engine
from engine.models.expectations import dirichlet_expectation


def inverse_digamma(y: np.ndarray, iterations: int = 6) -> np.ndarray:
    """x with psi(x) = y (Minka's starting point, then Newton steps)."""
    y = np.asarray(y, dtype=np.float64)
    x = np.where(y >= -2.22, np.exp(y) + 0.5, -1.0 / (y - psi(1.0)))
    for _ in range(iterations):
        x = x - (psi(x) - y) / polygamma(1, x)
    return x


def shape_with_total(mean_log: np.ndarray, total: float) -> np.ndarray:
    """alpha = total * m maximising the bound for the mean E[log theta] ``mean_log`` (bisection on c)."""
    low, high = -50.0, 50.0
    for _ in range(100):
        middle = 0.5 * (low + high)
        low, high = (low, middle) if inverse_digamma(mean_log + middle).sum() > total else (middle, high)
    x = inverse_digamma(mean_log + 0.5 * (low + high))
    return total * x / x.sum()


class ShapeLDA(engine.LDA):
    """engine.LDA whose learned alpha keeps its total (``learn_alpha=True`` with an array alpha)."""

    def _alpha_step(self, doc_topic: np.ndarray, rho: float) -> np.ndarray:
        mean_log = dirichlet_expectation(doc_topic.astype(np.float64)).mean(axis=0)
        return (1.0 - rho) * self.alpha + rho * shape_with_total(mean_log, float(np.sum(self.alpha)))


def train(collection, seed: int, epochs: int, config: dict) -> dict:
    config = dict(config)
    K, a0 = config.pop("K"), config.pop("a0", None)
    D, V = collection.train.shape
    started = time.perf_counter()
    if a0 is None:
        model = engine.LDA(n_topics=K, n_words=V, seed=seed, **config)
    else:
        model = ShapeLDA(n_topics=K, n_words=V, seed=seed, alpha=np.full(K, a0 / K), learn_alpha=True, **config)
    engine.SVI(model, corpus=collection.train, seed=seed).run(n_docs=epochs * D)
    seconds = time.perf_counter() - started
    record = quality.score(quality.engine_evaluator(model), "lda", collection)
    alpha = np.sort(np.atleast_1d(np.asarray(model.alpha, dtype=np.float64)))[::-1]
    return {"K": K, "ll": record["heldout_loglik"], "npmi": record["npmi"], "live": record["live_topics"],
            "alpha_max": float(alpha[0]), "alpha_min": float(alpha[-1]), "seconds": seconds}


if __name__ == "__main__":
    _probe.main(__doc__.splitlines()[0], train, "{K, a0 (omit: plain engine.LDA), other engine.LDA options}")

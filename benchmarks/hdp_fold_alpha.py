"""Probe (issue 13, run 28): the HDP's fold-in concentration, fixed and by empirical Bayes.

Since run 25 the HDP folds new documents in under theta_d ~ Dirichlet(a E[sigma(V)]) with
a = alpha, the document concentration the model was trained with (default 1).  Run 19
found that with LDA's topics inside the HDP's evaluator a larger concentration gained up to
0.07 nats/word on short documents.  This probe trains the default HDP once per collection
and seed and scores the same trained model with the fold-in's a set to multiples of alpha,
and with a chosen by empirical Bayes on (up to 2,000 of) the *training* documents, never on
the held-out ones:

* ``eb-bound``: a maximises the fold-in's bound in a, with gamma_d refitted at each a (EM);
  the terms in a are sum_d [log Gamma(a) - sum_k log Gamma(a w_k) + sum_k (a w_k - 1)
  E[log theta_dk]], w = E[sigma(V)], solved by Newton's method in log a.
* ``eb-polya``: Minka's fixed point for the concentration of a Dirichlet-multinomial of
  known mean w, fed with the expected counts n_dk = gamma_dk - a w_k (as MALLET's
  hyperparameter optimisation feeds it sampled counts):
  a <- a sum_dk w_k [psi(n_dk + a w_k) - psi(a w_k)] / sum_d [psi(n_d + a) - psi(a)].

One JSON line per run::

    cd benchmarks
    NUMBA_NUM_THREADS=1 python hdp_fold_alpha.py --seeds 0 1 2 3 4 --out /tmp/fold.jsonl \\
        --configs '{"sweep": {"multiples": [0.5, 1, 2, 4, 8]}}'
"""

from __future__ import annotations

import time

import _probe
import numpy as np
import quality
from _quality_config import HDP_DOC_TRUNCATION, HDP_TRUNCATION
from scipy.special import gammaln, polygamma, psi

import engine

EB_DOCS = 2000
EB_ROUNDS = 8


def _fit(model: engine.HDP, counts, a: float) -> np.ndarray:
    """gamma_d of the documents under Dirichlet(a E[sigma(V)]), the fold-in's own local fit."""
    fitted = model.copy()
    fitted.alpha = a
    return fitted._dirichlet_gamma(counts)


def _bound_in_a(w: np.ndarray, elog_sum: np.ndarray, D: int, a: float) -> float:
    return float(D * (gammaln(a) - gammaln(a * w).sum()) + (a * w - 1.0) @ elog_sum)


def eb_bound(model: engine.HDP, counts, a: float = 1.0) -> float:
    w = model.topic_weights()
    D = counts.shape[0]
    for _ in range(EB_ROUNDS):
        gamma = _fit(model, counts, a)
        elog = psi(gamma) - psi(gamma.sum(axis=1, keepdims=True))
        elog_sum = elog.sum(axis=0)
        x = np.log(a)
        for _ in range(50):  # Newton in x = log a
            a_ = np.exp(x)
            g = D * (psi(a_) - w @ psi(a_ * w)) + w @ elog_sum
            h = D * (polygamma(1, a_) - (w * w) @ polygamma(1, a_ * w))
            grad, hess = a_ * g, a_ * g + a_ * a_ * h
            step = -grad / hess if hess < 0 else np.sign(grad) * 0.5
            step = float(np.clip(step, -1.0, 1.0))
            x += step
            if abs(step) < 1e-6:
                break
        a = float(np.exp(np.clip(x, np.log(1e-3), np.log(1e3))))
    return a


def eb_polya(model: engine.HDP, counts, a: float = 1.0) -> float:
    w = model.topic_weights()
    for _ in range(EB_ROUNDS):
        gamma = _fit(model, counts, a)
        n = np.maximum(gamma - a * w, 0.0)
        for _ in range(100):
            top = float((w * (psi(n + a * w) - psi(a * w))).sum())
            bottom = float((psi(n.sum(axis=1) + a) - psi(a)).sum())
            new = float(np.clip(a * top / bottom, 1e-3, 1e3))
            done = abs(new - a) < 1e-6 * a
            a = new
            if done:
                break
    return a


def _score(model: engine.HDP, collection, a: float) -> float:
    evaluator = quality.engine_evaluator(model)
    evaluator.alpha = a
    return float(engine.predictive_log_likelihood(evaluator, collection.observed, collection.heldout))


def train(collection, seed: int, epochs: int, config: dict) -> dict:
    D, V = collection.train.shape
    started = time.perf_counter()
    model = engine.HDP(n_topics=HDP_TRUNCATION, doc_truncation=HDP_DOC_TRUNCATION, n_words=V, seed=seed)
    engine.SVI(model, corpus=collection.train, seed=seed).run(n_docs=epochs * D)
    seconds = time.perf_counter() - started
    record = {"seconds": seconds, "in_use": model.topics_in_use(quality.IN_USE_WEIGHT)}
    for m in config.get("multiples", [1]):
        record[f"ll_x{m}"] = _score(model, collection, m * model.alpha)
    rows = np.random.default_rng(seed).permutation(D)[:EB_DOCS]
    sample = collection.train[np.sort(rows)]
    for name, method in (("eb_bound", eb_bound), ("eb_polya", eb_polya)):
        a = method(model, sample, model.alpha)
        record[f"{name}_a"] = a
        record[f"ll_{name}"] = _score(model, collection, a)
    return record


if __name__ == "__main__":
    _probe.main(__doc__.splitlines()[0], train, "{multiples}")

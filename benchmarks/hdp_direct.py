"""Probe (issue 13, run 27): the HDP trained with the document prior its fold-in uses (direct assignment).

Since run 25 the HDP folds new documents in under theta_d ~ Dirichlet(alpha E[sigma(V)]), the
document DP's exact marginal on the K topics.  This probe trains with the same prior: each
minibatch document is fitted by LDA's local step under that prior (the engine's zero-order
update), lambda takes the usual SVI step from its word statistics, and the corpus sticks take
theirs from the expected number of tables each topic gets in each document under the Chinese
restaurant process with n_dk of its words, E[m_dk] = a_k (psi(a_k + n_dk) - psi(a_k)) with
a_k = alpha E[sigma_k(V)] (Antoniak; the direct-assignment HDP of Teh et al. 2006 samples
m_dk where this takes its mean): N_k <- (1 - rho) N_k + rho (D / S) sum_d E[m_dk], then
a_k = 1 + N_k, b_k = omega + sum_{l > k} N_l after sorting the topics by N_k.  Everything else
(the random start, the uniform starting sticks, S, kappa, tau, the epochs) is the default
HDP's; the model is scored by ``quality.py``'s evaluator.  One JSON line per run::

    cd benchmarks
    NUMBA_NUM_THREADS=1 python hdp_direct.py --seeds 0 1 2 3 4 --out /tmp/direct.jsonl --configs \\
        '{"base": {"direct": false}, "direct": {}}'

Configurations: ``direct`` (default true; false trains the default HDP by ``engine.SVI``),
``alpha`` (the document concentration, default 1), ``tol`` (the local fit's, default 1e-3).
"""

from __future__ import annotations

import time

import _probe
import numpy as np
import quality
from _quality_config import HDP_DOC_TRUNCATION, HDP_TRUNCATION
from scipy.special import psi

import engine
from engine.inference.schedule import step_size
from engine.models.hdp import _sticks_from_counts
from engine.models.lda import LDALocalJob, restrict_columns


def train_direct(model: engine.HDP, train, seed: int, epochs: int, config: dict) -> None:
    D = train.shape[0]
    S = min(engine.DEFAULT_BATCH_SIZE, D)
    svi = engine.SVI(model, corpus=train, seed=seed)  # the default schedule, read off the trainer
    kappa, tau = svi.kappa, svi.tau
    model.initialize(D)
    topics = model._require_topics()
    K = model.n_topics
    counts = np.full(K, D * np.log1p(200.0) / K)  # about log(1 + n) tables a document, spread evenly
    model.sticks_ = _sticks_from_counts(counts, model.omega)
    rng = np.random.default_rng([seed, 91])
    t = 0
    for _ in range(epochs):
        order = rng.permutation(D)
        for start in range(0, D, S):
            batch = train[np.sort(order[start:start + S])]
            rho = step_size(t + 1, kappa, tau)  # the t-th update, t = 1, 2, ... as engine.SVI counts
            prior = model.alpha * model.topic_weights()
            restricted, columns = restrict_columns(batch)
            job = LDALocalJob(topics, columns, columns, prior, config.get("tol", 1e-3), model.local_max_iter,
                              True, model.kernel, None)
            stats = job.run(restricted)
            scale = D / batch.shape[0]
            topics.blend(stats.topic_word, stats.columns, scale, rho)
            used = np.asarray(stats.doc_topic, dtype=np.float64) - prior  # n_dk
            tables = prior * (psi(prior + np.maximum(used, 0.0)) - psi(prior))
            counts = (1.0 - rho) * counts + rho * scale * tables.sum(axis=0)
            ranked = np.argsort(-counts, kind="stable")
            topics.permute_rows(ranked)
            counts = counts[ranked]
            model.sticks_ = _sticks_from_counts(counts, model.omega)
            t += 1


def train(collection, seed: int, epochs: int, config: dict) -> dict:
    D, V = collection.train.shape
    started = time.perf_counter()
    model = engine.HDP(n_topics=HDP_TRUNCATION, doc_truncation=HDP_DOC_TRUNCATION, n_words=V, seed=seed,
                       alpha=config.get("alpha", 1.0))
    if config.get("direct", True):
        train_direct(model, collection.train, seed, epochs, config)
    else:
        engine.SVI(model, corpus=collection.train, seed=seed).run(n_docs=epochs * D)
    seconds = time.perf_counter() - started
    record = quality.score(quality.engine_evaluator(model), "hdp", collection)
    return {"ll": record["heldout_loglik"], "npmi": record["npmi"], "in_use": record["topics_in_use"],
            "general": record["general_topics"], "seconds": seconds}


if __name__ == "__main__":
    _probe.main(__doc__.splitlines()[0], train, "{direct, alpha, tol}")

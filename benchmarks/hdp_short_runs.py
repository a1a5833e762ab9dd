"""Probe (issue 13, run 32): the HDP's birth pairs still pending when a short run ends, judged then.

The default HDP (``engine.HDP(n_topics=150, doc_truncation=20)``, births on) is trained by
``engine.SVI`` at its defaults for ``--epochs`` epochs.  A pair born after epoch e is judged
before the step that follows epoch e + 4, so a run of fewer than 8 epochs ends with pairs
not yet judged; ``engine.TrainingRun`` (the app, the CLI) now judges them when it ends, by
``model.judge_births()``.  This probe scores the model as training left it and after that
call, both with ``quality.py``'s evaluator, and counts the topics in use that a reader sees
twice (``copies``: 10 top words sharing 7 or more with those of a heavier topic in use).
The configurations take no options (``'{"end": {}}'``).  One JSON line per run::

    cd benchmarks
    for e in 3 5 7; do
        NUMBA_NUM_THREADS=1 python hdp_short_runs.py --corpora ap foldoc sotu jargon bible synthetic fortunes \\
            --seeds 0 1 2 3 4 --epochs $e --configs '{"end": {}}' --out /tmp/short.jsonl
    done
"""

from __future__ import annotations

import _probe
import numpy as np
import quality
from _quality_config import HDP_DOC_TRUNCATION, HDP_TRUNCATION

import engine


def copies(evaluator) -> int:
    """Topics in use whose 10 top words share 7 or more with those of a heavier topic in use."""
    weights = np.asarray(evaluator.topic_weights())
    in_use = np.flatnonzero(weights >= 0.01)
    in_use = in_use[np.argsort(-weights[in_use], kind="stable")]
    return _probe.repeated_topics(np.asarray(evaluator.top_words(quality.N_TOP))[in_use].tolist())


def train(collection, seed: int, epochs: int, config: dict) -> dict:
    if config:
        raise SystemExit(f"hdp_short_runs.py configurations take no options, got {sorted(config)}")
    D, V = collection.train.shape
    model = engine.HDP(n_topics=HDP_TRUNCATION, doc_truncation=HDP_DOC_TRUNCATION, n_words=V, seed=seed)
    engine.SVI(model, corpus=collection.train, seed=seed).run(n_docs=epochs * D)
    pending = len(model.training_clock()["pairs"])
    before = quality.engine_evaluator(model)
    ll_before = quality.score(before, "hdp", collection)["heldout_loglik"]
    merged = model.judge_births()
    after = quality.engine_evaluator(model)
    ll_after = quality.score(after, "hdp", collection)["heldout_loglik"] if merged else ll_before
    return {"epochs": epochs, "pending": pending, "merged": len(merged), "ll_before": ll_before, "ll": ll_after,
            "change": ll_after - ll_before, "copies_before": copies(before), "copies": copies(after),
            "in_use": int(np.sum(np.asarray(after.topic_weights()) >= 0.01))}


if __name__ == "__main__":
    _probe.main(__doc__.splitlines()[0], train, "{} (no options)")

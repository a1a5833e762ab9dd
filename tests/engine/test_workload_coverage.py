"""A workload's warm-up step runs every compiled kernel signature that a real run of its models does.

:func:`engine.kernels.cache.cache_first` loads a workload's kernels once per process, by
a tiny step of :meth:`Workload.tiny_model`; a kernel signature a real model of that
workload meets later, but the tiny step never did, is compiled in-process unseen, and
that process's numbers then differ in the last bits from every later process's (run 35).
So for each model setting that picks other compiled code, a fresh process runs the warm-up
step of the model's workload, notes every signature numba holds, trains, folds in, scores
and runs a full batch step, and finds nothing new.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

pytest.importorskip("numba")

_PROBE = """
import importlib, json, pkgutil, sys
import numpy as np
import scipy.sparse as sp
from numba.core.registry import CPUDispatcher
import engine
import engine.kernels.compiled as compiled
from engine.inference.warmup import Workload, _step

def signatures():
    seen = set()
    for info in pkgutil.iter_modules(compiled.__path__):
        module = importlib.import_module(f"{compiled.__name__}.{info.name}")
        for name, value in vars(module).items():
            if isinstance(value, CPUDispatcher):
                seen.update((value.py_func.__qualname__, str(signature)) for signature in value.signatures)
    return seen

settings = json.loads(sys.argv[1])
kind = settings.pop("model")
corpus = engine.make_synthetic_corpus(n_docs=160, n_topics=4, seed=1).counts
split = engine.heldout_split(corpus, n_test=40, seed=0)
n_words = corpus.shape[1]
make = (lambda: engine.HDP(n_topics=12, doc_truncation=4, n_words=n_words, seed=0, **settings)) if kind == "HDP" \\
    else (lambda: engine.LDA(n_topics=4, n_words=n_words, seed=0, **settings))
workload = Workload.of(make())
_step(workload)
before = signatures()
model = make()
engine.SVI(model, split.train, batch_size=40, seed=0).run(n_steps=8)
model.transform(split.train[:20].astype(np.int32))
model.transform(sp.csr_matrix(split.train[:20], dtype=np.float32).toarray())
engine.predictive_log_likelihood(model, split.observed, split.heldout)
batch_model = make()
engine.BatchVI(batch_model, split.train).step()
print(json.dumps({"workload": str(workload), "before": len(before),
                  "new": sorted(f"{name} {signature}" for name, signature in signatures() - before)}))
"""

_SETTINGS = [
    {"model": "LDA"},
    {"model": "LDA", "preset": "paper"},
    {"model": "LDA", "local_acceleration": "squarem"},
    {"model": "LDA", "dtype": "float32", "learn_alpha": True, "learn_eta": True},
    {"model": "LDA", "local_update": "mean_field", "dtype": "float32"},
    {"model": "HDP"},
    {"model": "HDP", "preset": "paper"},
    {"model": "HDP", "dtype": "float64", "local_init": "paper", "warmup_iter": 2, "learn_alpha": True},
    {"model": "HDP", "births": 0, "fold_in": "sticks"},
]


@pytest.mark.parametrize("settings", _SETTINGS, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
def test_the_warm_up_step_of_a_models_workload_covers_its_real_runs(settings):
    done = subprocess.run([sys.executable, "-c", _PROBE, json.dumps(settings)], capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout.strip().splitlines()[-1])
    assert report["before"] > 0, report  # the warm-up step did load the workload's kernels
    assert report["new"] == [], f"{report['workload']}: compiled code its warm-up step never ran: {report['new']}"


@pytest.mark.parametrize("settings", _SETTINGS, ids=lambda s: "-".join(f"{k}={v}" for k, v in s.items()))
def test_a_models_steps_load_the_workload_it_names(settings, monkeypatch):
    """The name a local step hands to cache_first is the model's workload, so the warm-up above is the one loaded."""
    import engine
    import engine.kernels.cache as cache
    from engine.inference.warmup import Workload

    settings = dict(settings)
    kind = settings.pop("model")
    corpus = engine.make_synthetic_corpus(n_docs=60, n_topics=3, seed=2).counts
    n_words = corpus.shape[1]
    model = (engine.HDP(n_topics=8, doc_truncation=3, n_words=n_words, seed=0, **settings) if kind == "HDP"
             else engine.LDA(n_topics=3, n_words=n_words, seed=0, **settings))
    named = []
    real = cache.cache_first
    monkeypatch.setattr(cache, "cache_first", lambda workloads, call: named.append(workloads) or real(workloads, call))
    engine.SVI(model, corpus, batch_size=30, seed=0).run(n_steps=2)
    model.transform(corpus[:5])
    expected = (str(Workload.of(model)),)
    assert named and all(names == expected for names in named), (expected, named)

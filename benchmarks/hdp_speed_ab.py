"""A/B of the HDP's documents per second on AP under its old and new defaults (one thread).

Steps after the first (the first minibatch is fitted to initial_local_tol against the random
start, the same in every configuration), kappa 0.7, tau 64 as in compare_hdp.py, 2 epochs,
seed 0, each configuration twice in turn.  Needs ../shared/corpora/ap.

    NUMBA_NUM_THREADS=1 python benchmarks/hdp_speed_ab.py
"""

from __future__ import annotations

import time
from pathlib import Path

import numba
import scipy.sparse as sp

import engine

train = sp.load_npz(Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "ap" / "train.npz").tocsr()
numba.set_num_threads(1)
configs = {
    "new defaults (zero_order, uniform sticks, local_tol 0.1)": {},
    "mean field, uniform sticks, local_tol 0.1": {"local_update": "mean_field"},
    "zero_order, uniform sticks, local_tol 1e-2": {"local_tol": 1e-2},
    "old defaults (mean field, prior sticks, local_tol 1e-2)": {"local_update": "mean_field", "stick_init": "prior",
                                                               "local_tol": 1e-2},
}
for repeat in range(2):
    for name, options in configs.items():
        model = engine.HDP(n_topics=150, doc_truncation=20, n_words=train.shape[1], seed=0, **options)
        trainer = engine.SVI(model, corpus=train, seed=0, kappa=0.7, tau=64)
        trainer.step()
        started = time.perf_counter()
        trainer.run(n_docs=2 * train.shape[0])
        print(f"{repeat} {name}: {2 * train.shape[0] / (time.perf_counter() - started):.0f} docs/s", flush=True)

"""The default HDP's documents per second on AP, one thread, one run per process (for paired A/Bs).

The default configuration of ``hdp_speed_ab.py`` (K 150, T 20, kappa 0.7, tau 64, seed 0, two
epochs after the first step).  Run it alternately on two checkouts, e.g. the old one from
``git worktree add /tmp/hdp_old HEAD``:

    for r in 1 2 3 4 5; do
        NUMBA_NUM_THREADS=1 PYTHONPATH=/tmp/hdp_old python benchmarks/hdp_step_speed.py
        NUMBA_NUM_THREADS=1 python benchmarks/hdp_step_speed.py
    done

``--dtype float64`` (or float32) sets the precision; unset, the HDP's default (float32 since run 20).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numba
import scipy.sparse as sp

import engine

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--dtype", choices=("float64", "float32"), default=None, help="precision (default: the HDP's)")
args = parser.parse_args()
options = {} if args.dtype is None else {"dtype": args.dtype}
train = sp.load_npz(Path(__file__).resolve().parents[1].parent / "shared" / "corpora" / "ap" / "train.npz").tocsr()
numba.set_num_threads(1)
model = engine.HDP(n_topics=150, doc_truncation=20, n_words=train.shape[1], seed=0, **options)
trainer = engine.SVI(model, corpus=train, seed=0, kappa=0.7, tau=64)
trainer.step()
started = time.perf_counter()
trainer.run(n_docs=2 * train.shape[0])
print(f"{2 * train.shape[0] / (time.perf_counter() - started):.0f} docs/s", flush=True)

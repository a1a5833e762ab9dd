"""Milliseconds of one HDP birth round (``HDP.prepare_step``): the whole round, its sample's fold-in, the rest.

The default HDP (K 150, T 20) is trained by SVI at kappa 0.7, tau 64 (the speed line's
schedule) until the round is due, one thread; then the round runs ``--repeats`` times, each
on a fresh copy of that model, and so does the fold-in of its 2,000-document sample alone.
Run it in two checkouts in turn to compare them (run 41), e.g. the old one from
``git worktree add /tmp/births_old HEAD``:

    for r in 1 2; do
        NUMBA_NUM_THREADS=1 PYTHONPATH=/tmp/births_old python benchmarks/hdp_birth_speed.py
        NUMBA_NUM_THREADS=1 python benchmarks/hdp_birth_speed.py
    done
"""

from __future__ import annotations

import argparse
import copy
import subprocess
import sys
import time
from pathlib import Path

import numba
import numpy as np
import scipy.sparse as sp

import engine
from engine.models._base import EPOCH_SLACK  # the model's own test of whether a round is due
from engine.models._hdp_births import BIRTH_SAMPLE, SAMPLE_TOL
from engine.validation import as_counts

parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
parser.add_argument("--corpus", type=Path, default=Path(__file__).resolve().parents[2] / "shared" / "corpora" / "ap",
                    help="folder holding train.npz (default: ../shared/corpora/ap beside the project)")
parser.add_argument("--round", type=int, default=1, choices=(1, 2, 3), help="which birth round (after that epoch)")
parser.add_argument("--repeats", type=int, default=8, help="timed repeats of each (default 8)")
parser.add_argument("--seed", type=int, default=0)
args = parser.parse_args()
path = args.corpus / "train.npz"
if not path.is_file():
    sys.exit(f"{path} is missing: point --corpus at a folder holding train.npz")
train = sp.load_npz(path).tocsr()
numba.set_num_threads(1)
engine.warm_up_kernels()
model = engine.HDP(n_topics=150, doc_truncation=20, n_words=train.shape[1], seed=args.seed)
trainer = engine.SVI(model, corpus=train, seed=args.seed, kappa=0.7, tau=64)
while model.training_clock()["epochs_seen"] < args.round - EPOCH_SLACK:
    trainer.step()
assert model.training_clock()["birth_rounds"] == args.round - 1, "the round is due before the next step"
draw = trainer._draw_documents  # the documents the next step's round will draw


def timed(call) -> list[float]:
    seconds = []
    for _ in range(args.repeats):
        started = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - started)
    return seconds


rounds = []  # each on a fresh copy, made before the clock starts
for _ in range(args.repeats):
    fresh = copy.deepcopy(model)
    started = time.perf_counter()
    fresh.prepare_step(draw)
    rounds.append(time.perf_counter() - started)
sample = as_counts(draw(BIRTH_SAMPLE), model.n_words, name="documents")
fold_in = timed(lambda: model._dirichlet_gamma(sample, tol=min(model.current_local_tol, SAMPLE_TOL)))
rest = np.subtract(rounds, np.median(fold_in))
try:
    commit = subprocess.run(["git", "-C", str(Path(engine.__file__).parent), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True, check=True).stdout.strip()
except (OSError, subprocess.CalledProcessError):
    commit = "unknown"
print(f"engine {commit} ({Path(engine.__file__).parent}); {args.corpus.name}, D = {train.shape[0]}, "
      f"round {args.round}, seed {args.seed}, {len(fresh.training_clock()['pairs'])} pairs pending after it")
print("| part | best ms | median ms |\n|---|---|---|")
for name, values in (("the round (prepare_step)", rounds), ("its sample's fold-in", fold_in),
                     ("the rest (round - median fold-in)", rest)):
    print(f"| {name} | {1e3 * min(values):.1f} | {1e3 * float(np.median(values)):.1f} |")

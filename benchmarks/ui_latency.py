#!/usr/bin/env python
"""How responsive a Python thread stays while a TrainingRun trains LDA on both cores.

The explorer serves its pages from Python threads of the same process that
trains, so what matters is how long such a thread waits for the GIL and for
a core.  This script measures, in one process and one run:

* idle: no training;
* training: an ``engine.TrainingRun`` of LDA (K topics, S documents per
  minibatch, the compiled kernel on every core) in its background thread,

and for each, a "UI" thread that repeatedly (a) sleeps 20 ms and records how
late it wakes up, and (b) does a fixed piece of pure-Python work the size of
a small page rerun (building and serialising a few thousand dicts) and
records how long it takes.  It prints the median and 99th percentile of both
and the training's own speed with and without the UI thread busy.

    python benchmarks/ui_latency.py                       # AP, K = 100, S = 256, 15 s each
    python benchmarks/ui_latency.py --seconds 30 --topics 50
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

HERE = Path(__file__).resolve().parent
try:
    import engine
except ImportError:  # running from a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "ap"


def page_work() -> None:
    """Pure-Python work comparable to one small Streamlit rerun (pure GIL-bound code)."""
    rows = [{"topic": k, "word": f"w{k * 7 % 101}", "weight": k / 3.0} for k in range(3000)]
    json.dumps(rows)


def probe(seconds: float) -> dict[str, np.ndarray]:
    """Sleep-wake lateness and page-work durations (ms) over ``seconds``."""
    late, work = [], []
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        t0 = time.perf_counter()
        time.sleep(0.020)
        late.append((time.perf_counter() - t0 - 0.020) * 1e3)
        t0 = time.perf_counter()
        page_work()
        work.append((time.perf_counter() - t0) * 1e3)
    return {"wake-up lateness": np.array(late), "page work": np.array(work)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="folder holding train.npz (CSR counts)")
    parser.add_argument("--topics", type=int, default=100)
    parser.add_argument("--batch-size", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=15.0, help="length of each measurement")
    args = parser.parse_args()
    if not (args.corpus / "train.npz").is_file():
        sys.exit(f"{args.corpus / 'train.npz'} not found: pass --corpus DIR with a scipy.sparse train.npz "
                 "(the default is ../shared/corpora/ap beside the project root)")
    train = sp.load_npz(args.corpus / "train.npz").tocsr()

    def training_run() -> engine.TrainingRun:
        model = engine.LDA(n_topics=args.topics, n_words=train.shape[1], seed=0)
        trainer = engine.SVI(model, train, batch_size=args.batch_size, kappa=0.7, tau=64, seed=0)
        return engine.TrainingRun(trainer)

    training_run().trainer.step()  # compile (or load the cached kernels) before measuring
    print(f"corpus {args.corpus.name}: {train.shape[0]} documents; LDA K = {args.topics}, S = {args.batch_size}, "
          f"compiled kernel on {engine_threads()} threads; {args.seconds:g} s per measurement\n")

    idle = probe(args.seconds)
    run = training_run()
    run.start()
    time.sleep(1.0)
    docs_before, t_before = run.trainer.docs_seen, time.perf_counter()
    busy = probe(args.seconds)
    rate_with_ui = (run.trainer.docs_seen - docs_before) / (time.perf_counter() - t_before)
    docs_before, t_before = run.trainer.docs_seen, time.perf_counter()
    time.sleep(args.seconds)
    rate_alone = (run.trainer.docs_seen - docs_before) / (time.perf_counter() - t_before)
    run.stop()

    print("| UI thread, ms | idle median | idle p99 | training median | training p99 |")
    print("|---|---|---|---|---|")
    for name in idle:
        a, b = idle[name], busy[name]
        print(f"| {name} | {np.median(a):.2f} | {np.percentile(a, 99):.2f} | "
              f"{np.median(b):.2f} | {np.percentile(b, 99):.2f} |")
    print(f"\ntraining speed: {rate_alone:.0f} docs/s alone, {rate_with_ui:.0f} docs/s while the UI thread "
          f"works ({rate_with_ui / rate_alone:.2f}x)")


def engine_threads() -> int:
    import numba

    return numba.get_num_threads()


if __name__ == "__main__":
    main()

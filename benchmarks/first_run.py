"""The first run after an install: its seconds, and whether it computes what later runs compute.

For each model, and each way of getting the compiled kernels, a fresh numba cache (a
temporary ``NUMBA_CACHE_DIR``) and then ``--processes`` Python processes one after the
other, each training the same model with the same seed on the same synthetic corpus and
printing a digest of lambda:

- ``cache-first`` (the engine's way, ``engine/kernels/cache.py``): the first process has a
  separate process compile the kernels into the cache and loads them from there;
- ``compile-here`` (numba's own way, the engine's before it): the first process compiles
  the kernels itself and runs that code; later processes load the cached code.

Prints each process's wall seconds (Python start-up and imports included) and how many
different digests the processes gave (1: every run repeats the first).

    NUMBA_NUM_THREADS=1 python benchmarks/first_run.py --models lda hdp --processes 3
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

_CHILD = """
import hashlib, json, sys
import numpy as np
import engine
from engine.kernels.cache import compiling_here

model_name, mode = sys.argv[1], sys.argv[2]
corpus = engine.make_synthetic_corpus(n_docs=400, n_topics=8, seed=1).counts
if model_name == "lda":
    model = engine.LDA(n_topics=8, n_words=corpus.shape[1], seed=0)
else:
    model = engine.HDP(n_topics=40, doc_truncation=10, n_words=corpus.shape[1], seed=0)
svi = engine.SVI(model, corpus, batch_size=64, seed=0)
if mode == "compile-here":
    with compiling_here():
        svi.run(n_steps=8)
else:
    svi.run(n_steps=8)
digest = hashlib.sha256(np.ascontiguousarray(model.lambda_).tobytes()).hexdigest()[:12]
print(json.dumps({"digest": digest}))
"""

MODES = ("cache-first", "compile-here")


def run(model: str, mode: str, processes: int) -> list[dict]:
    """Train ``processes`` times, one process after another, from an empty numba cache."""
    rows = []
    with tempfile.TemporaryDirectory(prefix="numba-cache-") as cache_dir:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache_dir}
        for index in range(processes):
            started = time.perf_counter()
            done = subprocess.run([sys.executable, "-c", _CHILD, model, mode], capture_output=True, text=True,
                                  env=env, check=True)
            seconds = time.perf_counter() - started
            digest = json.loads(done.stdout.strip().splitlines()[-1])["digest"]
            rows.append({"model": model, "mode": mode, "process": index + 1, "seconds": seconds, "digest": digest})
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", choices=("lda", "hdp"), default=["lda", "hdp"])
    parser.add_argument("--modes", nargs="+", choices=MODES, default=list(MODES))
    parser.add_argument("--processes", type=int, default=3)
    args = parser.parse_args(argv)
    print(f"{'model':5} {'mode':12} {'first s':>8} {'later s':>8}  digests  (different ones among the processes)")
    for model in args.models:
        for mode in args.modes:
            rows = run(model, mode, args.processes)
            later = [row["seconds"] for row in rows[1:]]
            digests = [row["digest"] for row in rows]
            later_text = f"{min(later):.1f}-{max(later):.1f}" if later else "-"
            print(f"{model:5} {mode:12} {rows[0]['seconds']:8.1f} {later_text:>8}  {' '.join(digests)}  "
                  f"({len(set(digests))})", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

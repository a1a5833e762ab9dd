"""Steps per second of LDA SVI as the vocabulary grows, at fixed minibatch content.

The same minibatches (AP documents, or synthetic ones without ../shared) are
embedded in vocabularies of V = their own (10k for AP) ... 1M words: the extra words never occur,
so the work a step must do is the same and steps/second should stay flat.  For
reference the script also times the eager update that rewrites all K x V
entries of lambda at each step (what the engine did before the lazy decay).

    python benchmarks/vocabulary_scaling.py [--k 100] [--steps 20] [--sizes 10000 100000 1000000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
try:
    import engine
except ImportError:  # a plain checkout: the project root is the parent of this folder
    sys.path.insert(0, str(HERE.parent))
    import engine
from engine.models._eager_topics import blend_topics  # noqa: E402


def _documents(n_docs: int, seed: int) -> sp.csr_matrix:
    ap = HERE.parent.parent / "shared" / "corpora" / "ap" / "train.npz"
    if ap.exists():
        return sp.load_npz(ap).tocsr()[:n_docs]
    rng = np.random.default_rng(seed)
    return sp.csr_matrix(rng.poisson(0.02, size=(n_docs, 10_000)))


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--k", type=int, default=100, help="topics")
    parser.add_argument("--batch-size", type=int, default=256, help="documents per step")
    parser.add_argument("--steps", type=int, default=20, help="timed steps per size")
    parser.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000],
                        help="vocabulary sizes beyond the documents' own (which is always measured first)")
    args = parser.parse_args(argv)
    base = _documents(args.batch_size * args.steps, seed=0)
    args.steps = -(-base.shape[0] // args.batch_size)
    print(f"K={args.k}, S={args.batch_size}, {args.steps} steps, documents with {base.shape[1]:,} distinct columns")
    print(f"{'V':>10} {'steps/s':>9} {'vs first':>9} {'eager update ms/step':>21}")
    first = None
    for size in [base.shape[1], *sorted(s for s in args.sizes if s > base.shape[1])]:
        X = sp.csr_matrix((base.data, base.indices, base.indptr), shape=(base.shape[0], size))
        model = engine.LDA(n_topics=args.k, n_words=size, seed=0)
        trainer = engine.SVI(model, X, batch_size=args.batch_size, kappa=0.7, tau=64, seed=0)
        batches = [np.arange(i, i + args.batch_size) % X.shape[0] for i in range(0, base.shape[0], args.batch_size)]
        trainer.step(doc_ids=batches[0])  # warm-up
        started = time.perf_counter()
        for batch in batches:
            trainer.step(doc_ids=batch)
        rate = len(batches) / (time.perf_counter() - started)
        first = first or rate
        lambda_ = np.array(model.lambda_)
        columns = np.arange(1000)
        with threadpool_limits(1):
            started = time.perf_counter()
            for _ in range(3):
                blend_topics(lambda_, np.ones((args.k, 1000)), columns, 0.01, 10.0, 0.1)
            eager_ms = (time.perf_counter() - started) / 3 * 1e3
        print(f"{size:>10,} {rate:>9.2f} {rate / first:>9.2f} {eager_ms:>21.1f}")


if __name__ == "__main__":
    main()

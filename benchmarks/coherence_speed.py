#!/usr/bin/env python
"""How long one refresh of topic coherence takes once the reference corpus is built.

The explorer may rescore every topic while a model trains, so what matters is
``CoherenceReference.score`` for K topics of n top words against a reference of
D documents (the reference is built once).  Top words are drawn for each topic
without replacement with probability proportional to document frequency, so they
are frequent words, as a trained model's top words are: frequent words make the
co-occurrence product denser and the timing less flattering than uniform draws.

The reference is the first D documents of ``../shared/corpora/foldoc/train.npz``
when it exists, else a random sparse matrix of the same size.  Prints the build
time and the median (and min/max) milliseconds of several scoring runs per measure.

    python benchmarks/coherence_speed.py                      # K = 100, n = 10, D = 10,000
    python benchmarks/coherence_speed.py --topics 300 --top 20 --repeats 21
"""

from __future__ import annotations

import argparse
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

DEFAULT_CORPUS = HERE.parent.parent / "shared" / "corpora" / "foldoc" / "train.npz"


def reference_counts(path: Path, n_docs: int, seed: int) -> tuple[sp.csr_matrix, str]:
    """The first ``n_docs`` rows of the corpus at ``path``, or a random matrix if it is missing."""
    if path.exists():
        counts = sp.load_npz(path).tocsr()[:n_docs]
        return counts, f"{path.name} of {path.parent.name}"
    rng = np.random.default_rng(seed)
    counts = sp.random(n_docs, 8000, density=0.003, format="csr", random_state=rng, dtype=np.float64)
    counts.data = np.ceil(counts.data * 3)
    return counts, "random sparse matrix (corpus file not found)"


def frequent_top_words(document_frequency: np.ndarray, n_topics: int, n_top: int, seed: int) -> np.ndarray:
    """``n_topics`` rows of ``n_top`` distinct words, drawn in proportion to document frequency."""
    rng = np.random.default_rng(seed)
    weights = document_frequency / document_frequency.sum()
    return np.array([rng.choice(weights.size, n_top, replace=False, p=weights) for _ in range(n_topics)])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS, help="a scipy.sparse .npz count matrix")
    parser.add_argument("--docs", type=int, default=10_000, help="reference documents D")
    parser.add_argument("--topics", type=int, default=100, help="topics K")
    parser.add_argument("--top", type=int, default=10, help="top words per topic n")
    parser.add_argument("--repeats", type=int, default=11, help="timed scoring runs per measure")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    counts, source = reference_counts(args.corpus, args.docs, args.seed)
    start = time.perf_counter()
    reference = engine.CoherenceReference(counts)
    build_ms = (time.perf_counter() - start) * 1e3
    top_words = frequent_top_words(reference.document_frequency, args.topics, args.top, args.seed)
    print(
        f"reference: {source}, D = {reference.n_docs}, V = {reference.n_words}, nnz = {counts.nnz}; "
        f"K = {args.topics}, n = {args.top}, {np.unique(top_words).size} distinct top words"
    )
    print(f"build CoherenceReference: {build_ms:.1f} ms (once)")
    for measure in reference.measures:
        reference.score(top_words, measure)  # warm-up
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            reference.score(top_words, measure)
            times.append((time.perf_counter() - start) * 1e3)
        print(
            f"score {measure:5s}: median {np.median(times):.1f} ms "
            f"(min {min(times):.1f}, max {max(times):.1f}, {args.repeats} runs)"
        )


if __name__ == "__main__":
    main()

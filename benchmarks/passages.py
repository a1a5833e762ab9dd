#!/usr/bin/env python
"""A few long documents read whole or cut into passages (``passage_words``): the app's rule for cutting them.

The app cuts the documents into passages of about 300 words when an upload has fewer than 20 of
them, of 600 words or more on average (``explorer.uploads.passages_suggested``).  Run 56 measured
about 50 long documents; this measures fewer, where the rule applies.  From ``sections_case.py``'s
five known sections (450 texts each, ``build(450, seed)``) it joins the 2,250 texts into ``n``
long documents, each of texts from two sections (the sections' pairs taken in turn), and trains
the default LDA (K = 10, one thread) on

- (a) the long documents, with the app's preprocessing for ``n`` documents (``Preprocessing.
  suggested(n)``: every word for fewer than 20 documents);
- (b) their passages of about 300 words (``engine.split_passages``), with the app's preprocessing
  for as many passages (min_df 5, max_df 0.5).

Both for ``--passes`` passes over their tokens (the same words seen).  ``sections_case.measure``
on the 2,250 original texts (counted in each run's vocabulary) gives the sections without a topic
of their own, the live topics that mix sections and NPMI over the original texts; means and
ranges over the seeds.

    python benchmarks/passages.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))
from sections_case import _spread, build, measure  # noqa: E402

import engine  # noqa: E402
from explorer.uploads import Preprocessing  # noqa: E402  (the app's preprocessing rules)


def long_documents(texts: list[str], labels: np.ndarray, n_sections: int, n: int) -> list[str]:
    """``texts`` joined into ``n`` documents: document d holds texts of the d-th pair of sections (the pairs taken
    in turn), each section's texts dealt in turn to the documents of its pairs (to all, if it is in none)."""
    pairs = [(a, b) for a in range(n_sections) for b in range(a + 1, n_sections)]
    owners = [[d for d in range(n) if s in pairs[d % len(pairs)]] or list(range(n)) for s in range(n_sections)]
    documents: list[list[str]] = [[] for _ in range(n)]
    dealt = [0] * n_sections
    for text, s in zip(texts, labels, strict=True):
        documents[owners[s][dealt[s] % len(owners[s])]].append(text)
        dealt[s] += 1
    return ["\n\n".join(parts) for parts in documents if parts]


def run(corpus: engine.Corpus, texts: list[str], labels, names, seed: int, passes: int) -> dict:
    model = engine.LDA(n_topics=10, n_words=corpus.n_words, seed=seed)
    engine.SVI(model, corpus=corpus, seed=seed).run(n_docs=passes * corpus.n_docs)
    counts = corpus.vectorizer.count(texts, corpus.vocabulary).counts
    return measure(model, counts, labels, names, engine.CoherenceReference(counts))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--documents", type=int, nargs="+", default=[1, 5, 10, 19], help="long documents (n)")
    parser.add_argument("--passes", type=int, default=15, help="passes over each reading's tokens")
    parser.add_argument("--draw-seed", type=int, default=12345, help="seed of the texts' draw")
    args = parser.parse_args(argv)
    texts, labels, names = build(450, args.draw_seed)
    print(f"{len(texts)} texts of {len(names)} sections ({', '.join(names)}); default LDA, K = 10, "
          f"{args.passes} passes, seeds {args.seeds}; means (ranges) over the seeds.\n")
    print("| long documents | read as | documents | sections without a topic | topics mixing sections | NPMI |")
    print("|---|---|---|---|---|---|")
    with threadpool_limits(1):
        for n in args.documents:
            documents = long_documents(texts, labels, len(names), n)
            passages = [p.text for p in engine.split_passages(
                engine.RawDocument(str(d), str(d), text) for d, text in enumerate(documents))]
            for label, read in (("whole", documents), ("passages", passages)):
                corpus = engine.Corpus.from_texts(read, **{**Preprocessing.suggested(len(read)).options(),
                                                           "passage_words": None})
                runs = [run(corpus, texts, labels, names, seed, args.passes) for seed in args.seeds]
                print(f"| {n} | {label} | {corpus.n_docs} | {_spread(runs, 'sections_without_topic', '{:.1f}')} | "
                      f"{_spread(runs, 'mixed', '{:.1f}')} | {_spread(runs, 'npmi', '{:.3f}')} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

#!/usr/bin/env python
"""Phrases joined before counting (``join_phrases=True``): what is found, and what the topics gain.

Read word by word, "united states", "health care" or "open source" spend two of a topic's top words
on one idea, and their halves mix with the words' other uses.  ``engine.find_phrases`` finds pairs a
collection writes side by side far more often than chance (NPMI >= 0.35, 10 times or more, in 5
documents or more), and ``engine.Corpus.from_texts(..., join_phrases=True)`` reads each as one word.

The collections are the raw-text check collections of ``quality.py`` (the app's two samples and the
ones built from Debian packages, each skipped with a note when absent) and the Bible's chapters.
Each is read twice with the app's preprocessing for 200 documents or more (stop words guessed,
min_df 5, max_df 0.5): ``plain`` and ``phrases``.  Reported for each:

- the phrases found, the share of the tokens they join (per 1,000) and the most frequent of them;
- the seconds ``Corpus.from_texts`` took, phrases over plain (one run each, after a warm-up);
- the default LDA (``engine.LDA(n_topics=K, n_words=V, seed=s)`` trained by ``engine.SVI`` for
  ``--epochs`` passes, one thread), over ``--seeds``: the topics whose 10 top words hold both
  words of a phrase found as two separate words ("split"), the topics whose top words hold a
  joined phrase, and NPMI over each reading's own documents (two readings' NPMIs are of different
  vocabularies, so they are not comparable);
- where the documents have labels (the State of the Union paragraphs' president, the Bible
  chapters' book), how well the topic proportions tell them: the accuracy of 10 nearest
  neighbours by Hellinger distance between the documents' E[theta] (5-fold cross-validation,
  folds fixed), a measure that does not depend on the vocabulary.

    python benchmarks/phrases.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import engine
except ImportError:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

from _quality_panel import (  # noqa: E402
    RAW_COLLECTIONS,
    _bible_verses,
    add_default_lda_arguments,
    coherence_reference,
    mean_sd,
    raw_texts,
)

from engine.data.vectorizer import join_runs  # noqa: E402

PREPROCESSING = {"stop_words": "auto", "min_df": 5, "max_df": 0.5, "strip_accents": "auto"}
ENGLISH = tuple(name for name in RAW_COLLECTIONS if name[-3:] not in ("-de", "-fr", "-zh", "-ja"))
COLLECTIONS = (*ENGLISH, "chapters")


def sotu_presidents() -> tuple[list[str], list[str]]:
    """The State of the Union paragraphs of the app's sample and each one's president."""
    import pandas as pd

    table = pd.read_csv(HERE.parent / "sample_data" / "sotu_paragraphs.csv")
    return table["text"].tolist(), table["president"].tolist()


def bible_books() -> tuple[list[str], list[str]]:
    """The Bible's chapters (Debian's bible-kjv) and each one's book."""
    chapters: dict[tuple[str, str], list[str]] = {}
    for book, chapter, text in _bible_verses()[0]:
        chapters.setdefault((book, chapter), []).append(text)
    return [" ".join(verses) for verses in chapters.values()], [book for book, _ in chapters]


def collection(name: str) -> tuple[list[str] | None, list[str] | None]:
    """The texts of ``name`` and their labels (None where it has none; texts None where it is absent)."""
    try:
        if name == "sotu":
            return sotu_presidents()
        if name == "chapters":
            return bible_books()
    except (FileNotFoundError, OSError) as error:
        print(f"skipping {name}: {error} (apt-get install bible-kjv)", file=sys.stderr)
        return None, None
    return raw_texts(name), None


def neighbour_accuracy(theta: np.ndarray, labels: np.ndarray, k: int = 10, folds: int = 5) -> float:
    """Accuracy of the majority label of the ``k`` nearest training documents by Hellinger distance, over
    ``folds`` fixed folds (documents dealt out by a seeded permutation)."""
    roots = np.sqrt(theta / theta.sum(axis=1, keepdims=True))
    order = np.random.default_rng(0).permutation(len(labels))
    correct = 0
    for part in np.array_split(order, folds):
        train = np.setdiff1d(order, part)
        nearest = np.argsort(-(roots[part] @ roots[train].T), axis=1)[:, :k]  # largest affinity: smallest distance
        for row, document in zip(nearest, part, strict=True):
            votes = Counter(labels[train[row]])
            correct += votes.most_common(1)[0][0] == labels[document]
    return correct / len(labels)


def read_twice(texts: list[str], **option) -> tuple[engine.Corpus, engine.Corpus, float]:
    """``texts`` read with the app's preprocessing, plain and with ``option``, and the second reading's seconds over
    the first's."""
    start = time.perf_counter()
    plain = engine.Corpus.from_texts(texts, **PREPROCESSING)
    plain_seconds = time.perf_counter() - start
    start = time.perf_counter()
    other = engine.Corpus.from_texts(texts, **PREPROCESSING, **option)
    return plain, other, (time.perf_counter() - start) / plain_seconds


def corpus_labels(corpus: engine.Corpus, labels: list[str] | None) -> np.ndarray | None:
    """The labels of ``corpus``' documents (its ids are the texts' positions), None where there are none."""
    return None if labels is None else np.array([labels[int(doc_id)] for doc_id in corpus.doc_ids])


def print_accuracy_gain(kept: dict[str, dict[str, np.ndarray]], reading: str) -> None:
    """The label accuracy of ``reading`` less the plain reading's, paired by seed, where the documents have labels."""
    if "accuracy" in kept["plain"]:
        gain = kept[reading]["accuracy"] - kept["plain"]["accuracy"]
        print(f"accuracy, {reading} - plain, paired by seed: {mean_sd(gain, 3)}")


def joined_share(corpus: engine.Corpus) -> float:
    """Per 1,000 of the tokens ``corpus``' texts hold (stop words left out), those read as part of a phrase."""
    reader, pairs = corpus.vectorizer.run_reader(), corpus.vectorizer._phrase_pairs
    tokens = joins = 0
    for text in corpus.texts:
        runs = reader(text)
        n = sum(len(run) for run in runs)
        tokens += n
        joins += n - len(join_runs(runs, pairs))
    return 1000 * 2 * joins / max(tokens, 1)


def runs_of(corpus: engine.Corpus, k: int, seeds: list[int], epochs: int, labels: np.ndarray | None,
            pairs: list[tuple[str, str]]) -> dict[str, np.ndarray]:
    """The default LDA's figures on ``corpus``, one per seed."""
    reference = coherence_reference(corpus.counts)
    vocabulary = corpus.vocabulary
    figures: dict[str, list[float]] = {"split": [], "joined": [], "npmi": [], "accuracy": []}
    for seed in seeds:
        with threadpool_limits(1):
            model = engine.LDA(n_topics=k, n_words=corpus.n_words, seed=seed)
            engine.SVI(model, corpus=corpus, seed=seed).run(n_docs=epochs * corpus.n_docs)
            top = np.argsort(-model.lambda_, axis=1)[:, :10]
            figures["npmi"].append(float(np.mean(reference.score(top))))
            words = [{vocabulary[w] for w in row} for row in top]
            figures["split"].append(sum(any(a in held and b in held for a, b in pairs) for held in words))
            figures["joined"].append(sum(any(" " in word for word in held) for held in words))
            if labels is not None:
                figures["accuracy"].append(neighbour_accuracy(model.transform(corpus.counts), labels))
    return {name: np.array(values) for name, values in figures.items() if values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_default_lda_arguments(parser)
    parser.add_argument("--collections", nargs="*", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    args = parser.parse_args()
    print(f"engine {engine.__version__}; default LDA, K = {args.k}, {args.epochs} passes, seeds {args.seeds}")
    engine.Corpus.from_texts(["warm up the vectorizer"] * 3, join_phrases=True)
    for name in args.collections:
        texts, labels = collection(name)
        if texts is None:
            continue
        plain, joined, ratio = read_twice(texts, join_phrases=True)
        found = joined.vectorizer.phrases
        pairs = [tuple(phrase.split(" ")) for phrase in found]
        print(f"\n## {name}: {len(texts):,} documents, {len(found):,} phrases found, "
              f"{joined_share(joined):.0f} of 1,000 tokens joined; vocabulary {plain.n_words:,} -> "
              f"{joined.n_words:,}; Corpus.from_texts {ratio:.1f}x the plain reading's time")
        print("most frequent:", ", ".join(found[:15]))
        if not found:
            continue
        kept = {}
        for reading, corpus in (("plain", plain), ("phrases", joined)):
            kept[reading] = runs_of(corpus, args.k, args.seeds, args.epochs, corpus_labels(corpus, labels), pairs)
        print("| reading | topics with a split phrase | topics with a joined phrase | NPMI (own vocabulary) "
              "| label accuracy, 10 neighbours |")
        print("|---|---|---|---|---|")
        for reading, figures in kept.items():
            accuracy = mean_sd(figures["accuracy"], 3) if "accuracy" in figures else "-"
            print(f"| {reading} | {mean_sd(figures['split'], 1)} | {mean_sd(figures['joined'], 1)} "
                  f"| {mean_sd(figures['npmi'], 3)} | {accuracy} |")
        print_accuracy_gain(kept, "phrases")


if __name__ == "__main__":
    main()

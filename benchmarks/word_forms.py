#!/usr/bin/env python
"""A word's forms counted as one word (``merge_word_forms=True``): what is merged, and what the topics gain.

Read as written, "tax" and "taxes", "child" and "children", "say" and "said" are separate vocabulary
words, so a topic's top words can hold two forms of one word.  ``engine.find_word_forms`` groups a
collection's words by their dictionary form (simplemma's lemmas, a form kept apart when its first two
letters are not its lemma's), and ``engine.Corpus.from_texts(..., merge_word_forms=True)`` counts each
group as the form the collection writes most.

The collections are those of ``phrases.py`` (the raw-text check collections of ``quality.py`` in
English, the Bible's chapters) and the German and French man pages, each skipped with a note when
absent.  Each is read twice with the app's preprocessing (stop words guessed, min_df 5, max_df 0.5):
``plain`` and ``forms``.  Reported for each:

- the groups found, the forms merged, the share of the tokens that are a merged form (per 1,000),
  the vocabulary's size, and the seconds ``Corpus.from_texts`` took, forms over plain (one run each,
  after a warm-up that loads the dictionaries);
- the default LDA (``engine.LDA(n_topics=K, n_words=V, seed=s)`` trained by ``engine.SVI`` for
  ``--epochs`` passes, one thread), over ``--seeds``: the topics whose 10 top words hold two forms of
  one word (by the groups found), the distinct words among a topic's 10 top words (counting a word's
  forms once), and NPMI over each reading's own documents (the two readings' NPMIs are of different
  vocabularies, so they are not comparable);
- where the documents have labels (the State of the Union paragraphs' president, the Bible chapters'
  book), the accuracy of 10 nearest neighbours by Hellinger distance between the documents' E[theta]
  (``phrases.py``'s measure, which does not depend on the vocabulary).

``--model hdp`` trains the default HDP (``engine.HDP(n_topics=150, doc_truncation=20, n_words=V,
seed=s)``) instead; its figures are of the topics in use (corpus weight >= 1 %), whose number it adds.

    python benchmarks/word_forms.py --seeds 0 1 2 3 4
    python benchmarks/word_forms.py --model hdp --seeds 0 1 2 3 4 --collections sotu chapters jargon docstrings
"""

from __future__ import annotations

import argparse
import sys
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

from _quality_panel import add_default_lda_arguments, coherence_reference, mean_sd  # noqa: E402
from phrases import ENGLISH, collection, corpus_labels, neighbour_accuracy, print_accuracy_gain, read_twice  # noqa: E402

COLLECTIONS = (*ENGLISH, "chapters", "manpages-de", "manpages-fr")


def merged_share(corpus: engine.Corpus) -> float:
    """Per 1,000 of the tokens of ``corpus``' texts (stop words left out), those counted as another form's word."""
    plain = engine.Vectorizer(**{**corpus.vectorizer.to_dict(), "word_forms": {}}).analyzer()
    heads = dict(corpus.vectorizer.word_forms)
    tokens = merged = 0
    for text in corpus.texts:
        read = plain(text)
        tokens += len(read)
        merged += sum(token in heads for token in read)
    return 1000 * merged / max(tokens, 1)


IN_USE = 0.01  # an HDP topic's least corpus weight to be scored


def runs_of(corpus: engine.Corpus, k: int, seeds: list[int], epochs: int, labels: np.ndarray | None,
            word_of, model_name: str = "lda") -> dict[str, np.ndarray]:
    """The default LDA's (or HDP's) figures on ``corpus``, one per seed; ``word_of`` gives the word a form is counted
    as."""
    reference = coherence_reference(corpus.counts)
    vocabulary = corpus.vocabulary
    figures: dict[str, list[float]] = {"doubled": [], "distinct": [], "npmi": [], "accuracy": [], "in_use": []}
    for seed in seeds:
        with threadpool_limits(1):
            model = engine.LDA(n_topics=k, n_words=corpus.n_words, seed=seed) if model_name == "lda" else \
                engine.HDP(n_topics=150, doc_truncation=20, n_words=corpus.n_words, seed=seed)
            engine.SVI(model, corpus=corpus, seed=seed).run(n_docs=epochs * corpus.n_docs)
        top = np.argsort(-model.lambda_, axis=1)[:, :10]
        if model_name == "hdp":
            used = np.flatnonzero(model.topic_weights() >= IN_USE)
            top = top[used]
            figures["in_use"].append(used.size)
        figures["npmi"].append(float(np.mean(reference.score(top))))
        distinct = [len({word_of(vocabulary[w]) for w in row}) for row in top]
        figures["doubled"].append(sum(n < len(row) for n, row in zip(distinct, top, strict=True)))
        figures["distinct"].append(float(np.mean(distinct)))
        if labels is not None:
            figures["accuracy"].append(neighbour_accuracy(model.transform(corpus.counts), labels))
    return {name: np.array(values) for name, values in figures.items() if values}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_default_lda_arguments(parser)
    parser.add_argument("--collections", nargs="*", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    parser.add_argument("--model", choices=["lda", "hdp"], default="lda", help="the default LDA (--k) or HDP")
    args = parser.parse_args()
    trained = f"LDA, K = {args.k}" if args.model == "lda" else "HDP (topics in use: weight >= 1 %)"
    print(f"engine {engine.__version__}; default {trained}, {args.epochs} passes, seeds {args.seeds}")
    for language in ("english", "german", "french"):  # the dictionaries load on first use
        engine.Corpus.from_texts(["warm up the vectorizer"] * 3, stop_words=language, merge_word_forms=True)
    for name in args.collections:
        texts, labels = collection(name)
        if texts is None:
            continue
        plain, merged, ratio = read_twice(texts, merge_word_forms=True)
        groups = engine.find_word_forms(merged.texts, merged.vectorizer)
        print(f"\n## {name}: {len(texts):,} documents ({merged.vectorizer.stop_words}), {len(groups):,} words with "
              f"{len(merged.vectorizer.word_forms):,} other forms, {merged_share(merged):.0f} of 1,000 tokens "
              f"merged; vocabulary {plain.n_words:,} -> {merged.n_words:,}; Corpus.from_texts {ratio:.1f}x the "
              "plain reading's time")
        print("most frequent:", "; ".join(" ".join(group.forms[:4]) for group in groups[:12]))
        kept = {}
        for reading, corpus in (("plain", plain), ("forms", merged)):
            kept[reading] = runs_of(corpus, args.k, args.seeds, args.epochs, corpus_labels(corpus, labels),
                                    merged.vectorizer.word_of, args.model)
        print("| reading | topics with two forms of a word | distinct words in the top 10 | NPMI (own vocabulary) "
              "| label accuracy, 10 neighbours | topics in use |")
        print("|---|---|---|---|---|---|")
        for reading, figures in kept.items():
            accuracy = mean_sd(figures["accuracy"], 3) if "accuracy" in figures else "-"
            in_use = f"{figures['in_use'].min()}-{figures['in_use'].max()}" if "in_use" in figures else "-"
            print(f"| {reading} | {mean_sd(figures['doubled'], 1)} | {mean_sd(figures['distinct'], 2)} "
                  f"| {mean_sd(figures['npmi'], 3)} | {accuracy} | {in_use} |")
        print_accuracy_gain(kept, "forms")


if __name__ == "__main__":
    main()

#!/usr/bin/env python
"""What the stop words' language does to the topics, and whether ``engine.guess_language`` finds it.

For each collection built at run time (``quality.py``'s check collections, read by the same
functions): the language ``engine.guess_language`` finds, its share of the words, the runner-up
and the seconds it took; then the default LDA (``engine.LDA(n_topics=K, n_words=V, seed=s)``
trained by ``engine.SVI`` for ``--epochs`` passes, one thread) on the collection vectorised
with English stop words and with the guessed language's (``engine.Corpus.from_texts``, min_df
5, max_df 0.5, as the app suggests for 200 documents or more), and for a language other than
English also with its accents kept, as the app now reads it: the share of the topics' 10 top
words that are stop words of the guessed language, the topics with 3 or more of them, and the
mean NPMI over the training documents, as means and standard deviations over the seeds, and the
last seed's topic with the most such words ("-": none has any).

    python benchmarks/stop_word_languages.py --corpora manpages-de manpages-fr manpages --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
import time
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

from _quality_panel import BUILT, add_default_lda_arguments, built_texts, default_lda_top_words  # noqa: E402


def topic_stop_words(texts: list[str], stop_words: str, flagged: frozenset[str], k: int, seeds: list[int],
                     epochs: int, strip_accents: bool = True) -> dict:
    """The default LDA's top words on ``texts`` read with ``stop_words``: how many are in ``flagged``; NPMI."""
    corpus = engine.Corpus.from_texts(texts, stop_words=stop_words, min_df=5, max_df=0.5,
                                      strip_accents=strip_accents)
    vocabulary = np.asarray(corpus.vocabulary)
    is_flagged = np.array([word in flagged for word in vocabulary])
    tops, npmi = default_lda_top_words(corpus, k, seeds, epochs)
    shares = [is_flagged[top].mean() for top in tops]
    crowded = [int((is_flagged[top].sum(axis=1) >= 3).sum()) for top in tops]
    top = tops[-1]
    most = int(np.argmax(is_flagged[top].sum(axis=1)))  # of the last seed
    example = " ".join(vocabulary[top[most]]) if is_flagged[top[most]].any() else "-"
    return {"V": corpus.n_words, "share": np.array(shares), "crowded": np.array(crowded), "npmi": npmi,
            "example": example}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--corpora", nargs="+", default=["manpages-de", "manpages-fr"], choices=sorted(BUILT),
                        help="collections built at run time (quality.py's)")
    add_default_lda_arguments(parser)
    args = parser.parse_args(argv)
    print(f"# stop words' language: the default LDA at K = {args.k}, {args.epochs} passes, seeds {args.seeds}, "
          f"one thread; svi-topics {engine.__version__}")
    print("\n| collection | documents | guessed (share) | runner-up | guess seconds | stop words | V | top words "
          "that are the guessed language's stop words | topics with >= 3 | NPMI | the most crowded topic |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name in args.corpora:
        texts = built_texts(name)
        if texts is None:
            continue
        started = time.perf_counter()
        guess = engine.guess_language(texts)
        seconds = time.perf_counter() - started
        language = guess.language or "english"
        runner_up, runner_share = list(guess.shares.items())[1]
        flagged = engine.Vectorizer(stop_words=language).stop_word_set()  # as the corpus' tokens (accents stripped)
        readings = dict.fromkeys([("english", True), (language, True), (language, language == "english")])
        for stop_words, strip in readings:
            if not strip:  # accents kept, as the app reads a language other than English: the stop words so too
                flagged = engine.Vectorizer(stop_words=language, strip_accents=False).stop_word_set()
            with threadpool_limits(1):
                result = topic_stop_words(texts, stop_words, flagged, args.k, args.seeds, args.epochs, strip)
            print(f"| {name} | {len(texts):,} | {guess.language} ({guess.share:.3f}) | {runner_up} "
                  f"({runner_share:.3f}) | {seconds:.3f} | {stop_words}{'' if strip else ', accents kept'} | "
                  f"{result['V']:,} | "
                  f"{result['share'].mean():.3f} ± {result['share'].std(ddof=1):.3f} | "
                  f"{result['crowded'].mean():.1f} | {result['npmi'].mean():.3f} ± {result['npmi'].std(ddof=1):.3f} "
                  f"| {result['example']} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

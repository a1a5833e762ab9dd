#!/usr/bin/env python
"""What reading Chinese and Japanese as pairs of characters does, against reading them as words.

For each collection built at run time (``quality.py``'s check collections, read by the same
functions), read two ways by ``engine.Corpus.from_texts`` with the app's preprocessing for 200
documents or more (English stop words for the English words in the text, min_df 5, max_df 0.5):
``engine.TOKEN_PATTERN`` (every earlier version: a run of letters without spaces is one "word")
and ``engine.CJK_TOKEN_PATTERN`` (pairs of Han characters, katakana words whole; the default for
such text now).  Printed for each: the vocabulary and its share of Chinese/Japanese words, the
tokens counted, the share of the text's Han and katakana characters that lie in a counted token,
the documents in which none does, the seconds to build the corpus; then the default LDA
(``engine.LDA(n_topics=K, n_words=V, seed=s)`` trained by ``engine.SVI`` for ``--epochs`` passes,
one thread): the share of the topics' 10 top words written in Chinese or Japanese characters, and
NPMI over the training documents (each reading against its own vocabulary, so only a rough
comparison), means and standard deviations over the seeds, and the last seed's topics that hold
the most such words.

    python benchmarks/cjk_tokens.py --corpora manpages-zh manpages-ja --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import re
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

from _quality_panel import BUILT  # noqa: E402

from engine.data.vectorizer import _HAN, _KATAKANA  # noqa: E402  (the scripts' letters, as the pattern has them)

_SCRIPT = re.compile(f"[{_HAN}{_KATAKANA}]")
READINGS = {"words (TOKEN_PATTERN)": engine.TOKEN_PATTERN, "pairs (CJK_TOKEN_PATTERN)": engine.CJK_TOKEN_PATTERN}


def covered_characters(corpus: engine.Corpus, texts: list[str]) -> tuple[int, int, int]:
    """(Han and katakana characters of ``texts``, those in a token ``corpus`` counts, documents where none is)."""
    vocabulary = set(corpus.vocabulary)
    token = re.compile(corpus.vectorizer.token_pattern)
    group = 1 if token.groups else 0
    preprocess = corpus.vectorizer.preprocess
    total = covered = bare = 0
    for text in texts:
        inside = np.zeros(len(text), dtype=bool)
        for match in token.finditer(text):
            start, end = match.span(group)
            if preprocess(text[start:end]) in vocabulary:
                inside[start:end] = True
        positions = [m.start() for m in _SCRIPT.finditer(text)]
        total += len(positions)
        here = int(inside[positions].sum()) if positions else 0
        covered += here
        bare += positions != [] and here == 0
    return total, covered, bare


def reading(texts: list[str], pattern: str, k: int, seeds: list[int], epochs: int) -> dict:
    started = time.perf_counter()
    corpus = engine.Corpus.from_texts(texts, stop_words="english", min_df=5, max_df=0.5, token_pattern=pattern)
    seconds = time.perf_counter() - started
    vocabulary = np.asarray(corpus.vocabulary)
    written = np.array([bool(_SCRIPT.search(word)) for word in vocabulary])
    totals = np.asarray(corpus.counts.sum(axis=0)).ravel()
    characters, covered, bare = covered_characters(corpus, texts)
    reference = engine.CoherenceReference(corpus.counts, corpus.n_words)
    shares, npmi = [], []
    for seed in seeds:
        model = engine.LDA(n_topics=k, n_words=corpus.n_words, seed=seed)
        engine.SVI(model, corpus=corpus, seed=seed).run(n_docs=epochs * corpus.n_docs)
        top = np.argsort(-model.lambda_, axis=1)[:, :10]
        shares.append(written[top].mean())
        npmi.append(float(np.mean(reference.score(top))))
    order = np.argsort(-written[top].sum(axis=1), kind="stable")[:2]  # the last seed's
    return {"n_docs": corpus.n_docs, "V": corpus.n_words, "written_V": written.mean(), "tokens": int(totals.sum()),
            "written_tokens": totals[written].sum() / totals.sum(), "covered": covered / max(characters, 1),
            "bare": bare / len(texts), "seconds": seconds, "share": np.array(shares), "npmi": np.array(npmi),
            "examples": [" ".join(vocabulary[top[t]]) for t in order]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--corpora", nargs="+", default=["manpages-zh", "manpages-ja"], choices=sorted(BUILT),
                        help="collections built at run time (quality.py's)")
    parser.add_argument("--k", type=int, default=20, help="LDA topics")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2, 3, 4])
    parser.add_argument("--epochs", type=int, default=10, help="passes over the documents")
    args = parser.parse_args(argv)
    print(f"# Chinese and Japanese read as words and as pairs: the default LDA at K = {args.k}, {args.epochs} "
          f"passes, seeds {args.seeds}, one thread (engine {engine.__version__})\n")
    print("| collection | reading | documents | V (in CJK script) | tokens (in CJK script) | CJK characters in a "
          "counted token | documents with none | seconds to read | top-10 words in CJK script | NPMI |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    examples = []
    with threadpool_limits(1):
        for name in args.corpora:
            try:
                texts, _ = BUILT[name].read_texts()
            except (FileNotFoundError, OSError) as error:
                print(f"skipping {name}: {error}. {BUILT[name].install}", file=sys.stderr)
                continue
            for label, pattern in READINGS.items():
                r = reading(texts, pattern, args.k, args.seeds, args.epochs)
                print(f"| {name} | {label} | {r['n_docs']:,} of {len(texts):,} | {r['V']:,} ({r['written_V']:.0%}) | "
                      f"{r['tokens']:,} ({r['written_tokens']:.0%}) | {r['covered']:.1%} | {r['bare']:.1%} | "
                      f"{r['seconds']:.2f} | {r['share'].mean():.2f} ± {r['share'].std():.2f} | "
                      f"{r['npmi'].mean():.3f} ± {r['npmi'].std():.3f} |")
                examples += [f"- {name}, {label}: {example}" for example in r["examples"]]
    print("\nThe last seed's two topics with the most words in CJK script, top 10 words:\n")
    print("\n".join(examples))
    return 0


if __name__ == "__main__":
    sys.exit(main())

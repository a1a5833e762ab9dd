#!/usr/bin/env python
"""Repeated boilerplate blocks read as words and left out (``strip_boilerplate``), and where they are found.

Page chrome, licence footers, translators' credits and bug-report sections are copied word for word
into many documents, and their words make topics of their own.  ``engine.Corpus.from_texts`` now
leaves out runs of lines that at least 2 % of the documents share, holding 10 words or more
(``strip_boilerplate=True``, ``engine.find_boilerplate``).

The collections: the check collections' man pages (English; German; French; English with 30 % of
French pages mixed in, ``--mixed-share``, as ``mixed_languages.py`` draws them) and two sets of web
pages read without their markup (``markup.py``'s LibreOffice help and Python documentation, fetched
with ``apt-get download``).  Each is read by ``engine.Corpus.from_texts`` with the app's
preprocessing for 200 documents or more (stop words guessed, min_df 5, max_df 0.5, accents as
``strip_accents="auto"`` sets them) with ``strip_boilerplate=False`` and ``True``.  "Boilerplate
words" are the words of the first reading whose count in the second is less than a tenth of their
count in the first: words found almost only in the blocks left out.  For each reading: the lines
found, the words (tokens) left out per 1,000, and the default LDA (``engine.LDA(n_topics=K,
n_words=V, seed=s)`` trained by ``engine.SVI`` for ``--epochs`` passes, one thread): the topics with
at least 3 boilerplate words among their 10 top words, and NPMI over the training documents (each
reading against its own vocabulary); means and standard deviations over the seeds, then the last
seed's topics with most boilerplate words and the lines found in most documents.  Last, the lines
found and the words they remove on the prose check collections and the app's samples
(``--plain``), where nothing should be found.

    python benchmarks/boilerplate.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from threadpoolctl import threadpool_limits

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
try:
    import engine
except ImportError:  # a checkout that is not pip-installed
    sys.path.insert(0, str(HERE.parent))
    import engine

from _quality_panel import (  # noqa: E402
    add_default_lda_arguments,
    marked_topics,
    mean_sd,
    most_marked,
    mostly_gone,
    raw_texts,
    word_totals,
    words_left_out,
)
from markup import PAGES, page_texts  # noqa: E402
from mixed_languages import mixture  # noqa: E402

COLLECTIONS = ("manpages", "manpages-de", "manpages-fr", "manpages+fr", "python-docs", "libreoffice-help")
PLAIN = ("sotu", "jargon", "fortunes", "verses", "packages", "docstrings", "bible")
PREPROCESSING = {"stop_words": "auto", "min_df": 5, "max_df": 0.5, "strip_accents": "auto"}  # the app's, >= 200 docs
BOILERPLATE_TOPIC = 3  # boilerplate words among a topic's 10 top words


def collection_texts(name: str, args) -> list[str] | None:
    """The texts of ``name`` (web pages without their markup), or None if they cannot be had here."""
    if name in PAGES:
        pages = page_texts(name, args.cache)
        return None if pages is None else [engine.strip_markup(page) for page in pages]
    if name == "manpages+fr":
        english, french = raw_texts("manpages"), raw_texts("manpages-fr")
        return None if english is None or french is None else mixture(english, french, args.mixed_share, 0)
    return raw_texts(name)


def boilerplate_words(kept: engine.Corpus, full: engine.Corpus) -> set[str]:
    """The words of ``full`` whose count in ``kept`` is under a tenth of their count in ``full``."""
    return mostly_gone(word_totals(full.counts, full.vocabulary), word_totals(kept.counts, kept.vocabulary))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--collections", nargs="*", default=list(COLLECTIONS), choices=COLLECTIONS)
    parser.add_argument("--plain", nargs="*", default=list(PLAIN), help="collections where nothing should be found")
    parser.add_argument("--mixed-share", type=float, default=0.3, help="French pages' share in manpages+fr")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache" / "debs", help="where web pages are unpacked")
    add_default_lda_arguments(parser)
    args = parser.parse_args(argv)
    print(f"Default LDA, K = {args.k}, {args.epochs} epochs, seeds {args.seeds}; mean ± sd over the seeds.\n")
    print("| collection | documents | lines found | words left out /1000 | boilerplate words in V "
          "| boilerplate topics: kept -> left out | NPMI: kept -> left out |")
    print("|---|---|---|---|---|---|---|")
    examples = []
    with threadpool_limits(1):
        for name in args.collections:
            texts = collection_texts(name, args)
            if texts is None:
                continue
            full = engine.Corpus.from_texts(texts, strip_boilerplate=False, **PREPROCESSING)
            kept = engine.Corpus.from_texts(texts, **PREPROCESSING)
            words = boilerplate_words(kept, full)
            runs = {label: (corpus, *marked_topics(corpus, words, BOILERPLATE_TOPIC, args.k, args.seeds, args.epochs))
                    for label, corpus in (("kept", full), ("left out", kept))}
            (_, before, npmi_before, _), (_, after, npmi_after, _) = runs.values()
            print(f"| {name} | {len(texts)} | {len(kept.vectorizer.boilerplate)} | "
                  f"{words_left_out(texts, kept, boilerplate=()):.0f} | {len(words & set(full.vocabulary))} of "
                  f"{full.n_words} | {mean_sd(before, 1)} -> {mean_sd(after, 1)} | "
                  f"{npmi_before.mean():.3f} -> {npmi_after.mean():.3f} |", flush=True)
            examples.append((name, runs, kept.vectorizer.boilerplate[:4]))
        for name, runs, lines in examples:
            print(f"\n{name}, seed {args.seeds[-1]}: the two topics with most boilerplate words")
            for label, (corpus, _, _, last) in runs.items():
                for words in most_marked(corpus, last):
                    print(f"- {label}: {words}")
            print("lines in most documents: " + " | ".join(line[:70] for line in lines))
        print("\n## Collections of prose: lines found, words left out per 1,000\n")
        for name in args.plain:
            texts = raw_texts(name)
            if texts is None:
                continue
            corpus = engine.Corpus.from_texts(texts, **PREPROCESSING)
            print(f"- {name} ({len(texts)} documents): {len(corpus.vectorizer.boilerplate)} lines, "
                  f"{words_left_out(texts, corpus, boilerplate=()):.2f} per 1,000", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

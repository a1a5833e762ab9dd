#!/usr/bin/env python
"""Collections written in two languages: the stop words of both, guessed document by document.

``engine.guess_language`` names the language whose stop words cover the most of a collection's
words.  In a collection of English pages with some French ones that is English, and the French
pages keep their function words, which the topics then gather ("la les et le est").  It now also
reads each sampled document alone and joins a language that enough documents are written in
("english+french", the union of both lists; see ``engine/data/language.py`` for the rule).

Mixtures are drawn from ``quality.py``'s check collections (``--pairs A:B``: all of A's documents
or fewer, and as many of B's as make B the share ``--fractions`` of the mixture), once per seed.
For each, printed over the seeds: what the guess names; then the mixture read two ways by
``engine.Corpus.from_texts`` with the app's preprocessing for 200 documents or more (min_df 5,
max_df 0.5, accents as ``strip_accents="auto"`` sets them): with A's language's stop words only
(what the guess gave before) and with those of A's and B's languages (each collection's own
guess; each paragraph takes the list of its own language), and the default LDA
(``engine.LDA(n_topics=K, n_words=V, seed=s)`` trained by ``engine.SVI`` for ``--epochs``
passes, one thread) on each: the topics of which at least 3 of
the 10 top words are stop words of either language ("function-word topics"), the share of all
top words that are, and NPMI over the training documents (each reading against its own
vocabulary: a rough comparison, and one that function-word topics score well on, their words
occurring together in every document of their language).  Then the guess on each
single-language collection of ``--single`` (the check collections and the app's State of the
Union and Jargon File samples), which must name its one language.  Before each mixture's table:
how many of the first collection's words the second language's list removes when every list
applies to every document (a union of the lists) and when each paragraph takes its own.

    python benchmarks/mixed_languages.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
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
    APP_SAMPLES,
    BUILT,
    RAW_COLLECTIONS,
    add_default_lda_arguments,
    built_texts,
    default_lda_top_words,
    raw_texts,
)

PAIRS = ("manpages:manpages-fr", "manpages:manpages-de", "manpages-de:manpages", "manpages-fr:manpages-de")
FUNCTION_WORDS = 3  # of a topic's 10 top words: a function-word topic
PREPROCESSING = {"min_df": 5, "max_df": 0.5, "strip_accents": "auto"}  # the app's for 200 documents or more


def mixture(first: list[str], second: list[str], fraction: float, seed: int) -> list[str]:
    """All of ``first`` (or fewer) and enough of ``second`` that it is ``fraction`` of the result, shuffled."""
    rng = np.random.default_rng(seed)
    n_first, n_second = len(first), round(fraction / (1 - fraction) * len(first))
    if n_second > len(second):
        n_second = len(second)
        n_first = round(n_second * (1 - fraction) / fraction)
    texts = [first[i] for i in rng.choice(len(first), n_first, replace=False)]
    texts += [second[i] for i in rng.choice(len(second), n_second, replace=False)]
    rng.shuffle(texts)
    return texts


def function_word_topics(corpus: engine.Corpus, tops: np.ndarray, languages: str) -> tuple[int, float]:
    """Topics with at least FUNCTION_WORDS stop words of ``languages`` among their top words, and the share of all
    top words that are (the stop words read as ``corpus`` reads text)."""
    reading = engine.Vectorizer(stop_words=languages, strip_accents=corpus.vectorizer.strip_accents,
                                token_pattern=corpus.vectorizer.token_pattern)
    stop = reading.stop_word_set()
    hits = np.array([[corpus.vocabulary[w] in stop for w in row] for row in tops])
    return int((hits.sum(axis=1) >= FUNCTION_WORDS).sum()), float(hits.mean())


def words_lost(texts: list[str], languages: str) -> tuple[float, float, list[str]]:
    """Of the words ``texts`` keep with the first of ``languages``' stop words, how many per 1,000 the others' lists
    remove when every list applies to every document, and when each paragraph takes its own language's list
    (``stop_words=languages``); and the five words removed most often by all the lists."""
    first = languages.split("+")[0]
    options = {"strip_accents": False}
    own = engine.Vectorizer(stop_words=first, **options).analyzer()
    union = engine.Vectorizer(stop_words=sorted(engine.Vectorizer(stop_words=languages, **options).stop_word_set()),
                              **options).analyzer()
    each = engine.Vectorizer(stop_words=languages, **options).analyzer()
    kept, lost_all, lost_each = 0, Counter(), Counter()
    for text in texts:
        words = Counter(own(text))
        kept += sum(words.values())
        lost_all.update(words - Counter(union(text)))
        lost_each.update(words - Counter(each(text)))
    return (1000 * sum(lost_all.values()) / kept, 1000 * sum(lost_each.values()) / kept,
            [word for word, _ in lost_all.most_common(5)])


def read_both_ways(texts: list[str], languages: str, args, seed: int) -> dict[str, tuple]:
    """The default LDA on ``texts`` read with the first of ``languages`` only and with all of them."""
    out = {}
    for label, stop_words in (("first only", languages.split("+")[0]), ("both", languages)):
        corpus = engine.Corpus.from_texts(texts, stop_words=stop_words, **PREPROCESSING)
        tops, npmi = default_lda_top_words(corpus, args.k, [seed], args.epochs)
        out[label] = (*function_word_topics(corpus, tops[0], languages), float(npmi[0]), tops[0], corpus)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--pairs", nargs="*", default=list(PAIRS), metavar="A:B",
                        help=f"check collections to mix, B being the smaller share ({', '.join(sorted(BUILT))})")
    parser.add_argument("--fractions", type=float, nargs="*", default=[0.02, 0.03, 0.05, 0.1, 0.3])
    parser.add_argument("--single", nargs="*", default=list(RAW_COLLECTIONS), choices=sorted({*BUILT, *APP_SAMPLES}),
                        help="single-language collections whose guess is printed")
    parser.add_argument("--guess-only", action="store_true", help="print the guesses, train nothing")
    add_default_lda_arguments(parser)
    args = parser.parse_args(argv)
    texts = {}
    for pair in args.pairs:
        for name in pair.split(":"):
            if name not in BUILT:
                parser.error(f"{name!r} is not a check collection ({', '.join(sorted(BUILT))})")
            if name not in texts:
                texts[name] = built_texts(name)
    with threadpool_limits(1):
        for pair in args.pairs:
            first, second = pair.split(":")
            if texts[first] is None or texts[second] is None:
                continue
            both_languages = "+".join(engine.languages_of("+".join(engine.guess_language(texts[name]).language
                                                                   or "english" for name in (first, second))))
            print(f"\n## {first} with {second} ({both_languages})\n")
            every, own, examples = words_lost(texts[first], both_languages)
            print(f"Words of the {first} documents the second list removes, per 1,000 kept by the first: "
                  f"{every:.1f} with every list on every document, {own:.1f} with each paragraph's own list "
                  f"(most often: {', '.join(examples)}).\n")
            print("| share of the second | guessed (seeds) | function-word topics: first language only -> both "
                  "| their top words' share | NPMI |")
            print("|---|---|---|---|---|")
            example = None
            for fraction in args.fractions:
                guesses, rows = Counter(), []
                for seed in args.seeds:
                    mixed = mixture(texts[first], texts[second], fraction, seed)
                    guesses[engine.guess_language(mixed).language] += 1
                    if args.guess_only:
                        continue
                    both = read_both_ways(mixed, both_languages, args, seed)
                    rows.append([both["first only"][:3], both["both"][:3]])
                    example = (fraction, seed, both)
                named = ", ".join(f"{name} {n}" for name, n in guesses.most_common())
                if not rows:
                    print(f"| {fraction:.0%} | {named} | | | |")
                    continue
                r = np.array(rows)  # (seeds, 2 readings, 3 figures)
                mean, sd = r.mean(axis=0), r.std(axis=0, ddof=1) if len(rows) > 1 else np.zeros_like(r[0])
                print(f"| {fraction:.0%} | {named} | {mean[0, 0]:.1f} ± {sd[0, 0]:.1f} -> {mean[1, 0]:.1f} ± "
                      f"{sd[1, 0]:.1f} | {mean[0, 1]:.3f} -> {mean[1, 1]:.3f} | {mean[0, 2]:.3f} -> {mean[1, 2]:.3f} |")
            if example is not None:
                fraction, seed, both = example
                stop = engine.Vectorizer(stop_words=both_languages).stop_word_set()
                print(f"\nThe two topics with the most function words, {fraction:.0%}, seed {seed}:")
                for label, (_, _, _, tops, corpus) in both.items():
                    worst = np.argsort([-sum(corpus.vocabulary[w] in stop for w in row) for row in tops],
                                       kind="stable")[:2]
                    for k in worst:
                        print(f"- {label}: " + " ".join(corpus.vocabulary[w] for w in tops[k]))
        print("\n## Collections in one language\n")
        passages = {}
        for name in args.single:
            single = raw_texts(name)
            if single is None:
                continue
            guess = engine.guess_language(single)
            others = ", ".join(f"{lang} {share:.1%}" for lang, share in guess.documents.items()) or "none"
            parts = ", ".join(f"{lang} {share:.2%}" for lang, share in guess.paragraphs.items()) or "none"
            print(f"- {name}: {guess.language} (documents read alone in another language: {others}; "
                  f"paragraphs: {parts})")
            if guess.language is not None and "+" in guess.language:
                passages[name] = (single, guess.language)
        for name, (single, languages) in passages.items():
            if args.guess_only:
                break
            print(f"\n{name}, guessed {languages} from its paragraphs: function-word topics over the seeds, "
                  "first language only -> all")
            rows = [[figures[:3] for figures in read_both_ways(single, languages, args, seed).values()]
                    for seed in args.seeds]
            r = np.array(rows)
            mean, sd = r.mean(axis=0), r.std(axis=0, ddof=1) if len(rows) > 1 else np.zeros_like(r[0])
            print(f"- {mean[0, 0]:.1f} ± {sd[0, 0]:.1f} -> {mean[1, 0]:.1f} ± {sd[1, 0]:.1f} topics; their top "
                  f"words' share {mean[0, 1]:.3f} -> {mean[1, 1]:.3f}; NPMI {mean[0, 2]:.3f} -> {mean[1, 2]:.3f}; "
                  f"per seed: {', '.join(f'{a:.0f}->{b:.0f}' for a, b in r[:, :, 0])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

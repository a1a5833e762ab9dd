#!/usr/bin/env python
"""What reading words of every script whole does: ``engine.UNICODE_TOKEN_PATTERN`` against ``TOKEN_PATTERN``.

``TOKEN_PATTERN`` (every earlier version) reads a run of letters without spaces as one "word",
so a Chinese or Japanese clause is one token, and Python's ``\\w`` holds no combining mark, so it
cuts Hindi, Bengali, Tamil and the other Indic scripts at every vowel sign.
``UNICODE_TOKEN_PATTERN`` (the default for such text now) reads Chinese and Japanese as pairs of
Han characters and whole katakana words, and keeps combining marks inside words.

The texts: collections built at run time (``--corpora``, ``quality.py``'s check collections,
read by the same functions) and the translated messages of this machine's programs
(``--messages hi bn ...``: ``/usr/share/locale/<language>/LC_MESSAGES/*.mo``, 20 messages a
document; what they hold depends on the programs installed).  Each is read both ways by
``engine.Corpus.from_texts`` with the app's preprocessing for 200 documents or more (English stop
words, min_df 5, max_df 0.5).  Printed for each: the vocabulary and its share of words in the
script (Han, katakana, or the letters and marks of Hebrew, Arabic, the Indic scripts, Thai and
Lao), the tokens counted, the share of the text's characters in the script that lie in a counted
token, the documents in which none does, the seconds to build the corpus, the language
``engine.guess_language`` finds; then the default LDA (``engine.LDA(n_topics=K, n_words=V,
seed=s)`` trained by ``engine.SVI`` for ``--epochs`` passes, one thread): the share of the
topics' 10 top words in the script, and NPMI over the training documents (each reading against
its own vocabulary, so only a rough comparison), means and standard deviations over the seeds,
and the last seed's topics that hold the most such words.

    python benchmarks/unicode_tokens.py --corpora manpages-zh manpages-ja --seeds 0 1 2 3 4
    python benchmarks/unicode_tokens.py --corpora --messages hi bn ta mr gu he ar th --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections.abc import Iterator
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

from engine.data.vectorizer import _HAN, _KATAKANA  # noqa: E402  (the scripts' letters, as the pattern has them)

_SCRIPT = re.compile(f"[{_HAN}{_KATAKANA}\u0590-\u0dff\u0e00-\u0eff]")  # Hebrew ... Sinhala, Thai, Lao
READINGS = {"words (TOKEN_PATTERN)": engine.TOKEN_PATTERN, "UNICODE_TOKEN_PATTERN": engine.UNICODE_TOKEN_PATTERN}
MESSAGES_PER_DOCUMENT = 20
LOCALE = Path("/usr/share/locale")


def message_texts(language: str, root: Path = LOCALE) -> list[str]:
    """The translated messages of every program's catalogue for ``language`` under ``root``, in catalogue order,
    MESSAGES_PER_DOCUMENT to a document; an unreadable catalogue is skipped."""
    import gettext

    texts = []
    for path in sorted((root / language / "LC_MESSAGES").glob("*.mo")):
        try:
            with path.open("rb") as file:
                catalogue = gettext.GNUTranslations(file)._catalog
        except (OSError, ValueError, UnicodeDecodeError):
            continue
        messages = [text for key, text in sorted(catalogue.items(), key=lambda item: str(item[0]))
                    if key and isinstance(text, str)]  # key "": the catalogue's header
        texts += [" ".join(messages[i:i + MESSAGES_PER_DOCUMENT])
                  for i in range(0, len(messages), MESSAGES_PER_DOCUMENT)]
    return texts


def covered_characters(corpus: engine.Corpus, texts: list[str]) -> tuple[int, int, int]:
    """(Characters of ``texts`` in the script, those in a token ``corpus`` counts, documents where none is)."""
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
    tops, npmi = default_lda_top_words(corpus, k, seeds, epochs)
    shares = [written[top].mean() for top in tops]
    top = tops[-1]
    order = np.argsort(-written[top].sum(axis=1), kind="stable")[:2]  # the last seed's
    return {"n_docs": corpus.n_docs, "V": corpus.n_words, "written_V": written.mean(), "tokens": int(totals.sum()),
            "written_tokens": totals[written].sum() / totals.sum(), "covered": covered / max(characters, 1),
            "bare": bare / len(texts), "seconds": seconds, "share": np.array(shares), "npmi": npmi,
            "examples": [" ".join(vocabulary[top[t]]) for t in order]}


def _sources(args) -> Iterator[tuple[str, list[str]]]:
    """(name, texts) of each collection asked for that is there (why one is not goes to stderr)."""
    for name in args.corpora:
        texts = built_texts(name)
        if texts is not None:
            yield name, texts
    for language in args.messages:
        texts = message_texts(language)
        if len(texts) >= 20:
            yield f"messages-{language}", texts
        else:
            print(f"skipping messages-{language}: fewer than 20 documents of {language} messages under {LOCALE}",
                  file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--corpora", nargs="*", default=["manpages-zh", "manpages-ja"], choices=sorted(BUILT),
                        help="collections built at run time (quality.py's)")
    parser.add_argument("--messages", nargs="*", default=[], metavar="LANGUAGE",
                        help="also the translated messages of this machine's programs in these languages (hi, th...)")
    add_default_lda_arguments(parser)
    args = parser.parse_args(argv)
    print(f"# Words of every script: the default LDA at K = {args.k}, {args.epochs} passes, seeds {args.seeds}, "
          f"one thread (engine {engine.__version__})\n")
    print("| collection | reading | documents | V (in the script) | tokens (in the script) | characters in a "
          "counted token | documents with none | seconds to read | language found | top-10 words in the script "
          "| NPMI |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    examples = []
    with threadpool_limits(1):
        for name, texts in _sources(args):
            found = engine.guess_language(texts).language
            for label, pattern in READINGS.items():
                r = reading(texts, pattern, args.k, args.seeds, args.epochs)
                shown = found if pattern == engine.token_pattern_for(texts) else "-"
                print(f"| {name} | {label} | {r['n_docs']:,} of {len(texts):,} | {r['V']:,} ({r['written_V']:.0%}) | "
                      f"{r['tokens']:,} ({r['written_tokens']:.0%}) | {r['covered']:.1%} | {r['bare']:.1%} | "
                      f"{r['seconds']:.2f} | {shown} | {r['share'].mean():.2f} ± {r['share'].std():.2f} | "
                      f"{r['npmi'].mean():.3f} ± {r['npmi'].std():.3f} |")
                examples += [f"- {name}, {label}: {example}" for example in r["examples"]]
    print("\nThe last seed's two topics with the most words in the script, top 10 words:\n")
    print("\n".join(examples))
    return 0


if __name__ == "__main__":
    sys.exit(main())

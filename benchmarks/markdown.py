#!/usr/bin/env python
"""Markdown read as plain text and as rendered: the words only its syntax adds, in the vocabulary and topics.

Notes apps, wikis and documentation keep text as Markdown.  Read as plain text, a link's address
("https", "github", "com", "md"), a code fence's language and a reference definition's address
add words nobody reads.  ``engine.markdown_text`` (what the engine's readers apply to ``.md``
files) keeps the text a rendered page shows.

The collections are Markdown documentation installed on this machine (each file a document,
cut into passages of 300 words as the app cuts few long documents), found at run time:

- ``nodejs-api``: Node.js's API reference (``/usr/share/doc/nodejs/api/*.md``);
- ``nodejs-guides``: Node.js's contributor guides (``/usr/share/doc/nodejs/contributing/**/*.md``);
- ``npm``: npm's documentation (``/usr/lib/node_modules/npm/docs/content/**/*.md``).

For each, read two ways with the app's preprocessing (stop words guessed, min_df 5, max_df 0.5,
passages of 300 words): ``plain`` (the files as ``.txt``) and ``rendered`` (as ``.md``).  Reported:
the "address words": words of the plain reading's vocabulary that occur in the files only inside
link or image addresses, autolinks, reference definitions or fence lines (computed from the raw
files, so independent of the reader), how many of them each reading's vocabulary keeps; the
share of tokens that are address words; and the default LDA (``engine.LDA(n_topics=K, ...)``
trained by ``engine.SVI``) over ``--seeds``: the topics with at least one address word among their
10 top words, mean ± sd, and NPMI over each reading's own passages.

    python benchmarks/markdown.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import re
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

from _quality_panel import add_default_lda_arguments, marked_topics, mean_sd, most_marked  # noqa: E402

PREPROCESSING = {"stop_words": "auto", "min_df": 5, "max_df": 0.5, "strip_accents": "auto", "passage_words": 300}
COLLECTIONS = {
    "nodejs-api": ("/usr/share/doc/nodejs/api", "*.md"),
    "nodejs-guides": ("/usr/share/doc/nodejs/contributing", "**/*.md"),
    "npm": ("/usr/lib/node_modules/npm/docs/content", "**/*.md"),
}
# where Markdown holds addresses and fence marks: link and image targets, autolinks, definitions, fence lines
_SYNTAX = re.compile(r"\]\((?:[^()\n]|\([^()\n]*\))*\)|<(?:https?|ftp|mailto):[^<>\s]*>"
                     r"|^[ \t]{0,3}\[[^\]\n]+\]:[^\n]*$|^[ \t]{0,3}(?:```|~~~)[^\n]*$", re.MULTILINE)


def address_words(texts: list[str], analyze) -> set[str]:
    """Words that occur in the raw files only inside Markdown's addresses and fence lines."""
    inside, outside = set(), set()
    for text in texts:
        inside.update(analyze(" ".join(match.group(0) for match in _SYNTAX.finditer(text))))
        outside.update(analyze(_SYNTAX.sub(" ", text)))
    return inside - outside


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_default_lda_arguments(parser)
    parser.add_argument("--collections", nargs="*", default=list(COLLECTIONS), choices=list(COLLECTIONS))
    args = parser.parse_args()
    print(f"engine {engine.__version__}; default LDA, K = {args.k}, {args.epochs} passes, seeds {args.seeds}")
    for name in args.collections:
        folder, pattern = COLLECTIONS[name]
        paths = sorted(Path(folder).glob(pattern))
        if not paths:
            print(f"\n{name}: no Markdown files under {folder}; skipped")
            continue
        files = [(str(path.relative_to(folder)), path.read_bytes()) for path in paths]
        raw = [data.decode("utf-8", "replace") for _, data in files]
        readings = {"plain": [(f"{n}.txt", d) for n, d in files], "rendered": files}
        print(f"\n{name}: {len(files)} files, {sum(len(t.split()) for t in raw):,} words")
        print(f"{'reading':<9} {'passages':>8} {'vocabulary':>10} {'address words kept':>18} {'tokens that are':>15} "
              f"{'topics with one':>16} {'NPMI':>14}")
        last = {}
        for reading, named in readings.items():
            corpus = engine.Corpus.from_documents(engine.read_txt_files(named), **PREPROCESSING)
            analyze = corpus.vectorizer.count_vectorizer().build_analyzer()
            if reading == "plain":
                addresses = address_words(raw, analyze)
            kept = addresses & set(corpus.vocabulary)
            column = np.array([w in kept for w in corpus.vocabulary])
            totals = np.asarray(corpus.counts.sum(axis=0)).ravel()
            with threadpool_limits(1):
                topics, npmi, last[reading] = marked_topics(corpus, kept, 1, args.k, args.seeds, args.epochs)
            print(f"{reading:<9} {corpus.n_docs:>8,} {corpus.n_words:>10,} {len(kept):>8,} of {len(addresses):<7,} "
                  f"{1000 * totals[column].sum() / totals.sum():>11.1f}/1000 {mean_sd(topics, 1):>16} "
                  f"{mean_sd(npmi, 3):>14}")
            if reading == "plain" and kept:
                common = sorted(kept, key=lambda w: -totals[corpus.vocabulary.index(w)])[:12]
                print(f"          e.g. {', '.join(common)}")
                print("          " + "\n          ".join(most_marked(corpus, last[reading])))


if __name__ == "__main__":
    main()

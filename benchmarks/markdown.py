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
passages of 300 words): ``plain`` (the files as ``.txt``: ``page_md.txt``) and ``rendered`` (as ``.md``).  Reported:
the passages and tokens of each reading; the "syntax words", words of which the rendered files
hold under a tenth of the plain files' occurrences (counted before the vocabulary's filters: found
almost only in addresses, HTML comments, fences and front matter), and how many of them each
reading's vocabulary holds; the default LDA
(``engine.LDA(n_topics=K, ...)`` trained by ``engine.SVI``) over ``--seeds``: the topics with at
least one syntax word among their 10 top words, mean ± sd, and NPMI over each reading's own
passages (so the NPMIs of two readings are of different vocabularies); and the share of the
plain reading's tokens that the rendered one leaves out.

    python benchmarks/markdown.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
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
    word_totals,
)

PREPROCESSING = {"stop_words": "auto", "min_df": 5, "max_df": 0.5, "strip_accents": "auto", "passage_words": 300}
COLLECTIONS = {
    "nodejs-api": ("/usr/share/doc/nodejs/api", "*.md"),
    "nodejs-guides": ("/usr/share/doc/nodejs/contributing", "**/*.md"),
    "npm": ("/usr/lib/node_modules/npm/docs/content", "**/*.md"),
}


def main(collections: dict[str, tuple[str, str]] = COLLECTIONS, kind: str = "Markdown", description: str = __doc__,
         argv=None) -> None:
    """Read each collection's files (``(folder, glob pattern)`` by name) as plain text and as rendered, and print
    the table of the module's notes; ``kind`` names the files' format (benchmarks/rst.py runs it on reStructuredText).
    """
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    add_default_lda_arguments(parser)
    parser.add_argument("--collections", nargs="*", default=list(collections), choices=list(collections))
    args = parser.parse_args(argv)
    print(f"engine {engine.__version__}; default LDA, K = {args.k}, {args.epochs} passes, seeds {args.seeds}")
    for name in args.collections:
        folder, pattern = collections[name]
        paths = sorted(Path(folder).glob(pattern))
        if not paths:
            print(f"\n{name}: no {kind} files under {folder}; skipped")
            continue
        files = [(str(path.relative_to(folder)), path.read_bytes()) for path in paths]
        raw = [data.decode("utf-8", "replace") for _, data in files]
        # plain: "page.md" read as "page_md.txt" ("page.md.txt" would be read as Markdown, as Sphinx names its copies)
        readings = {"plain": [(f"{n[:-len(Path(n).suffix)]}_{Path(n).suffix[1:]}.txt", d) for n, d in files],
                    "rendered": files}
        print(f"\n{name}: {len(files)} files, {sum(len(t.split()) for t in raw):,} words")
        documents = {reading: engine.read_txt_files(named) for reading, named in readings.items()}
        corpora = {reading: engine.Corpus.from_documents(read, **PREPROCESSING) for reading, read in documents.items()}
        analyze = corpora["plain"].vectorizer.count_vectorizer().build_analyzer()  # before the vocabulary's filters
        syntax = mostly_gone(*(Counter(word for d in read for word in analyze(d.text)) for read in documents.values()))
        print(f"{'reading':<9} {'passages':>8} {'tokens':>9} {'vocabulary':>10} {'syntax words':>12} "
              f"{'topics with one':>16} {'NPMI':>14}")
        for reading, corpus in corpora.items():
            kept = syntax & set(corpus.vocabulary)
            with threadpool_limits(1):
                topics, npmi, last = marked_topics(corpus, syntax, 1, args.k, args.seeds, args.epochs)
            print(f"{reading:<9} {corpus.n_docs:>8,} {corpus.n_tokens:>9,} {corpus.n_words:>10,} {len(kept):>12,} "
                  f"{mean_sd(topics, 1):>16} {mean_sd(npmi, 3):>14}")
            if reading == "plain" and kept:
                totals = word_totals(corpus.counts, corpus.vocabulary)
                print(f"          e.g. {', '.join(sorted(kept, key=lambda w: -totals[w])[:12])}")
                print("          " + "\n          ".join(most_marked(corpus, last)))
        plain, rendered = corpora.values()
        print(f"          the rendered reading leaves out {1000 * (1 - rendered.n_tokens / plain.n_tokens):.1f} of "
              "every 1,000 tokens of the plain one")


if __name__ == "__main__":
    main()

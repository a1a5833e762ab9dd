#!/usr/bin/env python
"""Web pages read with their markup and without it (``strip_markup``), and where markup is found.

Text scraped from or saved as web pages keeps its tags, and the token pattern reads tag and
attribute names as words.  ``engine.Corpus.from_texts`` now leaves markup out when a tenth of the
documents or more hold two closing tags (``strip_markup="auto"``, ``engine.holds_markup``).

The collections: web pages of Debian packages, fetched with ``apt-get download`` (no install, no
root) and unpacked into ``benchmarks/.cache/debs`` (``--pages``: LibreOffice's English help, 2,560
pages of Help text; Python's HTML documentation, the pages below its top folder).  Each is read
as the app reads a .zip of them (``engine.read_zip``'s texts) by ``engine.Corpus.from_texts`` with
the app's preprocessing for 200 documents or more (English stop words, min_df 5, max_df 0.5), with
``strip_markup=False`` and ``True``.  "Markup words" are the words of the first reading whose
count in the text without markup is less than a tenth of their count in the pages: words found
almost only inside tags (a word such as "asyncio", in many links' addresses and in the text too,
is not one).  For each
reading: the vocabulary, the markup words in it, and the default LDA (``engine.LDA(n_topics=K,
n_words=V, seed=s)`` trained by ``engine.SVI`` for ``--epochs`` passes, one thread): the topics
with at least 3 markup words among their 10 top words, the share of top words that are markup
words, NPMI over the training documents (each reading against its own vocabulary); means and
standard deviations over the seeds; then the last seed's topics with most markup words.
Last, ``engine.holds_markup`` on the check collections and the app's samples (``--plain``),
where it must find none.

    python benchmarks/markup.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
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
    default_lda_top_words,
    mostly_gone,
    raw_texts,
    word_totals,
)

# name -> (Debian package, the pages' glob below the unpacked package, what they are)
PAGES = {
    "libreoffice-help": ("libreoffice-help-en-us", "usr/share/libreoffice/help/en-US/text/**/*.html",
                         "LibreOffice's English help pages (Debian libreoffice-help-en-us; MPL 2.0)"),
    "python-docs": ("python3.11-doc", "usr/share/doc/python3.11/html/*/**/*.html",
                    "Python 3.11's HTML documentation below its top folder (Debian python3.11-doc; PSF licence)"),
}
PREPROCESSING = {"stop_words": "english", "min_df": 5, "max_df": 0.5}  # the app's for 200 documents or more
MARKUP_TOPIC = 3  # markup words among a topic's 10 top words


def unpacked(package: str, cache: Path) -> Path | None:
    """The files of Debian ``package`` unpacked under ``cache`` (fetched by apt-get download once); None if
    apt-get or dpkg-deb cannot get it, after saying why on stderr."""
    folder = cache / package
    if folder.is_dir():
        return folder
    if shutil.which("apt-get") is None or shutil.which("dpkg-deb") is None:
        print(f"skipping {package}: apt-get and dpkg-deb are needed to fetch it", file=sys.stderr)
        return None
    with tempfile.TemporaryDirectory() as work:
        done = subprocess.run(["apt-get", "download", package], cwd=work, capture_output=True, text=True)
        debs = list(Path(work).glob("*.deb"))
        if done.returncode != 0 or not debs:
            print(f"skipping {package}: apt-get download failed ({done.stderr.strip()[-200:]})", file=sys.stderr)
            return None
        staging = cache / f"{package}.partial"
        shutil.rmtree(staging, ignore_errors=True)
        staging.mkdir(parents=True)
        subprocess.run(["dpkg-deb", "-x", str(debs[0]), str(staging)], check=True)
        staging.rename(folder)  # complete or absent
    return folder


def page_texts(name: str, cache: Path) -> list[str] | None:
    package, pattern, _ = PAGES[name]
    folder = unpacked(package, cache)
    if folder is None:
        return None
    files = sorted(path for path in folder.glob(pattern) if path.is_file())
    return [engine.decode_text(path.read_bytes(), path.name) for path in files]


def markup_words(texts: list[str], corpus: engine.Corpus) -> set[str]:
    """The words of ``corpus`` (read with the markup) whose count without the markup is under a tenth of their
    count."""
    plain = corpus.vectorizer.count([engine.strip_markup(text) for text in texts], corpus.vocabulary).counts
    return mostly_gone(word_totals(corpus.counts, corpus.vocabulary), word_totals(plain, corpus.vocabulary))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--pages", nargs="*", default=list(PAGES), choices=sorted(PAGES))
    parser.add_argument("--plain", nargs="*", default=list(RAW_COLLECTIONS), choices=sorted({*BUILT, *APP_SAMPLES}),
                        help="collections without markup, on which holds_markup is printed")
    parser.add_argument("--cache", type=Path, default=HERE / ".cache" / "debs")
    add_default_lda_arguments(parser)
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        for name in args.pages:
            texts = page_texts(name, args.cache)
            if texts is None:
                continue
            print(f"\n## {name}: {PAGES[name][2]}, {len(texts):,} pages; holds_markup: "
                  f"{engine.holds_markup(texts)}\n")
            raw = engine.Corpus.from_texts(texts, strip_markup=False, **PREPROCESSING)
            markup = markup_words(texts, raw)
            print("| reading | vocabulary | markup words in it | topics with 3+ markup words | their share of the "
                  "top words | NPMI |")
            print("|---|---|---|---|---|---|")
            shown = {}
            for label, strip in (("with the markup", False), ("without (`strip_markup`)", True)):
                corpus = raw if not strip else engine.Corpus.from_texts(texts, strip_markup=True, **PREPROCESSING)
                tops, npmi = default_lda_top_words(corpus, args.k, args.seeds, args.epochs)
                hits = [np.array([[corpus.vocabulary[w] in markup for w in row] for row in top]) for top in tops]
                topics = np.array([(h.sum(axis=1) >= MARKUP_TOPIC).sum() for h in hits])
                share = np.array([h.mean() for h in hits])
                in_vocabulary = sum(word in markup for word in corpus.vocabulary)
                print(f"| {label} | {corpus.n_words:,} | {in_vocabulary:,} | {topics.mean():.1f} ± {topics.std():.1f} "
                      f"| {share.mean():.3f} | {npmi.mean():.3f} ± {npmi.std():.3f} |")
                worst = np.argsort(-hits[-1].sum(axis=1), kind="stable")[:2]
                shown[label] = [" ".join(corpus.vocabulary[w] for w in tops[-1][k]) for k in worst]
            print(f"\nThe two topics with most markup words, seed {args.seeds[-1]}:")
            for label, rows in shown.items():
                for row in rows:
                    print(f"- {label}: {row}")
        print("\n## holds_markup on collections without markup\n")
        for name in args.plain:
            texts = raw_texts(name)
            if texts is not None:
                print(f"- {name}: {engine.holds_markup(texts)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

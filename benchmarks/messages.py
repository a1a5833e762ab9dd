#!/usr/bin/env python
"""E-mail and newsgroup messages read whole and as their senders wrote them (``strip_messages``).

A mailbox export or a newsgroup archive keeps each message's header lines (paths of host names,
addresses, message ids), the lines it quotes, the line that introduces a quote ("In article <id>,
x@y writes:") and the sender's signature.  ``engine.Corpus.from_texts`` now reads a message as its
subject and the lines its sender wrote (``strip_messages="auto"``, ``engine.message_text``).

The collections:

- ``newsgroups``: 200 real Usenet posts of 1993 (sci.space and alt.atheism) that gensim ships as
  test data (``gensim/test/test_data/mini_newsgroup``, a zlib-compressed pickle).  The posts are
  read from the pickle's string opcodes with ``pickletools.genops``, which parses the stream
  without running it: nothing is unpickled.
- ``<name>+mail`` for each of ``--wrapped`` (the app's samples and the check collections): every
  text made a message of the same kind.  Its header block is a real post's (the posts' blocks
  taken in turn, the subject replaced by the text's first six words); half of the messages
  (drawn with a fixed seed) are replies that quote two to six lines of another text of the
  collection under a real post's attribution ("In article <id>, address (name) writes:"); and
  60 % end with a real post's signature (the lines after its "-- ").  The texts keep their own
  words, so what the reading removes is known.

Each is read by ``engine.Corpus.from_texts`` with the app's preprocessing for 200 documents or
more (stop words guessed, min_df 5, max_df 0.5, accents as ``strip_accents="auto"`` sets them)
with ``strip_messages=False`` and ``"auto"``.  "Message words" are the words of the first reading
whose count in the second is under a tenth of their count in the first: words found almost only
in headers, attributions, quotes and signatures.  For each reading: the words (tokens) left out
per 1,000, the seconds ``from_texts`` takes to read them as messages over its seconds to read
them whole (best of 3 each), and the default LDA (``engine.LDA(n_topics=K, n_words=V, seed=s)`` trained by
``engine.SVI`` for ``--epochs`` passes, one thread): the topics with at least 3 message words
among their 10 top words, and NPMI over the training documents (each reading against its own
vocabulary, so the two NPMIs are not comparable; for a collection made messages, also the NPMI
of the same runs on each text under its subject line alone, what reading the messages should
give back); means and standard deviations over the seeds,
then the last seed's topics with most message words.  K is ``--k`` (``--newsgroup-k`` for the 200
posts).  Last, on the collections of other kinds (``--plain``), how many documents read as
messages and whether the collection would be read as one: none should.

    python benchmarks/messages.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import argparse
import pickletools
import sys
import time
import zlib
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
    add_default_lda_arguments,
    default_lda_top_words,
    marked_topics,
    mean_sd,
    most_marked,
    mostly_gone,
    raw_texts,
    word_totals,
    words_left_out,
)

WRAPPED = ("sotu", "jargon", "fortunes")
PREPROCESSING = {"stop_words": "auto", "min_df": 5, "max_df": 0.5, "strip_accents": "auto"}  # the app's, >= 200 docs
MESSAGE_TOPIC = 3  # message words among a topic's 10 top words
REPLY_SHARE, SIGNATURE_SHARE = 0.5, 0.6  # of the wrapped texts


def newsgroup_posts() -> list[str] | None:
    """gensim's 200 test posts, read from the pickle's string opcodes (never unpickled); None if gensim is absent."""
    try:
        import gensim
    except ImportError:
        print("skipping newsgroups: gensim is not installed (pip install gensim)", file=sys.stderr)
        return None
    path = Path(gensim.__file__).parent / "test" / "test_data" / "mini_newsgroup"
    stream = zlib.decompress(path.read_bytes())
    strings = [value for opcode, value, _ in pickletools.genops(stream) if opcode.name in ("UNICODE", "BINUNICODE")]
    return [value for value in strings if isinstance(value, str) and "\nFrom:" in value[:2000]]


def _header_block(post: str) -> list[str]:
    return post.split("\n\n", 1)[0].split("\n")


def _signature(post: str) -> list[str] | None:
    lines = post.rstrip("\n").split("\n")
    marks = [i for i, line in enumerate(lines) if line.rstrip() == "--"]
    return lines[marks[-1]:] if marks and len(lines) - marks[-1] <= 12 else None


def _field(block: list[str], name: str) -> str:
    return next((line.split(":", 1)[1].strip() for line in block if line.lower().startswith(name + ":")), "")


def _subject(text: str) -> str:
    return " ".join(text.split()[:6])


def as_messages(texts: list[str], posts: list[str], seed: int = 0) -> list[str]:
    """``texts`` made messages with the posts' header blocks, attributions and signatures (the module's notes)."""
    rng = np.random.default_rng(seed)
    blocks = [_header_block(post) for post in posts]
    signatures = [s for s in map(_signature, posts) if s is not None]
    made = []
    for i, text in enumerate(texts):
        block = blocks[i % len(blocks)]
        subject = _subject(text)
        headers = [line if not line.lower().startswith("subject:") else f"Subject: {subject}" for line in block]
        parts = ["\n".join(headers), ""]
        if rng.random() < REPLY_SHARE and len(texts) > 1:
            other = blocks[(i + 7) % len(blocks)]
            quoted = [line for line in texts[int(rng.integers(len(texts)))].split("\n") if line.strip()]
            start = int(rng.integers(max(1, len(quoted) - 1)))
            lines = quoted[start:start + int(rng.integers(2, 7))] or quoted[:1]
            parts += [f"In article {_field(other, 'message-id')}, {_field(other, 'from')} writes:",
                      *(f"> {line}" for line in lines), ""]
        parts.append(text)
        if rng.random() < SIGNATURE_SHARE and signatures:
            parts += signatures[int(rng.integers(len(signatures)))]
        made.append("\n".join(parts))
    return made


def collection(name: str, posts: list[str]) -> tuple[list[str] | None, list[str] | None]:
    """The texts of ``name`` and, for a collection made messages, each text under its subject line alone."""
    if name == "newsgroups":
        return posts, None
    texts = raw_texts(name.removesuffix("+mail"))
    if texts is None:
        return None, None
    return as_messages(texts, posts), [f"{_subject(text)}\n\n{text}" for text in texts]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--wrapped", nargs="*", default=list(WRAPPED), help="collections made messages")
    parser.add_argument("--newsgroup-k", type=int, default=10, help="LDA topics for the 200 posts")
    parser.add_argument("--plain", nargs="*", default=list(RAW_COLLECTIONS), help="collections of other kinds")
    add_default_lda_arguments(parser)
    args = parser.parse_args(argv)
    posts = newsgroup_posts()
    if posts is None:
        return 1
    names = ["newsgroups", *(f"{name}+mail" for name in args.wrapped)]
    print(f"Default LDA, {args.epochs} epochs, seeds {args.seeds}; mean ± sd over the seeds.\n")
    print("| collection | documents | K | read as messages | words left out /1000 | from_texts time ratio "
          "| message words in V | message-word topics: whole -> as messages | NPMI: whole -> as messages "
          "(the texts under their subjects alone) |")
    print("|---|---|---|---|---|---|---|---|---|")
    examples = []
    with threadpool_limits(1):
        for name in names:
            texts, alone = collection(name, posts)
            if texts is None:
                continue
            k = args.newsgroup_k if name == "newsgroups" else args.k
            seconds, corpora = {}, {}
            for strip in (False, "auto"):
                times = []
                for _ in range(3):
                    started = time.perf_counter()
                    corpora[strip] = engine.Corpus.from_texts(texts, strip_messages=strip, **PREPROCESSING)
                    times.append(time.perf_counter() - started)
                seconds[strip] = min(times)
            whole, read = corpora[False], corpora["auto"]
            words = mostly_gone(word_totals(whole.counts, whole.vocabulary), word_totals(read.counts, read.vocabulary))
            runs = {label: (corpus, *marked_topics(corpus, words, MESSAGE_TOPIC, k, args.seeds, args.epochs))
                    for label, corpus in (("whole", whole), ("as messages", read))}
            (_, before, npmi_before, _), (_, after, npmi_after, _) = runs.values()
            if alone is not None:
                npmi_alone = default_lda_top_words(engine.Corpus.from_texts(alone, **PREPROCESSING), k, args.seeds,
                                                   args.epochs)[1]
            share = sum(map(engine.is_message, texts)) / len(texts)
            print(f"| {name} | {len(texts)} | {k} | {share:.0%} ({'yes' if read.vectorizer.strip_messages else 'no'})"
                  f" | {words_left_out(texts, read, strip_messages=False):.0f}"
                  f" | {seconds['auto'] / seconds[False]:.2f}x"
                  f" | {len(words & set(whole.vocabulary))} of {whole.n_words} | "
                  f"{mean_sd(before, 1)} -> {mean_sd(after, 1)} | {npmi_before.mean():.3f} -> {mean_sd(npmi_after, 3)}"
                  + (f" ({mean_sd(npmi_alone, 3)})" if alone is not None else "") + " |", flush=True)
            examples.append((name, runs))
        for name, runs in examples:
            print(f"\n{name}, seed {args.seeds[-1]}: the two topics with most message words")
            for label, (corpus, _, _, last) in runs.items():
                for top_words in most_marked(corpus, last):
                    print(f"- {label}: {top_words}")
    print("\n## Collections of other kinds: documents read as messages\n")
    for name in args.plain:
        texts = raw_texts(name)
        if texts is not None:
            print(f"- {name}: {sum(map(engine.is_message, texts))} of {len(texts)} documents; read as messages: "
                  f"{'yes' if engine.holds_messages(texts) else 'no'}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

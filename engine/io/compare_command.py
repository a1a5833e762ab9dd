"""``svi-topics compare MODEL OTHER``: which topics of one model file are found again in another.

The two models' topics are paired one to one by :func:`engine.match_topics` (least summed
Hellinger distance; word by word when the files' vocabularies differ).  The first line says
how many of MODEL's topics (an HDP's topics in use) are found again in OTHER, each with its
partner as its closest topic both ways; then every such topic gets a line: its partner,
whether it is found again, the top words they share and the distance, its own top words and,
indented below, its partner's.  Two runs with different seeds, schedules or numbers of topics
show which topics a reader can trust.
"""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np

from engine.errors import VocabularyMismatchError
from engine.inference.matching import match_topics
from engine.inference.quality import IN_USE_WEIGHT
from engine.io.model_files import load_model
from engine.models.hdp import HDP

__all__: list[str] = []  # engine.cli adds the command with add_compare; nothing here is engine API


def add_compare(commands: Any) -> None:
    """Add the ``compare`` subcommand to ``commands`` (argparse subparsers)."""
    compare = commands.add_parser(
        "compare",
        help="say which topics of one model file are found again in another",
        description="Pair each topic of MODEL with one topic of OTHER so that the pairs are as close as they can "
        "be overall (Hellinger distance between their word probabilities, 0 to 1; word by word when the two files "
        "have different vocabularies), and say which topics are found again: those that are the closest topic of "
        "their partner and have it as their own closest. Each topic of MODEL (an HDP's topics in use, at least "
        "1% of the words) gets a line with its partner, the number of top words they share and the distance, its "
        "top words and, indented, its partner's.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    compare.add_argument("model", metavar="MODEL", help="model file (.npz) whose topics are looked for")
    compare.add_argument("other", metavar="OTHER", help="model file (.npz) they are looked for in")
    compare.add_argument("--n", type=int, default=10, help="top words per topic, shown and compared")
    compare.set_defaults(handler=run_compare)


def run_compare(args: argparse.Namespace) -> int:
    if args.n < 1:
        raise ValueError(f"--n must be at least 1, got {args.n}")
    loaded, other = load_model(args.model), load_model(args.other)
    missing = unlined_file([args.model, args.other], [loaded, other])
    if missing is not None:
        raise VocabularyMismatchError(
            f"{args.model} and {args.other} have {loaded.model.n_words} and {other.model.n_words} words, and "
            f"{missing} was saved without its vocabulary, so their words cannot be lined up; compare model files "
            "saved with their vocabulary ('fit' and the app save it)")
    found = match_topics(loaded.model, other.model, n_top=args.n)  # a loaded model knows its words, if saved
    hdp = isinstance(loaded.model, HDP)
    weights = loaded.model.word_shares()
    if hdp:  # its topics in use, heaviest first, as the app shows them
        order = loaded.model.topic_order()
        topics = order[loaded.model.topic_weights()[order] >= IN_USE_WEIGHT]
    else:
        topics = np.arange(loaded.model.n_topics)
    print(f"# {args.model}: {_kind(loaded.model)}; {args.other}: {_kind(other.model)}")
    which = f"{topics.size} topics in use" if hdp else f"{topics.size} topics"
    print(f"# {found.n_recurring(topics)} of the {which} are found again in {args.other} (each the closest "
          "topic of its partner, both ways)")
    top = loaded.model.top_words(args.n, vocabulary=loaded.vocabulary)
    other_top = other.model.top_words(args.n, vocabulary=other.vocabulary)
    width, other_width = len(str(loaded.model.n_topics - 1)), len(str(other.model.n_topics - 1))
    for k in topics:
        k = int(k)
        partner = int(found.partner[k])
        head = f"topic {k:>{width}} ({weights[k]:.3f}){topic_label(loaded.labels, k)}"
        if partner < 0:
            print(f"{head} -> none (OTHER has fewer topics): {_words(top[k])}")
            continue
        verdict = "found again" if found.recurring[k] else "not clearly found again"
        print(f"{head} -> topic {partner:>{other_width}} ({verdict}; {found.shared_words[k]} of {found.n_top} top "
              f"words shared, distance {found.distance[k]:.2f}): {_words(top[k])}")
        print(f"  {' ' * width}  {partner:>{other_width}}{topic_label(other.labels, partner)}: "
              f"{_words(other_top[partner])}")
    return 0


def _kind(model) -> str:
    return f"{type(model).__name__}, {model.n_topics} topics, {model.n_words} words"


def _words(words) -> str:
    return " ".join(str(word) for word in words)


def unlined_file(paths: list[str], loaded: list) -> str | None:
    """The first of ``paths`` saved without its vocabulary when the files differ in their number of words.

    Such files' words cannot be lined up (None: they can, word by word or column by column).
    """
    if len({item.model.n_words for item in loaded}) == 1:
        return None
    return next((path for path, item in zip(paths, loaded, strict=True) if item.vocabulary is None), None)


def topic_label(labels: dict, topic: int) -> str:
    """A topic's label from the file, in brackets, on one line and without control characters."""
    label = labels.get(topic, "")
    return f" [{''.join(ch if ch.isprintable() else ' ' for ch in label).strip()}]" if label.strip() else ""

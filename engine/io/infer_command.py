"""``svi-topics infer MODEL --text "..." | --file PATH``: topic proportions of new documents as CSV.

The texts are counted with the model file's own preprocessing and vocabulary
(``model.count_texts``, the same steps as :meth:`engine.LDA.transform_texts`), so a
document of the training collection gets the proportions it had in training.  With
``--file`` each non-blank line is one document; blank lines are skipped.  The CSV on
stdout has one row per document: ``document`` (its 0-based number, in the order
given), ``known_words`` and ``unknown_words`` (tokens in and out of the vocabulary;
stop words are neither), then one column ``topic_0``, ``topic_1``... per topic.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

from engine.data.text import decode_text
from engine.errors import EngineError
from engine.io.model_files import load_model

__all__: list[str] = []  # engine.cli adds the command with add_infer; nothing here is engine API


class InferUsageError(EngineError, ValueError):
    """A problem with the ``infer`` options (reported as one line, exit code 2)."""


def add_infer(commands: Any) -> None:
    """Add the ``infer`` subcommand to ``commands`` (argparse subparsers)."""
    infer = commands.add_parser(
        "infer",
        help="print the topic proportions of new documents (CSV)",
        description="Count new text with the preprocessing and vocabulary saved in MODEL and print each "
        "document's topic proportions as CSV on stdout: document (0-based, in the order given), known_words, "
        "unknown_words (tokens not in the vocabulary, left out), topic_0, topic_1, ... Words of the text "
        "that are not in the vocabulary are dropped; a document with none in it gets the prior's proportions "
        "(a note on stderr says so). A model file saved before the preprocessing was recorded is read with "
        "the defaults (lower case, accents stripped, English stop words).",
    )
    infer.add_argument("model", metavar="MODEL", help="model file (.npz) written by 'fit', the explorer or "
                       "engine.save_model (with its vocabulary)")
    source = infer.add_mutually_exclusive_group(required=True)
    source.add_argument("--text", action="append", metavar="TEXT",
                        help="the text of one document (repeat for several)")
    source.add_argument("--file", metavar="PATH",
                        help="a text file with one document per line (blank lines are skipped); '-' reads stdin")
    infer.add_argument("--encoding", default=None,
                       help="encoding of --file (e.g. utf-8, windows-1252); default: detected")
    infer.set_defaults(handler=run_infer)


def _documents(args: Any) -> list[str]:
    if args.text is not None:
        return list(args.text)
    if args.file == "-":
        data, name = sys.stdin.buffer.read(), "stdin"
    else:
        path = Path(args.file)
        if not path.is_file():
            raise InferUsageError(f"--file {args.file!r} is not a file; give a text file with one document per line")
        data, name = path.read_bytes(), path.name
    lines = [line for line in decode_text(data, name, args.encoding).splitlines() if line.strip()]
    if not lines:
        raise InferUsageError(f"--file {args.file!r} has no text; give one document per line")
    return lines


def run_infer(args: Any) -> int:
    """Print the CSV of ``infer``; returns the exit code."""
    documents = _documents(args)
    loaded = load_model(args.model)
    model = loaded.model
    if loaded.vocabulary is None:
        raise InferUsageError(f"{args.model!r} holds no vocabulary, so new text cannot be counted; save the "
                              "model with its vocabulary (svi-topics fit and the explorer do)")
    if "vectorizer_" not in vars(model):
        print("note: the model file does not record its preprocessing (saved by an older version); using the "
              "defaults: lower case, accents stripped, English stop words", file=sys.stderr)
    counted = model.count_texts(documents)
    proportions = model.transform(counted.counts)
    known = counted.known
    for d in (d for d in range(len(documents)) if known[d] == 0):
        print(f"note: document {d} has no word of the model's vocabulary; its proportions are the prior's",
              file=sys.stderr)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    writer.writerow(["document", "known_words", "unknown_words", *(f"topic_{k}" for k in range(model.n_topics))])
    for d, row in enumerate(proportions):
        writer.writerow([d, int(known[d]), int(counted.unknown[d]), *(f"{value:.6g}" for value in row)])
    return 0

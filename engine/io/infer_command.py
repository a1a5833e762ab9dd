"""``svi-topics infer MODEL --text "..." | --file PATH``: topic proportions of new documents as CSV.

The texts are counted with the model file's own preprocessing and vocabulary
(``model.count_texts``, the same steps as :meth:`engine.LDA.transform_texts`), so a
document of the training collection gets the proportions it had in training.  With
``--file`` each non-blank line is one document; blank lines are skipped.  The input is
read, counted and written a block of documents at a time, within ``--max-document-mb``
per line, ``--max-input-mb`` in all and ``SVI_TOPICS_MAX_DOCUMENTS`` documents.  The CSV on
stdout has one row per document: ``document`` (its 0-based number, in the order
given), ``known_words`` and ``unknown_words`` (tokens in and out of the vocabulary;
stop words are neither), then one column ``topic_0``, ``topic_1``... per topic.
"""

from __future__ import annotations

import codecs
import contextlib
import csv
import io
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

from engine.data.text import detect_encoding
from engine.errors import EngineError
from engine.io.model_files import load_model
from engine.limits import Limits, current_limits

__all__: list[str] = []  # engine.cli adds the command with add_infer; nothing here is engine API


_MB = 1_000_000
_HEAD_BYTES = 1 << 20  # the first block, from which the encoding is detected
_CHUNK_DOCUMENTS = 1000  # documents counted, inferred and written at a time


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
                       help="encoding of --file (e.g. utf-8, windows-1252); default: detected from its first MB")
    infer.add_argument("--max-document-mb", type=float, default=10.0, metavar="MB",
                       help="longest line (document) of --file, in MB (default 10)")
    infer.add_argument("--max-input-mb", type=float, default=1000.0, metavar="MB",
                       help="largest --file or stdin, in MB (default 1000); it is read and written a block of "
                       "1000 documents at a time")
    infer.set_defaults(handler=run_infer)


class _Input(io.RawIOBase):
    """The input's bytes, a first block already read and then the rest; refuses more than ``max_bytes``."""

    def __init__(self, head: bytes, rest: BinaryIO, max_bytes: int, name: str) -> None:
        super().__init__()
        self._head, self._rest, self._max_bytes, self._name = head, rest, max_bytes, name
        self._total = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._head:
            n = min(len(buffer), len(self._head))
            buffer[:n] = self._head[:n]
            self._head = self._head[n:]
        else:
            data = self._rest.read(len(buffer))
            n = len(data)
            buffer[:n] = data
        self._total += n
        if self._total > self._max_bytes:
            raise InferUsageError(f"{self._name!r} is larger than --max-input-mb "
                                  f"{self._max_bytes / _MB:g} MB; split it or raise --max-input-mb")
        return n


def _encoding(head: bytes, at_end: bool, name: str, encoding: str | None) -> str:
    """The encoding of the input, from its first block (a byte-order mark, else detected on whole lines)."""
    if encoding is not None:
        return encoding
    for bom, bom_encoding in [(codecs.BOM_UTF32_LE, "utf-32"), (codecs.BOM_UTF32_BE, "utf-32"),
                              (codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                              (codecs.BOM_UTF16_BE, "utf-16")]:
        if head.startswith(bom):
            return bom_encoding
    cut = len(head) if at_end else head.rfind(b"\n") + 1  # a multi-byte character is never cut at a newline
    return detect_encoding(head[:cut] or head, name)


def _file_documents(args: Any, limits: Limits) -> Iterator[str]:
    """The non-blank lines of ``--file``, read a line at a time within the size limits."""
    if args.file == "-":
        stream, name = sys.stdin.buffer, "stdin"
    else:
        path = Path(args.file)
        if not path.is_file():
            raise InferUsageError(f"--file {args.file!r} is not a file; give a text file with one document per line")
        stream, name = path.open("rb"), path.name
    max_line = int(args.max_document_mb * _MB)
    with stream if args.file != "-" else contextlib.nullcontext(stream):
        head = stream.read(_HEAD_BYTES)
        encoding = _encoding(head, len(head) < _HEAD_BYTES, name, args.encoding)
        raw = _Input(head, stream, int(args.max_input_mb * _MB), name)
        text = io.TextIOWrapper(io.BufferedReader(raw), encoding=encoding)
        n_docs = n_lines = 0
        while True:
            n_lines += 1
            try:
                line = text.readline(max_line + 1)
            except UnicodeDecodeError as exc:
                raise InferUsageError(f"{name!r} is not valid {encoding} at line {n_lines} ({exc.reason}); "
                                      "give its encoding with --encoding (without it, the first MB decides)") from None
            if not line:
                break
            if len(line) > max_line and not line.endswith("\n"):
                raise InferUsageError(f"line {n_lines} of {name!r} is longer than {max_line:,} characters "
                                      f"(--max-document-mb {args.max_document_mb:g}); split it or raise "
                                      "--max-document-mb")
            if line.strip():
                n_docs += 1
                limits.check("max_documents", n_docs, f"the number of documents in {name!r}")
                yield line.rstrip("\r\n")
    if n_docs == 0:
        raise InferUsageError(f"--file {args.file!r} has no text; give one document per line")


def _chunks(documents: Iterable[str], size: int) -> Iterator[list[str]]:
    chunk: list[str] = []
    for document in documents:
        chunk.append(document)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def run_infer(args: Any) -> int:
    """Print the CSV of ``infer``, a block of documents at a time; returns the exit code."""
    for option in ("max_document_mb", "max_input_mb"):
        value = getattr(args, option)
        if not value > 0:
            raise InferUsageError(f"--{option.replace('_', '-')} must be a positive number, got {value!r}")
    if args.file is not None and args.file != "-" and not Path(args.file).is_file():
        raise InferUsageError(f"--file {args.file!r} is not a file; give a text file with one document per line")
    loaded = load_model(args.model)
    model = loaded.model
    if loaded.vocabulary is None:
        raise InferUsageError(f"{args.model!r} holds no vocabulary, so new text cannot be counted; save the "
                              "model with its vocabulary (svi-topics fit and the explorer do)")
    if "vectorizer_" not in vars(model):
        print("note: the model file does not record its preprocessing (saved by an older version); using the "
              "defaults: lower case, accents stripped, English stop words", file=sys.stderr)
    limits = current_limits()
    if args.text is not None:
        limits.check("max_documents", len(args.text), "the number of --text documents")
    documents = list(args.text) if args.text is not None else _file_documents(args, limits)
    writer = csv.writer(sys.stdout, lineterminator="\n")
    start = 0
    for chunk in _chunks(documents, _CHUNK_DOCUMENTS):
        counted = model.count_texts(chunk)
        proportions = model.transform(counted.counts)
        known = counted.known
        for d in np.flatnonzero(known == 0):
            print(f"note: document {start + int(d)} has no word of the model's vocabulary; its proportions are "
                  "the prior's", file=sys.stderr)
        if start == 0:
            writer.writerow(["document", "known_words", "unknown_words",
                             *(f"topic_{k}" for k in range(model.n_topics))])
        for d, row in enumerate(proportions):
            writer.writerow([start + d, int(known[d]), int(counted.unknown[d]), *(f"{value:.6g}" for value in row)])
        sys.stdout.flush()
        start += len(chunk)
    return 0

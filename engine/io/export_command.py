"""``svi-topics export MODEL --out DIR``: the explorer's full export, from the command line.

It writes the files of :mod:`engine.io.exports`: every word of every topic with the
model's labels, the labels, and, given the corpus, the document-topic proportions keyed
by the table's own ``id`` column with its other columns, the document lengths and the
term frequencies.
"""

from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from engine.data.bow_formats import load_corpus
from engine.data.spreadsheets import read_sheet
from engine.data.text import SHEET_FORMATS, decode_text, table_format
from engine.io.exports import export_tables, parquet_available, write_export
from engine.io.model_files import LoadedModel, load_model, topic_number
from engine.io.topics_command import read_stored

__all__: list[str] = []  # engine.cli adds the command with add_export; nothing here is engine API


def add_export(commands: Any) -> None:
    """Add the ``export`` subcommand to ``commands`` (argparse subparsers)."""
    export = commands.add_parser(
        "export",
        help="write a saved model's full export (every word of every topic, labels, documents) as CSV",
        description="Write the explorer's full export of MODEL into DIR: topic_words.csv (every word of every "
        "topic: topic, label, word, weight; and topic_words.parquet when pyarrow is installed) and topics.csv "
        "(the labels); with --corpus also documents.csv (one row per document: id, the table's other columns, "
        "one column of proportions per topic), document_lengths.csv and term_frequencies.csv. Topics are "
        "numbered from 0; duplicate labels get their topic number.",
    )
    export.add_argument("model", metavar="MODEL", help="model file (.npz) written by 'fit', the explorer or "
                        "engine.save_model")
    export.add_argument("--out", metavar="DIR", required=True, help="folder to write the files into (created)")
    export.add_argument("--corpus", metavar="CORPUS", default=None,
                        help="the corpus the model was trained on (any format 'fit' reads), for the document "
                        "tables; its words are matched to the model's")
    export.add_argument("--text-column", default=None, help="column holding the text (tables; default 'text')")
    export.add_argument("--title-column", default=None, help="column holding a title (tables)")
    export.add_argument("--id-column", default=None,
                        help="column of document ids (tables; default 'id' if the table has one, else the row number)")
    export.add_argument("--encoding", default=None, help="encoding of the corpus (default: detect)")
    export.add_argument("--sheet", default=None,
                        help="sheet of an .xlsx/.ods corpus (default: the sheet with the most rows)")
    export.set_defaults(handler=run_export)


def _labels(loaded: LoadedModel) -> dict[int, str]:
    """The model file's labels; for files of format 1, the explorer's labels in its ``extra`` (checked)."""
    info = loaded.extra.get("explorer")
    found = info.get("labels") if isinstance(info, dict) else None
    labels = {}
    if isinstance(found, dict):
        labels = {topic_number(k, loaded.model.n_topics): v for k, v in found.items()
                  if topic_number(k, loaded.model.n_topics) is not None and isinstance(v, str)}
    return {**labels, **loaded.labels}


def _table(path: Path, encoding: str | None, sheet: str | None = None) -> pd.DataFrame | None:
    fmt = table_format(path.name) if path.is_file() else None
    if fmt is None:
        return None
    if fmt in SHEET_FORMATS:
        return read_sheet(path, sheet).frame
    text = decode_text(path.read_bytes(), path.name, encoding)
    if fmt == "jsonl":
        return pd.read_json(io.StringIO(text), lines=True, dtype=False).astype(str)
    return pd.read_csv(io.StringIO(text), sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False,
                       index_col=False)


def _model_counts(counts: sp.csr_matrix, words: tuple[str, ...], vocabulary: tuple[str, ...]) -> sp.csr_matrix:
    """The corpus counts in the model's columns (words the model does not know are left out)."""
    if words == vocabulary:
        return counts
    column = {word: w for w, word in enumerate(vocabulary)}
    keep = np.array([word in column for word in words])
    target = np.array([column.get(word, 0) for word in words])
    coo = counts.tocoo()
    mask = keep[coo.col]
    return sp.csr_matrix((coo.data[mask], (coo.row[mask], target[coo.col[mask]])),
                         shape=(counts.shape[0], len(vocabulary)))


def _documents(args: argparse.Namespace, vocabulary: tuple[str, ...]) -> dict[str, Any]:
    """``export_tables`` arguments for the corpus: counts in the model's columns, ids and the table's columns."""
    path = Path(args.corpus)
    if not path.exists():
        raise FileNotFoundError(f"no such corpus file or folder: {args.corpus!r}")
    frame = _table(path, args.encoding, args.sheet)
    text_column = args.text_column or "text"
    id_column = args.id_column or ("id" if frame is not None and "id" in frame.columns else None)
    options = {"text_column": args.text_column, "title_column": args.title_column, "id_column": id_column}
    options = {name: value for name, value in options.items() if value is not None}
    if args.encoding is not None:
        options["encoding"] = args.encoding
    if args.sheet is not None:
        options["sheet"] = args.sheet
    corpus = load_corpus(path, **options)
    counts = _model_counts(corpus.counts, corpus.vocabulary, vocabulary)
    columns: dict[str, Any] = {"title": list(corpus.titles)}
    if frame is not None:
        if id_column is not None:
            # positions, not a reset_index() column: the table may have its own column named "index"
            rows = pd.Index(frame[id_column]).get_indexer(list(corpus.doc_ids))
            if (rows < 0).any():
                missing = corpus.doc_ids[int(np.flatnonzero(rows < 0)[0])]
                raise ValueError(f"document id {missing!r} is not in the column {id_column!r} of {args.corpus!r}")
        else:  # ids are 1-based row numbers
            rows = np.array([int(doc_id) - 1 for doc_id in corpus.doc_ids])
        columns.update({str(c): frame[c].iloc[rows].tolist() for c in frame.columns if str(c) != text_column})
        if id_column is not None and id_column != "id":
            columns["id"] = columns.pop(id_column)
    print(f"corpus: {corpus.n_docs} documents; {int(counts.sum()):,} of {corpus.n_tokens:,} words are the model's",
          file=sys.stderr)
    return {"counts": counts, "doc_ids": corpus.doc_ids, "columns": columns}


def run_export(args: argparse.Namespace) -> int:
    """Write the files; print one line per file written."""
    loaded = load_model(args.model)
    model = loaded.model
    vocabulary = loaded.vocabulary or tuple(f"word {w}" for w in range(model.n_words))
    documents = _documents(args, vocabulary) if args.corpus else {}
    # the coherence fit stored (against the training documents), as 'topics' shows it; else scored on --corpus
    coherence = read_stored(loaded.extra, model)
    tables = export_tables(model, vocabulary, _labels(loaded), coherence=coherence, **documents)
    for path in write_export(args.out, tables):  # the topic-word table a block of topics at a time
        print(path)
    if not parquet_available():
        print("topic_words.parquet not written: pyarrow is not installed", file=sys.stderr)
    return 0

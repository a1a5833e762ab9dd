"""Full exports of a model: every word of every topic, document-topic proportions, labels, counts.

The explorer's "Full export" download and ``svi-topics export MODEL --out DIR`` write
the same files, built here:

``topic_words.csv``
    One row per topic and word, *every* word (n_topics x n_words rows): ``topic``,
    ``label``, ``word``, ``weight`` (E[beta_kw], the word's probability in the topic;
    each topic's weights sum to 1), each topic's words from the most probable down.
``topic_words.parquet``
    The same table, written only when ``pyarrow`` is installed.
``topics.csv``
    ``topic``, ``label``: the labels in force (the user's, or "Topic 3: tax, income, million"),
    made unique (:func:`unique_labels`) here and in every other table.
``documents.csv`` (with a corpus)
    One row per document: ``id`` (the collection's own id column when it has one), its
    other columns (title, year, president...), then one column of proportions per topic,
    named by its label made unique (see :func:`unique_labels`).
``document_lengths.csv`` and ``term_frequencies.csv`` (with a corpus)
    ``id``, ``length`` (words in the document) and ``word``, ``frequency`` (occurrences
    in the whole corpus): with the topic-word table, what ``pyLDAvis.prepare`` takes.

Topics are numbered from 0 everywhere: in these files, in ``svi-topics topics``, on the
explorer's cards and in the model file's labels, the same index as the rows of
``model.lambda_`` and the columns of ``model.transform(X)``.
"""

from __future__ import annotations

import importlib.util
import io
import os
import zipfile
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from engine.io.atomic import atomic_file

__all__ = ["export_files", "export_tables", "write_export"]  # the helpers below serve the explorer and the CLI

TOPIC_WORDS = "topic_words.csv"
TOPIC_WORDS_PARQUET = "topic_words.parquet"
TOPICS = "topics.csv"
DOCUMENTS = "documents.csv"
DOCUMENT_LENGTHS = "document_lengths.csv"
TERM_FREQUENCIES = "term_frequencies.csv"


def default_label(topic: int, top_words: Sequence[str] = ()) -> str:
    """The label of a topic nobody named: ``"Topic 3: tax, income, million"`` (topics numbered from 0)."""
    words = ", ".join(str(word) for word in list(top_words)[:3])
    return f"Topic {int(topic)}" + (f": {words}" if words else "")


def topic_labels(model: Any, vocabulary: Sequence[str] | None, labels: Mapping[int, str] | None = None) -> list[str]:
    """One label per topic: the given one where it is not blank, else :func:`default_label`."""
    labels = labels or {}
    top = model.top_words(3, vocabulary=vocabulary)
    return [labels[k] if str(labels.get(k, "")).strip() else default_label(k, [str(w) for w in top[k]])
            for k in range(model.n_topics)]


def unique_labels(labels: Sequence[str], taken: Iterable[str] = ()) -> list[str]:
    """Labels made unique, deterministically, to serve as column names.

    A label another topic shares (or that names one of the ``taken`` columns, e.g.
    ``id`` or ``year``) gets its topic number: ``["Economy", "War", "Economy"]`` becomes
    ``["Economy (topic 0)", "War", "Economy (topic 2)"]``, so pandas never reads back
    ``Economy.1``.
    """
    labels = [str(label) for label in labels]
    taken = set(taken)
    counts = pd.Series(labels).value_counts()
    names = [f"{label} (topic {k})" if counts[label] > 1 or label in taken else label
             for k, label in enumerate(labels)]
    used = set(taken)
    result = []
    for k, name in enumerate(names):
        while name in used:  # "Economy (topic 2)" was itself someone's label
            name = f"{name} (topic {k})"
        used.add(name)
        result.append(name)
    return result


def _topic_word_frame(model: Any, vocabulary: Sequence[str], labels: Sequence[str]) -> pd.DataFrame:
    weights = model.expected_topics()  # E[beta_k], rows sum to 1
    n_topics, n_words = weights.shape
    order = np.argsort(-weights, axis=1, kind="stable")
    words = np.asarray(list(vocabulary), dtype=object)
    return pd.DataFrame({
        "topic": np.repeat(np.arange(n_topics), n_words),
        "label": np.repeat(np.asarray(labels, dtype=object), n_words),
        "word": words[order].ravel(),
        "weight": np.take_along_axis(weights, order, axis=1).ravel(),
    })


def _document_columns(ids: Sequence[str], columns: Mapping[str, Sequence[str]] | None) -> dict[str, list]:
    """``id`` first (the collection's own ``id`` column when it has one), then the other columns."""
    columns = dict(columns or {})
    own_ids = columns.pop("id", None)
    table = {"id": list(own_ids if own_ids is not None else ids)}
    table.update({str(name): list(values) for name, values in columns.items()})
    return table


def export_tables(
    model: Any,
    vocabulary: Sequence[str],
    labels: Mapping[int, str] | None = None,
    *,
    counts: Any = None,
    doc_ids: Sequence[str] | None = None,
    columns: Mapping[str, Sequence[str]] | None = None,
    doc_topic: np.ndarray | None = None,
) -> dict[str, pd.DataFrame]:
    """The tables of a full export, by file name (see the module docstring).

    Parameters
    ----------
    model : LDA or HDP
        A fitted model.
    vocabulary : sequence of str
        One word per column of the model's topics.
    labels : mapping of int to str, optional
        The user's topic labels by 0-based topic index; others get :func:`default_label`.
    counts : sparse matrix of shape (n_docs, n_words), optional
        The documents' word counts; without them there are no document tables.
    doc_ids : sequence of str, optional
        One id per row of ``counts`` (default ``"0"``, ``"1"``...), used when ``columns`` has no ``id``.
    columns : mapping of str to sequence, optional
        The collection's other columns (``id``, ``title``, ``year``...), one value per document.
    doc_topic : ndarray of shape (n_docs, n_topics), optional
        Proportions already computed; by default ``model.transform(counts)``.
    """
    if len(vocabulary) != model.n_words:
        raise ValueError(f"vocabulary has {len(vocabulary)} words but the model has n_words={model.n_words}")
    names = unique_labels(topic_labels(model, vocabulary, labels))
    tables = {
        TOPIC_WORDS: _topic_word_frame(model, vocabulary, names),
        TOPICS: pd.DataFrame({"topic": np.arange(model.n_topics), "label": names}),
    }
    if counts is None:
        return tables
    n_docs = counts.shape[0]
    ids = [str(i) for i in range(n_docs)] if doc_ids is None else list(doc_ids)
    for name, values in [("doc_ids", ids), *((f"column {c!r}", v) for c, v in (columns or {}).items())]:
        if len(values) != n_docs:
            raise ValueError(f"{name} has {len(values)} values but there are {n_docs} documents")
    proportions = np.asarray(model.transform(counts) if doc_topic is None else doc_topic)
    documents = pd.DataFrame(_document_columns(ids, columns))
    topic_columns = unique_labels(names, taken=documents.columns)
    tables[DOCUMENTS] = pd.concat([documents, pd.DataFrame(proportions, columns=topic_columns)], axis=1)
    tables[DOCUMENT_LENGTHS] = pd.DataFrame({
        "id": documents["id"], "length": np.asarray(counts.sum(axis=1)).ravel().astype(np.int64)})
    tables[TERM_FREQUENCIES] = pd.DataFrame({
        "word": list(vocabulary), "frequency": np.asarray(counts.sum(axis=0)).ravel().astype(np.int64)})
    return tables


def parquet_available() -> bool:
    """Whether ``pyarrow`` is installed (the Parquet copy of the topic-word table needs it)."""
    return importlib.util.find_spec("pyarrow") is not None


def export_files(tables: Mapping[str, pd.DataFrame], parquet: bool | None = None) -> dict[str, bytes]:
    """File contents of :func:`export_tables`: UTF-8 CSV, plus the Parquet topic-word table if ``parquet``.

    ``parquet=None`` writes it when ``pyarrow`` is installed.
    """
    files = {name: frame.to_csv(index=False).encode("utf-8") for name, frame in tables.items()}
    if parquet or (parquet is None and parquet_available()):
        buffer = io.BytesIO()
        tables[TOPIC_WORDS].to_parquet(buffer, index=False)
        files[TOPIC_WORDS_PARQUET] = buffer.getvalue()
    return files


def zip_files(files: Mapping[str, bytes]) -> bytes:
    """The files in one zip archive (the explorer's single download)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def write_export(folder: str | os.PathLike, files: Mapping[str, bytes]) -> list[Path]:
    """Write each file into ``folder`` (created if missing) atomically; returns the paths written."""
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, data in files.items():
        with atomic_file(folder / name) as file:
            file.write(data)
        written.append(folder / name)
    return written

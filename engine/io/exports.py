"""Full exports of a model: every word of every topic, document-topic proportions, labels, counts.

The explorer's "Full export" download and ``svi-topics export MODEL --out DIR`` write
the same files, built here:

``topic_words.csv``
    One row per topic and word, *every* word (n_topics x n_words rows): ``topic``,
    ``label``, ``word``, ``weight`` (E[beta_kw], the word's probability in the topic;
    each topic's weights sum to 1), each topic's words from the most probable down.
    Made and written a block of topics at a time; a model whose table would exceed
    ``SVI_TOPICS_MAX_EXPORT_CELLS`` rows is refused (:func:`check_export_size`).
``topic_words.parquet``
    The same table (one row group per block of topics), written only when ``pyarrow`` is installed.
``topics.csv``
    ``topic``, ``label``: the labels in force (the user's, or "Topic 3: tax, income, million"),
    made unique (:func:`unique_labels`) here and in every other table; then each topic's
    quality (:func:`engine.topic_quality`): ``share`` (of the corpus's words), ``live`` (an
    LDA topic with at least a quarter of an even share, an HDP topic in use: at least 1 %),
    ``coherence_npmi`` (NPMI of its 10 top words: as given, else in the exported documents,
    else empty), ``general`` (its words are the collection's overall word use) and
    ``same_as`` (the lower-numbered topic it is identical to, else empty).
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
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from engine.inference.coherence import CoherenceReference
from engine.inference.quality import topic_quality
from engine.io.atomic import atomic_file
from engine.limits import Limits, current_limits

__all__ = ["export_files", "export_tables", "write_export"]  # the helpers below serve the explorer and the CLI

TOPIC_WORDS = "topic_words.csv"
TOPIC_WORDS_PARQUET = "topic_words.parquet"
TOPICS = "topics.csv"
DOCUMENTS = "documents.csv"
DOCUMENT_LENGTHS = "document_lengths.csv"
TERM_FREQUENCIES = "term_frequencies.csv"
EXPORT_FILES = (TOPIC_WORDS, TOPIC_WORDS_PARQUET, TOPICS, DOCUMENTS, DOCUMENT_LENGTHS, TERM_FREQUENCIES)
_CHUNK_ROWS = 1_000_000  # rows of the topic-word table made, written and compressed at a time


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


@dataclass(frozen=True)
class TopicWords:
    """The topic-word table of a full export, made a block of topics at a time (never whole in memory).

    ``weights`` is E[beta] (n_topics x n_words, rows sum to 1); :meth:`chunks` gives the rows
    ``topic, label, word, weight`` of about ``rows`` rows at a time, each topic's words from the most
    probable down.
    """

    weights: np.ndarray
    words: np.ndarray
    labels: tuple[str, ...]

    @property
    def n_rows(self) -> int:
        return int(self.weights.shape[0]) * int(self.weights.shape[1])

    def chunks(self, rows: int = _CHUNK_ROWS) -> Iterator[pd.DataFrame]:
        n_topics, n_words = self.weights.shape
        step = max(1, rows // max(n_words, 1))
        labels = np.asarray(self.labels, dtype=object)
        for start in range(0, n_topics, step):
            block = self.weights[start:start + step]
            order = np.argsort(-block, axis=1, kind="stable")
            yield pd.DataFrame({
                "topic": np.repeat(np.arange(start, start + block.shape[0]), n_words),
                "label": np.repeat(labels[start:start + block.shape[0]], n_words),
                "word": self.words[order].ravel(),
                "weight": np.take_along_axis(block, order, axis=1).ravel(),
            })


def check_export_size(n_topics: int, n_words: int, limits: Limits | None = None) -> None:
    """Raise :class:`engine.LimitExceededError` if the topic-word table would exceed ``max_export_cells``.

    A full export has one row per topic and word; on a shared server the explorer builds its zip in
    memory, so the table is bounded (``SVI_TOPICS_MAX_EXPORT_CELLS``) before anything is computed.
    """
    (limits or current_limits()).check("max_export_cells", int(n_topics) * int(n_words),
                                       f"the full export's topic-word table (n_topics x n_words = "
                                       f"{int(n_topics):,} x {int(n_words):,} rows)")


def _document_columns(ids: Sequence[str], columns: Mapping[str, Sequence[str]] | None) -> dict[str, list]:
    """``id`` first (the collection's own ``id`` column when it has one), then the other columns."""
    columns = dict(columns or {})
    own_ids = columns.pop("id", None)
    table = {"id": list(own_ids if own_ids is not None else ids)}
    table.update({str(name): list(values) for name, values in columns.items()})
    return table


def _topics_table(model: Any, names: Sequence[str], counts: Any, coherence: np.ndarray | None) -> pd.DataFrame:
    """topics.csv: each topic's number, label and quality read-outs (see the module docstring)."""
    if coherence is None:
        reference = None if counts is None else CoherenceReference(counts, model.n_words)
        quality = topic_quality(model, reference)
        coherence = np.full(model.n_topics, np.nan) if quality.coherence is None else quality.coherence
    else:
        quality = topic_quality(model)
        coherence = np.asarray(coherence, dtype=np.float64)
        if coherence.shape != (model.n_topics,):
            raise ValueError(f"coherence must hold one value per topic ({model.n_topics}), got shape "
                             f"{coherence.shape}")
    same_as = pd.array(np.where(quality.copies, quality.duplicate_of, 0), dtype="Int64")
    same_as[~quality.copies] = pd.NA
    return pd.DataFrame({"topic": np.arange(model.n_topics), "label": names, "share": quality.weights,
                         "live": quality.live, "coherence_npmi": coherence, "general": quality.general,
                         "same_as": same_as})


def export_tables(
    model: Any,
    vocabulary: Sequence[str],
    labels: Mapping[int, str] | None = None,
    *,
    counts: Any = None,
    doc_ids: Sequence[str] | None = None,
    columns: Mapping[str, Sequence[str]] | None = None,
    doc_topic: np.ndarray | None = None,
    coherence: np.ndarray | None = None,
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
    coherence : ndarray of shape (n_topics,), optional
        Each topic's NPMI as measured elsewhere (the explorer's, against the training
        documents; the one ``svi-topics fit`` stored), NaN where unknown; by default scored
        against ``counts`` when given (:class:`engine.CoherenceReference`).

    Returns
    -------
    dict of str to DataFrame or TopicWords
        The topic-word table is a :class:`TopicWords`, written a block of topics at a time by
        :func:`export_files`, :func:`zip_files` and :func:`write_export`.
    """
    if len(vocabulary) != model.n_words:
        raise ValueError(f"vocabulary has {len(vocabulary)} words but the model has n_words={model.n_words}")
    names = unique_labels(topic_labels(model, vocabulary, labels))
    tables = {
        TOPIC_WORDS: TopicWords(np.asarray(model.expected_topics()),  # E[beta_k], rows sum to 1
                                np.asarray(list(vocabulary), dtype=object), tuple(names)),
        TOPICS: _topics_table(model, names, counts, coherence),
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


def _csv_writer(table: pd.DataFrame | TopicWords) -> Callable[[IO[bytes]], None]:
    def write(file: IO[bytes]) -> None:
        frames = table.chunks() if isinstance(table, TopicWords) else [table]
        for i, frame in enumerate(frames):
            file.write(frame.to_csv(index=False, header=i == 0).encode("utf-8"))
    return write


def _parquet_writer(table: pd.DataFrame | TopicWords) -> Callable[[IO[bytes]], None]:
    def write(file: IO[bytes]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        frames = table.chunks() if isinstance(table, TopicWords) else [table]
        writer = None
        try:
            for frame in frames:  # one row group per block of topics
                batch = pa.Table.from_pandas(frame, preserve_index=False)
                writer = writer or pq.ParquetWriter(file, batch.schema)
                writer.write_table(batch)
        finally:
            if writer is not None:
                writer.close()
    return write


def _writers(files: Mapping[str, Any], parquet: bool | None) -> dict[str, Callable[[IO[bytes]], None]]:
    """One writer per file: bytes as they are, tables as UTF-8 CSV, plus the Parquet topic-word table.

    The size of the topic-word table is checked here, before anything is written.
    """
    writers: dict[str, Callable[[IO[bytes]], None]] = {}
    for name, value in files.items():
        if isinstance(value, TopicWords):
            check_export_size(*value.weights.shape)
        if isinstance(value, (bytes, bytearray)):
            writers[name] = lambda file, data=value: file.write(data)
        else:
            writers[name] = _csv_writer(value)
    topic_words = files.get(TOPIC_WORDS)
    if (isinstance(topic_words, (pd.DataFrame, TopicWords)) and TOPIC_WORDS_PARQUET not in files
            and (parquet or (parquet is None and parquet_available()))):
        writers[TOPIC_WORDS_PARQUET] = _parquet_writer(topic_words)
    return writers


def export_files(tables: Mapping[str, Any], parquet: bool | None = None) -> dict[str, bytes]:
    """File contents of :func:`export_tables`: UTF-8 CSV, plus the Parquet topic-word table if ``parquet``.

    ``parquet=None`` writes it when ``pyarrow`` is installed.  Everything is held in memory:
    :func:`zip_files` and :func:`write_export` take the tables directly and stream them.
    """
    files = {}
    for name, write in _writers(tables, parquet).items():
        buffer = io.BytesIO()
        write(buffer)
        files[name] = buffer.getvalue()
    return files


def zip_files(files: Mapping[str, Any], parquet: bool | None = None) -> bytes:
    """The files in one zip archive (the explorer's single download).

    ``files`` holds contents (bytes) or the tables of :func:`export_tables`, which are compressed a
    block of topics at a time; ``parquet`` as in :func:`export_files`.
    """
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, write in _writers(files, parquet).items():
            with archive.open(name, "w", force_zip64=True) as entry:
                write(entry)
    return buffer.getvalue()


def write_export(folder: str | os.PathLike, files: Mapping[str, Any], parquet: bool | None = None) -> list[Path]:
    """Write each file into ``folder`` (created if missing) atomically; returns the paths written.

    ``files`` holds contents (bytes) or the tables of :func:`export_tables`, which are written a
    block of topics at a time; ``parquet`` as in :func:`export_files`.  The export's own files that
    this export does not write (``documents.csv`` of an earlier export with a corpus, say) are
    removed, so the folder never mixes two exports; other files in the folder are left alone.
    """
    folder = Path(folder)
    writers = _writers(files, parquet)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, write in writers.items():
        with atomic_file(folder / name) as file:
            write(file)
        written.append(folder / name)
    for name in sorted(set(EXPORT_FILES) - set(writers)):
        (folder / name).unlink(missing_ok=True)
    return written

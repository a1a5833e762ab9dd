"""Out-of-core corpora: memory-mapped CSR counts on disk, built by streaming.

Stochastic variational inference (Hoffman, Blei, Wang & Paisley, JMLR 2013) only
ever looks at a minibatch of documents, so the corpus need not fit in memory: a
:class:`DiskCorpus` keeps its document x word counts on disk and reads the rows
of a minibatch when asked.  A corpus folder (format ``"engine-disk-corpus"``,
version 1) holds::

    manifest.json   format, version, n_docs, n_words, nnz, n_tokens, dtypes, source
    indptr.npy      int64, n_docs + 1 row offsets (CSR), strictly increasing (no empty rows)
    indices.npy     int32, nnz word indices, increasing within each row
    data.npy        int32, nnz counts >= 1
    vocab.txt       the word of column i on line i
    doc_ids.jsonl   optional: one JSON string per row (otherwise ids are "0", "1", ...)
    dropped.jsonl   optional: documents left out (doc_id, title, reason)
    skipped.jsonl   optional: files a reader ignored (name, reason)

The ``.npy`` files are plain NumPy arrays opened with ``np.load(mmap_mode="r")``.
Builders stream their source in chunks and append raw bytes to the ``.npy``
files (whose fixed-size header is written last), so neither the text nor the
counts are ever held whole in memory; they build in a hidden folder next to the
target and rename it at the end, so a failure never leaves a half-built corpus.
"""

from __future__ import annotations

import gzip
import json
import numbers
import os
import shutil
import struct
import tempfile
import warnings
import zipfile
import zlib
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import scipy.sparse as sp

from engine._textio import (
    DEFAULT_MAX_TOTAL_BYTES,
    SkippedFile,
    _check_entry_name,
    _column,
    _is_txt,
    _title,
    decode_text,
    table_format,
)
from engine._validation import check_int
from engine.bow_formats import _check_vocabulary, _find_vocabulary, _is_count
from engine.corpus import _EMPTY_ROW, _EMPTY_TEXT, _NO_WORDS, TOKEN_PATTERN, Corpus, DroppedDocument, _vectorizer
from engine.errors import (
    CorpusFormatError,
    EmptyCorpusError,
    EmptyVocabularyError,
    FileDecodingError,
    UnsafeArchiveError,
)

__all__ = ["DiskCorpus", "DiskCounts"]

FORMAT, VERSION = "engine-disk-corpus", 1
DTYPES = {"indptr": np.dtype(np.int64), "indices": np.dtype(np.int32), "data": np.dtype(np.int32)}
_HEADER_BYTES = 128  # fixed .npy header size, so the header can be written after the data
_SCAN = 1 << 22  # entries per read when validating (keeps the memory of a full check small)
_INT32_MAX = np.iinfo(np.int32).max
Source = str | os.PathLike


# ------------------------------------------------------------------------ writing
class _NpyAppender:
    """A 1-D ``.npy`` file written by appending chunks; the header is filled in on close."""

    def __init__(self, path: Path, dtype: np.dtype):
        self.dtype, self.length = dtype, 0
        self._file = open(path, "wb")  # noqa: SIM115 - closed by close()
        self._file.write(b"\0" * _HEADER_BYTES)

    def append(self, values: Any) -> None:
        values = np.ascontiguousarray(values, dtype=self.dtype)
        self._file.write(memoryview(values).cast("B"))
        self.length += values.size

    def close(self, publish: bool = True) -> None:
        if publish:
            header = f"{{'descr': '{self.dtype.str}', 'fortran_order': False, 'shape': ({self.length},), }}"
            header = header.ljust(_HEADER_BYTES - 11) + "\n"  # 10 bytes of magic, version and length
            self._file.seek(0)
            self._file.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
            self._file.flush()
            os.fsync(self._file.fileno())
        self._file.close()


def _jsonl(path: Path, records: Iterable[Any]) -> None:
    with open(path, "a", encoding="utf-8") as file:
        file.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in records)


class _DiskWriter:
    """Append rows of counts to a new corpus folder; publish it atomically with :meth:`finish`.

    Used as a context manager: an exception (or a missing ``finish``) removes the
    temporary folder and leaves the target untouched.
    """

    def __init__(self, folder: Source, n_words: int, overwrite: bool = False):
        self.target, self.n_words = Path(folder), n_words
        _check_target(self.target, overwrite)
        self.target.parent.mkdir(parents=True, exist_ok=True)
        self.tmp = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.building.", dir=self.target.parent))
        self._arrays = {name: _NpyAppender(self.tmp / f"{name}.npy", dtype) for name, dtype in DTYPES.items()}
        self._arrays["indptr"].append([0])
        self.n_docs = self.nnz = self.n_tokens = self.n_dropped = self.n_skipped = 0
        self._with_ids: bool | None = None

    def __enter__(self) -> _DiskWriter:
        return self

    def __exit__(self, *exc_info) -> None:
        for array in self._arrays.values():
            if not array._file.closed:
                array.close(publish=False)
        shutil.rmtree(self.tmp, ignore_errors=True)

    def append(self, counts: sp.csr_matrix, doc_ids: Sequence[str] | None = None) -> None:
        """Append the rows of ``counts`` (canonical CSR: sorted indices, counts >= 1, no empty rows)."""
        if self._with_ids is None:
            self._with_ids = doc_ids is not None
        elif self._with_ids != (doc_ids is not None):
            raise ValueError("doc_ids must be given for every chunk or for none")
        if counts.nnz and counts.data.max() > _INT32_MAX:
            raise ValueError(f"a count of {counts.data.max()} does not fit the int32 counts of a disk corpus")
        self._arrays["indptr"].append(counts.indptr[1:].astype(np.int64) + self.nnz)
        self._arrays["indices"].append(counts.indices)
        self._arrays["data"].append(counts.data)
        if doc_ids is not None:
            if len(doc_ids) != counts.shape[0]:
                raise ValueError(f"doc_ids has {len(doc_ids)} entries for {counts.shape[0]} rows")
            _jsonl(self.tmp / "doc_ids.jsonl", doc_ids)
        self.n_docs += counts.shape[0]
        self.nnz += counts.nnz
        self.n_tokens += int(counts.data.sum(dtype=np.int64))

    def drop(self, documents: Iterable[DroppedDocument]) -> None:
        documents = [d._asdict() for d in documents]
        self.n_dropped += len(documents)
        _jsonl(self.tmp / "dropped.jsonl", documents)

    def skip(self, files: Iterable[Any]) -> None:
        files = [f._asdict() for f in files]
        self.n_skipped += len(files)
        _jsonl(self.tmp / "skipped.jsonl", files)

    def finish(self, vocabulary: Sequence[str], source: dict[str, Any]) -> Path:
        if self.n_docs == 0:
            raise EmptyCorpusError("no document has any word; a corpus needs at least one")
        if len(vocabulary) != self.n_words or any("\n" in w or "\r" in w for w in vocabulary):
            raise ValueError(f"vocabulary must hold {self.n_words} words without line breaks")
        for array in self._arrays.values():
            array.close()
        (self.tmp / "vocab.txt").write_text("".join(w + "\n" for w in vocabulary), encoding="utf-8")
        manifest = {"format": FORMAT, "version": VERSION, "n_docs": self.n_docs, "n_words": self.n_words,
                    "nnz": self.nnz, "n_tokens": self.n_tokens,
                    "dtypes": {name: dtype.name for name, dtype in DTYPES.items()},
                    "doc_ids": bool(self._with_ids), "n_dropped": self.n_dropped,
                    "n_skipped": self.n_skipped, "source": source}
        (self.tmp / "manifest.json").write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if self.target.exists():  # overwrite was allowed: the old corpus out of the way, the new one in
            old = Path(tempfile.mkdtemp(prefix=f".{self.target.name}.old.", dir=self.target.parent))
            os.replace(self.target, old / "corpus")
            os.replace(self.tmp, self.target)
            shutil.rmtree(old)
        else:
            os.replace(self.tmp, self.target)
        return self.target


def _check_target(target: Path, overwrite: bool) -> None:
    if not target.exists():
        return
    if not overwrite:
        raise FileExistsError(f"{str(target)!r} exists; choose another folder or pass overwrite=True")
    if not target.is_dir() or (any(target.iterdir()) and not (target / "manifest.json").exists()):
        raise FileExistsError(f"{str(target)!r} exists and is not a disk corpus; it is never overwritten")


# ------------------------------------------------------------------------ reading
class DiskCounts:
    """A CSR count matrix whose arrays stay on disk (memory-mapped).

    Indexing rows (an int, a slice, an integer array with repeats or a boolean
    mask) gathers them into an in-memory ``scipy.sparse.csr_matrix`` of int64
    counts, vectorised (no Python loop per row).  Columns cannot be indexed.

    Attributes
    ----------
    indptr, indices, data : numpy.memmap
        The CSR arrays (int64, int32, int32).
    shape : tuple of int
        (n_docs, n_words).
    """

    ndim = 2
    out_of_core = True  # tells engine._validation.as_counts to pass it through (rows are read per minibatch)

    def __init__(self, indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, n_words: int):
        self.indptr, self.indices, self.data = indptr, indices, data
        self.shape = (indptr.shape[0] - 1, int(n_words))

    @property
    def nnz(self) -> int:
        """Number of stored (document, word) entries."""
        return int(self.indices.shape[0])

    def __repr__(self) -> str:
        return f"DiskCounts(shape={self.shape}, nnz={self.nnz})"

    def _rows(self, key: Any) -> np.ndarray:
        n_docs = self.shape[0]
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            rows = np.array([key], dtype=np.int64)
        else:
            rows = np.asarray(key)
            if rows.dtype == bool:
                if rows.shape != (n_docs,):
                    raise IndexError(f"a boolean row mask must have shape ({n_docs},), got {rows.shape}")
                return np.flatnonzero(rows)
            if rows.ndim != 1 or (rows.size and rows.dtype.kind not in "iu"):
                raise IndexError(f"rows must be an int, a slice or a 1-D array of ints, got {key!r:.80}")
            rows = rows.astype(np.int64)
        if rows.size and (rows.min() < -n_docs or rows.max() >= n_docs):
            bad = rows[(rows < -n_docs) | (rows >= n_docs)][0]
            raise IndexError(f"row {bad} is out of range for {n_docs} documents")
        return np.where(rows < 0, rows + n_docs, rows)

    def __getitem__(self, key: Any) -> sp.csr_matrix:
        if isinstance(key, tuple):
            raise IndexError("DiskCounts selects rows only: take counts[rows], then index the columns in memory")
        if isinstance(key, slice) and key.indices(self.shape[0])[2] == 1:  # contiguous rows: plain slices
            start, stop, _ = key.indices(self.shape[0])
            stop = max(start, stop)
            offsets = np.asarray(self.indptr[start:stop + 1])
            first, last = int(offsets[0]), int(offsets[-1])
            return sp.csr_matrix((np.asarray(self.data[first:last], dtype=np.int64), np.array(self.indices[first:last]),
                                  offsets - first), shape=(stop - start, self.shape[1]))
        rows = self._rows(np.arange(self.shape[0])[key] if isinstance(key, slice) else key)
        starts = np.asarray(self.indptr[rows])
        lengths = np.asarray(self.indptr[rows + 1]) - starts
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        # entry j of output row r comes from position starts[r] + (j - indptr[r]) on disk
        positions = np.arange(indptr[-1], dtype=np.int64) + np.repeat(starts - indptr[:-1], lengths)
        return sp.csr_matrix((np.asarray(self.data[positions], dtype=np.int64), np.asarray(self.indices[positions]),
                              indptr), shape=(rows.size, self.shape[1]))

    def row_sums(self) -> np.ndarray:
        """Tokens per document, ndarray of shape (n_docs,), read in chunks."""
        sums = np.empty(self.shape[0], dtype=np.int64)
        for start in range(0, self.shape[0], _SCAN // 64):
            sums[start:start + _SCAN // 64] = self[start:start + _SCAN // 64].sum(axis=1).A1
        return sums


def _read_chunks(array: np.memmap, path: Path) -> Iterator[tuple[int, np.ndarray]]:
    """Yield (offset, values) of a memory-mapped .npy by ordinary reads (no mapped pages kept)."""
    with open(path, "rb") as file:
        for start in range(0, array.shape[0], _SCAN):
            file.seek(array.offset + start * array.itemsize)
            yield start, np.fromfile(file, dtype=array.dtype, count=min(_SCAN, array.shape[0] - start))


def _open_array(folder: Path, name: str, length: int) -> np.memmap:
    path = folder / f"{name}.npy"
    if not path.is_file():
        raise CorpusFormatError(f"{str(folder)!r} is not a complete disk corpus: {path.name} is missing; rebuild it")
    try:
        array = np.load(path, mmap_mode="r", allow_pickle=False)
    except (ValueError, OSError, EOFError) as exc:
        raise CorpusFormatError(f"{str(folder)!r}: {path.name} is not a valid .npy file ({exc}); rebuild it") from None
    if array.dtype != DTYPES[name] or array.shape != (length,):
        raise CorpusFormatError(
            f"{str(folder)!r}: {path.name} holds {array.dtype} of shape {array.shape} but manifest.json expects "
            f"{DTYPES[name]} of shape ({length},); the folder is damaged or mixed up: rebuild it"
        )
    return array


def _read_manifest(folder: Path) -> dict[str, Any]:
    path = folder / "manifest.json"
    if not folder.is_dir():
        raise CorpusFormatError(f"{str(folder)!r} is not a folder; a disk corpus is a folder with manifest.json")
    if not path.is_file():
        raise CorpusFormatError(f"{str(folder)!r} is not a disk corpus: manifest.json is missing; build one with "
                                "DiskCorpus.from_texts, from_uci or from_counts")
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, UnicodeDecodeError) as exc:
        raise CorpusFormatError(f"{str(folder)!r}: manifest.json is not valid JSON ({exc}); "
                                "rebuild the corpus") from None
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT or manifest.get("version") != VERSION:
        raise CorpusFormatError(f"{str(folder)!r}: manifest.json is not a version-{VERSION} {FORMAT!r} manifest")
    for key in ("n_docs", "n_words", "nnz", "n_tokens"):
        value = manifest.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < (1 if key == "n_words" else 0):
            raise CorpusFormatError(f"{str(folder)!r}: manifest.json has {key}={value!r}; expected a count")
    expected = {name: dtype.name for name, dtype in DTYPES.items()}
    if manifest.get("dtypes") != expected:
        raise CorpusFormatError(f"{str(folder)!r}: manifest.json declares dtypes {manifest.get('dtypes')!r}; "
                                f"version {VERSION} stores {expected}")
    return manifest


def _check_arrays(folder: Path, counts: DiskCounts, manifest: dict[str, Any]) -> None:
    """Full scan: rows non-empty and in order, words in range and sorted per row, counts >= 1."""
    where = repr(str(folder))
    previous = None
    for start, values in _read_chunks(counts.indptr, folder / "indptr.npy"):
        steps = np.diff(values if previous is None else np.concatenate([[previous], values]))
        bad = np.flatnonzero(steps <= 0)
        if bad.size:
            row = start + bad[0] - (previous is not None)
            what = "is empty" if steps[bad[0]] == 0 else "ends before it starts (indptr is not monotone)"
            raise CorpusFormatError(f"{where}: indptr.npy is damaged: row {row} {what}; rebuild the corpus")
        previous = values[-1]
    n_words, tokens, previous = manifest["n_words"], 0, None
    for start, values in _read_chunks(counts.indices, folder / "indices.npy"):
        outside = np.flatnonzero((values < 0) | (values >= n_words))
        if outside.size:
            i = outside[0]
            raise CorpusFormatError(f"{where}: indices.npy entry {start + i} is word {values[i]}, outside "
                                    f"[0, {n_words}) (vocab.txt has {n_words} words); rebuild the corpus")
        extended = values if previous is None else np.concatenate([[previous], values])
        # a word index not above its predecessor is only allowed where a new row starts
        unsorted = np.flatnonzero(extended[1:] <= extended[:-1]) + start + (previous is None)
        row_starts = np.asarray(counts.indptr[np.minimum(np.searchsorted(counts.indptr, unsorted),
                                                         counts.shape[0])])
        bad = unsorted[row_starts != unsorted]
        if bad.size:
            raise CorpusFormatError(f"{where}: indices.npy is not sorted (or repeats a word) within a row at "
                                    f"entry {bad[0]}; rebuild the corpus")
        previous = values[-1]
    for start, values in _read_chunks(counts.data, folder / "data.npy"):
        if values.size and values.min() < 1:
            i = int(np.argmin(values))
            raise CorpusFormatError(f"{where}: data.npy entry {start + i} is the count {values[i]}; counts must "
                                    "be >= 1; rebuild the corpus")
        tokens += int(values.sum(dtype=np.int64))
    if tokens != manifest["n_tokens"]:
        raise CorpusFormatError(f"{where}: data.npy sums to {tokens} tokens but manifest.json says "
                                f"n_tokens={manifest['n_tokens']}; rebuild the corpus")


def _read_lines(path: Path, what: str, n: int, folder: Path) -> list[str]:
    try:
        with open(path, encoding="utf-8", newline="\n") as file:
            lines = [line.rstrip("\n") for line in file]
    except UnicodeDecodeError as exc:
        raise CorpusFormatError(f"{str(folder)!r}: {path.name} is not UTF-8 ({exc}); rebuild the corpus") from None
    if len(lines) != n:
        raise CorpusFormatError(f"{str(folder)!r}: {path.name} has {len(lines)} lines but manifest.json "
                                f"expects {n} {what}; rebuild the corpus")
    return lines


class DiskCorpus:
    """A bag-of-words corpus kept on disk, for stochastic variational inference at scale.

    The counts are memory-mapped (:class:`DiskCounts`); the vocabulary is read into
    memory.  Build one with :meth:`from_texts` (folder of ``.txt``, ``.zip``,
    ``.csv``/``.tsv``/``.jsonl``), :meth:`from_uci`, :meth:`from_counts` or
    :meth:`engine.semisynthetic.SemiSyntheticGenerator.build`; reopen it with :meth:`open`.
    Train on it with :class:`engine.SVI`, which reads each minibatch's rows from disk
    (Hoffman, Blei, Wang & Paisley 2013).

    Attributes
    ----------
    folder : Path
    counts : DiskCounts of shape (n_docs, n_words)
    vocabulary : tuple of str
    manifest : dict
        The parsed ``manifest.json`` (sizes, dtypes and ``source``, how it was built).
    """

    def __init__(self, folder: Path, manifest: dict[str, Any], counts: DiskCounts, vocabulary: tuple[str, ...]):
        self.folder, self.manifest, self.counts, self.vocabulary = folder, manifest, counts, vocabulary
        self._doc_ids: tuple[str, ...] | None = None

    def __reduce__(self):  # pickling or copying reopens the folder instead of copying the arrays
        return (DiskCorpus.open, (str(self.folder), "quick"))

    # ------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: Source, check: str = "full") -> DiskCorpus:
        """Open a corpus folder, validating it.

        Parameters
        ----------
        folder : str or path-like
        check : {"full", "quick"}
            "quick" checks the manifest, the files, their dtypes and sizes and the
            vocabulary; "full" also scans every array (rows non-empty and in order,
            word indices in range and sorted within rows, counts >= 1, token total),
            reading them in chunks so memory stays small.

        Raises
        ------
        CorpusFormatError
            Naming the file and what is wrong.
        """
        if check not in ("full", "quick"):
            raise ValueError(f"check must be 'full' or 'quick', got {check!r}")
        folder = Path(folder)
        manifest = _read_manifest(folder)
        n_docs, nnz = manifest["n_docs"], manifest["nnz"]
        arrays = {name: _open_array(folder, name, length)
                  for name, length in (("indptr", n_docs + 1), ("indices", nnz), ("data", nnz))}
        ends = (int(arrays["indptr"][0]), int(arrays["indptr"][-1]))
        if ends != (0, nnz):
            raise CorpusFormatError(f"{str(folder)!r}: indptr.npy runs from {ends[0]} to {ends[1]}, not from 0 to "
                                    f"nnz={nnz}; rebuild the corpus")
        if not (folder / "vocab.txt").is_file():
            raise CorpusFormatError(f"{str(folder)!r} is not a complete disk corpus: vocab.txt is missing")
        vocabulary = tuple(_read_lines(folder / "vocab.txt", "words", manifest["n_words"], folder))
        if len(set(vocabulary)) != len(vocabulary) or not all(vocabulary):
            raise CorpusFormatError(f"{str(folder)!r}: vocab.txt has an empty or repeated word; rebuild the corpus")
        counts = DiskCounts(arrays["indptr"], arrays["indices"], arrays["data"], manifest["n_words"])
        if check == "full":
            _check_arrays(folder, counts, manifest)
        return cls(folder, manifest, counts, vocabulary)

    # ------------------------------------------------------------ building
    @classmethod
    def from_counts(cls, counts: Any, folder: Source, vocabulary: Sequence[str] | None = None,
                    doc_ids: Sequence[str] | None = None, overwrite: bool = False,
                    chunk_size: int = 65536) -> DiskCorpus:
        """Write an in-memory corpus (a :class:`~engine.Corpus` or a count matrix) to ``folder``.

        A count matrix goes through :meth:`Corpus.from_counts` (empty rows are
        dropped and reported); ``vocabulary`` and ``doc_ids`` apply to a matrix only.
        """
        if isinstance(counts, Corpus) and (vocabulary is not None or doc_ids is not None):
            raise ValueError("vocabulary and doc_ids apply to a count matrix; a Corpus brings its own")
        corpus = counts if isinstance(counts, Corpus) else Corpus.from_counts(counts, vocabulary, doc_ids)
        chunk_size = check_int("chunk_size", chunk_size, 1)
        with _DiskWriter(folder, corpus.n_words, overwrite) as writer:
            for start in range(0, corpus.n_docs, chunk_size):
                rows = slice(start, start + chunk_size)
                writer.append(corpus.counts[rows], corpus.doc_ids[rows])
            writer.drop(corpus.dropped)
            writer.skip(corpus.skipped)
            path = writer.finish(corpus.vocabulary, {"kind": "counts"})
        return cls.open(path, check="quick")

    @classmethod
    def from_uci(cls, docword: Source, folder: Source, vocab: Source | None = None, overwrite: bool = False,
                 chunk_size: int = 1 << 20) -> DiskCorpus:
        """Stream a UCI ``docword`` file (sorted by docID, optionally gzipped) to ``folder`` in one pass.

        Rows, ids (the 1-based docIDs) and ``dropped`` are those of :func:`engine.read_uci`;
        ``vocab`` defaults to the vocabulary file beside ``docword``.  ``chunk_size``
        is the number of entries parsed at a time.
        """
        path = Path(docword)
        chunk_size = check_int("chunk_size", chunk_size, 1)
        _check_target(Path(folder), overwrite)  # before reading anything
        with _open_maybe_gzip(path) as file:
            n_docs, n_words, nnz = _uci_header(file, path)
            vocabulary = _find_vocabulary(path, vocab, required=True)
            _check_vocabulary(vocabulary, n_words, path)
            with _DiskWriter(folder, n_words, overwrite) as writer:
                for counts, ids, dropped in _uci_rows(file, path, n_docs, n_words, nnz, chunk_size):
                    writer.drop(DroppedDocument(d, d, _EMPTY_ROW) for d in dropped)
                    if counts.shape[0]:
                        writer.append(counts, ids)
                if writer.n_docs == 0:
                    raise EmptyCorpusError(f"{path.name}: all {n_docs} documents are empty; a corpus needs words")
                target = writer.finish(vocabulary, {"kind": "uci", "path": str(path)})
        return cls.open(target, check="quick")

    @classmethod
    def from_texts(cls, source: Source, folder: Source, *, text_column: str | None = None,
                   id_column: str | None = None, chunk_size: int = 2000, overwrite: bool = False,
                   **vectorizer_options: Any) -> DiskCorpus:
        """Tokenise a folder of ``.txt``, a ``.zip`` or a ``.csv``/``.tsv``/``.jsonl`` table to ``folder``.

        Two streaming passes over the source, ``chunk_size`` documents at a time:
        the first counts document and corpus frequencies to choose the vocabulary
        (``min_df``, ``max_df``, ``max_features``), the second counts words
        against it and appends them to the arrays.  Tokenisation, vocabulary,
        counts, ids and ``dropped`` are those of :meth:`Corpus.from_texts` with the
        same options (``engine.load_corpus`` on the same source); memory holds one
        chunk of text plus the table of distinct words.  Tables are read as UTF-8.

        Parameters
        ----------
        source : str or path-like
        folder : str or path-like
            Where to write the corpus (must not exist unless ``overwrite``).
        text_column, id_column : str, optional
            Table columns (``text_column`` defaults to ``"text"``; ids default to
            1-based row numbers, as :func:`engine.read_table`).
        **vectorizer_options
            ``stop_words``, ``extra_stop_words``, ``min_df``, ``max_df``,
            ``max_features``, ``token_pattern`` as in :meth:`Corpus.from_texts`.
        """
        source = Path(source)
        options = {"stop_words": "english", "extra_stop_words": (), "min_df": 1, "max_df": 1.0,
                   "max_features": None, "token_pattern": TOKEN_PATTERN, **vectorizer_options}
        unknown = sorted(set(options) - {"stop_words", "extra_stop_words", "min_df", "max_df", "max_features",
                                         "token_pattern"})
        if unknown:
            raise TypeError(f"unknown tokenizer options {unknown}; see Corpus.from_texts")
        for name in ("stop_words", "extra_stop_words"):  # iterables are read twice and recorded in the manifest
            if options[name] is not None and not isinstance(options[name], str):
                options[name] = sorted(options[name])
        chunk_size = check_int("chunk_size", chunk_size, 1)
        _check_target(Path(folder), overwrite)  # before the first pass
        analyzer = _vectorizer(**options).build_analyzer()
        is_table = source.is_file() and table_format(source.name) is not None
        if (text_column or id_column) and not is_table:
            raise ValueError(f"text_column and id_column apply to .csv/.tsv/.jsonl tables, not {source.name!r}")

        def chunks(skipped: list | None) -> Iterator[tuple[list[str], list[str], list[str]]]:
            if is_table:
                return _table_chunks(source, text_column or "text", id_column, chunk_size)
            return _batched(_text_documents(source, skipped), chunk_size)

        skipped: list[SkippedFile] = []
        stats = _TermStats()
        for _, _, texts in chunks(skipped):  # pass 1: document and corpus frequencies
            stats.add([analyzer(t) for t in texts if t.strip()])
        vocabulary, expected_nnz = stats.vocabulary(options["min_df"], options["max_df"], options["max_features"])
        index = {word: i for i, word in enumerate(vocabulary)}
        with _DiskWriter(folder, len(vocabulary), overwrite) as writer:
            writer.skip(skipped)
            for ids, titles, texts in chunks(None):  # pass 2: counts against the chosen vocabulary
                counts, kept, dropped = _count_chunk(analyzer, index, ids, titles, texts)
                writer.drop(dropped)
                if kept:
                    writer.append(counts, kept)
            if writer.nnz != expected_nnz:
                raise CorpusFormatError(f"{source.name!r} changed while it was read (the two passes disagree); "
                                        "build the corpus again from a source that is not being modified")
            target = writer.finish(vocabulary, {"kind": "texts", "path": str(source), "options": options})
        return cls.open(target, check="quick")

    # ------------------------------------------------------------ reading
    @property
    def n_docs(self) -> int:
        return self.counts.shape[0]

    @property
    def n_words(self) -> int:
        return self.counts.shape[1]

    @property
    def nnz(self) -> int:
        return self.counts.nnz

    @property
    def n_tokens(self) -> int:
        return int(self.manifest["n_tokens"])

    def __len__(self) -> int:
        return self.n_docs

    def __repr__(self) -> str:
        return (f"DiskCorpus({str(self.folder)!r}, n_docs={self.n_docs}, n_words={self.n_words}, "
                f"n_tokens={self.n_tokens})")

    @property
    def doc_ids(self) -> tuple[str, ...]:
        """One id per row (read from ``doc_ids.jsonl`` on first use, or "0", "1", ...)."""
        if self._doc_ids is None:
            if self.manifest.get("doc_ids"):
                lines = _read_lines(self.folder / "doc_ids.jsonl", "document ids", self.n_docs, self.folder)
                self._doc_ids = tuple(json.loads(line) for line in lines)
            else:
                self._doc_ids = tuple(str(d) for d in range(self.n_docs))
        return self._doc_ids

    def _records(self, name: str) -> list[dict[str, Any]]:
        path = self.folder / name
        if not path.exists():
            return []
        with open(path, encoding="utf-8") as file:
            return [json.loads(line) for line in file]

    @property
    def dropped(self) -> tuple[DroppedDocument, ...]:
        """Documents left out because they had no words (as in :attr:`Corpus.dropped`)."""
        return tuple(DroppedDocument(**r) for r in self._records("dropped.jsonl"))

    @property
    def skipped(self) -> tuple:
        """Files the reader ignored (as in :attr:`Corpus.skipped`)."""
        return tuple(SkippedFile(**r) for r in self._records("skipped.jsonl"))

    def subset_to_memory(self, indices: Sequence[int] | np.ndarray | slice) -> Corpus:
        """Read the given rows into an in-memory :class:`~engine.Corpus` (titles are the ids)."""
        rows = self.counts._rows(np.arange(self.n_docs)[indices] if isinstance(indices, slice) else indices)
        if rows.size == 0:
            raise EmptyCorpusError("subset_to_memory needs at least one document index, got none")
        ids = self.doc_ids
        picked = tuple(ids[r] for r in rows)
        if len(set(picked)) != len(picked):
            raise ValueError("indices repeat a document; a Corpus needs unique documents")
        return Corpus(self.counts[rows], self.vocabulary, picked, picked, None, self.dropped, self.skipped)


# ------------------------------------------------------------------ text sources
def _batched(documents: Iterator[tuple[str, str, str]], size: int) -> Iterator[tuple[list, list, list]]:
    """Group (id, title, text) triples into (ids, titles, texts) lists of ``size``."""
    batch: list[tuple[str, str, str]] = []
    for document in documents:
        batch.append(document)
        if len(batch) == size:
            yield tuple(map(list, zip(*batch, strict=True)))  # type: ignore[misc]
            batch = []
    if batch:
        yield tuple(map(list, zip(*batch, strict=True)))  # type: ignore[misc]


def _walk(root: Path) -> Iterator[Path]:
    """Files below ``root`` in the order of ``sorted(root.rglob("*"))``: depth first, names sorted."""
    with os.scandir(root) as entries:
        entries = sorted(entries, key=lambda e: e.name)
    for entry in entries:
        if entry.is_dir():
            yield from _walk(Path(entry.path))
        elif entry.is_file():
            yield Path(entry.path)


def _text_documents(source: Path, skipped: list | None) -> Iterator[tuple[str, str, str]]:
    """(id, title, text) of each .txt file of a folder or zip archive, as engine.read_folder/read_zip name them."""
    if source.is_dir():
        for path in _walk(source):
            name = path.relative_to(source).as_posix()
            if _is_txt(name):
                yield name, _title(name), decode_text(path.read_bytes(), name)
            elif skipped is not None:
                skipped.append(SkippedFile(name, "not a .txt file"))
    elif source.is_file() and source.suffix.lower() == ".zip":
        yield from _zip_documents(source, skipped)
    elif not source.exists():
        raise FileNotFoundError(f"no such file or folder: {str(source)!r}")
    else:
        raise CorpusFormatError(f"cannot stream {source.name!r}: expected a folder of .txt files, a .zip of .txt "
                                "files or a .csv/.tsv/.jsonl table")


def _zip_documents(path: Path, skipped: list | None,
                   max_entry_bytes: int = DEFAULT_MAX_TOTAL_BYTES) -> Iterator[tuple[str, str, str]]:
    """The .txt entries of a zip, one at a time; each may expand to at most its declared size."""
    label = repr(str(path))
    try:
        archive = zipfile.ZipFile(path)
    except zipfile.BadZipFile as exc:
        raise CorpusFormatError(f"{label} is not a valid zip archive ({exc})") from None
    with archive:
        seen: set[str] = set()
        for info in archive.infolist():
            _check_entry_name(info.filename)
            if info.filename in seen:
                raise CorpusFormatError(f"{label} holds the entry {info.filename!r} twice")
            seen.add(info.filename)
            parts = info.filename.split("/")
            if info.is_dir():
                continue
            if "__MACOSX" in parts or parts[-1].startswith("._") or not _is_txt(info.filename):
                if skipped is not None:
                    metadata = "__MACOSX" in parts or parts[-1].startswith("._")
                    skipped.append(SkippedFile(info.filename, "macOS metadata" if metadata else "not a .txt file"))
                continue
            if info.file_size > max_entry_bytes:
                raise UnsafeArchiveError(f"{info.filename!r} in {label} expands to {info.file_size} bytes, more "
                                         f"than {max_entry_bytes}; split it")
            try:
                with archive.open(info) as entry:
                    data = entry.read(info.file_size + 1)  # never decompress past the declared size
            except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as exc:
                raise CorpusFormatError(f"cannot read {info.filename!r} in {label}: {exc}") from None
            if len(data) > info.file_size:
                raise UnsafeArchiveError(f"{info.filename!r} in {label} expands past the size it declares "
                                         "(a possible zip bomb); rebuild the archive")
            yield info.filename, _title(info.filename), decode_text(data, info.filename)


def _table_chunks(path: Path, text_column: str, id_column: str | None,
                  chunk_size: int) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """(ids, titles, texts) of ``chunk_size`` rows at a time of a UTF-8 CSV/TSV/JSON-lines table."""
    fmt, label = table_format(path.name), repr(str(path))
    seen_ids: set[str] = set()
    try:
        if fmt == "jsonl":
            reader = pd.read_json(path, lines=True, dtype=False, chunksize=chunk_size, encoding="utf-8")
        else:
            reader = pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False,
                                 index_col=False, chunksize=chunk_size, encoding="utf-8")
        with reader:
            row = 0
            while True:
                with warnings.catch_warnings():
                    # a row longer than the header would otherwise lose fields silently
                    warnings.simplefilter("error", pd.errors.ParserWarning)
                    frame = next(reader, None)
                if frame is None:
                    return
                texts = _column(frame, text_column, label, "text_column")
                if id_column:
                    ids = _column(frame, id_column, label, "id_column")
                    for doc_id in ids:
                        if doc_id in seen_ids:
                            raise CorpusFormatError(f"{label}: id_column {id_column!r} repeats the id {doc_id!r}; "
                                                    "ids must be unique")
                        seen_ids.add(doc_id)
                else:
                    ids = [str(i) for i in range(row + 1, row + len(frame) + 1)]
                row += len(frame)
                yield ids, ids, texts
    except UnicodeDecodeError as exc:
        raise FileDecodingError(f"{label} is not UTF-8 ({exc.reason} at byte {exc.start}); re-save it as "
                                "UTF-8 or load it in memory with engine.load_corpus") from None
    except pd.errors.ParserWarning:
        raise CorpusFormatError(f"{label}: a row has more fields than the header; quote "
                                "texts that contain the separator") from None
    except pd.errors.EmptyDataError:
        raise EmptyCorpusError(f"{label} is empty; it needs a header row and one row per document") from None
    except pd.errors.ParserError as exc:
        raise CorpusFormatError(f"{label} is not valid {fmt.upper()}: {exc}") from None


# -------------------------------------------------------------------- UCI source
def _open_maybe_gzip(path: Path) -> IO[bytes]:
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    return gzip.open(path, "rb") if path.suffix.lower() == ".gz" else open(path, "rb")


def _uci_header(file: IO[bytes], path: Path) -> list[int]:
    header = []
    for number, what in enumerate(("documents D", "words W", "non-zero entries NNZ"), start=1):
        try:
            text = file.readline().decode("ascii", errors="replace").strip()
        except (OSError, EOFError, zlib.error) as exc:
            raise CorpusFormatError(f"{path.name} is not a valid gzip file ({exc})") from None
        if not _is_count(text):
            raise CorpusFormatError(f"{path.name} line {number}: expected the number of {what}, "
                                    f"got {repr(text) if text else 'nothing'}")
        header.append(int(text))
    return header


def _uci_rows(file: IO[bytes], path: Path, n_docs: int, n_words: int, nnz: int,
              chunk_size: int) -> Iterator[tuple[sp.csr_matrix, list[str], list[str]]]:
    """Rows of a docID-sorted UCI body, chunk by chunk: (counts, their docIDs, docIDs without entries).

    The entries of the last document of a chunk are carried to the next chunk,
    since that document may continue there.
    """
    try:
        reader = pd.read_csv(file, sep=r"\s+", header=None, dtype=np.int64, chunksize=chunk_size)
    except pd.errors.EmptyDataError:
        reader = None
    seen, last_doc, carry = 0, 0, np.zeros((0, 3), dtype=np.int64)
    frames = iter(()) if reader is None else reader
    while True:
        try:
            frame = next(frames, None)
        except (ValueError, pd.errors.ParserError, OSError, EOFError, zlib.error) as exc:
            raise CorpusFormatError(f"{path.name}: cannot parse the entries after line {seen + 3} ({exc}); "
                                    "expected lines 'docID wordID count' of three non-negative integers") from None
        if frame is None:
            break
        entries = frame.to_numpy()
        if entries.shape[1] != 3:
            raise CorpusFormatError(f"{path.name}: lines {seen + 4}-{seen + 3 + len(entries)} have "
                                    f"{entries.shape[1]} fields; expected 'docID wordID count'")
        for column, low, high, name in ((0, 1, n_docs, "docID"), (1, 1, n_words, "wordID"),
                                        (2, 1, _INT32_MAX, "count")):
            bad = np.flatnonzero((entries[:, column] < low) | (entries[:, column] > high))
            if bad.size:
                i = bad[0]
                raise CorpusFormatError(f"{path.name} line {seen + i + 4}: {name} {entries[i, column]} is "
                                        f"outside [{low}, {high}]")
        docs = np.concatenate([[max(last_doc, carry[-1, 0] if carry.size else 0)], entries[:, 0]])
        unsorted = np.flatnonzero(np.diff(docs) < 0)
        if unsorted.size:
            i = unsorted[0]
            raise CorpusFormatError(
                f"{path.name} line {seen + i + 4}: docID {docs[i + 1]} comes after docID {docs[i]}; a disk corpus "
                "reads UCI files sorted by docID in one pass: sort the entries (sort -n -k1,1 -k2,2) or read "
                "the file with engine.read_uci")
        seen += len(entries)
        entries = np.concatenate([carry, entries])
        cut = int(np.searchsorted(entries[:, 0], entries[-1, 0]))  # where the last document starts
        carry = entries[cut:]
        if cut:
            yield _uci_block(entries[:cut], last_doc, n_words, path)
            last_doc = int(entries[cut - 1, 0])
    if seen != nnz:
        raise CorpusFormatError(f"{path.name}: the header announces NNZ={nnz} entries but the file holds {seen}; "
                                "the file is truncated or the header is wrong")
    if carry.size:
        yield _uci_block(carry, last_doc, n_words, path)
        last_doc = int(carry[-1, 0])
    empty = sp.csr_matrix((0, n_words), dtype=np.int64)
    yield empty, [], [str(d) for d in range(last_doc + 1, n_docs + 1)]


def _uci_block(entries: np.ndarray, last_doc: int, n_words: int, path: Path):
    """CSR rows of complete documents (entries sorted by docID), their ids, and the docIDs skipped before them."""
    doc, word, count = entries[np.lexsort((entries[:, 1], entries[:, 0]))].T
    repeated = np.flatnonzero((doc[1:] == doc[:-1]) & (word[1:] == word[:-1]))
    if repeated.size:
        i = repeated[0]
        raise CorpusFormatError(f"{path.name}: docID {doc[i]} wordID {word[i]} appears twice; each pair must "
                                "appear once")
    present, lengths = np.unique(doc, return_counts=True)
    missing = np.setdiff1d(np.arange(last_doc + 1, present[-1] + 1), present)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    counts = sp.csr_matrix((count, word - 1, indptr), shape=(present.size, n_words))
    return counts, [str(d) for d in present], [str(d) for d in missing]


# ------------------------------------------------------------------ text counting
class _TermStats:
    """Document and corpus frequencies of every distinct token (pass 1 of :meth:`DiskCorpus.from_texts`)."""

    def __init__(self) -> None:
        self.index: dict[str, int] = {}
        self.df = np.zeros(0, dtype=np.int64)
        self.tf = np.zeros(0, dtype=np.int64)
        self.n_docs = 0

    def add(self, token_lists: list[list[str]]) -> None:
        index = self.index
        ids = np.array([index.setdefault(t, len(index)) for tokens in token_lists for t in tokens], dtype=np.int64)
        n = len(index)
        if n > self.df.size:
            grown = max(n, 2 * self.df.size)
            self.df = np.concatenate([self.df, np.zeros(grown - self.df.size, np.int64)])
            self.tf = np.concatenate([self.tf, np.zeros(grown - self.tf.size, np.int64)])
        lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
        docs = np.repeat(np.arange(len(token_lists), dtype=np.int64), lengths)
        self.tf[:n] += np.bincount(ids, minlength=n)
        self.df[:n] += np.bincount(np.unique(docs * max(n, 1) + ids) % max(n, 1), minlength=n)
        self.n_docs += len(token_lists)

    def vocabulary(self, min_df, max_df, max_features) -> tuple[tuple[str, ...], int]:
        """The kept words (sorted) and their number of (document, word) pairs, as CountVectorizer chooses them."""
        if self.n_docs == 0:
            raise EmptyCorpusError("no document has any text; provide documents with text")
        n = len(self.index)
        words = sorted(self.index)
        order = np.fromiter((self.index[w] for w in words), dtype=np.int64, count=n)
        df, tf = self.df[order], self.tf[order]
        high = max_df if isinstance(max_df, numbers.Integral) else max_df * self.n_docs
        low = min_df if isinstance(min_df, numbers.Integral) else min_df * self.n_docs
        if high < low and low <= self.n_docs:
            raise ValueError(f"max_df={max_df!r} allows fewer documents than min_df={min_df!r} "
                             f"for {self.n_docs} documents; raise max_df or lower min_df")
        # the rule of scikit-learn's CountVectorizer._limit_features, on alphabetically sorted words
        mask = (df <= high) & (df >= low)
        if max_features is not None and mask.sum() > max_features:
            keep = np.zeros(mask.size, dtype=bool)
            keep[np.where(mask)[0][(-tf[mask]).argsort()[:max_features]]] = True
            mask = keep
        if not mask.any():
            raise EmptyVocabularyError(
                f"no word is left after filtering {self.n_docs} documents (min_df={min_df!r}, max_df={max_df!r}); "
                "lower min_df, raise max_df, or check the stop words and that the texts contain words "
                "of two or more letters")
        return tuple(w for w, keep in zip(words, mask, strict=True) if keep), int(df[mask].sum())


def _count_chunk(analyzer, index: dict[str, int], ids: list[str], titles: list[str], texts: list[str]):
    """Counts of one chunk against the vocabulary ``index``: (csr of kept rows, their ids, dropped)."""
    n_words = len(index)
    token_lists = [analyzer(t) if t.strip() else [] for t in texts]
    columns = np.array([index.get(t, -1) for tokens in token_lists for t in tokens], dtype=np.int64)
    lengths = np.fromiter(map(len, token_lists), dtype=np.int64, count=len(token_lists))
    docs = np.repeat(np.arange(len(texts), dtype=np.int64), lengths)
    known = columns >= 0
    keys, counts = np.unique(docs[known] * n_words + columns[known], return_counts=True)
    row_lengths = np.bincount(keys // n_words, minlength=len(texts))
    kept = row_lengths > 0
    dropped = [DroppedDocument(ids[d], titles[d], _NO_WORDS if texts[d].strip() else _EMPTY_TEXT)
               for d in np.flatnonzero(~kept)]
    indptr = np.concatenate([[0], np.cumsum(row_lengths[kept])])
    matrix = sp.csr_matrix((counts, keys % n_words, indptr), shape=(int(kept.sum()), n_words))
    return matrix, [ids[d] for d in np.flatnonzero(kept)], dropped

"""Streaming readers of the sources a disk corpus is built from, one chunk at a time.

Text documents come from a folder of ``.txt`` files, a ``.zip`` of them or a
CSV/TSV/JSON-lines table, named and decoded as the in-memory readers of
:mod:`engine.data.text` do; count rows come from a UCI ``docword`` file sorted by
docID (optionally gzipped), validated as :func:`engine.read_uci` does.  Only
one document, or one chunk of rows, is in memory at a time.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import warnings
import zipfile
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import IO

import numpy as np
import pandas as pd
import scipy.sparse as sp

from engine.data._bounds import ZIP_ERRORS, BoundedReader, check_empty_documents, expanded_too_large
from engine.data._csv_quoting import check_quoting
from engine.data._disk_writer import _INT32_MAX
from engine.data._encoding import encoding_name
from engine.data.bow_formats import _is_count
from engine.data.documents import _DocumentCache
from engine.data.markup import evenly_spread
from engine.data.mbox import COLUMNS as MBOX_COLUMNS
from engine.data.mbox import mbox_rows
from engine.data.sphinx import sphinx_unread
from engine.data.spreadsheets import read_sheet
from engine.data.text import (
    DEFAULT_MAX_TOTAL_BYTES,
    NOT_TEXT,
    SHEET_FORMATS,
    SkippedFile,
    _column,
    _expands_past_declared,
    _is_text_file,
    _read_entry,
    _title,
    _zip_text_entries,
    read_texts,
    table_format,
)
from engine.errors import (
    CorpusFormatError,
    EmptyCorpusError,
    FileDecodingError,
    LimitExceededError,
    MissingColumnError,
    UnsafeArchiveError,
)
from engine.limits import current_limits


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


def _text_documents(source: Path, skipped: list | None, encoding: str | None = None,
                    spread: int | None = None, cache: _DocumentCache | None = None) -> Iterator[tuple[str, str, str]]:
    """(id, title, text) of each file of TEXT_SUFFIXES in a folder or zip archive, as engine.read_folder/read_zip
    name them; with ``spread``, of at most that many files spread evenly over them, the others not read; PDF, Word,
    OpenDocument, EPUB and presentation files are taken from ``cache`` when it holds them, and kept there when read."""
    if source.is_dir():
        # the folder is listed once more first, for the files of a Sphinx site that are not read (read_folder's rule)
        sphinx_files = sphinx_unread(path.relative_to(source).as_posix() for path in _walk(source))

        def readable(path: Path) -> bool:
            name = path.relative_to(source).as_posix()
            return _is_text_file(name) and name not in sphinx_files

        paths = _walk(source)
        if spread is not None:  # the folder is listed again, so that memory holds only the files picked
            n_texts = sum(1 for path in _walk(source) if readable(path))
            picked = set(evenly_spread(n_texts, spread))
            paths = (path for i, path in enumerate(path for path in _walk(source) if readable(path)) if i in picked)
        unread: list[SkippedFile] = []

        def files() -> Iterator[tuple[str, bytes]]:
            for path in paths:
                name = path.relative_to(source).as_posix()
                if name in sphinx_files:
                    unread.append(SkippedFile(name, sphinx_files[name]))
                elif _is_text_file(name):  # a document read on an earlier pass is not read again
                    yield name, b"" if cache is not None and name in cache else path.read_bytes()
                else:
                    unread.append(SkippedFile(name, NOT_TEXT))

        for name, text in read_texts(files(), encoding, unread, cache=cache):
            yield name, _title(name), text
        if skipped is not None:
            skipped.extend(unread)
    elif source.is_file() and source.suffix.lower() == ".zip":
        yield from _zip_documents(source, skipped, encoding, spread=spread, cache=cache)
    elif not source.exists():
        raise FileNotFoundError(f"no such file or folder: {str(source)!r}")
    else:
        raise CorpusFormatError(f"cannot stream {source.name!r}: expected a folder of .txt, .md, .rst, .html, .eml, "
                                ".pdf, .docx, .odt, .epub, .pptx or .odp files, a .zip of them, a .csv/.tsv/.jsonl "
                                "table, an .xlsx/.ods spreadsheet or a mailbox (.mbox)")


def _zip_documents(path: Path, skipped: list | None, encoding: str | None = None,
                   max_entry_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
                   spread: int | None = None, cache: _DocumentCache | None = None) -> Iterator[tuple[str, str, str]]:
    """The entries of a zip named in TEXT_SUFFIXES, one at a time (with ``spread``, at most that many spread evenly
    over them); each may expand to at most its declared size.  Documents come from ``cache`` when it holds them."""
    label = repr(str(path))
    try:
        archive = zipfile.ZipFile(path)
    except OSError:  # the file system's (a missing or unreadable file), not the archive's
        raise
    except ZIP_ERRORS as exc:
        raise CorpusFormatError(f"{label} is not a valid zip archive ({exc})") from None
    with archive:
        to_read, skipped_here = _zip_text_entries(archive.infolist(), label)
        if skipped is not None:
            skipped.extend(skipped_here)
        if spread is not None:
            to_read = [to_read[i] for i in evenly_spread(len(to_read), spread)]
        limits = current_limits()

        def entries() -> Iterator[tuple[str, bytes]]:
            total = 0
            for info in to_read:
                if info.file_size > max_entry_bytes:
                    raise UnsafeArchiveError(f"{info.filename!r} in {label} expands to {info.file_size} bytes, "
                                             f"more than {max_entry_bytes}; split it")
                if cache is not None and info.filename in cache:  # read on an earlier pass: its size is known
                    data, size = b"", info.file_size
                else:
                    data = _read_entry(archive, info, info.file_size, label)  # never past the declared size
                    if len(data) > info.file_size:
                        raise _expands_past_declared(info, label)
                    size = len(data)
                total += size
                if total > limits.max_expanded_bytes:  # entries are streamed, the archive as a whole is bounded
                    raise expanded_too_large(label, limits)
                yield info.filename, data

        unread: list[SkippedFile] = []
        for name, text in read_texts(entries(), encoding, unread, cache=cache):
            yield name, _title(name), text
        if skipped is not None:
            skipped.extend(unread)


def _table_chunks(path: Path, text_column: str, id_column: str | None, chunk_size: int,
                  encoding: str | None = None, sheet: str | None = None,
                  ) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """(ids, titles, texts) of ``chunk_size`` rows at a time of a CSV/TSV/JSON-lines table, a mailbox (UTF-8 by
    default) or a spreadsheet's sheet (read whole: it holds at most ``SHEET_CELLS`` cells)."""
    fmt, label = table_format(path.name), repr(str(path))
    # a UTF-8 byte-order mark is not part of the first column's name
    read_as = "utf-8-sig" if encoding is None or encoding_name(encoding) == "utf-8" else encoding
    if fmt == "mbox":
        yield from _mbox_chunks(path, text_column, id_column, chunk_size, read_as, label)
        return
    seen_ids: set[str] = set()
    try:
        if fmt in ("csv", "tsv"):  # a stray quote would otherwise merge rows silently; checked as the file streams
            check_quoting(path, "\t" if fmt == "tsv" else ",", label, read_as)
        if fmt in SHEET_FORMATS:
            rows = read_sheet(path, sheet).frame
            reader = contextlib.closing(rows.iloc[start:start + chunk_size]
                                        for start in range(0, len(rows), chunk_size))
        elif fmt == "jsonl":
            reader = pd.read_json(path, lines=True, dtype=False, chunksize=chunk_size, encoding=read_as)
        else:
            reader = pd.read_csv(path, sep="\t" if fmt == "tsv" else ",", dtype=str, keep_default_na=False,
                                 index_col=False, chunksize=chunk_size, encoding=read_as)
        with reader as frames:
            row = 0
            while True:
                with warnings.catch_warnings():
                    # a row longer than the header would otherwise lose fields silently
                    warnings.simplefilter("error", pd.errors.ParserWarning)
                    frame = next(frames, None)
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
        raise FileDecodingError(f"{label} is not valid {encoding or 'UTF-8'} ({exc.reason} at byte {exc.start} of "
                                "a block); give its encoding, re-save it as UTF-8, or load it in memory with "
                                "engine.load_corpus, which detects the encoding") from None
    except pd.errors.ParserWarning:
        raise CorpusFormatError(f"{label}: a row has more fields than the header; quote "
                                "texts that contain the separator") from None
    except pd.errors.EmptyDataError:
        raise EmptyCorpusError(f"{label} is empty; it needs a header row and one row per document") from None
    except pd.errors.ParserError as exc:
        raise CorpusFormatError(f"{label} is not valid {fmt.upper()}: {exc}") from None


def _mbox_chunks(path: Path, text_column: str, id_column: str | None, chunk_size: int, read_as: str,
                 label: str) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """(ids, titles, texts) of ``chunk_size`` messages at a time of a mailbox, as :func:`engine.read_table` reads
    one: ids the 1-based message numbers, or a column of :data:`engine.data.mbox.COLUMNS`."""
    for name, column in (("text_column", text_column), ("id_column", id_column)):
        if column is not None and column not in MBOX_COLUMNS:
            available = ", ".join(repr(c) for c in MBOX_COLUMNS)
            raise MissingColumnError(f"{label} has no column {column!r} ({name}); available columns: {available}")
    seen_ids: set[str] = set()
    chunk: tuple[list[str], list[str], list[str]] = ([], [], [])
    try:
        with open(path, encoding=read_as, newline="") as file:  # line breaks as written: the rows keep their text
            for number, row in enumerate(mbox_rows(file, label), start=1):
                values = dict(zip(MBOX_COLUMNS, row, strict=True))
                doc_id = values[id_column] if id_column else str(number)
                if id_column:
                    if doc_id in seen_ids:
                        raise CorpusFormatError(f"{label}: id_column {id_column!r} repeats the id {doc_id!r}; "
                                                "ids must be unique")
                    seen_ids.add(doc_id)
                for part, value in zip(chunk, (doc_id, doc_id, values[text_column]), strict=True):
                    part.append(value)
                if len(chunk[0]) == chunk_size:
                    yield chunk
                    chunk = ([], [], [])
    except UnicodeDecodeError as exc:
        raise FileDecodingError(f"{label} is not valid {read_as} ({exc.reason} at byte {exc.start} of a block); "
                                "give its encoding, or load it in memory with engine.load_corpus, which detects "
                                "the encoding") from None
    if chunk[0]:
        yield chunk


# -------------------------------------------------------------------- UCI source
def _open_maybe_gzip(path: Path) -> IO[bytes]:
    """The bytes of ``path``; a ``.gz`` file is decompressed as it is read, at most ``max_expanded_mb`` of it."""
    if not path.is_file():
        raise FileNotFoundError(f"no such file: {str(path)!r}")
    if path.suffix.lower() == ".gz":
        return io.BufferedReader(BoundedReader(gzip.open(path, "rb"), path.name))
    return open(path, "rb")


def _body_bytes(file: IO[bytes], path: Path) -> int | None:
    """The bytes after the current position of a plain file; None for a decompressed stream."""
    if path.suffix.lower() == ".gz":
        return None
    return os.fstat(file.fileno()).st_size - file.tell()


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
    seen, present, last_doc, carry = 0, 0, 0, np.zeros((0, 3), dtype=np.int64)
    frames = iter(()) if reader is None else reader
    while True:
        try:
            frame = next(frames, None)
        except LimitExceededError:
            raise
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
            block = _uci_block(entries[:cut], last_doc, n_words, path)
            present += block[0].shape[0]
            yield block
            last_doc = int(entries[cut - 1, 0])
    if seen != nnz:
        raise CorpusFormatError(f"{path.name}: the header announces NNZ={nnz} entries but the file holds {seen}; "
                                "the file is truncated or the header is wrong")
    if carry.size:
        block = _uci_block(carry, last_doc, n_words, path)
        present += block[0].shape[0]
        yield block
        last_doc = int(carry[-1, 0])
    check_empty_documents(path.name, n_docs, present, nnz)
    empty = sp.csr_matrix((0, n_words), dtype=np.int64)
    yield empty, [], (str(d) for d in range(last_doc + 1, n_docs + 1))


def _uci_block(entries: np.ndarray, last_doc: int, n_words: int, path: Path):
    """CSR rows of complete documents (entries sorted by docID), their ids, and the docIDs skipped before them."""
    doc, word, count = entries[np.lexsort((entries[:, 1], entries[:, 0]))].T
    repeated = np.flatnonzero((doc[1:] == doc[:-1]) & (word[1:] == word[:-1]))
    if repeated.size:
        i = repeated[0]
        raise CorpusFormatError(f"{path.name}: docID {doc[i]} wordID {word[i]} appears twice; each pair must "
                                "appear once")
    present, lengths = np.unique(doc, return_counts=True)
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    counts = sp.csr_matrix((count, word - 1, indptr), shape=(present.size, n_words))
    return counts, [str(d) for d in present], _gaps(last_doc, present)


def _gaps(last_doc: int, present: np.ndarray) -> Iterator[str]:
    """The docIDs after ``last_doc`` and before ``present[-1]`` that ``present`` lacks, one at a time.

    A gap can be as long as the header allows, so its ids are generated, never held.
    """
    previous = last_doc
    for doc in present.tolist():
        yield from (str(d) for d in range(previous + 1, doc))
        previous = doc


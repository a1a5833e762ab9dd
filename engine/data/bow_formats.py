"""Standard bag-of-words file formats, the saved-corpus folder, and :func:`load_corpus`.

* UCI (``docword.*.txt`` + ``vocab.*.txt``): three header lines D, W, NNZ, then
  NNZ lines ``docID wordID count`` (1-based), as in the UCI "Bag of Words" data set.
* LDA-C (``.dat``/``.ldac`` + ``vocab.txt``, Blei's lda-c): one line per document,
  ``N id:count id:count ...`` with N pairs and 0-based word ids.
* Matrix Market (``.mtx``, read with :func:`scipy.io.mmread`), rows = documents,
  with an optional vocabulary file.
* A folder written by :meth:`Corpus.save`: ``counts.npz`` (loaded with
  ``allow_pickle=False``) and ``corpus.json``.

Readers validate strictly and raise :class:`~engine.errors.CorpusFormatError`
naming the file and line. Writers are atomic: they write a temporary file or
folder and rename it, so no half-written corpus is ever left behind.
"""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd
import scipy.io
import scipy.sparse as sp

from engine.data._bounds import check_declared_sizes, check_empty_documents, check_mtx_header, gunzip
from engine.data.corpus import Corpus
from engine.data.text import (
    SHEET_FORMATS,
    _check_encoding,
    decode_text,
    read_folder,
    read_table,
    read_txt_files,
    read_zip,
    table_format,
)
from engine.errors import CorpusFormatError, EmptyCorpusError
from engine.io.atomic import atomic_file
from engine.limits import Limits, current_limits

__all__ = [
    "load_corpus",
    "read_ldac",
    "read_mtx",
    "read_uci",
    "read_vocabulary",
    "write_ldac",
    "write_mtx",
    "write_uci",
]

Source = str | os.PathLike


def _is_count(text: str) -> bool:
    return text.isascii() and text.isdigit()


def _bytes(path: Path, limits: Limits) -> bytes:
    """The content of ``path``, decompressed (never past ``limits.max_expanded_bytes``) if it ends in ``.gz``."""
    data = path.read_bytes()
    return gunzip(data, path.name, limits) if path.suffix.lower() == ".gz" else data


def _text(path: Path, encoding: str | None = None, limits: Limits | None = None) -> str:
    return decode_text(_bytes(path, limits or current_limits()), path.name, encoding)


def _lines(path: Path, encoding: str | None = None) -> list[str]:
    return _text(path, encoding).rstrip().splitlines()  # trailing blank lines are harmless


def read_vocabulary(path: Source, encoding: str | None = None) -> tuple[str, ...]:
    """Read a vocabulary file: line ``i`` (from 0) is the word of column ``i``.

    ``encoding`` is the file's encoding; None detects it (see :func:`engine.decode_text`).
    """
    path = Path(path)
    words = [line.strip() for line in _lines(path, encoding)]
    current_limits().check("max_vocabulary", len(words), f"the number of words in {path.name}")
    seen: dict[str, int] = {}
    for number, word in enumerate(words, start=1):
        if not word:
            raise CorpusFormatError(f"{path.name} line {number}: empty word; the vocabulary needs one word per line")
        if word in seen:
            raise CorpusFormatError(f"{path.name} line {number}: the word {word!r} repeats line {seen[word]}")
        seen[word] = number
    return tuple(words)


def _find_vocabulary(path: Path, vocab: Source | None, required: bool,
                     encoding: str | None = None) -> tuple[str, ...] | None:
    if vocab is not None:
        return read_vocabulary(vocab, encoding)
    name = path.name.removesuffix(".gz")
    stem = name.rsplit(".", 1)[0]
    candidates = [f"{stem}.vocab", f"{stem}.vocab.txt", "vocab.txt"]
    if name.startswith("docword."):
        candidates.insert(0, "vocab." + name.removeprefix("docword."))
    for candidate in candidates:
        if (path.parent / candidate).is_file():
            return read_vocabulary(path.parent / candidate, encoding)
    if required:
        raise CorpusFormatError(f"no vocabulary found beside {path.name} (looked for {', '.join(candidates)}); "
                                "put the vocabulary file next to it or pass vocab=")
    return None


def _check_vocabulary(vocabulary: tuple[str, ...] | None, n_words: int, path: Path) -> None:
    if vocabulary is not None and len(vocabulary) != n_words:
        raise CorpusFormatError(f"the vocabulary has {len(vocabulary)} words but {path.name} "
                                f"has {n_words} word columns; use the vocabulary that came with it")


def _uci_entries(body: str, nnz: int, path: Path) -> np.ndarray:
    """Parse the ``docID wordID count`` lines (from line 4) into an (nnz, 3) int64 array."""
    body = body.rstrip()  # trailing blank lines are harmless
    if nnz and body.count("\n") + 1 == nnz:
        try:  # fast path: pandas' C parser, no Python object per line
            frame = pd.read_csv(io.StringIO(body), sep=" ", header=None, dtype=np.int64)
            if frame.shape == (nnz, 3):
                return frame.to_numpy()
        except (ValueError, pd.errors.ParserError):
            pass  # the slow path below names the bad line
    lines = body.splitlines()
    rows = []
    for number, line in enumerate(lines, start=4):
        parts = line.split()
        if len(parts) != 3 or not all(_is_count(p) for p in parts):
            raise CorpusFormatError(f"{path.name} line {number}: expected 'docID wordID count' "
                                    f"(three non-negative integers), got {line!r}")
        rows.append([int(p) for p in parts])
    if len(lines) != nnz:
        raise CorpusFormatError(f"{path.name}: the header announces NNZ={nnz} entries but lines 4-{len(lines) + 3} "
                                f"hold {len(lines)}; the file is truncated or the header is wrong")
    return np.array(rows, dtype=np.int64).reshape(-1, 3)


def read_uci(docword: Source, vocab: Source | None = None, *, encoding: str | None = None) -> Corpus:
    """Read a UCI bag-of-words file (``docword.*.txt``, optionally gzipped).

    Parameters
    ----------
    docword : str or path-like
    vocab : str or path-like, optional
        Defaults to ``vocab.*.txt`` (or ``vocab.txt``) beside ``docword``.
    encoding : str, optional
        The vocabulary's encoding; None detects it.

    Returns
    -------
    Corpus
        Document ids are the 1-based UCI docIDs; documents without entries are
        listed in ``dropped``.
    """
    path = Path(docword)
    limits = current_limits()
    lines = _text(path, limits=limits).split("\n", 3)  # three header lines, then the body in one piece
    header = []
    for number, what in enumerate(("documents D", "words W", "non-zero entries NNZ"), start=1):
        text = lines[number - 1].strip() if len(lines) >= number else ""
        if not _is_count(text):
            got = repr(text) if text else "nothing"
            raise CorpusFormatError(f"{path.name} line {number}: expected the number of {what}, got {got}")
        header.append(int(text))
    n_docs, n_words, nnz = header
    body = lines[3] if len(lines) > 3 else ""
    check_declared_sizes(path.name, n_docs, n_words, nnz, limits, len(body))  # before any allocation
    doc, word, count = _uci_entries(body, nnz, path).T
    for values, low, high, name in ((doc, 1, n_docs, "docID"), (word, 1, n_words, "wordID"),
                                    (count, 1, np.inf, "count")):
        bad = np.flatnonzero((values < low) | (values > high))
        if bad.size:
            i = bad[0]
            raise CorpusFormatError(f"{path.name} line {i + 4}: {name} {values[i]} is outside [{low}, {high}]")
    keys = doc * (n_words + 1) + word
    order = np.argsort(keys, kind="stable")
    repeated = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    if repeated.size:
        first, second = order[repeated[0]], order[repeated[0] + 1]
        raise CorpusFormatError(f"{path.name} line {second + 4}: docID {doc[second]} wordID {word[second]} "
                                f"repeats line {first + 4}; each pair must appear once")
    check_empty_documents(path.name, n_docs, np.unique(doc).size, nnz)
    vocabulary = _find_vocabulary(path, vocab, required=True, encoding=encoding)
    _check_vocabulary(vocabulary, n_words, path)
    counts = sp.csr_matrix((count, (doc - 1, word - 1)), shape=(n_docs, n_words))
    return _from_counts(counts, vocabulary, [str(d) for d in range(1, n_docs + 1)], path)


def read_ldac(path: Source, vocab: Source | None = None, *, encoding: str | None = None) -> Corpus:
    """Read an LDA-C file (lines ``N id:count ...``, 0-based ids) with its vocabulary.

    Document ids are 1-based line numbers; the vocabulary defaults to a file
    beside ``path`` (``<stem>.vocab``, ``<stem>.vocab.txt`` or ``vocab.txt``);
    ``encoding`` is the vocabulary's (None detects it).
    """
    path = Path(path)
    vocabulary = _find_vocabulary(path, vocab, required=True, encoding=encoding)
    n_words = len(vocabulary)
    limits = current_limits()
    text = _text(path, limits=limits)
    limits.check("max_entries", text.count(":"), f"the number of 'id:count' entries in {path.name}")
    lines = text.rstrip().splitlines()
    limits.check("max_documents", len(lines), f"the number of documents (lines) in {path.name}")
    indptr, indices, data = [0], [], []
    for number, line in enumerate(lines, start=1):
        parts = line.split()
        where = f"{path.name} line {number}"
        if not parts or not _is_count(parts[0]) or int(parts[0]) != len(parts) - 1:
            raise CorpusFormatError(f"{where}: expected 'N id:count ...' with N pairs, got {line[:80]!r}")
        seen = set()
        for pair in parts[1:]:
            word, _, count = pair.partition(":")
            if not (_is_count(word) and _is_count(count)) or int(count) < 1:
                raise CorpusFormatError(f"{where}: expected 'id:count' with a positive count, got {pair!r}")
            if int(word) >= n_words:
                raise CorpusFormatError(f"{where}: word id {word} is outside the vocabulary of {n_words} words")
            if word in seen:
                raise CorpusFormatError(f"{where}: word id {word} appears twice")
            seen.add(word)
            indices.append(int(word))
            data.append(int(count))
        indptr.append(len(indices))
    counts = sp.csr_matrix((np.array(data, np.int64), np.array(indices, np.int64), indptr),
                           shape=(len(indptr) - 1, n_words))
    return _from_counts(counts, vocabulary, [str(d) for d in range(1, counts.shape[0] + 1)], path)


def read_mtx(path: Source, vocab: Source | None = None, *, encoding: str | None = None) -> Corpus:
    """Read a Matrix Market file (documents x words) with an optional vocabulary file.

    Without a vocabulary beside it (``<stem>.vocab``, ``<stem>.vocab.txt``,
    ``vocab.txt``) or given as ``vocab``, words are named ``w0, w1, ...``;
    ``encoding`` is the vocabulary's (None detects it).
    """
    path = Path(path)
    limits = current_limits()
    content = _bytes(path, limits)
    check_mtx_header(content, path.name, limits)  # declared sizes, before scipy allocates them
    try:
        counts = scipy.io.mmread(io.BytesIO(content))
    except (ValueError, OSError, IndexError, EOFError) as exc:
        raise CorpusFormatError(f"{path.name} is not a valid Matrix Market file: {exc}") from None
    if sp.issparse(counts):
        counts = counts.tocsr()
        check_empty_documents(path.name, counts.shape[0], int(np.count_nonzero(np.diff(counts.indptr))),
                              counts.nnz, "size line")
    vocabulary = _find_vocabulary(path, vocab, required=False, encoding=encoding)
    _check_vocabulary(vocabulary, counts.shape[1], path)
    return _from_counts(counts, vocabulary, [str(d) for d in range(1, counts.shape[0] + 1)], path)


def _from_counts(counts: Any, vocabulary: Any, doc_ids: list[str], path: Path) -> Corpus:
    try:
        return Corpus.from_counts(counts, vocabulary, doc_ids)
    except EmptyCorpusError as exc:
        raise EmptyCorpusError(f"{path.name}: {exc}") from None
    except (ValueError, TypeError) as exc:
        raise CorpusFormatError(f"{path.name}: {exc}") from None


def _atomic_write(path: Source, write: Callable[[IO[bytes]], None]) -> Path:
    with atomic_file(path) as file:
        write(file)
    return Path(path)


def _write_vocabulary(vocabulary: tuple[str, ...], path: Source | None) -> None:
    if path is None:
        return
    if any("\n" in w or "\r" in w for w in vocabulary):
        raise ValueError("a word contains a line break; it cannot be written one word per line")
    _atomic_write(path, lambda f: f.write("".join(w + "\n" for w in vocabulary).encode("utf-8")))


def write_uci(corpus: Corpus, docword: Source, vocab: Source | None = None) -> Path:
    """Write ``corpus`` as a UCI ``docword`` file (and ``vocab`` if given)."""
    coo = corpus.counts.tocoo()
    table = np.column_stack([coo.row + 1, coo.col + 1, coo.data])

    def write(file: IO[bytes]) -> None:
        file.write(f"{corpus.n_docs}\n{corpus.n_words}\n{coo.nnz}\n".encode())
        pd.DataFrame(table).to_csv(file, sep=" ", header=False, index=False)

    _write_vocabulary(corpus.vocabulary, vocab)
    return _atomic_write(docword, write)


def write_ldac(corpus: Corpus, path: Source, vocab: Source | None = None) -> Path:
    """Write ``corpus`` in LDA-C format (and ``vocab`` if given)."""
    counts = corpus.counts

    def write(file: IO[bytes]) -> None:
        for d in range(counts.shape[0]):
            start, end = counts.indptr[d], counts.indptr[d + 1]
            pairs = " ".join(f"{w}:{c}" for w, c in zip(counts.indices[start:end], counts.data[start:end], strict=True))
            file.write(f"{end - start} {pairs}\n".encode())

    _write_vocabulary(corpus.vocabulary, vocab)
    return _atomic_write(path, write)


def write_mtx(corpus: Corpus, path: Source, vocab: Source | None = None) -> Path:
    """Write ``corpus`` as an integer Matrix Market file (and ``vocab`` if given)."""
    _write_vocabulary(corpus.vocabulary, vocab)
    return _atomic_write(path, lambda f: scipy.io.mmwrite(f, corpus.counts, field="integer"))


def holds_text(path: Source) -> bool:
    """Whether :func:`load_corpus` reads ``path`` as raw text (a folder of .txt files, a .zip, a table, a .txt
    document), which its tokenizer options apply to, rather than as counts (a saved corpus, a bag of words)."""
    path = Path(path)
    name = path.name.lower()
    is_table = path.is_file() and table_format(name) is not None
    return (path.is_dir() and not (path / "corpus.json").exists()) or name.endswith(".zip") or is_table or (
        name.endswith(".txt") and not name.startswith("docword"))


def load_corpus(path: Source, text_column: str | None = None, title_column: str | None = None,
                *, id_column: str | None = None, vocab: Source | None = None,
                encoding: str | None = None, sheet: str | None = None, **vectorizer_options: Any) -> Corpus:
    """Load a corpus from whatever ``path`` is.

    Parameters
    ----------
    path : str or path-like
        A folder saved by :meth:`Corpus.save`; a folder of ``.txt`` files; a
        ``.zip`` of ``.txt`` files; a ``.csv``/``.tsv``/``.jsonl`` table or an ``.xlsx``/``.ods``
        spreadsheet; a UCI
        ``docword*.txt[.gz]``; an LDA-C ``.dat``/``.ldac``; a ``.mtx`` file; or
        a single ``.txt`` document.
    text_column, title_column, id_column : str, optional
        Table columns; ``text_column`` defaults to ``"text"`` (see :func:`read_table`).
    vocab : str or path-like, optional
        Vocabulary of a bag-of-words file, if not beside it.
    encoding : str, optional
        The encoding of the text files (or of a bag-of-words file's vocabulary):
        ``"utf-8"``, ``"windows-1252"``, ``"latin-1"``...; None detects each file's.
        The corpus records the encodings used in ``Corpus.encodings``.
    sheet : str, optional
        The sheet of an ``.xlsx``/``.ods`` spreadsheet; by default the sheet with the most rows
        (:func:`engine.read_sheet`).
    **vectorizer_options
        Passed to :meth:`Corpus.from_texts` for raw text (``min_df``, ``stop_words``...).
    """
    path = Path(path)
    name = path.name.lower()
    _check_encoding(encoding)  # an unknown encoding fails before anything is read
    if not path.exists():
        raise FileNotFoundError(f"no such file or folder: {str(path)!r}")
    is_table = path.is_file() and table_format(name) is not None
    if (text_column or title_column or id_column) and not is_table:
        raise ValueError(f"text_column, title_column and id_column apply to .csv/.tsv/.jsonl tables and "
                         f"spreadsheets, not {path.name!r}")
    if sheet is not None and table_format(name) not in SHEET_FORMATS:
        raise ValueError(f"sheet applies to .xlsx and .ods spreadsheets, not {path.name!r}")
    is_text = holds_text(path)
    if vectorizer_options and not is_text:
        raise TypeError(f"{path.name!r} is already a bag of words; tokenizer options "
                        f"{sorted(vectorizer_options)} apply only to raw text")
    if vocab is not None and is_text:
        raise ValueError(f"vocab= applies to bag-of-words files, not {path.name!r}")
    if path.is_dir():
        if (path / "corpus.json").exists():
            return Corpus.load(path)
        return Corpus.from_documents(read_folder(path, encoding), **vectorizer_options)
    if name.endswith(".zip"):
        return Corpus.from_documents(read_zip(path, encoding=encoding), **vectorizer_options)
    if is_table:
        documents = read_table(path, text_column or "text", title_column, id_column=id_column, encoding=encoding,
                               sheet=sheet)
        return Corpus.from_documents(documents, **vectorizer_options)
    if name.startswith("docword") and name.endswith((".txt", ".txt.gz")):
        return read_uci(path, vocab, encoding=encoding)
    if name.endswith((".dat", ".ldac")):
        return read_ldac(path, vocab, encoding=encoding)
    if name.endswith((".mtx", ".mtx.gz")):
        return read_mtx(path, vocab, encoding=encoding)
    if name.endswith(".txt"):
        documents = read_txt_files([(path.name, path.read_bytes())], encoding)
        return Corpus.from_documents(documents, **vectorizer_options)
    raise CorpusFormatError(f"cannot tell the format of {path.name!r}; expected a folder, .zip, .csv, .tsv, "
                            ".jsonl, .xlsx, .ods, .txt, UCI docword*.txt, LDA-C .dat/.ldac or .mtx")

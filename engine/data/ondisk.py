"""Out-of-core corpora: CSR counts on disk, built by streaming, read a minibatch at a time.

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

The manifest's ``vectorizer`` records how text became words (:meth:`Vectorizer.to_dict`),
for corpora built from text; it is absent or null otherwise and in folders written
before it was recorded.

The ``.npy`` files are plain NumPy arrays (``np.load(mmap_mode="r")`` opens them).
This module holds the public class; the work is done by private modules:

    engine/data/_disk_arrays.py    DiskCounts: rows read with positional file reads
    engine/data/_disk_format.py    format constants, manifest, validation of a folder
    engine/data/_disk_writer.py    appending arrays and publishing a folder atomically
    engine/data/_disk_sources.py   streaming readers of text folders, zips, tables, UCI files
    engine/data/_disk_counting.py  the vocabulary pass and the counting pass over texts
"""

from __future__ import annotations

import dataclasses
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from engine.data._bounds import check_declared_sizes
from engine.data._disk_arrays import DiskCounts
from engine.data._disk_counting import _count_chunk, _TermStats
from engine.data._disk_format import _check_arrays, _open_counts, _read_lines, _read_manifest
from engine.data._disk_sources import (
    _batched,
    _body_bytes,
    _open_maybe_gzip,
    _table_chunks,
    _text_documents,
    _uci_header,
    _uci_rows,
)
from engine.data._disk_writer import _check_target, _DiskWriter
from engine.data.bow_formats import _check_vocabulary, _find_vocabulary
from engine.data.copies import CopyIndex
from engine.data.corpus import (
    _EMPTY_ROW,
    _NO_WORDS,
    AUTO_MARKUP,
    LEFT_OUT_REASON,
    Corpus,
    DroppedDocument,
    _boilerplate_choice,
    _check_named,
    _copy_reason,
    _DroppedViews,
    _markup_choice,
    _named_ids,
    _named_rows,
    _settings,
    _vectorizer,
    _word_forms_choice,
)
from engine.data.documents import _DocumentCache
from engine.data.language import AUTO_LANGUAGE, SAMPLE_DOCUMENTS, guess_language
from engine.data.markup import evenly_spread, strip_markup
from engine.data.messages import message_text
from engine.data.passages import _passage_columns, split_passages
from engine.data.phrases import find_phrases
from engine.data.text import SHEET_FORMATS, RawDocument, SkippedFile, _check_encoding, table_format
from engine.data.vectorizer import TOKEN_PATTERN, UNICODE_TOKEN_PATTERN, Vectorizer, _flag, token_pattern_for
from engine.data.word_forms import find_word_forms, merged_forms
from engine.errors import CorpusFormatError, EmptyCorpusError
from engine.limits import current_limits
from engine.validation import check_int

__all__ = ["DiskCorpus", "DiskCounts"]

PHRASE_SAMPLE_DOCUMENTS = 20_000  # documents, spread over the collection, the phrases and word forms are found in

Source = str | os.PathLike


# Corpus.from_texts' options that DiskCorpus.from_texts does not have, and why
_IN_MEMORY_ONLY = {
    "near_copies": "near-copies are found by comparing every text's runs of words with those of the texts kept, "
                   "which a corpus read in passes does not hold (keep_copies=False leaves out copies word for word)",
}


class DiskCorpus(_DroppedViews):
    """A bag-of-words corpus kept on disk, for stochastic variational inference at scale.

    The counts stay on disk (:class:`DiskCounts` reads the rows asked for with
    positional file reads); the vocabulary is read into memory.  Build one with
    :meth:`from_texts` (folder of ``.txt``, ``.zip``, ``.csv``/``.tsv``/``.jsonl``),
    :meth:`from_uci`, :meth:`from_counts` or
    :meth:`engine.data.semisynthetic.SemiSyntheticGenerator.build`; reopen it with :meth:`open`.
    Train on it with :class:`engine.SVI`, which reads each minibatch's rows from disk
    (Hoffman, Blei, Wang & Paisley 2013).

    Attributes
    ----------
    folder : Path
    counts : DiskCounts of shape (n_docs, n_words)
    vocabulary : tuple of str
    manifest : dict
        The parsed ``manifest.json`` (sizes, dtypes and ``source``, how it was built).
    vectorizer : Vectorizer or None
        How the texts became words, recorded by :meth:`from_texts` (as
        :attr:`Corpus.vectorizer`), so a model fitted on the corpus keeps it
        (``vectorizer_``) and counts new text the same way; None for corpora of counts
        and folders written before it was recorded (the defaults then apply).
    """

    def __init__(self, folder: Path, manifest: dict[str, Any], counts: DiskCounts, vocabulary: tuple[str, ...],
                 vectorizer: Vectorizer | None = None, trust_token_pattern: bool = False):
        self.folder, self.manifest, self.counts, self.vocabulary = folder, manifest, counts, vocabulary
        self.vectorizer = vectorizer
        self._trust_token_pattern = trust_token_pattern
        self._doc_ids: tuple[str, ...] | None = None

    def __reduce__(self):  # pickling or copying reopens the folder instead of copying the arrays
        return (DiskCorpus.open, (str(self.folder), "quick", self._trust_token_pattern))

    # ------------------------------------------------------------- opening
    @classmethod
    def open(cls, folder: Source, check: str = "full", trust_token_pattern: bool = False) -> DiskCorpus:
        """Open a corpus folder, validating it.

        Parameters
        ----------
        folder : str or path-like
        check : {"full", "quick"}
            "quick" checks the manifest, the files, their dtypes and sizes and the
            vocabulary; "full" also scans every array (rows non-empty and in order,
            word indices in range and sorted within rows, counts >= 1, token total),
            reading them in chunks so memory stays small.
        trust_token_pattern : bool
            A recorded token pattern must be one this project writes
            (:data:`engine.STORED_TOKEN_PATTERNS`) unless True, as in :meth:`Corpus.load`.

        Raises
        ------
        CorpusFormatError
            Naming the file and what is wrong.
        """
        if check not in ("full", "quick"):
            raise ValueError(f"check must be 'full' or 'quick', got {check!r}")
        folder = Path(folder)
        manifest = _read_manifest(folder)
        counts = _open_counts(folder, manifest)
        if not (folder / "vocab.txt").is_file():
            raise CorpusFormatError(f"{str(folder)!r} is not a complete disk corpus: vocab.txt is missing")
        vocabulary = tuple(_read_lines(folder / "vocab.txt", "words", manifest["n_words"], folder))
        if len(set(vocabulary)) != len(vocabulary) or not all(vocabulary):
            raise CorpusFormatError(f"{str(folder)!r}: vocab.txt has an empty or repeated word; rebuild the corpus")
        vectorizer = _stored_vectorizer(folder, manifest.get("vectorizer"), trust_token_pattern)
        if check == "full":
            _check_arrays(folder, counts, manifest)
        return cls(folder, manifest, counts, vocabulary, vectorizer, trust_token_pattern)

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
            path = writer.finish(corpus.vocabulary, {"kind": "counts"}, corpus.vectorizer)
        return cls.open(path, check="quick", trust_token_pattern=True)  # the settings were just written

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
            # declared sizes against the limits and the bytes that follow, before anything is written
            check_declared_sizes(path.name, n_docs, n_words, nnz, current_limits(), _body_bytes(file, path))
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
                   encoding: str | None = None, sheet: str | None = None, **vectorizer_options: Any) -> DiskCorpus:
        """Tokenise a folder of ``.txt``, a ``.zip``, a ``.csv``/``.tsv``/``.jsonl`` table or a sheet to ``folder``.

        Two streaming passes over the source, ``chunk_size`` documents at a time:
        the first counts document and corpus frequencies to choose the vocabulary
        (``min_df``, ``max_df``, ``max_features``), the second counts words
        against it and appends them to the arrays.  Tokenisation, vocabulary,
        counts, ids and ``dropped`` are those of :meth:`Corpus.from_texts` with the
        same options (``engine.load_corpus`` on the same source); memory holds one
        chunk of text plus the table of distinct words.  Tables are read as UTF-8
        unless ``encoding`` says otherwise; ``.txt`` files are decoded as
        :func:`engine.decode_text` does (``encoding``, or detected per file).

        Parameters
        ----------
        source : str or path-like
        folder : str or path-like
            Where to write the corpus (must not exist unless ``overwrite``).
        text_column, id_column : str, optional
            Table columns (``text_column`` defaults to ``"text"``; ids default to
            1-based row numbers, as :func:`engine.read_table`).
        encoding : str, optional
            The encoding of the source's files; None detects each ``.txt`` file's
            and reads tables as UTF-8.
        sheet : str, optional
            The sheet of an ``.xlsx``/``.ods`` spreadsheet (read whole on each pass); by default
            the sheet with the most rows.
        **vectorizer_options
            ``stop_words`` (a language such as "french", ``"auto"``, a list of words or
            None), ``extra_stop_words``, ``strip_accents``, ``strip_markup``, ``strip_messages``,
            ``strip_boilerplate``, ``passage_words``, ``join_phrases``, ``merge_word_forms``, ``keep_copies``,
            ``min_df``, ``max_df``, ``max_features``, ``token_pattern``, ``leave_out`` as in
            :meth:`Corpus.from_texts` (the documents ``leave_out`` names are left out of the samples below too, and
            an id of no document is found out after the first pass, before anything is written; copies
            found in one pass, each distinct text held as a 16-byte digest of its words with its id and title:
            ``engine.data.copies.CopyIndex``; ``strip_markup`` and
            ``strip_messages`` "auto" decided, and the boilerplate lines found, on a sample; the phrases and the
            word forms on a larger one, of :data:`PHRASE_SAMPLE_DOCUMENTS` documents spread over the collection:
            a form the sample does not hold is counted as written).  The per-token settings are
            recorded in :attr:`vectorizer`.  ``"auto"`` guesses the language from a sample too: as many
            documents as :func:`engine.guess_language` reads, spread evenly over a folder's
            or archive's files (only those are read) or over a table's rows (the table is
            read once more for them);
            ``token_pattern=None`` (the default) reads with :data:`engine.UNICODE_TOKEN_PATTERN`
            if any document needs it (:func:`engine.token_pattern_for`; found after the first
            documents, the first pass starts again with it).

            PDF, Word, OpenDocument, EPUB and presentation files are parsed once: the passes after the first
            read their text from a temporary folder.
        """
        with _DocumentCache() as cache:
            return cls._from_texts(source, folder, text_column=text_column, id_column=id_column,
                                   chunk_size=chunk_size, overwrite=overwrite, encoding=encoding, sheet=sheet,
                                   cache=cache, **vectorizer_options)

    @classmethod
    def _from_texts(cls, source: Source, folder: Source, *, text_column: str | None, id_column: str | None,
                    chunk_size: int, overwrite: bool, encoding: str | None, sheet: str | None, cache: _DocumentCache,
                    **vectorizer_options: Any) -> DiskCorpus:
        source = Path(source)
        options = {"stop_words": "english", "extra_stop_words": (), "min_df": 1, "max_df": 1.0,
                   "max_features": None, "token_pattern": None, "strip_accents": True, "strip_markup": AUTO_MARKUP,
                   "strip_boilerplate": True, "strip_messages": AUTO_MARKUP, "passage_words": None,
                   "join_phrases": False, "merge_word_forms": False, "keep_copies": True, "leave_out": (),
                   **vectorizer_options}
        unknown = sorted(set(options) - {"stop_words", "extra_stop_words", "min_df", "max_df", "max_features",
                                         "token_pattern", "strip_accents", "strip_markup", "strip_boilerplate",
                                         "strip_messages", "passage_words", "join_phrases", "merge_word_forms",
                                         "keep_copies", "leave_out"})
        in_memory_only = [name for name in unknown if name in _IN_MEMORY_ONLY]
        if in_memory_only:
            which = "is an option" if len(in_memory_only) == 1 else "are options"
            raise TypeError(f"{' and '.join(in_memory_only)} {which} of Corpus.from_texts only: "
                            + "; ".join(_IN_MEMORY_ONLY[name] for name in in_memory_only))
        if unknown:
            raise TypeError(f"unknown tokenizer options {unknown}; see Corpus.from_texts")
        keep_copies = options["keep_copies"] = _flag("keep_copies", options["keep_copies"])
        named = _named_ids(options["leave_out"])
        options["leave_out"] = sorted(named)  # recorded in the manifest
        for name in ("stop_words", "extra_stop_words"):  # iterables are read twice and recorded in the manifest
            if options[name] is not None and not isinstance(options[name], str):
                options[name] = sorted(options[name])
        chunk_size = check_int("chunk_size", chunk_size, 1)
        _check_encoding(encoding)
        _check_target(Path(folder), overwrite)  # before the first pass
        is_table = source.is_file() and table_format(source.name) is not None
        if (text_column or id_column) and not is_table:
            raise ValueError(f"text_column and id_column apply to .csv/.tsv/.jsonl tables and spreadsheets, not "
                             f"{source.name!r}")
        if sheet is not None and table_format(source.name) not in SHEET_FORMATS:
            raise ValueError(f"sheet applies to .xlsx and .ods spreadsheets, not {source.name!r}")

        if options["passage_words"] is not None:
            options["passage_words"] = check_int("passage_words", options["passage_words"], 1)
        passage_words = options["passage_words"]

        def chunks(skipped: list | None, left: _LeftOut | None = None, with_named: bool = False) -> Iterator:
            """(ids, titles, texts) of each chunk without the documents ``leave_out`` names; ``with_named``: with them,
            and a fourth list saying which rows are theirs (read for copies of them, nothing else).  ``left``
            records the documents named and counts the documents read."""
            if is_table:
                read = _table_chunks(source, text_column or "text", id_column, chunk_size, encoding, sheet)
            else:
                read = _batched(_text_documents(source, skipped, encoding, cache=cache), chunk_size)
            marked = (_marked(chunk, named, passage_words, left) for chunk in read)
            return _closing(marked, read) if with_named else _closing((_kept_rows(*chunk) for chunk in marked), read)

        def sample(n: int) -> list[str]:
            """The texts of ``n`` documents spread evenly over the source (as passages, if the documents are cut),
            without those ``leave_out`` names."""
            if is_table:  # read whole once more: rows spread evenly over the table
                return _spread_texts(chunks(None), n)
            picked = [RawDocument(*document) for document in _text_documents(source, None, encoding, n, cache)
                      if document[0] not in named]
            return [d.text for d in (picked if passage_words is None else split_passages(picked, passage_words))]

        stop_words = options["stop_words"]
        guess_stop_words = isinstance(stop_words, str) and stop_words.strip().lower() == AUTO_LANGUAGE
        choose_pattern = options["token_pattern"] is None
        choose_markup = isinstance(options["strip_markup"], str) or isinstance(options["strip_messages"], str)
        for name in ("strip_markup", "strip_messages"):  # checked before the first pass
            if not isinstance(options[name], str):
                options[name] = _markup_choice(options[name], [], name)
        boilerplate = _boilerplate_choice(options["strip_boilerplate"], [])[0]  # checked before the first pass
        if guess_stop_words or choose_pattern or choose_markup or options["strip_boilerplate"]:
            first = sample(SAMPLE_DOCUMENTS)  # of a folder or an archive, only the files picked are read
            options["strip_messages"] = _markup_choice(options["strip_messages"], first, "strip_messages")
            if options["strip_messages"]:  # the language and the pattern of what the messages' senders wrote
                first = [message_text(text) for text in first]
            options["strip_markup"] = _markup_choice(options["strip_markup"], first)
            if options["strip_markup"]:  # the language and the pattern of the text without its markup
                first = [strip_markup(text) for text in first]
            boilerplate, first = _boilerplate_choice(options["strip_boilerplate"], first)  # ... and its boilerplate
            if choose_pattern:
                options["token_pattern"] = token_pattern_for(first)
            if guess_stop_words:
                options["stop_words"] = guess_language(first).language or "english"
        accents = options["strip_accents"]
        merge_forms = _word_forms_choice(options["merge_word_forms"], options["stop_words"])
        if _flag("join_phrases", options["join_phrases"]) or merge_forms:  # read before the first pass
            phrase_sample = sample(PHRASE_SAMPLE_DOCUMENTS)
        while True:  # pass 1: document and corpus frequencies (again if Chinese or Japanese text comes later)
            settings = _settings(options["stop_words"], options["extra_stop_words"], options["token_pattern"],
                                 accents, options["strip_markup"], boilerplate, options["strip_messages"])
            options["strip_accents"] = settings.strip_accents  # "auto" resolved, as the stop words and pattern are
            if options["join_phrases"]:
                settings = dataclasses.replace(settings, phrases=tuple(phrase.text for phrase in
                                                                       find_phrases(phrase_sample, settings)))
            if merge_forms:
                settings = dataclasses.replace(settings, word_forms=merged_forms(find_word_forms(phrase_sample,
                                                                                                 settings)))
            analyzer = _vectorizer(**{k: v for k, v in options.items() if k not in ("strip_boilerplate",
                                                                                    "strip_messages", "passage_words",
                                                                                    "join_phrases", "merge_word_forms",
                                                                                    "keep_copies", "leave_out")},
                                   settings=settings).build_analyzer()
            skipped: list[SkippedFile] = []
            stats = _TermStats()
            left = _LeftOut()
            watch = choose_pattern and settings.token_pattern == TOKEN_PATTERN
            read = (chunks(skipped, left) if keep_copies else
                    _without_copies(chunks(skipped, left, with_named=True), settings))
            if _count_terms(read, analyzer, stats, watch):
                break
            options["token_pattern"] = UNICODE_TOKEN_PATTERN  # a later document needs it: all are read with it
        _check_named(named, {document.doc_id for document in left.documents}, left.n_docs)
        if named and stats.n_docs == 0:
            raise EmptyCorpusError(f"leave_out leaves no document with text (the {len(named)} named and their "
                                   "copies are all the others); leave more documents in")
        vocabulary, expected_nnz = stats.vocabulary(options["min_df"], options["max_df"], options["max_features"])
        index = {word: i for i, word in enumerate(vocabulary)}
        with _DiskWriter(folder, len(vocabulary), overwrite) as writer:
            writer.skip(skipped)
            writer.drop(left.documents)  # first, as Corpus.from_texts lists them
            copies = None if keep_copies else CopyIndex()
            for ids, titles, texts, of_named in chunks(None, with_named=True):  # pass 2: counts against the vocabulary
                if copies is None:
                    ids, titles, texts = _kept_rows(ids, titles, texts, of_named)
                    counts, kept, dropped = _count_chunk(analyzer, index, ids, titles, texts)
                else:
                    counts, kept, dropped = _count_distinct(analyzer, index, ids, titles, texts, copies, settings,
                                                            of_named)
                writer.drop(dropped)
                if kept:
                    writer.append(counts, kept)
            if writer.nnz != expected_nnz:
                raise CorpusFormatError(f"{source.name!r} changed while it was read (the two passes disagree); "
                                        "build the corpus again from a source that is not being modified")
            target = writer.finish(vocabulary, {"kind": "texts", "path": str(source), "options": options}, settings)
        return cls.open(target, check="quick", trust_token_pattern=True)  # the settings were just written

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
        """Documents left out because they had no words, and copies left out (as in :attr:`Corpus.dropped`; by
        why: :attr:`copies`, :attr:`emptied`)."""
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
        return Corpus(self.counts[rows], self.vocabulary, picked, picked, None, self.dropped, self.skipped,
                      vectorizer=self.vectorizer)



def _stored_vectorizer(folder: Path, values: Any, trust_token_pattern: bool) -> Vectorizer | None:
    """The recorded settings of ``manifest.json`` (None if absent: folders written before they were recorded)."""
    if values is None:
        return None
    try:
        return Vectorizer.from_dict(values, trust_token_pattern)
    except (TypeError, ValueError) as exc:
        raise CorpusFormatError(f"{str(folder)!r}: manifest.json records unusable preprocessing settings ({exc}); "
                                "rebuild the corpus") from None


class _LeftOut:
    """What a pass over the source found of the documents ``leave_out`` names (:func:`_marked` fills it)."""

    def __init__(self) -> None:
        self.documents: list[DroppedDocument] = []  # each named document, in the source's order
        self.n_docs = 0  # documents read, before they are cut into passages


def _marked(chunk: tuple[list[str], list[str], list[str]], named: set[str], passage_words: int | None,
            left: _LeftOut | None) -> tuple[list[str], list[str], list[str], list[bool]]:
    """A chunk of documents, cut into passages if ``passage_words``, and which rows ``named`` names (a document, or
    every passage of one), as ``Corpus.from_texts(leave_out=...)`` reads them; ``left`` records the named ones."""
    ids, titles, texts = chunk
    if left is not None:
        left.n_docs += len(ids)
        for doc_id, title in zip(ids, titles, strict=True):
            if doc_id in named:
                left.documents.append(DroppedDocument(doc_id, title, LEFT_OUT_REASON))
    originals = set(ids)
    if passage_words is not None:
        ids, titles, texts = _passage_columns(ids, titles, texts, passage_words)
    return ids, titles, texts, _named_rows(ids, originals, named)


def _rows_where(keep: list[bool], ids: list[str], titles: list[str],
                texts: list[str]) -> tuple[list[str], list[str], list[str]]:
    """The rows of a chunk where ``keep`` is true."""
    return tuple([v for v, kept in zip(values, keep, strict=True) if kept] for values in (ids, titles, texts))


def _kept_rows(ids: list[str], titles: list[str], texts: list[str],
               of_named: list[bool]) -> tuple[list[str], list[str], list[str]]:
    """The rows of a chunk that no ``leave_out`` id names."""
    if not any(of_named):
        return ids, titles, texts
    return _rows_where([not out for out in of_named], ids, titles, texts)


def _closing(chunks: Iterator, source: Iterator) -> Iterator:
    """``chunks``, a generator over ``source``, closing ``source`` when it is closed or ends."""
    try:
        yield from chunks
    finally:
        _close(source)


def _without_copies(chunks: Iterator[tuple[list[str], list[str], list[str], list[bool]]],
                    settings: Vectorizer) -> Iterator[tuple[list[str], list[str], list[str]]]:
    """The chunks without the texts that copy one read before (their words as ``settings`` reads them, in order),
    nor the rows ``leave_out`` names, which are read for copies of them."""
    copies = CopyIndex()
    try:
        for ids, titles, texts, of_named in chunks:
            first = [copies.first(settings.readable(text), True) is None and not out
                     for text, out in zip(texts, of_named, strict=True)]
            yield _rows_where(first, ids, titles, texts)
    finally:
        _close(chunks)


def _count_distinct(analyzer, index: dict[str, int], ids: list[str], titles: list[str], texts: list[str],
                    copies: CopyIndex, settings: Vectorizer, of_named: list[bool]):
    """:func:`_count_chunk` of the chunk's texts that copy none read before; the copies are dropped, each listed as
    a copy of its first text (or, if that text has no words, for having none either), in the chunk's order.  The
    rows ``of_named`` marks (``leave_out``) are read for copies of them, nothing else."""
    # id, title, has words; a text left out counts as having words: its copies are listed as its copies
    records = [[doc_id, title, out] for doc_id, title, out in zip(ids, titles, of_named, strict=True)]
    found = [copies.first(settings.readable(text), record) for text, record in zip(texts, records, strict=True)]
    firsts = [d for d, of in enumerate(found) if of is None and not of_named[d]]
    counts, kept, emptied = _count_chunk(analyzer, index, [ids[d] for d in firsts], [titles[d] for d in firsts],
                                         [texts[d] for d in firsts])
    written = set(kept)
    for d in firsts:
        records[d][2] = ids[d] in written
    emptied_by_id = {document.doc_id: document for document in emptied}
    dropped = []
    for d, of in enumerate(found):
        if of_named[d]:
            continue
        if of is None:
            if ids[d] in emptied_by_id:
                dropped.append(emptied_by_id[ids[d]])
        elif of[2]:
            dropped.append(DroppedDocument(ids[d], titles[d], _copy_reason(of[1]), of[0]))
        else:
            dropped.append(DroppedDocument(ids[d], titles[d], _NO_WORDS))
    return counts, kept, dropped


def _close(chunks: Iterator) -> None:
    """Close a stream of chunks left unfinished (its files), if it can be closed."""
    close = getattr(chunks, "close", None)
    if close is not None:
        close()


def _count_terms(chunks: Iterator[tuple[list[str], list[str], list[str]]], analyzer, stats: _TermStats,
                 watch_for_unicode: bool) -> bool:
    """Add each chunk's documents' tokens to ``stats``; with ``watch_for_unicode``, stop at the first chunk whose texts
    need UNICODE_TOKEN_PATTERN and return False (the stream is closed); else True."""
    try:
        for _, _, texts in chunks:
            if watch_for_unicode and token_pattern_for(texts) != TOKEN_PATTERN:
                return False
            stats.add([analyzer(t) for t in texts if t.strip()])
        return True
    finally:
        _close(chunks)


def _spread_texts(chunks: Iterator[tuple[list[str], list[str], list[str]]], n: int) -> list[str]:
    """At most ``n`` texts spread evenly over a whole stream of (ids, titles, texts) chunks, in one pass holding at
    most ``2 n``: every ``step``-th text is kept, and when ``2 n`` are held every other one is dropped and ``step``
    doubles; at the end ``n`` of those held are picked evenly."""
    held: list[str] = []
    step, index = 1, 0
    for _, _, texts in chunks:
        for text in texts:
            if index % step == 0:
                held.append(text)
                if len(held) == 2 * n:
                    held, step = held[::2], 2 * step
            index += 1
    return [held[i] for i in evenly_spread(len(held), n)]

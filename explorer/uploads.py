"""Uploaded files (name, bytes) -> a document source, with limits and readable errors.

No Streamlit here.  :func:`read_upload` recognises what was uploaded (text files, a zip
of text files, a table, a UCI or LDA-C bag of words), checks the limits (file count,
sizes, expanded size of archives) and returns a source; :func:`build_corpus` turns a
source and the preprocessing options into an :class:`engine.Corpus`.  Every problem
raises :class:`UploadError` (or an engine error) whose message is a sentence for people.

Text is decoded in the encoding the engine detects, or in one the user chooses
(``encoding=``); :func:`encoding_note` says which was used, per file when they differ.
The size an archive may expand to is the engine's ``max_expanded_mb``
(:func:`engine.current_limits`, ``SVI_TOPICS_MAX_EXPANDED_MB``), so one setting governs
the explorer's uploads and the engine's readers; the other upload limits are the
explorer's own (:class:`UploadLimits`).
"""

from __future__ import annotations

import collections
import dataclasses
import io
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import NamedTuple

import numpy as np
import pandas as pd

from explorer import formatting, safe_text
from explorer.engine_api import (
    MARKDOWN_SUFFIXES,
    NEAR_COPY_SIMILARITY,
    ONE_DOCUMENT_MIN_DOCUMENTS,
    PASSAGE_WORDS,
    RST_SUFFIXES,
    SPREADSHEET_SUFFIXES,
    STOP_WORD_LANGUAGES,
    TEXT_SUFFIXES,
    Corpus,
    EngineError,
    LanguageGuess,
    Limits,
    Vectorizer,
    current_limits,
    decode_text,
    detect_encoding,
    guess_language,
    has_word_forms,
    is_document_file,
    languages_of,
    long_documents,
    mbox_frame,
    passage_documents,
    passage_spans,
    read_ldac,
    read_sheet,
    read_table,
    read_txt_files,
    read_uci,
    read_zip,
    settings,
    skipped_by_reason,
    top_corpus_words,
)

__all__ = [
    "ENCODINGS",
    "BagOfWordsSource",
    "LanguageNote",
    "Preprocessing",
    "TableSource",
    "TextSource",
    "UploadError",
    "UploadLimits",
    "build_corpus",
    "documents_note",
    "encoding_note",
    "encodings_of",
    "language_guess",
    "language_label",
    "language_note",
    "language_options",
    "phrases_found",
    "phrases_note",
    "read_upload",
    "skipped_groups",
    "table_columns",
    "word_forms_found",
    "word_forms_note",
]

TABLE_SUFFIXES = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl",
                  ".mbox": "mbox",  # a mailbox: a table of its messages (engine.mbox_frame)
                  ".xlsx": "xlsx", ".xlsm": "xlsx", ".ods": "ods"}  # a spreadsheet: one sheet (engine.read_sheet)
LDAC_SUFFIXES = (".dat", ".ldac")
ACCEPTED_TYPES = ("txt", "md", "markdown", "rst", "rest", "html", "htm", "xhtml", "eml", "pdf", "docx", "odt", "epub",
                  "pptx", "odp", "zip", "csv", "tsv", "tab", "jsonl", "ndjson", "mbox", "xlsx", "xlsm", "ods", "dat",
                  "ldac", "gz")
# files people have that are not read, and what to turn them into
_CONVERT = {".doc": "save it as .docx (Word: File, Save As) or as PDF", ".rtf": "save it as .docx or .txt",
            ".pages": "export it as .docx or PDF", ".mobi": "convert it to EPUB (for example with Calibre)",
            ".azw3": "convert it to EPUB (for example with Calibre)", ".ppt": "save it as .pptx or PDF",
            ".key": "export it as .pptx or PDF", ".xls": "save it as .xlsx (Excel: File, Save As) or the sheet as .csv",
            ".numbers": "export it as .xlsx or .csv"}
_KINDS_READ = (".txt, Markdown (.md) or reStructuredText (.rst) files, PDF, Word (.docx), OpenDocument (.odt), EPUB "
               "or slide (.pptx, .odp) files, web pages (.html) or e-mails (.eml)")
_PREVIEW_ROWS = 500
FEW_DOCUMENTS = 20  # fewer long documents than this are cut into passages by default
LANGUAGE_TIE = 0.5  # a chosen stop-word list covering at least this share of what the guessed one covers is no error
_MB = 1_000_000
_TITLE_NAMES = ("title", "name", "headline", "subject", "heading", "label")
# the Data page's choices besides detection: Unicode, Western, Central European, Cyrillic, East Asian
ENCODINGS = ("utf-8", "windows-1252", "iso-8859-1", "iso-8859-15", "windows-1250", "iso-8859-2", "windows-1251",
             "koi8-r", "windows-1257", "utf-16", "shift_jis", "gb18030", "big5")


class UploadError(ValueError):
    """An upload the explorer refuses; the message says why and what to do."""


@dataclass(frozen=True)
class UploadLimits:
    """Most files, bytes per file, bytes in all, and bytes an archive may expand to.

    ``max_expanded_bytes`` defaults to the engine's ``max_expanded_mb`` (1000 MB), the
    others are the explorer's own upload limits.
    """

    max_files: int = 5_000
    max_file_bytes: int = 100 * _MB
    max_total_bytes: int = 200 * _MB
    max_expanded_bytes: int = Limits().max_expanded_bytes

    @classmethod
    def from_env(cls) -> UploadLimits:
        """Limits from the environment: ``SVI_TOPICS_MAX_UPLOAD_FILES``, ``SVI_TOPICS_MAX_UPLOAD_MB``,
        ``SVI_TOPICS_MAX_TOTAL_UPLOAD_MB``, and the engine's ``SVI_TOPICS_MAX_EXPANDED_MB``
        (read by :func:`engine.current_limits`, which names the variable if its value is bad)."""
        return cls(
            max_files=settings.get("SVI_TOPICS_MAX_UPLOAD_FILES"),
            max_file_bytes=int(settings.get("SVI_TOPICS_MAX_UPLOAD_MB") * _MB),
            max_total_bytes=int(settings.get("SVI_TOPICS_MAX_TOTAL_UPLOAD_MB") * _MB),
            max_expanded_bytes=current_limits().max_expanded_bytes,
        )


@dataclass(frozen=True)
class Preprocessing:
    """How raw text becomes word counts (see :meth:`engine.Corpus.from_texts`)."""

    extra_stop_words: tuple[str, ...] = ()
    min_df: int = 1
    max_df: float = 1.0
    max_features: int | None = None
    language: str = "english"  # of the stop words (engine.STOP_WORD_LANGUAGES, or several joined by "+")
    strip_accents: bool = True
    strip_markup: bool = False  # HTML or XML tags left out (engine.Corpus.from_texts' strip_markup)
    strip_boilerplate: bool = True  # lines many documents share word for word left out (engine.find_boilerplate)
    strip_messages: bool = False  # e-mails read without headers, quotes and signatures (engine.message_text)
    passage_words: int = 0  # each document cut into passages of about this many words (engine.split_passages); 0: not
    join_phrases: bool = False  # pairs of words the texts write side by side read as one word (engine.find_phrases)
    merge_word_forms: bool = True  # a word's forms counted as one word, if its language has them (find_word_forms)
    drop_copies: bool = True  # documents that repeat another word for word left out (engine.find_text_copies)
    left_out: tuple[str, ...] = ()  # ids of documents the user leaves out (Corpus.from_texts' leave_out)
    drop_near_copies: bool = False  # with drop_copies, texts that nearly repeat one kept left out too (near_copies)

    def options(self) -> dict:
        return {"extra_stop_words": self.extra_stop_words, "min_df": self.min_df,
                "max_df": self.max_df, "max_features": self.max_features,
                "stop_words": self.language, "strip_accents": self.strip_accents, "strip_markup": self.strip_markup,
                "strip_boilerplate": self.strip_boilerplate, "strip_messages": self.strip_messages,
                "passage_words": self.passage_words or None, "join_phrases": self.join_phrases,
                "merge_word_forms": "auto" if self.merge_word_forms else False,  # "auto": where the language has them
                "keep_copies": not self.drop_copies, "leave_out": self.left_out,
                "near_copies": NEAR_COPY_SIMILARITY if self.drop_copies and self.drop_near_copies else None}

    @classmethod
    def suggested(cls, n_docs: int, language: str = "english", markup: bool = False,
                  messages: bool = False, passages: bool = False) -> Preprocessing:
        """Defaults that suit a collection of ``n_docs`` documents in ``language``, holding markup or e-mail
        messages or not, cut into passages or not (:func:`passages_suggested`; ``n_docs`` then counts the
        passages).

        Accents are kept in any language but English, so that topic words read as written ("données", not
        "donnees"); on German and French man pages that left the topics' NPMI unchanged (RESULTS run 55).
        """
        read = {"language": language, "strip_accents": language == "english", "strip_markup": markup,
                "strip_messages": messages, "passage_words": PASSAGE_WORDS if passages else 0}
        if n_docs >= 200:
            return cls(min_df=5, max_df=0.5, **read)
        if n_docs >= 20:
            return cls(min_df=2, max_df=0.8, **read)
        return cls(**read)


@dataclass(frozen=True, eq=False)
class TextSource:
    """Plain-text documents (several .txt files or a zip of them)."""

    name: str
    documents: list = field(repr=False)  # engine RawDocuments
    kind: str = "text"
    chosen_encoding: str | None = None  # None: each file's encoding was detected

    @property
    def n_rows(self) -> int:
        return len(self.documents)


@dataclass(frozen=True, eq=False)
class TableSource:
    """A CSV/TSV/JSON-lines table, a mailbox or a spreadsheet's sheet: the user picks the text and title columns."""

    name: str
    data: bytes = field(repr=False)
    format: str = "csv"
    preview: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)
    text_columns: tuple[str, ...] = ()  # columns holding words, most wordy first
    kind: str = "table"
    encoding: str | None = "utf-8"  # what the table was decoded with (detected or chosen); None: a spreadsheet
    chosen_encoding: str | None = None  # None: detected
    sheet: str | None = None  # the sheet read, of a spreadsheet
    sheets: tuple[str, ...] = ()  # all the spreadsheet's sheets
    title: tuple[str, ...] = ()  # the sheet's rows of one cell above its header (engine.Sheet.title)

    @property
    def columns(self) -> tuple[str, ...]:
        return tuple(str(c) for c in self.preview.columns)

    @property
    def n_rows(self) -> int:
        return len(self.preview)

    @property
    def suggested_title(self) -> str | None:
        """A column that looks like a title ("title", "name", "headline"...), if any."""
        for column in self.columns:
            if column.strip().lower() in _TITLE_NAMES:
                return column
        return None


@dataclass(frozen=True, eq=False)
class BagOfWordsSource:
    """Counts already made (UCI docword + vocab, or LDA-C + vocab): no preprocessing."""

    name: str
    corpus: Corpus = field(repr=False)
    kind: str = "bow"

    @property
    def n_rows(self) -> int:
        return self.corpus.n_docs


Source = TextSource | TableSource | BagOfWordsSource


# ----------------------------------------------------------------------- checks
def _suffix(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).suffix.lower()


def _basename(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).name


def check_limits(files: Sequence[tuple[str, bytes]], limits: UploadLimits) -> None:
    """Refuse empty uploads, too many files and files that are too large."""
    if not files:
        raise UploadError("No file was uploaded; choose one or more files.")
    if len(files) > limits.max_files:
        raise UploadError(f"{formatting.count(len(files))} files were uploaded; the limit is "
                          f"{formatting.count(limits.max_files)}. Put them in a .zip archive or upload fewer.")
    for name, data in files:
        if len(data) > limits.max_file_bytes:
            raise UploadError(f"'{name}' is {formatting.file_size(len(data))}; the limit per file is "
                              f"{formatting.file_size(limits.max_file_bytes)}.")
    total = sum(len(data) for _, data in files)
    if total > limits.max_total_bytes:
        raise UploadError(f"The files add up to {formatting.file_size(total)}; the limit is "
                          f"{formatting.file_size(limits.max_total_bytes)}.")
    if all(len(data) == 0 for _, data in files):
        names = ", ".join(f"'{name}'" for name, _ in files[:3])
        raise UploadError(f"The uploaded file{'s are' if len(files) > 1 else ' is'} empty (0 bytes): {names}.")


def _looks_like_uci(data: bytes) -> bool:
    head = data[:200].split(b"\n")[:3]
    return len(head) == 3 and all(line.strip().isdigit() for line in head)


# ---------------------------------------------------------------------- reading
def read_upload(files: Sequence[tuple[str, bytes]], limits: UploadLimits | None = None,
                encoding: str | None = None, sheet: str | None = None) -> Source:
    """Recognise the uploaded files and read them into a source.

    Parameters
    ----------
    files : sequence of (file name, content)
    limits : UploadLimits, optional
        Defaults to :meth:`UploadLimits.from_env`.
    encoding : str, optional
        The encoding of the text files, the archive's entries or the table; None detects
        it per file.  Bags of words are read as the engine reads them.
    sheet : str, optional
        The sheet of a spreadsheet (.xlsx, .ods); None reads the sheet with the most rows.

    Raises
    ------
    UploadError
        Limits exceeded, an unsupported or ambiguous mix of files, a table without text.
    engine.EngineError
        The engine could not read a file (encoding, binary, malformed archive...).
    """
    limits = UploadLimits.from_env() if limits is None else limits
    files = [(_basename(name), data) for name, data in files]
    check_limits(files, limits)
    suffixes = [_suffix(name) for name, _ in files]
    if ".zip" in suffixes:
        if len(files) > 1:
            raise UploadError("Upload a .zip archive on its own (not together with other files).")
        name, data = files[0]
        documents = read_zip(data, max_files=limits.max_files, max_total_bytes=limits.max_expanded_bytes,
                             encoding=encoding)
        if not documents:
            _raise_unreadable(documents.skipped)
            found = ", ".join(s.name for s in documents.skipped[:3]) or "nothing"
            raise UploadError(f"'{name}' holds no document to read (found: {found}). Put {_KINDS_READ} in the "
                              "archive.")
        return TextSource(name, documents, chosen_encoding=encoding)
    tables = [i for i, s in enumerate(suffixes) if s in TABLE_SUFFIXES]
    if tables:
        if len(files) > 1:
            raise UploadError("Upload a table (.csv, .tsv, .jsonl), a spreadsheet (.xlsx, .ods) or a mailbox (.mbox) "
                              "on its own: one file, one document per row or message.")
        return read_table_source(*files[0], encoding=encoding, sheet=sheet)
    ldac = [i for i, s in enumerate(suffixes) if s in LDAC_SUFFIXES]
    uci = [i for i, (name, data) in enumerate(files)
           if name.lower().startswith("docword") or (suffixes[i] in (".txt", ".gz") and _looks_like_uci(data))]
    if ldac or uci:
        return _read_bag_of_words(files, ldac, uci)
    unsupported = [name for (name, _), s in zip(files, suffixes, strict=True) if s not in TEXT_SUFFIXES]
    if len(unsupported) == len(files):
        hint = _CONVERT.get(_suffix(unsupported[0]))
        raise UploadError(f"Cannot read '{unsupported[0]}'" + (f": {hint}, and upload that." if hint else
                          f": upload {_KINDS_READ}, a .zip of them, a .csv, .tsv or .jsonl table, a spreadsheet "
                          "(.xlsx, .ods), a mailbox (.mbox), or a bag of words (UCI docword + vocab, LDA-C .dat + "
                          "vocab)."))
    documents = read_txt_files(files, encoding=encoding)
    if not documents:
        _raise_unreadable(documents.skipped)
    return TextSource(f"{formatting.plural(len(files), 'file')}", documents, chosen_encoding=encoding)


def _raise_unreadable(skipped: Sequence) -> None:
    """Raise UploadError with why the first unreadable PDF, Word, OpenDocument, EPUB or slide file could not be read."""
    for name, reason in skipped:
        if is_document_file(name):
            others = len([s for s in skipped if is_document_file(s.name)]) - 1
            also = f" ({formatting.plural(others, 'other file')} could not be read either)" if others else ""
            raise UploadError(f"Cannot read '{name}': {reason}.{also}")


def _parse_table(text: str, fmt: str, nrows: int | None = None, name: str = "the table") -> pd.DataFrame:
    """The rows of a decoded table (all of them, or the first ``nrows``), every value a string."""
    if fmt == "mbox":
        return mbox_frame(text, f"'{name}'", nrows)
    if fmt == "jsonl":
        return pd.read_json(io.StringIO(text), lines=True, dtype=False, nrows=nrows)
    return pd.read_csv(io.StringIO(text), sep="\t" if fmt == "tsv" else ",", dtype=str,
                       keep_default_na=False, nrows=nrows)


def read_table_source(name: str, data: bytes, encoding: str | None = None, sheet: str | None = None) -> TableSource:
    """Parse a table for its preview and find the columns that hold text (``encoding`` None: detect it; ``sheet``
    None: a spreadsheet's sheet with the most rows)."""
    fmt = TABLE_SUFFIXES[_suffix(name)]
    read = read_sheet(data, sheet, name=name) if _suffix(name) in SPREADSHEET_SUFFIXES else None
    if read is not None:
        frame, chosen, encoding = read.frame.head(_PREVIEW_ROWS), None, None
    else:
        chosen, encoding = encoding, encoding or detect_encoding(data, name)
        text = decode_text(data, name, encoding)
        if not text.strip():
            raise UploadError(f"'{name}' is empty; " + ("a mailbox holds messages, each after a line “From <sender> "
                                                        "<date>”." if fmt == "mbox" else
                                                        "a table needs a header row and one row per document."))
        try:
            frame = _parse_table(text, fmt, _PREVIEW_ROWS, name)
        except (ValueError, pd.errors.ParserError) as exc:
            raise UploadError(f"{exc}." if fmt == "mbox" else f"'{name}' is not a valid {fmt.upper()} table: {exc}") \
                from None
    frame.columns = [str(c) for c in frame.columns]
    where = f"'{name}'" + (f" (sheet “{read.name}”)" if read is not None else "")
    if frame.empty:
        raise UploadError(f"{where} has a header but no rows; add one row per document.")
    wordy = {}
    for column in frame.columns:
        values = frame[column].astype(str)
        letters = values.str.count(r"[^\W\d_]").mean()
        if letters >= 2:
            wordy[column] = letters
    if not wordy:
        raise UploadError(f"{where} has no column with text (columns: {', '.join(frame.columns)}); "
                          "a table needs one column of words per document.")
    ranked = tuple(sorted(wordy, key=lambda c: -wordy[c]))
    sheets = {"sheet": read.name, "sheets": read.sheets, "title": read.title} if read is not None else {}
    return TableSource(name, data, fmt, frame, ranked, encoding=encoding, chosen_encoding=chosen, **sheets)


def _write(folder: str, name: str, data: bytes) -> Path:
    path = Path(folder) / _basename(name)
    path.write_bytes(data)
    return path


def _read_bag_of_words(files: list[tuple[str, bytes]], ldac: list[int], uci: list[int]) -> BagOfWordsSource:
    counts_files = ldac or uci
    if len(counts_files) > 1 or (ldac and uci):
        raise UploadError("Upload one bag-of-words file at a time (one docword or .dat file plus its vocabulary).")
    main = counts_files[0]
    others = [i for i in range(len(files)) if i != main]
    if not others:
        raise UploadError(f"'{files[main][0]}' needs its vocabulary file (vocab.txt: one word per line); "
                          "upload both files together.")
    if len(others) > 1:
        raise UploadError("Upload exactly two files for a bag of words: the counts and the vocabulary.")
    with tempfile.TemporaryDirectory(prefix="svi-upload-") as folder:
        counts_path = _write(folder, files[main][0], files[main][1])
        vocab_path = _write(folder, "vocabulary-" + files[others[0]][0], files[others[0]][1])
        corpus = read_ldac(counts_path, vocab_path) if ldac else read_uci(counts_path, vocab_path)
    kind = "LDA-C" if ldac else "UCI"
    return BagOfWordsSource(f"{files[main][0]} ({kind} bag of words)", corpus)


# ------------------------------------------------------------------ the corpus
def passages_suggested(source: Source, text_column: str | None = None) -> int | None:
    """How many passages the source would be cut into when it is a few long texts, better read as passages: fewer
    than :data:`FEW_DOCUMENTS` documents (a table's rows, in its preview) of at least twice
    ``engine.PASSAGE_WORDS`` words on average; else None."""
    if isinstance(source, TextSource):
        texts = [document.text for document in source.documents]
    elif isinstance(source, TableSource) and text_column in source.columns:
        texts = source.preview[text_column].astype(str).tolist()
    else:
        return None
    if not 0 < len(texts) < FEW_DOCUMENTS or sum(len(text.split()) for text in texts) < 2 * PASSAGE_WORDS * len(texts):
        return None
    return sum(max(1, len(passage_spans(text))) for text in texts)


_DOCUMENT_KINDS = {".pdf": "PDF file", ".docx": "Word document", ".odt": "OpenDocument text", ".epub": "EPUB book",
                   ".pptx": "PowerPoint presentation", ".odp": "OpenDocument presentation"}


def documents_note(source: Source) -> str | None:
    """What was read of uploaded PDF, Word, OpenDocument, EPUB, slide, Markdown and reStructuredText files ("Read the
    text of 3 PDF files and ..."), or None when there are none."""
    if not isinstance(source, TextSource):
        return None
    kinds = collections.Counter(_suffix(document.doc_id) for document in source.documents
                                if is_document_file(document.doc_id))
    markdown = sum(_suffix(document.doc_id) in MARKDOWN_SUFFIXES for document in source.documents)
    rst = sum(_suffix(document.doc_id) in RST_SUFFIXES for document in source.documents)
    notes = []
    if kinds:
        read = formatting.join_and([formatting.plural(n, _DOCUMENT_KINDS[suffix], "OpenDocument texts" if
                                                      suffix == ".odt" else None) for suffix, n in kinds.items()])
        notes.append(f"Read the text of {read}" + (": words hyphenated at line ends are joined, and the lines that "
                                                   "head or foot most pages (titles, page numbers) are left out."
                                                   if ".pdf" in kinds else "."))
    if markdown:
        notes.append(f"Read {formatting.plural(markdown, 'Markdown file')} as rendered: links and images as their "
                     "text without their addresses, code without its fences, front matter without its keys.")
    if rst:
        notes.append(f"Read {formatting.plural(rst, 'reStructuredText file')} as rendered: roles and links as their "
                     "text, directives without their names and options, comments and link targets left out.")
    return " ".join(notes) or None


def title_note(source: Source) -> str | None:
    """The rows above a sheet's header that were read as its title ("The rows above the header ... left out"), or
    None (plain text, not Markdown)."""
    title = getattr(source, "title", ())
    if not title:
        return None
    shown = "; ".join(f"“{line[:80]}{'…' if len(line) > 80 else ''}”" for line in title)
    if len(title) == 1:
        return f"The row above the header, {shown}, is the sheet's title: neither column names nor a document."
    return (f"The {len(title)} rows above the header, {shown}, are the sheet's title: neither column names nor "
            "documents.")


def document_roots(corpus: Corpus) -> tuple[np.ndarray, list[str], list[str]]:
    """The document each of the corpus's documents was cut from (0, 1, ... in order; a document not cut is its own),
    and those documents' ids and titles: (groups, ids, titles), an id being the document's before it was cut into
    passages (what "Leave out documents" names), a title a passage's without its " (n)"."""
    groups, roots, titles = passage_documents(corpus.doc_ids, corpus.titles)
    return np.array(groups, dtype=np.intp), roots, titles


LEAVE_OUT_OFFERED = 50  # the longest documents "Leave out documents" offers, besides those left out already


class LongDocument(NamedTuple):
    """A document of the collection (its passages counted together): its id, title and share of the words."""

    doc_id: str
    title: str
    share: float


def longest_documents(corpus: Corpus, n: int = LEAVE_OUT_OFFERED) -> list[LongDocument]:
    """The ``n`` documents holding the most words, longest first (a document cut into passages counted whole)."""
    groups, roots, titles = document_roots(corpus)
    words = np.bincount(groups, weights=np.asarray(corpus.counts.sum(axis=1)).ravel(), minlength=len(roots))
    order = np.lexsort((np.arange(len(roots)), -words))[:n]
    total = max(float(words.sum()), 1.0)
    return [LongDocument(roots[d], titles[d], float(words[d] / total)) for d in order]


def long_documents_of(corpus: Corpus, n_topics: int) -> list[LongDocument]:
    """The documents long enough to fill a topic of their own among ``n_topics`` (``engine.long_documents``), when
    the collection holds at least ``engine.ONE_DOCUMENT_MIN_DOCUMENTS`` documents; longest first."""
    groups, roots, titles = document_roots(corpus)
    if len(roots) < ONE_DOCUMENT_MIN_DOCUMENTS:  # a few long documents: topics are meant to come from within them
        return []
    found, shares = long_documents(np.asarray(corpus.counts.sum(axis=1)).ravel(), n_topics, groups)
    return [LongDocument(roots[d], titles[d], float(share)) for d, share in zip(found, shares, strict=True)]


LONG_NAMED = 3  # long documents named in the Data page's warning


def long_documents_note(found: Sequence[LongDocument], n_topics: int, hdp: bool = False) -> str | None:
    """The Data page's warning about documents long enough to fill topics of their own (None when there are none).

    ``hdp``: the next run is an HDP, which finds its number of topics itself, so the note names no K.
    """
    if not found:
        return None
    named = [f"“{safe_text.markdown(d.title)}” ({formatting.percent(d.share, 2)})" for d in found[:LONG_NAMED]]
    if len(found) > LONG_NAMED:
        named.append(f"{formatting.plural(len(found) - LONG_NAMED, 'more document')}")
    one = len(found) == 1
    subject = "this document is" if one else "each of them is"
    why = (subject.capitalize() if hdp else f"With {n_topics} topics a topic holds "
           f"{formatting.percent(1 / n_topics, 2)} of the words on average, so {subject}")
    return (f"{'One document holds' if one else f'{len(found)} documents each hold'} a large share of the words: "
            f"{formatting.join_and(named)}. {why} long enough to fill topics of its own, which would describe it "
            "rather than themes the documents share. If the other documents' themes are what you want, leave "
            f"{'it' if one else 'them'} out with the button below.")


def passages_note(corpus: Corpus) -> str:
    """What cutting the documents into passages made of them ("3 documents became 212 passages...")."""
    ids = [*corpus.doc_ids, *(dropped.doc_id for dropped in corpus.dropped)]
    documents = len(passage_documents(ids, ids)[1])
    return (f"Cut into passages: {formatting.plural(documents, 'document')} became "
            f"{formatting.plural(len(ids), 'passage')} of about {PASSAGE_WORDS} words, each read as a document.")


PHRASES_NAMED = 6  # phrases named in the Data page's note
SKIPPED_EXAMPLES = 3  # file names each group of skipped files shows


def skipped_groups(skipped: Sequence) -> pd.DataFrame:
    """Skipped files (``SkippedFile``s) grouped by why (``engine.skipped_by_reason``: the largest group first):
    columns "Files" (how many), "Why" and "For example" (the first :data:`SKIPPED_EXAMPLES` names, then "…" when
    there are more)."""
    return pd.DataFrame([(len(names), reason, ", ".join(names[:SKIPPED_EXAMPLES])
                          + (", …" if len(names) > SKIPPED_EXAMPLES else ""))
                         for reason, names in skipped_by_reason(skipped)], columns=["Files", "Why", "For example"])


def phrases_found(corpus: Corpus) -> pd.DataFrame:
    """The phrases the corpus reads as one word (those its vocabulary kept), most frequent first: their text, times
    and documents."""
    joined = set(corpus.vectorizer.phrases) if corpus.vectorizer is not None else set()
    columns = [w for w, word in enumerate(corpus.vocabulary) if word in joined]
    counts = corpus.counts[:, columns].tocsc() if columns else None
    times = np.asarray(counts.sum(axis=0)).ravel() if columns else np.zeros(0, dtype=np.int64)
    documents = np.diff(counts.indptr) if columns else np.zeros(0, dtype=np.int64)
    table = pd.DataFrame({"Phrase": [corpus.vocabulary[w] for w in columns], "Times": times.astype(np.int64),
                          "Documents": documents.astype(np.int64)})
    return table.sort_values(["Times", "Phrase"], ascending=[False, True], ignore_index=True)


def phrases_note(corpus: Corpus, found: pd.DataFrame) -> str:
    """What reading word pairs as one word made of the collection."""
    if found.empty:
        return ("No pair of words stands side by side often enough to be read as one word: every word is read "
                "alone.")
    named = ", ".join(f"“{phrase}”" for phrase in found["Phrase"][:PHRASES_NAMED])
    more = ", …" if len(found) > PHRASES_NAMED else ""
    return (f"Read as one word: {formatting.plural(len(found), 'phrase')} ({named}{more}), "
            f"{formatting.percent(found['Times'].sum() / max(corpus.n_tokens, 1), 2)} of the words.")


WORD_FORMS_NAMED = 5  # words named, with their forms, in the Data page's note


def word_forms_found(corpus: Corpus) -> pd.DataFrame:
    """The words the corpus counts with other forms (those its vocabulary kept), most frequent first: the word, its
    other forms (in alphabetical order) and the times all of them are written."""
    others = corpus.vectorizer.other_forms() if corpus.vectorizer is not None else {}
    columns = [w for w, word in enumerate(corpus.vocabulary) if word in others]
    times = np.asarray(corpus.counts[:, columns].sum(axis=0)).ravel() if columns else np.zeros(0, dtype=np.int64)
    table = pd.DataFrame({"Word": [corpus.vocabulary[w] for w in columns],
                          "Other forms": [", ".join(others[corpus.vocabulary[w]]) for w in columns],
                          "Times": times.astype(np.int64)})
    return table.sort_values(["Times", "Word"], ascending=[False, True], ignore_index=True)


def word_forms_note(corpus: Corpus, found: pd.DataFrame, language: str) -> str:
    """What counting a word's forms as one word made of the collection."""
    if not has_word_forms(language):
        return (f"The forms of words in {language_label(language)} are not known here: every form is counted as "
                "written.")
    if found.empty:
        return "No word is written in two forms often enough to be kept: every form is counted as written."
    named = "; ".join(f"“{word}” ({others})" for word, others in
                      zip(found["Word"][:WORD_FORMS_NAMED], found["Other forms"][:WORD_FORMS_NAMED], strict=True))
    more = "; …" if len(found) > WORD_FORMS_NAMED else ""
    forms = sum(len(others.split(", ")) for others in found["Other forms"])
    return (f"Counted with their other forms: {formatting.plural(len(found), 'word')} ({named}{more}), "
            f"{formatting.plural(forms, 'other form')} in all.")


def table_documents(source: TableSource, text_column: str, title_column: str | None = None):
    """The documents of a table, one per row (engine RawDocuments)."""
    return read_table(source.data, text_column, title_column or None, format=source.format,
                      encoding=source.encoding, sheet=source.sheet)


def table_columns(source: TableSource, corpus: Corpus, text_column: str) -> dict[str, tuple[str, ...]]:
    """The table's columns other than the text, one string per document of ``corpus``.

    Documents of a table are its rows, with the 1-based row number as id (see
    :func:`table_documents`), or the rows' passages ("3#1", "3#2"...); rows without words
    are not in the corpus, so the values are matched by id.  Empty when the table cannot be
    read again.
    """
    try:
        frame = (read_sheet(source.data, source.sheet, name=source.name).frame if source.sheet is not None
                 else _parse_table(decode_text(source.data, source.name, source.encoding), source.format))
    except (ValueError, pd.errors.ParserError):
        return {}
    rows_of = [doc_id.partition("#")[0] for doc_id in corpus.doc_ids]  # a passage "3#2" is of row 3
    rows = [int(row) - 1 if row.isdigit() else -1 for row in rows_of]
    read = {*rows_of, *(dropped.doc_id.partition("#")[0] for dropped in corpus.dropped)}
    if len(frame) != len(read) or any(not 0 <= row < len(frame) for row in rows):
        return {}  # not the rows the engine read: better no columns than misplaced ones
    return {str(column): tuple("" if pd.isna(v) else str(v) for v in frame[column].iloc[rows])
            for column in frame.columns if str(column) != text_column}


def build_corpus(source: Source, preprocessing: Preprocessing, text_column: str | None = None,
                 title_column: str | None = None) -> Corpus:
    """Word counts of a source under the given preprocessing (bags of words are used as they are)."""
    if isinstance(source, BagOfWordsSource):  # counted already: only the documents left out change
        return source.corpus.without_documents(preprocessing.left_out)
    if isinstance(source, TableSource):
        if not text_column:
            raise UploadError("Choose the column that holds the text of each document.")
        documents = table_documents(source, text_column, title_column)
    else:
        documents = source.documents
    return Corpus.from_documents(documents, **preprocessing.options())


def language_guess(source: Source, text_column: str | None = None) -> LanguageGuess | None:
    """Which language's stop words cover most of the source's words, and whether its text holds markup
    (:func:`engine.guess_language`).

    None for a bag of words (no text), or a table whose ``text_column`` is not chosen or cannot be read.
    """
    if isinstance(source, BagOfWordsSource):
        return None
    if isinstance(source, TableSource):
        if not text_column:
            return None
        try:
            documents = table_documents(source, text_column)
        except (EngineError, ValueError, pd.errors.ParserError):  # building the corpus says what is wrong
            return None
    else:
        documents = source.documents
    return guess_language([document.text for document in documents])


class LanguageNote(NamedTuple):
    """What the Data page says about the stop words' language: ``level`` "info" or "warning", the text (plain,
    not Markdown), and the language to offer instead (None: nothing to offer)."""

    level: str
    text: str
    suggestion: str | None = None


def language_label(language: str) -> str:
    """How the Data page names a stop-word language: "French", or "English + French" for a combination."""
    return " + ".join(part.capitalize() for part in languages_of(language))


def language_options(guess: LanguageGuess | None, chosen: str | None) -> list[str]:
    """The stop-word languages the Data page offers: the guessed combination and the ``chosen`` one (documents in
    more than one language), then every single language."""
    combined = [name for name in (guess.language if guess is not None else None, chosen)
                if name and len(languages_of(name)) > 1]
    return list(dict.fromkeys([*combined, *STOP_WORD_LANGUAGES]))


def language_note(guess: LanguageGuess | None, chosen: str, corpus: Corpus | None = None) -> LanguageNote | None:
    """What the guess says about the ``chosen`` language of the stop words; None for a bag of words.

    A warning, with the guessed language to switch to, when the chosen list covers less than half the words the
    guessed one covers, or leaves out a language that enough of the documents are written in; a note otherwise.
    The warning names the guessed list's stop words that are most frequent in ``corpus`` (the collection as read
    with the chosen list), or without it those of the text.
    """
    if guess is None:
        return None
    if guess.language is None and guess.reads_pairs:
        return LanguageNote("info", "These documents hold Chinese or Japanese characters. Without spaces between "
                                    "words, they are read as every pair of adjacent Chinese characters and each "
                                    "katakana word; the stop words chosen here apply to the words of other "
                                    "languages in them.")
    if guess.language is None:
        return LanguageNote("info", "The language of these documents was not recognised: no listed language's stop "
                                    "words are common in them. Choose it here if it is listed.")
    first, *others = languages_of(guess.language)
    found, share = language_label(guess.language), formatting.percent(guess.share, 2)
    written = ", ".join(f"{_share_written_in(guess, other, 'of them', 'of their paragraphs')} {other.capitalize()}"
                        for other in others)
    if guess.language == chosen:
        if others:
            return LanguageNote("info", f"These documents look {first.capitalize()}, and {written}: each "
                                        f"paragraph loses the stop words of its own language ({share} of the words "
                                        f"are {found} stop words).")
        return LanguageNote("info", f"The documents look {found}: {share} of their words are {found} stop words.")
    missing = [other for other in others if other not in languages_of(chosen)]
    mine = max(guess.share_of(part) for part in languages_of(chosen))  # at most what the chosen lists cover
    if not missing and mine >= LANGUAGE_TIE * guess.share:
        return LanguageNote("info", f"{formatting.percent(mine, 2)} of the words are {language_label(chosen)} stop "
                                    f"words ({found}: {share}).")
    examples = guess.examples[:3] if corpus is None else _kept_stop_words(corpus, guess.language, 3)
    if missing:
        lost = " and ".join(f"{_share_written_in(guess, other, 'of these documents', 'of these documents’ paragraphs')}"
                            f" look {other.capitalize()}" for other in missing)
        words = f" (“{'”, “'.join(examples)}”)" if corpus is not None and examples else ""
        return LanguageNote("warning", f"{lost}. With {language_label(chosen)} stop words alone, their common words "
                                       f"stay in the vocabulary{words} and crowd the topics.", guess.language)
    kept = (f"common {found} words stay in the vocabulary ({', '.join(f'“{word}”' for word in examples)}) and "
            "crowd the topics" if examples else f"common {found} words can stay in and crowd the topics")
    return LanguageNote(
        "warning",
        f"These documents look {found}: {share} of their words are {found} stop words and "
        f"{formatting.percent(mine, 2)} {language_label(chosen)} ones. With {language_label(chosen)} stop words, "
        f"{kept}.",
        guess.language,
    )


def _share_written_in(guess: LanguageGuess, other: str, documents: str, paragraphs: str) -> str:
    """How much of the collection is written in ``other``: its share of the documents ("27% of them"), or of the
    paragraphs when documents hold its passages rather than being written in it (French pages that keep English
    paragraphs: "4% of their paragraphs")."""
    in_documents, in_paragraphs = guess.documents.get(other, 0.0), guess.paragraphs.get(other, 0.0)
    if 2 * in_documents >= in_paragraphs:
        return f"{formatting.percent(in_documents, 2)} {documents}"
    return f"{formatting.percent(in_paragraphs, 2)} {paragraphs}"


def _kept_stop_words(corpus: Corpus, language: str, n: int) -> tuple[str, ...]:
    """The ``n`` most frequent words of ``corpus``'s vocabulary that ``language``'s stop words would remove."""
    reading = Vectorizer() if corpus.vectorizer is None else corpus.vectorizer  # None: counts saved before it was kept
    stop = dataclasses.replace(reading, stop_words=language, extra_stop_words=()).stop_word_set()
    columns = [i for i, word in enumerate(corpus.vocabulary) if word in stop]
    if not columns:
        return ()
    return tuple(word for word, _ in top_corpus_words(corpus.counts[:, columns],
                                                      [corpus.vocabulary[i] for i in columns], n))


# ------------------------------------------------------------------- encodings
def encodings_of(source: Source) -> dict[str, str]:
    """The encoding each file of ``source`` was decoded with (empty for bags of words)."""
    if isinstance(source, TextSource):
        return dict(getattr(source.documents, "encodings", {}) or {})
    if isinstance(source, TableSource) and source.encoding is not None:
        return {source.name: source.encoding}
    return {}


def encoding_note(source: Source) -> str | None:
    """Which encoding the text was decoded with: "Decoded as windows-1252 (detected)." or, per file,
    "Decoded as utf-8 (5 files) and windows-1252 (2 files: a.txt, b.txt)." (plain text, not Markdown)."""
    used = encodings_of(source)
    if not used:
        return None
    how = "detected" if getattr(source, "chosen_encoding", None) is None else "chosen"
    groups: dict[str, list[str]] = {}
    for name, encoding in used.items():
        groups.setdefault(encoding, []).append(name)
    if len(groups) == 1:
        return f"Decoded as {next(iter(groups))} ({how})."
    ranked = sorted(groups.items(), key=lambda item: -len(item[1]))
    parts = [f"{encoding} ({formatting.plural(len(names), 'file')})" if i == 0 else
             f"{encoding} ({formatting.plural(len(names), 'file')}: {', '.join(names[:3])}"
             f"{', …' if len(names) > 3 else ''})" for i, (encoding, names) in enumerate(ranked)]
    return f"Decoded as {', '.join(parts[:-1])} and {parts[-1]} ({how} per file)."

"""Read raw documents from text files, folders, zip archives and tables.

Every reader works on paths *and* on bytes (the explorer receives uploads as
bytes) and returns :class:`RawDocuments`: a list of :class:`RawDocument`
``(doc_id, title, text)`` that also records, in ``skipped``, the files it
ignored and why (an entry of an archive that is not read is never dropped silently).

Bytes are decoded by :func:`decode_text`: in the ``encoding`` the caller gives,
or else UTF-8 (with or without BOM), UTF-16/32 with a BOM, then the most
plausible legacy encoding (``engine/data/_encoding.py`` states the rule);
binary or undetectable files raise :class:`~engine.errors.FileDecodingError`
naming the file.  ``RawDocuments.encodings`` records the encoding of each file.
"""

from __future__ import annotations

import io
import os
import warnings
import zipfile
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from pathlib import Path, PurePosixPath
from typing import NamedTuple

import pandas as pd

from engine.data import _encoding
from engine.data._bounds import ZIP_ERRORS
from engine.data._csv_quoting import check_quoting
from engine.data.documents import DOCUMENT_SUFFIXES, DocumentReader, _DocumentCache, is_document_file
from engine.data.markdown import MARKDOWN_SUFFIXES, markdown_text
from engine.data.mbox import mbox_frame
from engine.data.rst import RST_SUFFIXES, rst_text
from engine.data.sphinx import sphinx_unread
from engine.data.spreadsheets import read_sheet
from engine.errors import (
    CorpusFormatError,
    EmptyCorpusError,
    MissingColumnError,
    UnsafeArchiveError,
)

__all__ = [
    "TEXT_SUFFIXES",
    "RawDocument",
    "RawDocuments",
    "SkippedFile",
    "decode_text",
    "detect_encoding",
    "read_folder",
    "read_table",
    "read_txt_files",
    "read_zip",
    "skipped_by_reason",
    "table_format",
]

DEFAULT_MAX_FILES = 20_000
DEFAULT_MAX_TOTAL_BYTES = 256 * 2**20
# a mailbox is read as a table of its messages (engine.data.mbox)
TABLE_FORMATS = {".csv": "csv", ".tsv": "tsv", ".tab": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".mbox": "mbox",
                 ".xlsx": "xlsx", ".xlsm": "xlsx", ".ods": "ods"}
SHEET_FORMATS = ("xlsx", "ods")  # tables in a spreadsheet's sheet (engine.data.spreadsheets), not text


class RawDocument(NamedTuple):
    """One document before tokenisation: an id, a title to show, and its text."""

    doc_id: str
    title: str
    text: str


class SkippedFile(NamedTuple):
    """A file or archive entry that a reader ignored, with the reason."""

    name: str
    reason: str


def skipped_by_reason(skipped: Iterable[SkippedFile]) -> list[tuple[str, tuple[str, ...]]]:
    """Skipped files grouped by why: ``(reason, names)`` pairs, the largest group first and groups of one size in the
    order their first file came, each group's names in the order they came.

    A site's hundreds of style sheets, scripts and copied sources read as a few lines (the app's Data page and
    ``svi-topics fit`` list them so).

    Examples
    --------
    >>> from engine import SkippedFile, skipped_by_reason
    >>> skipped_by_reason([SkippedFile("a.css", "not text"), SkippedFile("._a.txt", "macOS metadata"),
    ...                    SkippedFile("b.js", "not text")])
    [('not text', ('a.css', 'b.js')), ('macOS metadata', ('._a.txt',))]
    """
    groups: dict[str, list[str]] = {}
    for file in skipped:
        groups.setdefault(file.reason, []).append(file.name)
    ordered = sorted(groups.items(), key=lambda group: -len(group[1]))  # a stable sort: ties keep the first-met order
    return [(reason, tuple(names)) for reason, names in ordered]


class RawDocuments(list[RawDocument]):
    """A list of :class:`RawDocument` plus what the reader decided on the way.

    Parameters
    ----------
    documents : iterable of RawDocument
    skipped : iterable of SkippedFile
        The files the reader ignored, with why.
    encodings : mapping of str to str, optional
        The encoding each file was decoded with (file name -> name such as
        ``"utf-8"`` or ``"windows-1252"``), so a caller can say what was assumed.
    """

    def __init__(self, documents: Iterable[RawDocument] = (), skipped: Iterable[SkippedFile] = (),
                 encodings: Mapping[str, str] | None = None):
        super().__init__(documents)
        self.skipped: tuple[SkippedFile, ...] = tuple(skipped)
        self.encodings: dict[str, str] = dict(encodings or {})

    def __repr__(self) -> str:
        return f"RawDocuments({len(self)} documents, {len(self.skipped)} skipped)"


def decode_text(data: bytes, name: str, encoding: str | None = None) -> str:
    """Decode the bytes of a text file, detecting the encoding if it is not UTF-8.

    Parameters
    ----------
    data : bytes
        The file content.
    name : str
        The file name, used in error messages.
    encoding : str, optional
        The file's encoding (any name Python knows: ``"utf-8"``, ``"windows-1252"``,
        ``"latin-1"``...); None detects it: a byte-order mark, then UTF-8, then the
        most plausible legacy encoding, Windows-1252 on a close call (see
        :func:`detect_encoding`).

    Returns
    -------
    str

    Raises
    ------
    FileDecodingError
        The bytes look binary (NUL bytes, nothing detected), no encoding explains
        them reliably, or they are not valid in the given ``encoding`` (the message
        names the byte, its offset and line).
    ValueError
        ``encoding`` is not an encoding Python knows.
    """
    return _encoding.decode(data, name, encoding)[0]


def detect_encoding(data: bytes, name: str) -> str:
    """The encoding :func:`decode_text` assumes for ``data``, by the name to show (``"windows-1252"``).

    UTF-8 (``"utf-8"``, or ``"utf-8-sig"`` with a byte-order mark) and UTF-16/32
    with a byte-order mark are recognised exactly; other bytes are matched by
    ``charset_normalizer``, and on a close call the reading whose letters one
    language's alphabet explains best wins, Windows-1252 first among equals.
    Raises FileDecodingError like :func:`decode_text`.
    """
    return _encoding.decode(data, name)[1]


def _check_encoding(encoding: str | None) -> None:
    """Reject an unknown encoding name before any file is read."""
    if encoding is not None:
        _encoding.encoding_name(encoding)


# files read as documents (Markdown and reStructuredText: as rendered, engine.data.markdown and engine.data.rst; web
# pages: their markup is left out; e-mail messages: their headers; PDF, Word, OpenDocument, EPUB and presentation
# files: their text, engine.data.documents)
TEXT_SUFFIXES = (".txt", *MARKDOWN_SUFFIXES, *RST_SUFFIXES, ".html", ".htm", ".xhtml", ".eml", *DOCUMENT_SUFFIXES)
NOT_TEXT = "not a .txt, .md, .rst, .html, .eml, .pdf, .docx, .odt, .epub, .pptx or .odp file"


def _is_text_file(name: str) -> bool:
    return name.lower().endswith(TEXT_SUFFIXES)


def read_texts(files: Iterable[tuple[str, bytes]], encoding: str | None, skipped: list[SkippedFile],
               encodings: dict[str, str] | None = None, cache: _DocumentCache | None = None,
               ) -> Iterator[tuple[str, str]]:
    """``(name, text)`` of each file of :data:`TEXT_SUFFIXES` given as ``(name, bytes)``, in order, read lazily.

    Text files are decoded (their encoding recorded in ``encodings``), Markdown and reStructuredText files read as
    their rendered text (:func:`engine.markdown_text`, :func:`engine.rst_text`); PDF, Word, OpenDocument, EPUB and
    slide files are read by one :class:`~engine.data.documents.DocumentReader` (or taken from ``cache``, which keeps
    what was read), and one that cannot be read goes to ``skipped`` with the reason (a scan, a password, damage).
    Raises FileDecodingError for a text file that cannot be decoded.
    """
    with DocumentReader() as reader:
        for name, data in files:
            if is_document_file(name):
                document = cache.get(name) if cache is not None else None
                if document is None:
                    document = reader.read(name, data)
                    if cache is not None:
                        cache.put(document)
                if document.text is None:
                    skipped.append(SkippedFile(name, f"this {document.kind} {document.problem}"))
                    continue
                yield name, document.text
            else:
                text, used = _encoding.decode(data, name, encoding)
                if encodings is not None:
                    encodings[name] = used
                yield name, _rendered(name, text)


def _rendered(name: str, text: str) -> str:
    """A Markdown or reStructuredText file's text as rendered (by its name's suffix, also as Sphinx copies it:
    ``intro.rst.txt``); other text as it is."""
    lowered = name.lower()
    if lowered.endswith(".txt") and lowered[:-len(".txt")].endswith((*MARKDOWN_SUFFIXES, *RST_SUFFIXES)):
        lowered = lowered[:-len(".txt")]
    if lowered.endswith(MARKDOWN_SUFFIXES):
        return markdown_text(text)
    return rst_text(text) if lowered.endswith(RST_SUFFIXES) else text


def _title(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).stem


def read_txt_files(files: Iterable[tuple[str, bytes]], encoding: str | None = None) -> RawDocuments:
    """Read uploaded files given as ``(name, bytes)`` pairs.

    The id of a document is its file name, its title the name without its suffix.
    ``.txt`` files are read, Markdown files (``.md``) and reStructuredText files (``.rst``) as rendered
    (:func:`engine.markdown_text`, :func:`engine.rst_text`),
    and web pages (``.html``, ``.htm``, ``.xhtml``) and e-mail
    messages (``.eml``) as they are: their markup and headers are left out when the corpus
    is built (``strip_markup``, ``strip_messages``).  PDF, Word (``.docx``), OpenDocument
    (``.odt``) and EPUB files are read as their text (:mod:`engine.data.documents`); one
    that cannot be read (a scan, a password) is listed in ``skipped`` with the reason, and so
    are files of other kinds.  When ``files`` is a list or tuple, the sources a Sphinx site copies
    beside its pages and the pages it generates are listed there too (:func:`engine.sphinx_unread`).

    Parameters
    ----------
    files : iterable of (str, bytes)
    encoding : str, optional
        The encoding of every file; None detects each one (see :func:`decode_text`).

    Returns
    -------
    RawDocuments
        With ``encodings``, the encoding each file was decoded with.
    """
    _check_encoding(encoding)
    if isinstance(files, (list, tuple)):  # a generator is read as it comes (read_folder names its sources itself)
        return _read_files(files, encoding, sphinx_unread(name for name, _ in files))
    return _read_files(files, encoding, {})


def _read_files(files: Iterable[tuple[str, bytes]], encoding: str | None, unread: Mapping[str, str]) -> RawDocuments:
    """read_txt_files' work; ``unread``: the files of a site built by Sphinx that are not read, each with why
    (:func:`engine.sphinx_unread`), listed in ``skipped``."""
    skipped: list[SkippedFile] = []
    encodings: dict[str, str] = {}

    def readable() -> Iterator[tuple[str, bytes]]:  # one file's bytes at a time (read_folder reads them lazily)
        for name, data in files:
            if name in unread:
                skipped.append(SkippedFile(name, unread[name]))
            elif _is_text_file(name):
                yield name, data
            else:
                skipped.append(SkippedFile(name, NOT_TEXT))

    documents = [RawDocument(name, _title(name), text)
                 for name, text in read_texts(readable(), encoding, skipped, encodings)]
    return RawDocuments(documents, skipped, encodings)


def read_folder(path: str | os.PathLike, encoding: str | None = None) -> RawDocuments:
    """Read every file of :data:`TEXT_SUFFIXES` below a folder (recursively, in sorted order).

    Document ids are paths relative to the folder, with ``/`` separators. Other
    files are listed in ``skipped``.

    Parameters
    ----------
    path : str or path-like
    encoding : str, optional
        The encoding of every file; None detects each one (see :func:`decode_text`).

    Returns
    -------
    RawDocuments
    """
    root = Path(path)
    if not root.is_dir():
        raise NotADirectoryError(f"path must be a folder of text files (.txt, .html, .eml, .pdf, .docx, .odt or "
                                 f".epub), got {str(root)!r}")
    _check_encoding(encoding)
    files = sorted(p for p in root.rglob("*") if p.is_file())
    names = [f.relative_to(root).as_posix() for f in files]
    unread = sphinx_unread(names)
    # only the files of TEXT_SUFFIXES are read; the others (and the files of a Sphinx site that are not its authors'
    # pages) are named in `skipped`
    return _read_files(((name, f.read_bytes() if _is_text_file(f.name) and name not in unread else b"")
                        for name, f in zip(names, files, strict=True)), encoding, unread)


def _check_entry_name(name: str) -> None:
    parts = name.replace("\\", "/").split("/")
    if name.startswith(("/", "\\")) or (len(name) > 1 and name[1] == ":") or ".." in parts:
        raise UnsafeArchiveError(
            f"zip entry {name!r} has an absolute or '..' path that would escape the archive; "
            "rebuild the archive with relative paths"
        )


def _zip_text_entries(infos, label: str) -> tuple[list[zipfile.ZipInfo], list[SkippedFile]]:
    """The entries of an archive's ``infos`` named in TEXT_SUFFIXES, and the other files with why they are skipped.

    Folders are ignored; macOS ``__MACOSX``/``._`` metadata, the files of a site built by Sphinx that are not its
    authors' pages (:func:`engine.sphinx_unread`) and other files are skipped.  Raises UnsafeArchiveError for an
    absolute or ``..`` path and CorpusFormatError for a repeated entry name, before anything is read.
    """
    to_read, skipped, seen, files = [], [], set(), []
    for info in infos:
        _check_entry_name(info.filename)
        if info.filename in seen:
            raise CorpusFormatError(f"{label} holds the entry {info.filename!r} twice")
        seen.add(info.filename)
        parts = info.filename.split("/")
        if info.is_dir():
            continue
        if "__MACOSX" in parts or parts[-1].startswith("._"):
            skipped.append(SkippedFile(info.filename, "macOS metadata"))
            continue
        files.append(info.filename)
        if _is_text_file(info.filename):
            to_read.append(info)
        else:
            skipped.append(SkippedFile(info.filename, NOT_TEXT))
    unread = sphinx_unread(files)  # the other files too: a Sphinx site is known by its objects.inv, searchindex.js
    skipped.extend(SkippedFile(info.filename, unread[info.filename]) for info in to_read if info.filename in unread)
    return [info for info in to_read if info.filename not in unread], skipped


def _read_entry(archive: zipfile.ZipFile, info: zipfile.ZipInfo, limit: int, label: str) -> bytes:
    """At most ``limit + 1`` decompressed bytes of an entry (so a caller sees when it runs past ``limit``)."""
    try:
        with archive.open(info) as entry:
            return entry.read(limit + 1)
    except ZIP_ERRORS as exc:
        raise CorpusFormatError(f"cannot read {info.filename!r} in {label}: {exc}") from None


def _expands_past_declared(info: zipfile.ZipInfo, label: str) -> UnsafeArchiveError:
    return UnsafeArchiveError(f"{info.filename!r} in {label} expands past the {info.file_size:,} bytes it "
                              "declares (a possible zip bomb); rebuild the archive")


def read_zip(
    source: str | os.PathLike | bytes,
    max_files: int = DEFAULT_MAX_FILES,
    max_total_bytes: int = DEFAULT_MAX_TOTAL_BYTES,
    encoding: str | None = None,
) -> RawDocuments:
    """Read the entries of a zip archive named in :data:`TEXT_SUFFIXES`, guarding against zip bombs.

    Parameters
    ----------
    source : str, path-like or bytes
        The archive's path or content.
    max_files : int
        Most entries the archive may hold.
    max_total_bytes : int
        Most bytes the entries read may expand to; checked on the sizes the
        archive declares *and* while decompressing.
    encoding : str, optional
        The encoding of every entry; None detects each one (see :func:`decode_text`).

    Returns
    -------
    RawDocuments
        Documents in archive order; ids are entry paths. Folders are ignored;
        other entries (and macOS ``__MACOSX``/``._`` metadata) go to ``skipped``.

    Raises
    ------
    UnsafeArchiveError
        An entry has an absolute or ``..`` path, or the archive is too large.
    CorpusFormatError
        The data is not a zip archive, or an entry name is repeated.
    """
    _check_encoding(encoding)
    label = "the uploaded archive" if isinstance(source, bytes) else repr(str(source))
    try:
        archive = zipfile.ZipFile(io.BytesIO(source) if isinstance(source, bytes) else source)
    except OSError:  # the file system's (a missing or unreadable file), not the archive's
        raise
    except ZIP_ERRORS as exc:
        raise CorpusFormatError(f"{label} is not a valid zip archive ({exc})") from None
    with archive:
        infos = archive.infolist()
        if len(infos) > max_files:
            raise UnsafeArchiveError(
                f"{label} has {len(infos)} entries, more than max_files={max_files}; "
                "split it or raise max_files"
            )
        to_read, skipped = _zip_text_entries(infos, label)
        declared = sum(info.file_size for info in to_read)
        too_large = UnsafeArchiveError(
            f"{label} expands to more than max_total_bytes={max_total_bytes} bytes of text "
            "(a possible zip bomb); split it or raise max_total_bytes"
        )
        if declared > max_total_bytes:
            raise too_large
        budget, encodings = max_total_bytes, {}

        def entries() -> Iterator[tuple[str, bytes]]:
            nonlocal budget
            for info in to_read:
                # never decompress past the budget, nor past the size the entry declares
                data = _read_entry(archive, info, min(budget, info.file_size), label)
                if len(data) > info.file_size:
                    raise _expands_past_declared(info, label)
                budget -= len(data)
                if budget < 0:
                    raise too_large
                yield info.filename, data

        documents = [RawDocument(name, _title(name), text)
                     for name, text in read_texts(entries(), encoding, skipped, encodings)]
    return RawDocuments(documents, skipped, encodings)


def table_format(name: str) -> str | None:
    """Return ``"csv"``, ``"tsv"``, ``"jsonl"``, ``"mbox"``, ``"xlsx"`` or ``"ods"`` from a file name's suffix, or
    None."""
    return TABLE_FORMATS.get(PurePosixPath(name).suffix.lower())


def _parse_table(text: str, fmt: str, label: str) -> pd.DataFrame:
    if fmt == "mbox":
        return mbox_frame(text, label)
    try:
        if fmt == "jsonl":
            return pd.read_json(io.StringIO(text), lines=True, dtype=False)
        delimiter = "\t" if fmt == "tsv" else ","
        check_quoting(text, delimiter, label)  # a stray quote would otherwise merge rows silently
        with warnings.catch_warnings():
            # a row longer than the header would otherwise lose fields silently
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(io.StringIO(text), sep=delimiter, dtype=str,
                               keep_default_na=False, index_col=False)
    except pd.errors.ParserWarning:
        raise CorpusFormatError(f"{label}: a row has more fields than the header; quote "
                                "texts that contain the separator") from None
    except pd.errors.EmptyDataError:
        raise EmptyCorpusError(f"{label} is empty; it needs a header row and one row per document") from None
    except CorpusFormatError:
        raise
    except (ValueError, pd.errors.ParserError) as exc:
        raise CorpusFormatError(f"{label} is not valid {fmt.upper()}: {exc}") from None


def _column(frame: pd.DataFrame, column: str, label: str, parameter: str) -> list[str]:
    if column not in frame.columns:
        available = ", ".join(repr(str(c)) for c in frame.columns)
        raise MissingColumnError(
            f"{label} has no column {column!r} ({parameter}); available columns: {available}"
        )
    return ["" if pd.isna(value) else str(value) for value in frame[column].tolist()]


def read_table(
    source: str | os.PathLike | bytes,
    text_column: str,
    title_column: str | None = None,
    format: str | None = None,
    id_column: str | None = None,
    encoding: str | None = None,
    sheet: str | None = None,
) -> RawDocuments:
    """Read a CSV, TSV or JSON-lines table or a spreadsheet's sheet with one document per row, or a mailbox.

    A sheet of an Excel (``.xlsx``, ``.xlsm``) or OpenDocument (``.ods``) spreadsheet is read by
    :func:`engine.read_sheet`: its first row with cells is the header.  A mailbox's (``.mbox``)
    rows have the columns "subject", "from", "date" and "text" (each message whole, headers
    included: :mod:`engine.data.mbox`).

    Parameters
    ----------
    source : str, path-like or bytes
        The table's path or content (any encoding :func:`decode_text` detects).
    text_column : str
        Column holding the text of each document.
    title_column : str, optional
        Column holding a title; by default the title is the document id (for a mailbox, the
        message's subject when it has one).
    format : {"csv", "tsv", "jsonl", "mbox", "xlsx", "ods"}, optional
        Required for bytes; for paths it defaults to the suffix.
    id_column : str, optional
        Column of unique document ids; by default the 1-based row number (of the rows after the
        header; rows without cells are not counted).
    encoding : str, optional
        The table's encoding; None detects it (see :func:`decode_text`).  A spreadsheet has none.
    sheet : str, optional
        The sheet of a spreadsheet to read; by default the sheet with the most rows
        (:func:`engine.read_sheet`).

    Returns
    -------
    RawDocuments

    Raises
    ------
    MissingColumnError
        A named column is missing; the message lists the available ones.
    """
    _check_encoding(encoding)
    if isinstance(source, bytes):
        name, data = "uploaded table", source
    else:
        name, data = str(source), Path(source).read_bytes()
        format = format or table_format(str(source))
    if format not in ("csv", "tsv", "jsonl", "mbox", *SHEET_FORMATS):
        raise ValueError(f"format must be 'csv', 'tsv', 'jsonl', 'mbox', 'xlsx' or 'ods', got {format!r}")
    if sheet is not None and format not in SHEET_FORMATS:
        raise ValueError(f"sheet applies to .xlsx and .ods spreadsheets, not to a {format} table")
    label = repr(name)
    if format == "mbox" and title_column is None:
        title_column = "subject"
    if format in SHEET_FORMATS:
        frame, used = read_sheet(data, sheet, name=name).frame, None
    else:
        text, used = _encoding.decode(data, name, encoding)
        frame = _parse_table(text, format, label)
    texts = _column(frame, text_column, label, "text_column")
    ids = (_column(frame, id_column, label, "id_column") if id_column
           else [str(i) for i in range(1, len(frame) + 1)])
    titles = _column(frame, title_column, label, "title_column") if title_column else ids
    if len(set(ids)) != len(ids):
        repeated = next(i for i, n in Counter(ids).items() if n > 1)
        raise CorpusFormatError(f"{label}: id_column {id_column!r} repeats the id {repeated!r}; ids must be unique")
    return RawDocuments((RawDocument(i, t or i, x) for i, t, x in zip(ids, titles, texts, strict=True)),
                        encodings={name: used} if used else None)

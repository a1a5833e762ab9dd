"""The text of PDF files, Word and OpenDocument documents, EPUB books and slide presentations.

People's own collections are rarely plain text: reports and papers come as PDF, drafts as
Word (``.docx``) or OpenDocument (``.odt``) files, books as EPUB, lectures and talks as slides.
:func:`read_documents` reads their text in the order a reader reads it, so they can be uploaded
and read like ``.txt`` files; a file that cannot be read is returned with the reason, in plain
words, never dropped silently.

- **PDF** is read by PDFium (the ``pypdfium2`` package) in a child process
  (:mod:`engine.data._pdf_child`) whose memory is capped and which is stopped after
  ``SVI_TOPICS_MAX_DOCUMENT_SECONDS`` per file: a crafted file cannot crash or hang the caller.
  What the page layout adds to the words is undone (:func:`pdf_pages_text`): a word hyphenated
  across a line end is joined ("expecta-" + "tions"; a PDF that was not hyphenated keeps its
  writers' hyphens), the running header or footer repeated near the top or bottom of most pages
  is left out, and ligature characters are read as their letters ("ﬁ" -> "fi").
  A password-protected PDF, or one that holds images of pages but no text (a scan), is
  reported as such.
- **Word** (``.docx``): the body, then the footnotes and endnotes, paragraph by paragraph;
  deleted tracked changes, the old place of moved text, field codes and comments are left out,
  and a text box's fallback copy is not read twice.
- **OpenDocument** (``.odt``): the body's paragraphs, headings and notes; tracked deletions and
  comments are left out.
- **EPUB**: the chapters in reading order (the package's spine), without their markup
  (:func:`engine.data.markup.strip_markup`).  A book whose chapters are encrypted (DRM) is
  reported as such.
- **Presentations** (PowerPoint ``.pptx``, OpenDocument ``.odp``): each slide's text in the
  presentation's order, followed by its speaker notes; fields (slide numbers, dates) are left out.

XML is parsed by ``defusedxml`` (no entity expansion, no external resources), and every part of
an archive is read within the size its entry declares and the ``max_expanded_mb`` limit.
"""

from __future__ import annotations

import dataclasses
import json
import os
import posixpath
import re
import struct
import subprocess
import tempfile
import threading
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from engine.data import _encoding
from engine.data._packages import Parts, UnreadableError, XmlText, relation_id
from engine.data.markup import strip_markup
from engine.limits import Limits, current_limits
from engine.processes import python_command

__all__ = [
    "DOCUMENT_SUFFIXES",
    "DocumentReader",
    "DocumentText",
    "is_document_file",
    "pdf_pages_text",
    "read_documents",
]

DOCUMENT_SUFFIXES = (".pdf", ".docx", ".odt", ".epub", ".pptx", ".odp")
KINDS = {".pdf": "PDF", ".docx": "Word document", ".odt": "OpenDocument text", ".epub": "EPUB book",
         ".pptx": "PowerPoint presentation", ".odp": "OpenDocument presentation"}
PDF_MEMORY_BYTES = 2 * 2**30  # the most memory the PDF reader's child process may map
RUNNING_LINE_PAGES = 3  # a PDF needs this many pages before a line repeated on them counts as a running header
RUNNING_LINE_SHARE = 0.5  # ... and the line must start or end at least this share of its pages (and two)
RUNNING_LINE_DEPTH = 3  # ... among this many lines at the top or the bottom of a page


@dataclass(frozen=True)
class DocumentText:
    """What :func:`read_documents` made of one file: its text, or why it has none.

    Attributes
    ----------
    name : str
        The file name, as given.
    text : str or None
        The text, or None when the file could not be read.
    problem : str or None
        Why the file could not be read, in plain words that say what to do
        ("is protected by a password; ..."), or None.
    kind : str
        "PDF", "Word document", "OpenDocument text" or "EPUB book".
    pages : int
        The PDF's pages (0 for other kinds and for unread files).
    """

    name: str
    text: str | None
    problem: str | None
    kind: str
    pages: int = 0


def is_document_file(name: str) -> bool:
    """Whether :func:`read_documents` reads a file of this name (``.pdf``, ``.docx``, ``.odt``, ``.epub``, ``.pptx``,
    ``.odp``)."""
    return name.lower().endswith(DOCUMENT_SUFFIXES)


def _suffix(name: str) -> str:
    return PurePosixPath(name.replace("\\", "/")).suffix.lower()


class DocumentReader:
    """Reads documents one at a time (:meth:`read`); a context manager, as it may hold the PDF reader's child process.

    The child starts at the first PDF and ends with the ``with`` block.

    Parameters
    ----------
    limits : Limits, optional
        ``max_expanded_mb`` bounds what an archive's parts expand to, ``max_document_seconds``
        the time one PDF may take; by default :func:`engine.current_limits`.
    """

    def __init__(self, limits: Limits | None = None):
        self.limits = limits or current_limits()
        self._pdf = _PdfReader(self.limits)

    def __enter__(self) -> DocumentReader:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """End the PDF reader's child process, if one runs."""
        self._pdf.close()

    def read(self, name: str, data: bytes) -> DocumentText:
        """The text of one file, or why it has none; the kind comes from the suffix of ``name``.

        Raises ValueError if ``name`` does not end in one of :data:`DOCUMENT_SUFFIXES`; nothing is
        raised for a file's content.
        """
        suffix = _suffix(name)
        if suffix == ".pdf":
            return self._pdf.read(name, data)
        if suffix not in _ARCHIVE_READERS:
            raise ValueError(f"{name!r} is not a .pdf, .docx, .odt, .epub, .pptx or .odp file")
        try:
            text = _ARCHIVE_READERS[suffix](data, name, self.limits)
        except UnreadableError as exc:
            return DocumentText(name, None, str(exc), KINDS[suffix])
        if not any(c.isalnum() for c in text):
            return DocumentText(name, None, "holds no text", KINDS[suffix])
        return DocumentText(name, text, None, KINDS[suffix])


class _DocumentCache:
    """What a reader made of each document file, kept for a caller that reads a collection more than once.

    ``DiskCorpus.from_texts`` goes over its source two or three times (a sample, the word
    frequencies, the counts); a PDF is parsed once and its text kept in a temporary folder
    (memory holds the names only), removed by :meth:`close`.
    """

    def __init__(self):
        self._folder = tempfile.TemporaryDirectory(prefix="svi-topics-documents-")
        self._entries: dict[str, tuple[str | None, DocumentText]] = {}

    def __enter__(self) -> _DocumentCache:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._entries.clear()
        self._folder.cleanup()

    def __contains__(self, name: str) -> bool:
        return name in self._entries

    def get(self, name: str) -> DocumentText | None:
        if name not in self._entries:
            return None
        path, document = self._entries[name]
        if path is None:
            return document
        return dataclasses.replace(document, text=Path(path).read_text(encoding="utf-8"))

    def put(self, document: DocumentText) -> None:
        path = None
        if document.text is not None:
            path = os.path.join(self._folder.name, f"{len(self._entries)}.txt")
            Path(path).write_text(document.text, encoding="utf-8")
        self._entries[document.name] = (path, dataclasses.replace(document, text=None) if path else document)


def read_documents(files: Iterable[tuple[str, bytes]], limits: Limits | None = None) -> Iterator[DocumentText]:
    """Read the text of each ``(name, bytes)`` file, in order, with one :class:`DocumentReader`.

    A file that cannot be read comes back with ``text`` None and the reason in ``problem``.

    Parameters
    ----------
    files : iterable of (str, bytes)
        Names ending in ``.pdf``, ``.docx``, ``.odt`` or ``.epub``.
    limits : Limits, optional
        As for :class:`DocumentReader`.

    Yields
    ------
    DocumentText
    """
    with DocumentReader(limits) as reader:
        for name, data in files:
            yield reader.read(name, data)


# --- PDF -------------------------------------------------------------------------------------------------------

_LENGTH = struct.Struct(">Q")
_CHILD = str(Path(__file__).with_name("_pdf_child.py"))
_NOT_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufeff\uffff]")
_LIGATURES = str.maketrans({"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl",
                            "\ufb05": "st", "\ufb06": "st"})
# PDFium marks a hyphen that ends a line inside a word with U+FFFE and joins the lines
_SOFT_BREAK = re.compile(r"(\w+)\ufffe\s*(\w*)")
_DIGITS = re.compile(r"\d+")
_WORDS = re.compile(r"\w+(?:-\w+)*")  # words, a hyphenated compound as one
_PDFIUM_DETAIL = re.compile(r"PDFium: ([^()]*)")


class _PdfReader:
    """A child process running :mod:`engine.data._pdf_child`, restarted after a crash or a timeout."""

    def __init__(self, limits: Limits):
        self.seconds = limits.max_document_seconds
        self.process: subprocess.Popen | None = None

    def close(self) -> None:
        self._stop()

    def _start(self) -> subprocess.Popen:
        statement = f"import runpy; runpy.run_path({_CHILD!r}, run_name='__main__')"
        return subprocess.Popen(python_command(statement, str(PDF_MEMORY_BYTES)), stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def _stop(self) -> None:
        process, self.process = self.process, None
        if process is None:
            return
        try:
            process.stdin.write(_LENGTH.pack(0))
            process.stdin.close()
            process.wait(timeout=5)
        except (OSError, ValueError, subprocess.TimeoutExpired):
            process.kill()
            process.wait()
        process.stdout.close()

    def read(self, name: str, data: bytes) -> DocumentText:
        if b"%PDF-" not in data[:1024]:
            return DocumentText(name, None, "has no PDF header (“%PDF-”): it is damaged or not a PDF; save or "
                                            "export it as PDF again", "PDF")
        answer = self._ask(data)
        error = answer.get("error")
        if error == "password":
            problem = ("is protected by a password; open it, save a copy without the password (in most viewers: "
                       "Print, then Save as PDF) and upload that")
        elif error == "timeout":
            problem = (f"took more than {self.seconds:g} seconds to read; if the file is genuine, raise the "
                       "environment variable SVI_TOPICS_MAX_DOCUMENT_SECONDS, or save it as text")
        elif error in ("memory", "crash"):
            problem = ("stopped the PDF reader (the file is damaged or crafted, or needs more memory than the reader "
                       "may use); save or export it as PDF again, or split it into smaller files")
        elif error == "missing":
            problem = f"cannot be read: the PDF reader is not installed ({answer.get('detail')}; pip install pypdfium2)"
        elif error:
            detail = _PDFIUM_DETAIL.search(str(answer.get("detail", "")))
            problem = (f"is damaged or not a PDF{f' (PDFium: {detail.group(1)})' if detail else ''}; save or "
                       "export it as PDF again")
        else:
            pages = [str(page) for page in answer.get("pages", [])]
            text = pdf_pages_text(pages)
            if any(c.isalnum() for c in text):
                return DocumentText(name, text, None, "PDF", len(pages))
            problem = (f"holds no text on its {len(pages)} page{'s' if len(pages) != 1 else ''} (a scan, whose "
                       "pages are images?); make its text readable with OCR (for example ocrmypdf) and upload "
                       "the result")
        return DocumentText(name, None, problem, "PDF")

    def _ask(self, data: bytes) -> dict:
        """The child's answer for one file; ``{"error": "timeout"}`` or ``{"error": "crash"}`` when it ran out of
        time or died (it is then restarted for the next file)."""
        if self.process is None or self.process.poll() is not None:
            self._stop()
            self.process = self._start()
        process = self.process
        expired = threading.Event()

        def expire() -> None:
            expired.set()
            process.kill()

        timer = threading.Timer(self.seconds, expire)
        timer.start()
        try:
            process.stdin.write(_LENGTH.pack(len(data)))
            process.stdin.write(data)
            process.stdin.flush()
            header = process.stdout.read(_LENGTH.size)
            (n,) = _LENGTH.unpack(header) if len(header) == _LENGTH.size else (None,)
            reply = process.stdout.read(n) if n is not None else b""
            if n is None or len(reply) != n:
                raise EOFError
            return json.loads(reply.decode("utf-8"))
        except (OSError, ValueError, EOFError):
            process.kill()
            self._stop()
            return {"error": "timeout" if expired.is_set() else "crash"}
        finally:
            timer.cancel()


def _running_lines(pages: list[list[str]]) -> set[str]:
    """Lines near the top or bottom of pages that repeat, digits aside, on most pages (running headers, footers).

    "Near" is among the first or last :data:`RUNNING_LINE_DEPTH` lines that hold text: a browser's
    "Save as PDF" writes the header and the footer after the page's text, so both end it.
    """
    if len(pages) < RUNNING_LINE_PAGES:
        return set()
    seen: Counter[str] = Counter()
    for lines in pages:
        held = [line for line in lines if line.strip()]
        ends = held[:RUNNING_LINE_DEPTH] + held[-RUNNING_LINE_DEPTH:]
        seen.update({_DIGITS.sub("#", line.strip()) for line in ends})
    return {line for line, n in seen.items() if n >= max(2.0, RUNNING_LINE_SHARE * len(pages))}


def _join_hyphenated(text: str) -> str:
    """Join the words PDFium found hyphenated across a line end, unless the text shows the hyphen is the writer's.

    PDFium marks a line-end hyphen inside a word with U+FFFE, whether typesetting put it there
    ("expecta-" / "tions") or the writer did ("self-" / "reliant").  The rest of the document
    (the pairs aside) decides:

    - when it writes none of the joined words, nothing was hyphenated by typesetting (a
      browser's "Save as PDF" never hyphenates): every hyphen is the writer's, and kept;
    - else a pair is kept hyphenated when the document writes the hyphenated word and never the
      joined one, and joined otherwise: "expecta\ufffetions" becomes "expectations".  A writer's
      hyphen the document writes nowhere else is then lost ("userfriendly"); keeping every such
      hyphen would cut most hyphenated words in two ("expecta", "tions"), which costs far more
      (benchmarks/RESULTS.md run 66).
    """
    if "\ufffe" not in text:
        return text
    seen = Counter(_WORDS.findall(_SOFT_BREAK.sub(" ", text).lower()))
    pairs = [(first.lower(), second.lower()) for first, second in _SOFT_BREAK.findall(text) if second]
    if not any(seen[first + second] for first, second in pairs):
        return text.replace("\ufffe", "-")

    def join(match: re.Match) -> str:
        first, second = match.group(1), match.group(2)
        joined, hyphenated = (first + second).lower(), f"{first}-{second}".lower()
        return f"{first}-{second}" if second and seen[hyphenated] and not seen[joined] else first + second

    return _SOFT_BREAK.sub(join, text).replace("\ufffe", "-")


def pdf_pages_text(pages: list[str]) -> str:
    """One PDF's text from the text PDFium read of each page.

    Line breaks become ``\\n`` and pages are separated by a blank line; words hyphenated across a
    line end are joined (:func:`_join_hyphenated`); the lines at the top and bottom of a page that
    repeat there, digits aside, on at least half of three or more pages and on two (a running
    header, a footer with the page number: :func:`_running_lines`) are left out; ligatures become
    their letters; control characters and stray surrogates are removed.
    """
    split = [_NOT_TEXT.sub("", page.replace("\r\n", "\n").replace("\r", "\n")).translate(_LIGATURES).split("\n")
             for page in pages]
    running = _running_lines(split)
    kept = []
    for lines in split:
        if running:
            while lines and (not lines[0].strip() or _DIGITS.sub("#", lines[0].strip()) in running):
                lines = lines[1:]
            while lines and (not lines[-1].strip() or _DIGITS.sub("#", lines[-1].strip()) in running):
                lines = lines[:-1]
        kept.append("\n".join(line.rstrip() for line in lines).strip("\n"))
    return _join_hyphenated("\n\n".join(page for page in kept if page))


_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_MC = "{http://schemas.openxmlformats.org/markup-compatibility/2006}"
_WORD = XmlText(
    texts=frozenset({_W + "t"}),
    inserts={_W + "tab": "\t", _W + "br": "\n", _W + "cr": "\n", _W + "noBreakHyphen": "-"},
    breaks=frozenset({_W + "p"}),
    # the old place of moved text; a drawing's fallback copy of a text box; comments' anchors hold no text
    skipped=frozenset({_W + "moveFrom", _MC + "Fallback", _W + "delText", _W + "instrText"}),
)


def _word_text(data: bytes, name: str, limits: Limits) -> str:
    parts = Parts(data, name, limits, KINDS[".docx"])
    main = parts.main_part("word/document.xml")
    texts = [parts.text(main, _WORD)]
    folder = posixpath.dirname(main)
    for notes in ("footnotes.xml", "endnotes.xml"):
        path = posixpath.join(folder, notes)
        if path in parts:
            texts.append(parts.text(path, _WORD))
    return "\n".join(text.strip("\n") for text in texts if text.strip())


_TEXT = "{urn:oasis:names:tc:opendocument:xmlns:text:1.0}"
_OFFICE = "{urn:oasis:names:tc:opendocument:xmlns:office:1.0}"
_ODF = XmlText(
    texts=frozenset({_TEXT + "p", _TEXT + "h"}),
    inserts={_TEXT + "tab": "\t", _TEXT + "line-break": "\n", _TEXT + "note-body": " "},
    breaks=frozenset({_TEXT + "p", _TEXT + "h"}),
    # tracked deletions and comments hold paragraphs of their own; a note's number is not a word
    skipped=frozenset({_TEXT + "tracked-changes", _OFFICE + "annotation", _TEXT + "note-citation"}),
    spaces=_TEXT + "s",
)


def _odf_text(data: bytes, name: str, limits: Limits) -> str:
    """An OpenDocument text's, or a presentation's (its slides' and speaker notes' paragraphs, in order)."""
    parts = Parts(data, name, limits, KINDS[_suffix(name)])
    text = parts.text("content.xml", _ODF)
    return re.sub(r"[^\S\n]*\n[^\S\n]*(?=\n)", "", text).strip("\n")  # the lines between paragraphs, once


_CONTAINER = "{urn:oasis:names:tc:opendocument:xmlns:container}"
_OPF = "{http://www.idpf.org/2007/opf}"
_ENCRYPTION = "{http://www.w3.org/2001/04/xmlenc#}"
# fonts are often obfuscated by these; that hides no text
_HEAD = re.compile(r"<head\b.*?</head\s*>", re.IGNORECASE | re.DOTALL)
_FONT_OBFUSCATION = ("http://www.idpf.org/2008/embedding", "http://ns.adobe.com/pdf/enc#RC")


def _epub_text(data: bytes, name: str, limits: Limits) -> str:
    parts = Parts(data, name, limits, KINDS[".epub"])
    rootfile = parts.xml("META-INF/container.xml").find(f".//{_CONTAINER}rootfile")
    if rootfile is None or not rootfile.get("full-path"):
        raise UnreadableError("is damaged: its META-INF/container.xml names no package file; save it again")
    opf_path = posixpath.normpath(unquote(rootfile.get("full-path")))
    package = parts.xml(opf_path)
    folder = posixpath.dirname(opf_path)
    manifest = {item.get("id"): item for item in package.iter(f"{_OPF}item")}
    encrypted = set()
    if "META-INF/encryption.xml" in parts:
        for entry in parts.xml("META-INF/encryption.xml").iter(f"{_ENCRYPTION}EncryptedData"):
            method = entry.find(f"{_ENCRYPTION}EncryptionMethod")
            reference = entry.find(f".//{_ENCRYPTION}CipherReference")
            if reference is not None and (method is None or method.get("Algorithm") not in _FONT_OBFUSCATION):
                encrypted.add(posixpath.normpath(unquote(reference.get("URI", ""))))
    chapters = []
    for itemref in package.iter(f"{_OPF}itemref"):
        item = manifest.get(itemref.get("idref"))
        if item is None or not item.get("href"):
            continue
        path = posixpath.normpath(posixpath.join(folder, unquote(item.get("href").split("#")[0])))
        if path in encrypted:
            raise UnreadableError("is protected by DRM (its chapters are encrypted); only a book without DRM can be "
                              "read")
        if "html" not in (item.get("media-type") or "") or path not in parts:
            continue
        try:
            markup = _encoding.decode(parts.read(path), f"{name}:{path}")[0]
        except ValueError as exc:
            raise UnreadableError(f"has a chapter that cannot be decoded ({exc})") from None
        chapters.append(strip_markup(_HEAD.sub("", markup)).strip())  # a chapter's <title> repeats the book's
    if not any(chapters):
        raise UnreadableError("holds no chapters of text (its spine lists none); save it again")
    return "\n\n".join(chapter for chapter in chapters if chapter)


_A = "{http://schemas.openxmlformats.org/drawingml/2006/main}"
_P = "{http://schemas.openxmlformats.org/presentationml/2006/main}"
_SLIDE = XmlText(
    texts=frozenset({_A + "t"}),
    inserts={_A + "br": "\n"},
    breaks=frozenset({_A + "p"}),
    skipped=frozenset({_A + "fld", _MC + "Fallback"}),  # fields: the slide number, the date; a fallback copy
)


def _slides_text(data: bytes, name: str, limits: Limits) -> str:
    """A PowerPoint presentation's slides in their order, each followed by its speaker notes."""
    parts = Parts(data, name, limits, KINDS[".pptx"])
    main = parts.main_part("ppt/presentation.xml")
    presentation = parts.xml(main) if main in parts else None
    if presentation is None or presentation.tag != _P + "presentation":
        raise UnreadableError("is damaged or not a PowerPoint presentation: it has no presentation part; save it "
                              "again as .pptx")
    relations = parts.relations(main)
    texts = []
    for entry in presentation.iter(_P + "sldId"):
        kind, slide = relations.get(relation_id(entry), ("", ""))
        if not kind.endswith("/slide") or slide not in parts:
            continue
        texts.append(parts.text(slide, _SLIDE))
        for notes_kind, notes in parts.relations(slide).values():
            if notes_kind.endswith("/notesSlide") and notes in parts:
                texts.append(parts.text(notes, _SLIDE))
    return re.sub(r"\n\s*\n(\s*\n)+", "\n\n", "\n".join(text.strip("\n") for text in texts if text.strip()))


_ARCHIVE_READERS = {".docx": _word_text, ".odt": _odf_text, ".epub": _epub_text, ".pptx": _slides_text,
                    ".odp": _odf_text}

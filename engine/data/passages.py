"""Long documents cut into passages of about the same length, so that a few long texts become a collection.

A topic model learns topics from how words occur together across documents: a single book,
report or transcript gives it one document and nothing to learn from (and nothing to hold out
to score it), and a handful of long ones mix every theme they hold.  Passages recover themes
that long documents mix, at some cost in coherence on collections of many long documents
(benchmarks/RESULTS.md runs 56 and 65); so the app suggests them only for collections of few,
long documents, and :func:`split_passages` is otherwise a choice.

A passage is a run of whole paragraphs (text between blank lines) holding at least ``words``
words, the last one of a document taking what is left when that is under half of ``words``.
A paragraph longer than twice ``words`` is cut at its line breaks, else at its sentence ends,
else between words.  Every passage is a slice of its document's text: joined back in order,
with what lay between them (blank lines, the spaces at a cut), they give the document.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from engine.data.text import RawDocument, RawDocuments
from engine.validation import check_int

__all__ = ["PASSAGE_WORDS", "passage_documents", "passage_spans", "split_passages"]

PASSAGE_WORDS = 300  # words of a passage: run 56's, where passages recovered the themes long documents mixed
_WORD = re.compile(r"\S+")
_PARAGRAPH_BREAK = re.compile(r"\n[^\S\n]*\n\s*")  # a blank line, and the blank lines and indentation after it
_LINE_BREAK = re.compile(r"\n\s*")
_SENTENCE_END = re.compile(r"(?<=[.!?…。！？])[\"'»”’)\]]*\s+")
_PASSAGE_ID = re.compile(r"#\d+$")  # "speech.txt#3": the third passage of speech.txt
_PASSAGE_TITLE = re.compile(r" \(\d+\)$")  # "Speech (3)"
_SEPARATORS = (_PARAGRAPH_BREAK, _LINE_BREAK, _SENTENCE_END)  # where a text is cut, the first that will do


def _pieces(text: str, start: int, end: int, words: int, level: int = 0) -> Iterator[tuple[int, int, int]]:
    """(start, end, words) of the pieces of ``text[start:end]`` cut at ``_SEPARATORS[level]``: a piece of more than
    twice ``words`` words is cut again at the next separator, or at last between words (the module's notes)."""
    if level == len(_SEPARATORS):
        spans = [match.span() for match in _WORD.finditer(text, start, end)]
        for first in range(0, len(spans), words):
            chunk = spans[first:first + words]
            yield chunk[0][0], chunk[-1][1], len(chunk)
        return
    position = start
    for match in [*_SEPARATORS[level].finditer(text, start, end), None]:
        stop = end if match is None else match.start()
        found = _WORD.findall(text, position, stop)
        if len(found) > 2 * words:
            yield from _pieces(text, position, stop, words, level + 1)
        elif found:  # from its first word to its last
            first = _WORD.search(text, position, stop).start()
            yield first, stop - (len(text[first:stop]) - len(text[first:stop].rstrip())), len(found)
        if match is not None:
            position = match.end()


def passage_spans(text: str, words: int = PASSAGE_WORDS) -> list[tuple[int, int]]:
    """The (start, end) of each passage of ``text`` (see the module's notes); [] for a text without words."""
    words = check_int("words", words, 1)
    passages: list[list[int]] = []  # [start, end, words] of each passage
    for start, end, count in _pieces(text, 0, len(text), words):
        if passages and passages[-1][2] < words:
            passages[-1][1:] = [end, passages[-1][2] + count]
        else:
            passages.append([start, end, count])
    if len(passages) > 1 and passages[-1][2] < words / 2:  # a short tail joins the passage before it
        tail = passages.pop()
        passages[-1][1:] = [tail[1], passages[-1][2] + tail[2]]
    return [(start, end) for start, end, _ in passages]


def split_passages(documents: Iterable[RawDocument], words: int = PASSAGE_WORDS) -> RawDocuments:
    """Each document cut into passages of about ``words`` words (see the module's notes).

    A document of one passage keeps its id, title and text; the passages of a longer one
    are ids "<id>#1", "<id>#2"... with titles "<title> (1)", "<title> (2)"...  A document
    without words stays as it is (the corpus then reports it as empty).  A reader's
    ``skipped`` files and ``encodings`` are kept.
    """
    words = check_int("words", words, 1)
    out = []
    for document in documents:
        spans = passage_spans(document.text, words)
        if len(spans) <= 1:
            out.append(document)
            continue
        out.extend(RawDocument(f"{document.doc_id}#{n}", f"{document.title} ({n})", document.text[start:end])
                   for n, (start, end) in enumerate(spans, start=1))
    return RawDocuments(out, getattr(documents, "skipped", ()), getattr(documents, "encodings", {}))


def _passage_columns(ids: Iterable[str], titles: Iterable[str], texts: Iterable[str],
                     words: int) -> tuple[list[str], list[str], list[str]]:
    """Parallel ids, titles and texts cut into passages by :func:`split_passages`, as the same three lists
    (what ``Corpus.from_texts`` and each chunk of ``DiskCorpus.from_texts`` cut)."""
    passages = split_passages(map(RawDocument, ids, titles, texts), words)
    return [p.doc_id for p in passages], [p.title for p in passages], [p.text for p in passages]


def passage_of(doc_id: str) -> str:
    """The id of the document a passage's id names ("speech.txt#3" -> "speech.txt"); other ids as they are."""
    return _PASSAGE_ID.sub("", doc_id)


def passage_documents(doc_ids: Iterable[str], titles: Iterable[str]) -> tuple[list[int], list[str], list[str]]:
    """The document each passage was cut from, by the ids :func:`split_passages` gives: (groups, ids, titles).

    ``groups[i]`` numbers the document of ``doc_ids[i]`` (0, 1, ... in order of first
    appearance); ``ids`` and ``titles`` are those documents' own, a passage's id without its
    "#n" and its title without its " (n)".  An id without "#n" is a document of its own.  A
    document's own id that ends in "#n" is taken for a passage's.

    Examples
    --------
    >>> from engine import passage_documents
    >>> passage_documents(["book#1", "book#2", "note"], ["Book (1)", "Book (2)", "Note (2)"])
    ([0, 0, 1], ['book', 'note'], ['Book', 'Note (2)'])
    """
    groups: list[int] = []
    roots: list[str] = []
    names: list[str] = []
    seen: dict[str, int] = {}
    for doc_id, title in zip(doc_ids, titles, strict=True):
        root = passage_of(doc_id)
        if root not in seen:
            seen[root] = len(roots)
            roots.append(root)
            names.append(_PASSAGE_TITLE.sub("", title) if root != doc_id else title)
        groups.append(seen[root])
    return groups, roots, names

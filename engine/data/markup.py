"""HTML and XML markup in text: found in a collection, and removed before words are counted.

Text scraped from web pages, exported from a content system or saved as .html keeps its markup,
and the token pattern reads tag and attribute names as words: on LibreOffice's help pages read
as they are, 11 of the default LDA's 20 topics held three or more such words ("td rowspan
colspan tablecontentintable tr th"; benchmarks/RESULTS.md run 60).  :func:`strip_markup`
removes well-formed tags, comments, declarations and the contents of ``script`` and ``style``
elements, and reads character references ("&amp;", "&#233;") as the characters they stand for;
:func:`holds_markup` says whether enough of a collection's documents hold markup for that to be
the default.

Only well-formed tags are removed: "<" then a name (a letter, then letters, digits, ".", ":",
"_" or "-"), then whitespace and attributes, "/" or ">" at once.  So "x<y)", "a < b" and
"<3" in plain text stay as written; "a <b and c> d" would lose "<b and c>", which is why
markup is removed only where a collection holds it (or the user asks).
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence

import numpy as np

__all__ = ["holds_markup", "strip_markup"]

SAMPLE_DOCUMENTS = 500  # documents read by holds_markup, spread evenly over the collection
SAMPLE_CHARACTERS = 20_000  # characters read from the start of each (a page's head can be long)
CLOSING_TAGS = 2  # a document holds markup when it has at least this many closing tags ("</p>")...
MARKUP_SHARE = 0.1  # ... and a collection when at least this share of its non-empty documents do

_NAME = r"[A-Za-z][\w.:-]*"
_ATTRIBUTES = r"""(?:\s+[^\s"'<>/=]+(?:\s*=\s*(?:"[^"]*"|'[^']*'|[^\s"'<>=`]+))?)*"""
# what is removed with its contents: comments, and the elements that hold code, not text
_SPANS = re.compile(r"<!--|<(script|style|template|noscript)\b[^<>]*>", re.IGNORECASE)
_DECLARATION = re.compile(r"<![A-Za-z][^<>]*>|<\?[^<>]*\?>")  # <!DOCTYPE html>, <?xml version="1.0"?>
_TAG = re.compile(rf"<(/?)({_NAME}){_ATTRIBUTES}\s*/?>")
_CLOSING = re.compile(rf"</{_NAME}\s*>")
_BLANK_LINES = re.compile(r"\n[^\S\n]*(?:\n[^\S\n]*){2,}")  # three line breaks or more, nothing else between
# elements that start a new line of text: their tags become a line break, the others a space
_BLOCKS = frozenset(("address", "article", "aside", "blockquote", "body", "br", "caption", "dd", "details", "dialog",
    "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
    "head", "header", "hr", "html", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody",
    "td", "tfoot", "th", "thead", "title", "tr", "ul"))


def _tag(match: re.Match) -> str:
    return "\n" if match.group(2).lower() in _BLOCKS else " "


def _without_spans(text: str) -> str:
    """``text`` without its comments and script, style, template and noscript elements (an unclosed one runs to
    the end), in one pass: each search starts where the last span ended, so hostile text costs linear time."""
    lowered = None
    parts, position = [], 0
    while (match := _SPANS.search(text, position)) is not None:
        parts.append(text[position:match.start()])
        parts.append(" ")  # as every removal: words on either side stay apart, and no new tag is formed
        if match.group(1) is None:  # a comment
            end = text.find("-->", match.end())
            position = len(text) if end < 0 else end + 3
            continue
        if lowered is None:
            lowered = text.lower()
        end = lowered.find("</" + match.group(1).lower(), match.end())
        close = -1 if end < 0 else text.find(">", end)
        position = len(text) if close < 0 else close + 1
    parts.append(text[position:])
    return "".join(parts)


def strip_markup(text: str) -> str:
    """``text`` with its HTML or XML markup removed (see the module's notes).

    Tags of block elements (``p``, ``div``, ``td``, ``br``, ``li``...) become line breaks
    and other tags spaces, so words on either side of a tag never join; comments, the
    contents of ``script``, ``style``, ``template`` and ``noscript`` elements,
    declarations (``<!DOCTYPE ...>``), processing instructions (``<?xml ...?>``) and CDATA
    markers are removed (a CDATA section's text stays); then character references are
    read (:func:`html.unescape`), so "&lt;div&gt;" written in the text stays as the text
    "<div>".  The blank lines the tags leave are kept to one between paragraphs, and none
    at either end.  A text without "<" or "&" is returned as it is.  Linear in the text's
    length.
    """
    if "<" not in text and "&" not in text:
        return text
    if "<" in text:
        text = _without_spans(text).replace("<![CDATA[", " ").replace("]]>", " ")
        text = _BLANK_LINES.sub("\n\n", _TAG.sub(_tag, _DECLARATION.sub(" ", text))).strip()
    return html.unescape(text)


def evenly_spread(n_items: int, n: int) -> list[int]:
    """The indices of at most ``n`` of ``n_items`` items, spread evenly from the first to the last: the documents a
    sample of a collection reads (here, in the language guess and in a disk corpus's guesses)."""
    if n_items <= 0:
        return []
    return np.unique(np.linspace(0, n_items - 1, min(n_items, n)).round().astype(np.int64)).tolist()


def holds_markup(texts: Sequence[str]) -> bool:
    """Whether markup should be removed from ``texts``: at least ``MARKUP_SHARE`` of the sampled non-empty
    documents have ``CLOSING_TAGS`` closing tags or more.

    Reads at most ``SAMPLE_DOCUMENTS`` documents spread evenly over the collection, the first
    ``SAMPLE_CHARACTERS`` characters of each, so it costs the same on any collection.
    Closing tags ("</p>", "</item>") are what plain text almost never holds, in any markup
    language of tags.
    """
    sample = [text[:SAMPLE_CHARACTERS] for text in (texts[i] for i in evenly_spread(len(texts), SAMPLE_DOCUMENTS))
              if isinstance(text, str) and text]
    if not sample:
        return False
    marked = sum(1 for text in sample if "</" in text and len(_CLOSING.findall(text, 0)) >= CLOSING_TAGS)
    return marked >= MARKUP_SHARE * len(sample)

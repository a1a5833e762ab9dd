"""Repeated lines: the blocks of text that many documents of a collection share word for word.

Page chrome ("This Page / Report a Bug / Show Source / Navigation ..."), licence footers,
translators' credits, bug-report sections and e-mail signatures are written once and copied into
many documents.  Their words occur together in exactly those documents, so the topics gather them:
French man pages among English ones gave "org traduction fr debian com manuel jean gnu" and two
more such topics of twenty (benchmarks/RESULTS.md run 63).

:func:`find_boilerplate` finds them: a line (whitespace collapsed) is *common* when at least
:data:`MIN_SHARE` of the documents, and at least :data:`MIN_DOCUMENTS`, hold it; a run of consecutive
common lines (blank lines between them do not end it) that holds at least :data:`MIN_WORDS` words is
a *block*.  The lines of the blocks found are the boilerplate, and :func:`remove_boilerplate` removes
every such block from a text, the same rule on the recorded lines, so that a model reads new text as
it read its training text.  Only documents of two lines or more count a line: a document of one line
is its own content, and a collection of short texts repeated whole is not boilerplate.  A document
that would keep fewer than ``MIN_WORDS`` words keeps its text whole: one made only of boilerplate
has nothing else to read, and a copy of a document repeated under another title (a syndicated article)
would lose its whole body.

A single repeated line shorter than ``MIN_WORDS`` (a heading, "-- Mark Twain", a formula verse) is
not a block, and nor is a refrain repeated inside one document (a line counts once per document).
On the prose collections of the quality panel (speeches, the Jargon File, quotations, verses,
package descriptions, docstrings) nothing is found.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import NamedTuple

__all__ = ["BoilerplateBlock", "BoilerplateReport", "boilerplate_report", "find_boilerplate", "remove_boilerplate"]

MIN_SHARE = 0.02  # of the documents (of two lines or more) a line must be in to be common...
MIN_DOCUMENTS = 5  # ... and at least this many
MIN_WORDS = 10  # words a run of common lines needs to be a block
MAX_LINE_CHARACTERS = 2_000  # longer lines are never boilerplate (nor stored)
MAX_LINES = 10_000  # lines a vectorizer stores at most (the most common first)
MAX_CHARACTERS = 2_000_000  # and characters in all (a model file's metadata stays small)

# a word: two letters or more, as TOKEN_PATTERN reads them, or one Chinese character or kana (text without spaces)
_UNSPACED = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
_WORD = re.compile(rf"[{_UNSPACED}]|(?:(?![{_UNSPACED}])[^\W\d_]){{2,}}")


_TOO_LONG = " "  # what a line too long to compare reads as: never a normalised line, never blank


def _normal(line: str) -> str:
    """A line as it is compared: whitespace collapsed, stripped ("" for a blank line, _TOO_LONG for a line too long
    to compare, which is content that ends a run of common lines)."""
    if len(line) > MAX_LINE_CHARACTERS:
        return _TOO_LONG
    return " ".join(line.split())


def _blocks(normal: Sequence[str], common: frozenset[str] | set[str], min_words: int) -> list[range]:
    """The blocks of a text's normalised lines: maximal runs of lines in ``common`` (blank lines inside a run
    belong to it) holding at least ``min_words`` words, each as the range of its line indices."""
    found, i, n = [], 0, len(normal)
    while i < n:
        if normal[i] not in common or not normal[i]:
            i += 1
            continue
        j, words, last = i, 0, i
        while j < n and (not normal[j] or normal[j] in common):
            if normal[j]:
                words += len(_WORD.findall(normal[j]))
                last = j
            j += 1
        if words >= min_words:
            found.append(range(i, last + 1))
        i = j
    return found


def find_boilerplate(texts: Iterable[str], min_share: float = MIN_SHARE, min_documents: int = MIN_DOCUMENTS,
                     min_words: int = MIN_WORDS) -> tuple[str, ...]:
    """The lines of the repeated blocks of ``texts`` (see the module's notes), most documents first.

    Parameters
    ----------
    texts : iterable of str
        Read twice; a list is best.
    min_share : float
        A line is common in at least this share of the documents of two lines or more...
    min_documents : int
        ... and in at least this many.
    min_words : int
        Words a run of common lines needs: words of two letters or more, and each Chinese
        character or kana (written without spaces) as one.

    Returns
    -------
    tuple of str
        Each line with its whitespace collapsed; at most ``MAX_LINES`` lines and
        ``MAX_CHARACTERS`` characters (those in fewest documents left out).
    """
    return _found(list(texts), min_share, min_documents, min_words)[0]


def _find_and_remove(texts: Sequence[str], min_share: float = MIN_SHARE, min_documents: int = MIN_DOCUMENTS,
                      min_words: int = MIN_WORDS) -> tuple[tuple[str, ...], list[str]]:
    """:func:`find_boilerplate` of ``texts`` and the texts without it (what :func:`remove_boilerplate` with those
    lines gives), each text's lines read once."""
    return _found(texts, min_share, min_documents, min_words, remove=True)


def _found(texts: Sequence[str], min_share: float, min_documents: int, min_words: int,
           remove: bool = False) -> tuple[tuple[str, ...], list[str]]:
    if not 0.0 <= min_share <= 1.0:
        raise ValueError(f"min_share must be a fraction in [0, 1], got {min_share!r}")
    if min_documents < 1 or min_words < 1:
        raise ValueError(f"min_documents and min_words must be at least 1, got {min_documents!r}, {min_words!r}")
    lines = [[_normal(line) for line in text.splitlines()] for text in texts]
    in_documents: Counter[str] = Counter()
    distinct_lines, n_counted = [], 0
    for normal in lines:
        distinct = set(normal)
        distinct.discard("")
        if len(distinct) > 1:  # a document of two lines or more (one too long to compare counts as a line)
            distinct.discard(_TOO_LONG)
            in_documents.update(distinct)
            n_counted += 1
        distinct_lines.append(distinct)
    least = max(min_documents, min_share * n_counted)
    common = {line for line, n in in_documents.items() if n >= least}
    used: set[str] = set()
    blocks_of: dict[int, list[range]] = {}
    for d, normal in enumerate(lines):
        if distinct_lines[d].isdisjoint(common) or sum(1 for line in normal if line) < 2:
            continue
        blocks = _blocks(normal, common, min_words)
        if blocks:
            blocks_of[d] = blocks
            used.update(normal[i] for block in blocks for i in block if normal[i])
    kept, size = [], 0
    for line in sorted(used, key=lambda line: (-in_documents[line], line))[:MAX_LINES]:
        size += len(line)
        if size > MAX_CHARACTERS:
            break
        kept.append(line)
    if not remove:
        return tuple(kept), []
    if len(kept) < len(used):  # some lines were not kept: read the texts again with those that were
        lines_kept = frozenset(kept)
        return tuple(kept), [remove_boilerplate(text, lines_kept, min_words) for text in texts]
    out = list(texts)
    for d, blocks in blocks_of.items():
        raw = texts[d].splitlines()
        dropped = _dropped(raw, blocks, min_words)
        if dropped:
            out[d] = "\n".join(line for i, line in enumerate(raw) if i not in dropped)
    return tuple(kept), out


class BoilerplateBlock(NamedTuple):
    """One block of boilerplate as it stands in the texts: its lines, in order."""

    lines: tuple[str, ...]  # whitespace collapsed
    documents: int  # texts that hold it
    words: int  # words in it (as find_boilerplate counts them)


class BoilerplateReport(NamedTuple):
    """What :func:`remove_boilerplate` takes out of a collection."""

    blocks: tuple[BoilerplateBlock, ...]  # the distinct blocks removed, in most documents first (then most words)
    documents: int  # texts that lose a block
    words_removed: int  # words in the blocks removed, over all texts
    words: int  # words in all the texts


def boilerplate_report(texts: Iterable[str], lines: Iterable[str] | frozenset[str],
                       min_words: int = MIN_WORDS) -> BoilerplateReport:
    """The blocks that :func:`remove_boilerplate` with ``lines`` removes from ``texts``, how many texts hold each,
    and the words removed: what a reader of the collection should see was left out."""
    common = lines if isinstance(lines, (frozenset, set)) else frozenset(lines)
    found: dict[tuple[str, ...], list[int]] = {}
    n_documents = removed = total = 0
    for text in texts:
        raw = text.splitlines()
        normal = [_normal(line) for line in raw]
        words = [len(_WORD.findall(line)) for line in raw]
        total += sum(words)
        if not common or sum(1 for line in normal if line) < 2:
            continue
        blocks = _blocks(normal, common, min_words)
        if not _dropped(raw, blocks, min_words):
            continue  # nothing removed, or too little left: the text is kept whole
        n_documents += 1
        for block in blocks:
            key = tuple(normal[i] for i in block if normal[i])
            size = sum(words[i] for i in block)
            removed += size
            entry = found.setdefault(key, [0, size])
            entry[0] += 1
    ordered = sorted(found.items(), key=lambda item: (-item[1][0], -item[1][1], item[0]))
    return BoilerplateReport(tuple(BoilerplateBlock(key, n, size) for key, (n, size) in ordered), n_documents,
                             removed, total)


def remove_boilerplate(text: str, lines: Iterable[str] | frozenset[str], min_words: int = MIN_WORDS) -> str:
    """``text`` without its blocks of boilerplate ``lines`` (as :func:`find_boilerplate` gives them); the other
    lines as written.  A text of one line, or one that would keep fewer than ``min_words`` words, is returned as
    it is."""
    common = lines if isinstance(lines, (frozenset, set)) else frozenset(lines)
    if not common:
        return text
    raw = text.splitlines()
    normal = [_normal(line) for line in raw]
    if sum(1 for line in normal if line) < 2:
        return text
    dropped = _dropped(raw, _blocks(normal, common, min_words), min_words)
    if not dropped:
        return text
    return "\n".join(line for i, line in enumerate(raw) if i not in dropped)


def _dropped(lines: Sequence[str], blocks: list[range], min_words: int) -> set[int]:
    """The indices of a text's ``lines`` that its ``blocks`` remove; none if that would leave fewer than
    ``min_words`` words (the text is then kept whole)."""
    dropped = {i for block in blocks for i in block}
    if not dropped or sum(len(_WORD.findall(line)) for i, line in enumerate(lines) if i not in dropped) < min_words:
        return set()
    return dropped

"""The frozen bag-of-words :class:`Corpus` the models are trained on.

A corpus is a documents x words matrix of integer counts (``scipy.sparse`` CSR,
no empty rows) with its vocabulary, one id and title per row and, for corpora
built from raw text, the original texts so a UI can show a document with its
words. This is the input representation of stochastic variational inference
(Hoffman, Blei, Wang & Paisley, JMLR 2013): each document is a vector of word
counts over a fixed vocabulary.

Documents that end up empty (blank text, or every word filtered out) are not
dropped silently: they are listed in :attr:`Corpus.dropped`, and so are the copies left out
(documents that repeat another word for word: ``Corpus.from_texts(keep_copies=False)``,
:meth:`Corpus.without_copies`).
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp

from engine.data import _corpus_folder
from engine.data import markup as markup_module
from engine.data import messages as messages_module
from engine.data.boilerplate import _find_and_remove
from engine.data.copies import find_copies, find_near_copies, find_text_copies
from engine.data.language import AUTO_LANGUAGE, guess_language
from engine.data.passages import _passage_columns, passage_of
from engine.data.phrases import find_phrases
from engine.data.text import RawDocument, SkippedFile
from engine.data.vectorizer import TOKEN_PATTERN, Vectorizer, _flag, token_pattern_for
from engine.data.word_forms import find_word_forms, has_word_forms, merged_forms
from engine.errors import CorpusFormatError, EmptyCorpusError, EmptyVocabularyError
from engine.validation import check_int

__all__ = ["LEFT_OUT_REASON", "TOKEN_PATTERN", "Corpus", "DroppedDocument"]

AUTO_ACCENTS = "auto"  # strip_accents="auto": strip them unless the stop words are another language's
AUTO_MARKUP = "auto"  # strip_markup="auto": remove markup when enough of the documents hold it
_EMPTY_TEXT = "empty text"
_NO_WORDS = "no words left after tokenisation, stop words and min_df/max_df/max_features"
_EMPTY_ROW = "no words (empty row of counts)"
LEFT_OUT_REASON = "left out on request"  # from_texts(leave_out=...): the reason listed in Corpus.dropped


class DroppedDocument(NamedTuple):
    """A document left out of the counts, with the reason: it had no words, it copies a document kept, or it was
    named in ``Corpus.from_texts(leave_out=...)`` (reason :data:`LEFT_OUT_REASON`).

    ``copy_of`` is the id of the document it repeats word for word (``Corpus.from_texts(keep_copies=False)``,
    :meth:`Corpus.without_copies`) or nearly (``near_copies``), None for a document left out for another reason.
    ``similarity`` is a near-copy's share of the runs of five words in either text that are in both
    (:func:`engine.find_near_copies`), None for a copy word for word and any other document.
    """

    doc_id: str
    title: str
    reason: str
    copy_of: str | None = None
    similarity: float | None = None


def _strings(values: Iterable[Any], name: str, n: int) -> tuple[str, ...]:
    values = tuple(values)
    if len(values) != n:
        raise ValueError(f"{name} must have one entry per document ({n}), got {len(values)}")
    bad = next((v for v in values if not isinstance(v, str)), None)
    if bad is not None:
        raise TypeError(f"{name} must be strings, got {bad!r}")
    return values


def _integer_csr(counts: Any) -> sp.csr_matrix:
    """Validate a count matrix and return it as canonical int64 CSR (a copy)."""
    if not (sp.issparse(counts) or isinstance(counts, np.ndarray)):
        counts = np.asarray(counts)
    if counts.dtype.kind not in "biuf":
        raise TypeError(f"counts must hold integers, got dtype {counts.dtype}")
    if counts.ndim != 2:
        raise ValueError(f"counts must be a 2-D (documents x words) matrix, got shape {counts.shape}")
    matrix = sp.csr_matrix(counts, copy=True)
    matrix.sum_duplicates()
    data = matrix.data
    if data.dtype.kind == "f" and not (np.all(np.isfinite(data)) and np.all(data == np.round(data))):
        raise ValueError("counts must be whole numbers; found a non-integer or non-finite value")
    if data.size and data.min() < 0:
        raise ValueError(f"counts must be non-negative, found {data.min()}")
    matrix = sp.csr_matrix((data.astype(np.int64), matrix.indices, matrix.indptr), shape=matrix.shape)
    matrix.eliminate_zeros()
    return matrix


def _freeze(matrix: sp.csr_matrix) -> None:
    for array in (matrix.data, matrix.indices, matrix.indptr):
        array.flags.writeable = False


class _DroppedViews:
    """The views of a corpus' ``dropped`` documents by why they were left out, for :class:`Corpus` and
    :class:`engine.DiskCorpus` alike (each a tuple in the order of ``dropped``)."""

    dropped: tuple[DroppedDocument, ...]

    @property
    def copies(self) -> tuple[DroppedDocument, ...]:
        """The documents left out as copies of a document kept (``from_texts(keep_copies=False)``,
        :meth:`Corpus.without_copies`), word for word or nearly."""
        return tuple(d for d in self.dropped if d.copy_of is not None)

    @property
    def near_copies(self) -> tuple[DroppedDocument, ...]:
        """The documents of :attr:`copies` that repeat a document nearly, not word for word (``near_copies``)."""
        return tuple(d for d in self.dropped if d.similarity is not None)

    @property
    def emptied(self) -> tuple[DroppedDocument, ...]:
        """The documents left out because they had no words."""
        return tuple(d for d in self.dropped if d.copy_of is None and d.reason != LEFT_OUT_REASON)

    @property
    def left_out(self) -> tuple[DroppedDocument, ...]:
        """The documents that ``Corpus.from_texts(leave_out=...)`` or :meth:`Corpus.without_documents` left out."""
        return tuple(d for d in self.dropped if d.reason == LEFT_OUT_REASON)


@dataclass(frozen=True, eq=False)
class Corpus(_DroppedViews):
    """A frozen bag-of-words corpus: integer counts, vocabulary and document metadata.

    Build one with :meth:`from_texts`, :meth:`from_documents`, :meth:`from_counts`,
    :meth:`load` or :func:`engine.load_corpus` rather than directly.

    Attributes
    ----------
    counts : scipy.sparse.csr_matrix of shape (n_docs, n_words)
        Integer word counts (read-only), no empty rows.
    vocabulary : tuple of str
        ``vocabulary[w]`` is the word of column ``w``.
    doc_ids, titles : tuple of str
        One per row of ``counts``; ids are unique.
    texts : tuple of str or None
        The original text of each row, or None for bag-of-words corpora.
    dropped : tuple of DroppedDocument
        Documents left out because they had no words, copies left out
        (``from_texts(keep_copies=False)``, :meth:`without_copies`; their ``copy_of`` names the
        document kept) and the documents ``from_texts(leave_out=...)`` names.
    skipped : tuple of SkippedFile
        Files a reader ignored (e.g. non-``.txt`` entries of a zip archive).
    encodings : tuple of (str, str)
        ``(file, encoding)`` for each file a text reader decoded (``dict(corpus.encodings)``
        maps a file to ``"utf-8"``, ``"windows-1252"``...); empty for bag-of-words corpora.
    vectorizer : Vectorizer or None
        How the texts became words (stop words, accents, token pattern), recorded by
        :meth:`from_texts` so a model trained on the corpus counts new text the same
        way; None for bag-of-words corpora.
    """

    counts: sp.csr_matrix
    vocabulary: tuple[str, ...]
    doc_ids: tuple[str, ...]
    titles: tuple[str, ...]
    texts: tuple[str, ...] | None = None
    dropped: tuple[DroppedDocument, ...] = ()
    skipped: tuple[SkippedFile, ...] = ()
    encodings: tuple[tuple[str, str], ...] = ()
    vectorizer: Vectorizer | None = None

    def __post_init__(self) -> None:
        counts = _integer_csr(self.counts)
        n_docs, n_words = counts.shape
        if n_docs == 0:
            raise EmptyCorpusError("a corpus needs at least one document with words, got none")
        if n_words == 0:
            raise EmptyVocabularyError("a corpus needs at least one word in its vocabulary, got none")
        empty = np.flatnonzero(np.diff(counts.indptr) == 0)
        if empty.size:
            raise ValueError(f"counts has empty rows (first: row {empty[0]}); use Corpus.from_counts to drop them")
        vocabulary = _strings(self.vocabulary, "vocabulary", n_words)
        if len(set(vocabulary)) != n_words:
            raise ValueError("vocabulary must not repeat a word")
        doc_ids = _strings(self.doc_ids, "doc_ids", n_docs)
        if len(set(doc_ids)) != n_docs:
            raise ValueError("doc_ids must be unique")
        texts = None if self.texts is None else _strings(self.texts, "texts", n_docs)
        _freeze(counts)
        set_ = object.__setattr__
        set_(self, "counts", counts)
        set_(self, "vocabulary", vocabulary)
        set_(self, "doc_ids", doc_ids)
        set_(self, "titles", _strings(self.titles, "titles", n_docs))
        set_(self, "texts", texts)
        set_(self, "dropped", tuple(DroppedDocument(*d) for d in self.dropped))
        bad = next((d for d in self.dropped if not all(isinstance(v, str) for v in d[:3])
                    or not isinstance(d.copy_of, (str, type(None)))), None)
        if bad is not None:
            raise TypeError(f"dropped documents must hold strings (copy_of: a string or None), got {bad!r}")
        set_(self, "skipped", tuple(SkippedFile(*s) for s in self.skipped))
        set_(self, "encodings", _encodings(self.encodings))
        if self.vectorizer is not None and not isinstance(self.vectorizer, Vectorizer):
            raise TypeError(f"vectorizer must be an engine Vectorizer or None, got {type(self.vectorizer).__name__}")

    def __setstate__(self, state: dict[str, Any]) -> None:  # unpickling skips __post_init__
        self.__dict__.update(state)
        _freeze(self.counts)

    @property
    def n_docs(self) -> int:
        """Number of documents (rows of ``counts``)."""
        return self.counts.shape[0]

    @property
    def n_words(self) -> int:
        """Size of the vocabulary (columns of ``counts``)."""
        return self.counts.shape[1]

    @property
    def n_tokens(self) -> int:
        """Total number of word occurrences."""
        return int(self.counts.data.sum())

    def __len__(self) -> int:
        return self.n_docs

    def __repr__(self) -> str:
        return (f"Corpus(n_docs={self.n_docs}, n_words={self.n_words}, n_tokens={self.n_tokens}, "
                f"dropped={len(self.dropped)}, skipped={len(self.skipped)})")

    def doc_words(self, index: int) -> list[tuple[str, int]]:
        """Return the ``(word, count)`` pairs of document ``index``, most frequent first."""
        row = self.counts[index]
        order = np.lexsort((row.indices, -row.data))
        return [(self.vocabulary[row.indices[i]], int(row.data[i])) for i in order]

    def without_copies(self) -> Corpus:
        """The corpus with each document that repeats an earlier one word for word left out.

        Copies are documents with the same words, each the same number of times
        (:func:`engine.find_copies`, on :attr:`counts`); the first of each group stays.
        Each copy is listed in :attr:`dropped` with the id of the document it repeats
        (``copy_of``), so nothing is left out unsaid.  A corpus without copies is returned as it is.
        """
        first = find_copies(self.counts)
        copies = np.flatnonzero(first != np.arange(self.n_docs))
        if copies.size == 0:
            return self
        left_out = tuple(DroppedDocument(self.doc_ids[d], self.titles[d],
                                         _copy_reason(self.titles[first[d]], how="each as often"),
                                         self.doc_ids[first[d]]) for d in copies)
        kept = self.subset(np.flatnonzero(first == np.arange(self.n_docs)))
        return dataclasses.replace(kept, dropped=self.dropped + left_out)

    def without_documents(self, doc_ids: Iterable[str]) -> Corpus:
        """The corpus without the documents of these ids, each listed in :attr:`dropped` (:attr:`left_out`).

        For counts already made, such as a bag of words: the vocabulary stays as it is.  Text
        is better left out by ``from_texts(leave_out=...)``, before the vocabulary is learned,
        and with its copies.  An id of no document raises ValueError, leaving out every
        document EmptyCorpusError; no id returns the corpus as it is.
        """
        named = _leave_out_names(self.doc_ids, doc_ids)
        if not named:
            return self
        left_out = tuple(DroppedDocument(doc_id, title, LEFT_OUT_REASON)
                         for doc_id, title in zip(self.doc_ids, self.titles, strict=True) if doc_id in named)
        kept = self.subset([d for d, doc_id in enumerate(self.doc_ids) if doc_id not in named])
        return dataclasses.replace(kept, dropped=left_out + self.dropped)

    def subset(self, indices: Sequence[int] | np.ndarray) -> Corpus:
        """Return the corpus of the given rows (same vocabulary, same ``dropped``)."""
        rows = np.asarray(indices, dtype=np.intp).reshape(-1)
        if rows.size == 0:
            raise EmptyCorpusError("subset needs at least one document index, got none")
        if rows.min() < -self.n_docs or rows.max() >= self.n_docs:
            raise IndexError(f"indices must be in [0, {self.n_docs}), got {rows.min()}..{rows.max()}")
        pick = lambda values: tuple(values[i] for i in rows)  # noqa: E731 - local shorthand
        return Corpus(self.counts[rows], self.vocabulary, pick(self.doc_ids), pick(self.titles),
                      None if self.texts is None else pick(self.texts), self.dropped, self.skipped, self.encodings,
                      self.vectorizer)

    @classmethod
    def from_counts(
        cls,
        counts: Any,
        vocabulary: Sequence[str] | None = None,
        doc_ids: Sequence[str] | None = None,
        titles: Sequence[str] | None = None,
    ) -> Corpus:
        """Build a corpus from a count matrix (documents x words).

        Empty rows are removed and reported in ``dropped``.

        Parameters
        ----------
        counts : sparse matrix or array-like of shape (n_docs, n_words)
            Non-negative whole numbers (integer dtype, or floats with integral values).
        vocabulary : sequence of str, optional
            One word per column; ``"w0", "w1", ...`` if omitted.
        doc_ids, titles : sequence of str, optional
            One per row; ids default to ``"0", "1", ...``, titles to the ids.
        """
        matrix = _integer_csr(counts)
        n_docs, n_words = matrix.shape
        if n_docs == 0:
            raise EmptyCorpusError("counts has no rows; a corpus needs at least one document")
        vocabulary = [f"w{w}" for w in range(n_words)] if vocabulary is None else vocabulary
        doc_ids = _strings([str(d) for d in range(n_docs)] if doc_ids is None else doc_ids, "doc_ids", n_docs)
        titles = doc_ids if titles is None else _strings(titles, "titles", n_docs)
        keep = np.diff(matrix.indptr) > 0
        if not keep.any():
            raise EmptyCorpusError(f"all {n_docs} rows of counts are empty; a corpus needs words")
        dropped = [DroppedDocument(doc_ids[d], titles[d], _EMPTY_ROW) for d in np.flatnonzero(~keep)]
        rows = np.flatnonzero(keep)
        return cls(matrix[rows], tuple(vocabulary), tuple(doc_ids[d] for d in rows),
                   tuple(titles[d] for d in rows), None, tuple(dropped))

    @classmethod
    def from_texts(
        cls,
        texts: Sequence[str],
        titles: Sequence[str] | None = None,
        ids: Sequence[str] | None = None,
        stop_words: str | Iterable[str] | None = "english",
        extra_stop_words: Iterable[str] = (),
        min_df: int | float = 1,
        max_df: int | float = 1.0,
        max_features: int | None = None,
        token_pattern: str | None = None,
        skipped: Iterable[SkippedFile] = (),
        encodings: Iterable[tuple[str, str]] | dict[str, str] = (),
        strip_accents: bool | str = True,
        strip_markup: bool | str = AUTO_MARKUP,
        strip_boilerplate: bool = True,
        strip_messages: bool | str = AUTO_MARKUP,
        passage_words: int | None = None,
        join_phrases: bool = False,
        merge_word_forms: bool | str = False,
        keep_copies: bool = True,
        near_copies: float | None = None,
        leave_out: Iterable[str] = (),
    ) -> Corpus:
        """Tokenise raw texts with scikit-learn's ``CountVectorizer`` and count words.

        Text is lowercased, accents are stripped unless ``strip_accents=False``, and
        tokens are words of two or more letters (``token_pattern``); words with
        combining marks (Hindi, Bengali, Tamil...) are read whole and Chinese and
        Japanese, which have no spaces between words, as pairs of characters
        (:data:`engine.UNICODE_TOKEN_PATTERN`).  These settings are recorded in
        :attr:`vectorizer`, so a model trained on the corpus counts new text the same
        way (``model.transform_texts``).

        Parameters
        ----------
        texts : sequence of str
        titles, ids : sequence of str, optional
            One per text; ids default to ``"0", "1", ...``, titles to the ids.
        stop_words : str, iterable of str or None
            A language of ``engine.STOP_WORD_LANGUAGES`` ("english", "french",
            "german"... or its two-letter code): "english" is scikit-learn's list
            plus the fragments the token pattern leaves of contractions ("ve" of
            "we've", "didn" of "didn't"), the others the ``stop-words`` package's
            lists; several joined by "+" ("english+french") remove the words of every
            list, for a collection written in more than one.  ``"auto"``: the language
            :func:`engine.guess_language` finds in the texts (with any other language
            enough of the documents are written in), English when it finds none (the
            corpus' ``vectorizer`` records the languages used).  Or a list of words;
            None keeps every word.
            An unknown language raises ValueError listing the choices.
        extra_stop_words : iterable of str
            Added to ``stop_words`` (normalised like the text).
        min_df, max_df : int or float
            Keep words in at least ``min_df`` and at most ``max_df`` documents
            (a float is a fraction of the documents).
        max_features : int, optional
            Keep only the most frequent words.
        token_pattern : str, optional
            The regular expression of a token.  None (the default):
            :func:`engine.token_pattern_for` the texts, :data:`engine.TOKEN_PATTERN`
            (words of two or more letters), or :data:`engine.UNICODE_TOKEN_PATTERN` if any
            text holds Chinese or Japanese characters or a combining mark (the same
            words, with their combining marks, and every pair of adjacent Han characters
            and each katakana word as tokens).
        skipped : iterable of SkippedFile
            Files ignored by the reader, recorded on the corpus.
        encodings : dict or iterable of (str, str)
            The encoding each file was decoded with, recorded on the corpus.
        strip_accents : bool or "auto"
            Replace accented letters by their base letters (True, the default, merges
            "pêche" and "péché" into "peche"); False keeps them distinct words.
            ``"auto"``: strip them only when the stop words are English's or not a
            language's (after ``stop_words="auto"`` is resolved), so that words of
            another language stay as written; the app's rule and the command line's.
        strip_markup : bool or "auto"
            Remove HTML or XML markup before counting words (tags, comments, scripts and
            styles; "&amp;" read as "&"), so that tag and attribute names ("td",
            "colspan", "href") do not become words.  ``"auto"`` (the default): when at
            least a tenth of the documents hold two closing tags or more
            (:func:`engine.data.markup.holds_markup`).  Recorded in :attr:`vectorizer`;
            the stop-word language and the token pattern are then chosen on the text
            without its markup.
        strip_boilerplate : bool
            Leave out repeated blocks of lines that many documents share word for word
            (page chrome, licence footers, translators' credits, signatures), which
            otherwise become topics of their own (:func:`engine.find_boilerplate`: lines
            in at least 2 % of the documents, in runs of 10 words or more).  The lines
            found are recorded in :attr:`vectorizer` (``boilerplate``), so new text loses
            the same blocks; False keeps every line.
        strip_messages : bool or "auto"
            Read e-mail and newsgroup messages (a text that starts with mail header lines:
            From, Subject, Date, Message-ID...) as their subject and what their sender
            wrote, without the header lines, quoted replies and signature
            (:func:`engine.data.messages.message_text`; other texts are read as they are),
            so that host names, addresses and "writes" do not become topics.  ``"auto"``
            (the default): when at least a tenth of the documents are messages
            (:func:`engine.data.messages.holds_messages`).  Done before everything else and
            recorded in :attr:`vectorizer`.
        passage_words : int, optional
            Cut each text into passages of about this many words before anything else
            (:func:`engine.split_passages`: runs of whole paragraphs; ids "<id>#1",
            "<id>#2"..., titles "<title> (1)"...), so that a few long texts (a book, a
            report, a transcript) become a collection to learn topics from.  None (the
            default) keeps each text whole.
        join_phrases : bool
            Read pairs of words that the texts write side by side far more often than
            chance as one word ("united states", "health care"; :func:`engine.find_phrases`
            with its defaults), so that a phrase takes one of a topic's top words and its
            halves do not mix with their other uses.  The phrases found are recorded in
            :attr:`vectorizer` (``phrases``), so new text is joined the same way.  False
            (the default) reads every word alone.
        merge_word_forms : bool or "auto"
            Count the forms of a word as that word ("taxes" and "tax", "children" and
            "child", "said" and "says" and "say"; :func:`engine.find_word_forms`), shown as
            the form the texts write most often, so that a topic does not spend two of its
            top words on one.  True needs ``stop_words`` to name a language with word forms
            (:data:`engine.WORD_FORM_LANGUAGES`; ValueError otherwise); ``"auto"`` merges
            them where it does (the app's and the command line's default) and reads every
            form as written where it does not.  The forms are recorded in :attr:`vectorizer`
            (``word_forms``).  False (the default) counts each form as written.
        keep_copies : bool
            False: leave out every text that repeats an earlier one word for word, as read
            (without the markup, headers and boilerplate left out above; letter case,
            punctuation and spacing aside: :func:`engine.find_text_copies`), before the
            vocabulary, the stop-word language, phrases and word forms are learned, so that a
            text repeated many times neither takes topics of its own nor counts as many
            documents for ``min_df`` and ``max_df`` (benchmarks/RESULTS.md run 74).  Each copy
            is listed in :attr:`dropped` with the document it repeats (a copy of a text left
            without words is listed as that text is).  True (the default) keeps every
            document; the app and the command line leave copies out.
        near_copies : float in (0, 1] or None
            With ``keep_copies=False``, also leave out every text that nearly repeats one kept
            before it: a revised version, a page with another date, at least this share of the
            runs of five words in either text being in both (:func:`engine.find_near_copies`;
            0.8 leaves out a text that repeats another but for a sentence or a few words).
            Each is listed in :attr:`dropped` with the document it repeats and how nearly.
            None (the default) leaves out only copies word for word.
        leave_out : iterable of str
            Ids of documents to leave out, with their copies, before the vocabulary, the
            stop-word language, phrases and word forms are learned (as copies are): a very
            long document among short ones, whose words would otherwise fill topics of their
            own (:func:`engine.long_documents`).  Each is listed in :attr:`dropped` with the
            reason :data:`LEFT_OUT_REASON` (:attr:`left_out`), its copies as copies of it; with
            ``passage_words`` an id names a text before it is cut, and all its passages go.
            An id that names no document raises ValueError.

        Raises
        ------
        EmptyCorpusError
            No texts, or every text is blank.
        EmptyVocabularyError
            No word survives the filters.
        """
        keep_copies = _flag("keep_copies", keep_copies)
        if near_copies is not None and keep_copies:
            raise ValueError("near_copies leaves near-copies out with the copies: pass keep_copies=False with it")
        texts = list(texts)
        if not texts:
            raise EmptyCorpusError("no documents were given; provide at least one non-empty text")
        ids = _strings([str(d) for d in range(len(texts))] if ids is None else ids, "ids", len(texts))
        titles = ids if titles is None else _strings(titles, "titles", len(texts))
        _strings(texts, "texts", len(texts))
        named = _leave_out_names(ids, leave_out)
        left_out = [DroppedDocument(ids[d], titles[d], LEFT_OUT_REASON) for d in range(len(ids)) if ids[d] in named]
        originals = set(ids)
        if passage_words is not None:
            words = check_int("passage_words", passage_words, 1)
            ids, titles, texts = _passage_columns(ids, titles, texts, words)
        # the rows of the documents left out (all the passages of one cut): read for copies of them, nothing else
        named_row = np.array(_named_rows(ids, originals, named), dtype=bool)
        messages = _markup_choice(strip_messages, texts, "strip_messages")
        readable = [messages_module.message_text(text) for text in texts] if messages else texts
        markup = _markup_choice(strip_markup, readable)
        readable = [markup_module.strip_markup(text) for text in readable] if markup else readable
        boilerplate, readable = _boilerplate_choice(strip_boilerplate, readable)
        # a copy of a text read before (the same words in the same order, as read) is left out before anything is
        # learned from the texts: the collection is read as if it held each text once; a copy of a document left
        # out goes with it
        near = None if near_copies is None else find_near_copies(readable, near_copies)
        copied = first = (np.arange(len(texts)) if keep_copies else find_text_copies(readable) if near is None
                          else near.copies)  # the copies word for word, read once either way
        if near is not None:  # a near-copy counts as a copy of the text it nearly repeats
            first = np.where(copied == np.arange(len(texts)), near.first, copied)
        distinct = [readable[d] for d in range(len(texts)) if first[d] == d and not named_row[d]]
        if token_pattern is None:
            token_pattern = token_pattern_for(distinct)
        if isinstance(stop_words, str) and stop_words.strip().lower() == AUTO_LANGUAGE:
            stop_words = guess_language(distinct).language or "english"
        settings = _settings(stop_words, extra_stop_words, token_pattern, strip_accents, markup, boilerplate, messages)
        # counted from the text read as a message, without its markup and boilerplate, read once: what the
        # recorded settings give
        reading = dataclasses.replace(settings, strip_markup=False, boilerplate=(), strip_messages=False)
        if _flag("join_phrases", join_phrases):
            phrases = tuple(phrase.text for phrase in find_phrases(distinct, reading))
            settings, reading = (dataclasses.replace(s, phrases=phrases) for s in (settings, reading))
        if _word_forms_choice(merge_word_forms, reading.stop_words):
            forms = merged_forms(find_word_forms(distinct, reading))
            settings, reading = (dataclasses.replace(s, word_forms=forms) for s in (settings, reading))
        vectorizer = _vectorizer(stop_words, extra_stop_words, min_df, max_df, max_features, token_pattern,
                                 settings=reading)
        if len(set(ids)) != len(ids):
            raise ValueError("ids must be unique")
        kept = [d for d, text in enumerate(texts) if text.strip() and first[d] == d and not named_row[d]]
        if not kept and named:
            raise EmptyCorpusError(f"leave_out leaves no document with text (the {len(named)} named and their "
                                   "copies are all the others); leave more documents in")
        if not kept:
            raise EmptyCorpusError(f"all {len(texts)} documents are empty; provide documents with text")
        matrix = _fit(vectorizer, [readable[d] for d in kept], min_df, max_df)
        lengths = np.diff(matrix.indptr)
        reasons = {d: _EMPTY_TEXT for d in range(len(texts)) if not texts[d].strip() and not named_row[d]}
        shares = {} if near is None else {d: float(near.similarity[d]) for d in range(len(texts))
                                           if copied[d] == d and first[d] != d}  # the near-copies, how nearly
        reasons.update((d, _NO_WORDS) for d, n in zip(kept, lengths, strict=True) if n == 0)
        # a copy of a text left without words has none either; the others (and near-copies) are listed as copies
        reasons.update((d, reasons[copied[d]]) for d in range(len(texts))
                       if copied[d] != d and copied[d] in reasons and not named_row[d])
        dropped = [DroppedDocument(ids[d], titles[d], reasons[d]) if d in reasons else
                   DroppedDocument(ids[d], titles[d], _copy_reason(titles[first[d]], shares.get(d)), ids[first[d]],
                                   shares.get(d))
                   for d in range(len(texts)) if not named_row[d] and (d in reasons or first[d] != d)]
        rows = np.flatnonzero(lengths)
        pick = [kept[r] for r in rows]
        return cls(matrix[rows], tuple(vectorizer.get_feature_names_out().tolist()),
                   tuple(ids[d] for d in pick), tuple(titles[d] for d in pick),
                   tuple(texts[d] for d in pick), (*left_out, *dropped), tuple(skipped), _encodings(encodings),
                   settings)

    @classmethod
    def from_documents(cls, documents: Iterable[RawDocument], **options: Any) -> Corpus:
        """Build a corpus from :class:`RawDocument` values (e.g. a reader's output).

        ``options`` are those of :meth:`from_texts`; a reader's ``skipped`` and
        ``encodings`` are kept.
        """
        documents = list(documents) if not hasattr(documents, "skipped") else documents
        options.setdefault("skipped", getattr(documents, "skipped", ()))
        options.setdefault("encodings", getattr(documents, "encodings", ()))
        return cls.from_texts([d.text for d in documents], titles=[d.title for d in documents],
                              ids=[d.doc_id for d in documents], **options)

    def save(self, folder: str | os.PathLike) -> Path:
        """Write the corpus to ``folder`` atomically (``counts.npz`` + ``corpus.json``).

        A corpus saved earlier in ``folder`` is replaced; any other non-empty
        folder is refused with ``FileExistsError``. Returns the folder's path.
        """
        meta = {"vocabulary": self.vocabulary, "doc_ids": self.doc_ids, "titles": self.titles, "texts": self.texts,
                "dropped": [d._asdict() for d in self.dropped], "skipped": [s._asdict() for s in self.skipped],
                "encodings": [list(pair) for pair in self.encodings],
                "vectorizer": None if self.vectorizer is None else self.vectorizer.to_dict()}
        return _corpus_folder.write_folder(folder, self.counts, meta)

    @classmethod
    def load(cls, folder: str | os.PathLike, trust_token_pattern: bool = False) -> Corpus:
        """Read a corpus written by :meth:`save` (raises ``CorpusFormatError`` if damaged).

        A stored token pattern must be one this project writes unless
        ``trust_token_pattern`` (see :func:`engine.load_model`).
        """
        counts, meta = _corpus_folder.read_folder(folder)
        try:
            return cls(counts, meta["vocabulary"], meta["doc_ids"], meta["titles"], meta["texts"],
                       tuple(DroppedDocument(**d) for d in meta["dropped"]),
                       tuple(SkippedFile(**s) for s in meta["skipped"]),
                       meta.get("encodings", ()),  # absent from corpora saved before encodings were recorded
                       _stored_vectorizer(meta.get("vectorizer"), trust_token_pattern))  # absent in older corpora
        except (KeyError, TypeError, ValueError) as exc:
            raise CorpusFormatError(f"{str(folder)!r} holds an inconsistent corpus ({exc}); save it again") from None


def _leave_out_names(ids: tuple[str, ...], leave_out: Iterable[str]) -> set[str]:
    """The ids ``leave_out`` names, each checked to be a document's, not all of them."""
    named = _named_ids(leave_out)
    _check_named(named, named.intersection(ids), len(set(ids)))
    return named


def _named_rows(ids: Iterable[str], originals: set[str], named: set[str]) -> list[bool]:
    """Which of ``ids`` (documents, or passages cut from the documents ``originals``) ``named`` leaves out: a
    document named, or every passage of one."""
    return [doc_id in named or (doc_id not in originals and passage_of(doc_id) in named) for doc_id in ids]


def _named_ids(leave_out: Iterable[str]) -> set[str]:
    """The ids ``leave_out`` names, checked to be strings (before any document is read)."""
    if isinstance(leave_out, str):
        raise TypeError("leave_out must be an iterable of document ids, not one string")
    leave_out = tuple(leave_out)
    return set(_strings(leave_out, "leave_out", len(leave_out)))


def _check_named(named: set[str], found: set[str], n_docs: int) -> None:
    """Raise if ``leave_out`` named ids of no document (``found``: those that are a document's) or all ``n_docs``
    documents (counted by their distinct ids)."""
    unknown = sorted(named.difference(found))
    if unknown:
        shown = ", ".join(repr(d) for d in unknown[:5]) + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
        raise ValueError(f"leave_out names {len(unknown)} id(s) of no document: {shown}; a document's id is its "
                         "file's path in the folder or archive read ('notes/a.txt'), a table row's number ('1' for "
                         "the first row) or the id given with its text")
    if named and len(found) >= n_docs:
        raise EmptyCorpusError(f"leave_out names all {n_docs} documents; leave at least one in")


def _copy_reason(title: str, similarity: float | None = None, how: str = "in the same order") -> str:
    """Why a copy is left out: it repeats ``title`` word for word (``how``), or nearly (``similarity``)."""
    if similarity is None:
        return f"a copy of “{title}”: the same words, {how}"
    share = math.floor(100 * similarity + 1e-9)  # rounded down: a near-copy never reads as 100 %
    return f"a near-copy of “{title}”: {share} % of the runs of five words in either text are in both"


def _encodings(pairs: Iterable[tuple[str, str]] | dict[str, str]) -> tuple[tuple[str, str], ...]:
    pairs = tuple(pairs.items() if isinstance(pairs, dict) else pairs)
    if not all(len(p) == 2 and all(isinstance(v, str) for v in p) for p in pairs):
        raise TypeError("encodings must be (file, encoding) pairs of strings")
    return tuple((name, encoding) for name, encoding in pairs)


def _stored_vectorizer(values: Any, trust_token_pattern: bool) -> Vectorizer | None:
    return None if values is None else Vectorizer.from_dict(values, trust_token_pattern)


def _markup_choice(choice, texts, name: str = "strip_markup") -> bool:
    """``strip_markup`` (or ``strip_messages``, as ``name`` says) resolved: True or False as given, "auto" by
    :func:`engine.data.markup.holds_markup` (:func:`engine.data.messages.holds_messages`)."""
    if isinstance(choice, str) and choice == AUTO_MARKUP:
        holds = messages_module.holds_messages if name == "strip_messages" else markup_module.holds_markup
        return holds(texts)
    if not isinstance(choice, (bool, np.bool_)):
        raise TypeError(f"{name} must be True, False or {AUTO_MARKUP!r}, got {choice!r}")
    return bool(choice)


def _word_forms_choice(choice, stop_words) -> bool:
    """``merge_word_forms`` resolved against the stop words read with: True or False as given (True needs a language
    with word forms), "auto" True where the language has them."""
    if isinstance(choice, str) and choice == AUTO_MARKUP:
        return has_word_forms(stop_words)
    if not isinstance(choice, (bool, np.bool_)):
        raise TypeError(f"merge_word_forms must be True, False or {AUTO_MARKUP!r}, got {choice!r}")
    if choice and not isinstance(stop_words, str):
        raise ValueError("merge_word_forms needs the texts' language: set stop_words to a language ('english', or "
                         "'auto' to guess it)")
    return bool(choice)


def _boilerplate_choice(strip_boilerplate, texts: Sequence[str]) -> tuple[tuple[str, ...], Sequence[str]]:
    """The boilerplate lines of ``texts`` and the texts without them if ``strip_boilerplate``; else none and the
    texts as they are."""
    if not isinstance(strip_boilerplate, (bool, np.bool_)):
        raise TypeError(f"strip_boilerplate must be True or False, got {strip_boilerplate!r}")
    return _find_and_remove(texts) if strip_boilerplate else ((), texts)


def _settings(stop_words, extra_stop_words, token_pattern, strip_accents, strip_markup=False,
              boilerplate=(), strip_messages=False) -> Vectorizer:
    if isinstance(stop_words, Iterable) and not isinstance(stop_words, str):
        stop_words = tuple(stop_words)
    auto = isinstance(strip_accents, str) and strip_accents == AUTO_ACCENTS
    if isinstance(strip_accents, str) and not auto:
        raise TypeError(f"strip_accents must be True, False or {AUTO_ACCENTS!r}, got {strip_accents!r}")
    settings = Vectorizer(stop_words=stop_words, extra_stop_words=_words_of(extra_stop_words),
                          strip_accents=True if auto else strip_accents, token_pattern=token_pattern,
                          strip_markup=strip_markup, boilerplate=boilerplate, strip_messages=strip_messages)
    if auto and isinstance(settings.stop_words, str) and settings.stop_words != "english":
        settings = dataclasses.replace(settings, strip_accents=False)  # words of that language as written
    return settings


def _words_of(extra_stop_words) -> tuple:
    if isinstance(extra_stop_words, str):
        raise TypeError(f"extra_stop_words must be a list of words, not the string {extra_stop_words!r}")
    return tuple(extra_stop_words)


def _vectorizer(stop_words, extra_stop_words, min_df, max_df, max_features, token_pattern, strip_accents=True,
                settings=None, strip_markup=False):
    """A configured scikit-learn ``CountVectorizer`` (imported here, not at ``import engine``: it is slow to import)."""
    for name, value in (("min_df", min_df), ("max_df", max_df)):
        is_int = isinstance(value, (int, np.integer)) and not isinstance(value, bool)
        if not ((is_int and value >= 1) or (isinstance(value, float) and 0.0 <= value <= 1.0)):
            raise ValueError(f"{name} must be an int >= 1 (documents) or a float in [0, 1] (fraction), got {value!r}")
    if max_features is not None and not (isinstance(max_features, (int, np.integer)) and max_features >= 1):
        raise ValueError(f"max_features must be None or an int >= 1, got {max_features!r}")
    if settings is None:
        settings = _settings(stop_words, extra_stop_words, token_pattern, strip_accents, strip_markup)
    return settings.count_vectorizer(min_df=min_df, max_df=max_df, max_features=max_features)


def _fit(vectorizer, texts: list[str], min_df, max_df) -> sp.csr_matrix:
    try:
        return vectorizer.fit_transform(texts)
    except ValueError as exc:
        min_count = min_df if isinstance(min_df, (int, np.integer)) else min_df * len(texts)
        if "max_df corresponds to" in str(exc) and min_count <= len(texts):
            raise ValueError(f"max_df={max_df!r} allows fewer documents than min_df={min_df!r} "
                             f"for {len(texts)} documents; raise max_df or lower min_df") from None
        if not any(s in str(exc) for s in ("empty vocabulary", "no terms remain", "max_df corresponds to")):
            raise
        raise EmptyVocabularyError(
            f"no word is left after filtering {len(texts)} documents (min_df={min_df!r}, "
            f"max_df={max_df!r}; scikit-learn said: {exc}); lower min_df, raise max_df, or check "
            "the stop words and that the texts contain words of two or more letters") from None

"""Long documents cut into passages: engine/data/passages.py and ``passage_words`` of the corpora."""

from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from engine import Corpus, DiskCorpus, RawDocument, passage_documents, passage_spans, split_passages


def _paragraphs(sizes: list[int], tag: str = "w") -> str:
    return "\n\n".join(" ".join(f"{tag}{p}x{i}" for i in range(size)) for p, size in enumerate(sizes))


def _words(text: str) -> int:
    return len(text.split())


def _covers(text: str, spans: list[tuple[int, int]]) -> None:
    """The spans are in order, do not overlap, and what lies outside them is whitespace only: nothing is lost."""
    position = 0
    for start, end in spans:
        assert position <= start < end
        assert not text[position:start].strip()
        position = end
    assert not text[position:].strip()


def test_paragraphs_are_gathered_until_a_passage_holds_enough_words():
    text = _paragraphs([120] * 10)
    spans = passage_spans(text, 300)
    assert [_words(text[a:b]) for a, b in spans] == [360, 360, 480]  # the last 120 join the passage before
    _covers(text, spans)
    assert all(text[a:b] == text[a:b].strip() for a, b in spans)  # passages start and end on words
    eleven = _paragraphs([120] * 11)
    assert [_words(eleven[a:b]) for a, b in passage_spans(eleven, 300)] == [360, 360, 360, 240]


@pytest.mark.parametrize(("text", "sizes"), [
    (" ".join(f"s{i}." if i % 20 == 19 else f"s{i}" for i in range(1000)), [300, 300, 400]),  # sentence ends
    ("\n".join(" ".join(f"l{n}x{i}" for i in range(50)) for n in range(20)), [300, 300, 400]),  # line breaks
    (" ".join(f"y{i}" for i in range(1000)), [300, 300, 400]),  # neither: between words
])
def test_a_long_paragraph_is_cut_at_lines_sentences_or_words(text, sizes):
    spans = passage_spans(text, 300)
    assert [_words(text[a:b]) for a, b in spans] == sizes
    _covers(text, spans)


def test_texts_without_enough_words_are_one_passage_or_none():
    assert passage_spans("", 300) == [] and passage_spans(" \n\n \t", 300) == []
    assert passage_spans("  one two  ", 300) == [(2, 9)]
    assert passage_spans(_paragraphs([100, 100]), 300) == [(0, len(_paragraphs([100, 100])))]
    assert passage_spans("x" * 100_000, 5) == [(0, 100_000)]  # one "word": one passage
    with pytest.raises(ValueError, match="words"):
        passage_spans("a b", 0)


def test_documents_become_their_passages_with_ids_and_titles():
    book, note = _paragraphs([200] * 6), "a short note"
    documents = engine.RawDocuments([RawDocument("book.txt", "Book", book), RawDocument("n", "Note", note)],
                                    skipped=[engine.SkippedFile("x.pdf", "not text")], encodings={"book.txt": "utf-8"})
    passages = split_passages(documents, 300)
    assert [(p.doc_id, p.title) for p in passages] == [("book.txt#1", "Book (1)"), ("book.txt#2", "Book (2)"),
                                                       ("book.txt#3", "Book (3)"), ("n", "Note")]
    assert " ".join(p.text for p in passages[:3]).split() == book.split() and passages[3].text == note
    assert passages.skipped == documents.skipped and passages.encodings == documents.encodings


def test_a_corpus_of_passages_counts_what_the_whole_text_counts(tmp_path):
    topics = ["rocket orbit launch", "bread oven flour", "goal match coach"]
    book = "\n\n".join(" ".join(f"{topics[p % 3]} word{chr(97 + p % 26)}" for _ in range(25)) for p in range(40))
    whole = Corpus.from_texts([book, "rocket bread goal"], titles=["Book", "Note"])
    cut = Corpus.from_texts([book, "rocket bread goal"], titles=["Book", "Note"], passage_words=300)
    assert whole.n_docs == 2 and cut.n_docs > 10 and cut.doc_ids[-1] == "1" and cut.titles[0] == "Book (1)"
    assert cut.vocabulary == whole.vocabulary
    np.testing.assert_array_equal(np.asarray(cut.counts.sum(axis=0)), np.asarray(whole.counts.sum(axis=0)))
    assert engine.splittable_documents(whole.counts) == 2 and engine.splittable_documents(cut) == cut.n_docs
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "book.txt").write_text(book, encoding="utf-8")
    (folder / "note.txt").write_text("rocket bread goal", encoding="utf-8")
    memory = engine.load_corpus(folder, passage_words=300)
    disk = DiskCorpus.from_texts(folder, tmp_path / "disk", passage_words=300, chunk_size=1)
    assert disk.doc_ids == memory.doc_ids and disk.doc_ids[0] == "book.txt#1"
    assert disk.vocabulary == memory.vocabulary and (disk.counts[:] != memory.counts).nnz == 0
    for bad in (0, -3, 2.5, "300"):
        with pytest.raises((ValueError, TypeError), match="passage_words"):
            Corpus.from_texts([book], passage_words=bad)
    with pytest.raises((ValueError, TypeError), match="passage_words"):
        DiskCorpus.from_texts(folder, tmp_path / "bad", passage_words=0)


def test_splittable_documents_counts_documents_of_two_word_types():
    corpus = Corpus.from_texts(["apple apple", "apple pear", "pear plum apple", "plum"], min_df=1)
    assert engine.splittable_documents(corpus.counts) == 2 and engine.splittable_documents(corpus) == 2
    train, observed, _ = engine.heldout_split(corpus, n_test=1)
    assert train.shape[0] == 3 and observed.shape[0] == 1
    with pytest.raises(ValueError, match=re.escape("n_test must be in [1, 2)")):
        engine.heldout_split(corpus, n_test=2)


def test_a_books_running_header_is_found_among_its_passages_on_disk_as_in_memory(tmp_path):
    header = "THE HISTORY OF THE DECLINE AND FALL OF THE ROMAN EMPIRE, VOLUME ONE, CHAPTER THE FIRST"
    pages = [f"{header}\n\n" + " ".join(f"word{chr(97 + p % 20)} pear{chr(97 + i % 7)}" for i in range(60))
             for p in range(60)]
    folder = tmp_path / "book"
    folder.mkdir()
    (folder / "book.txt").write_text("\n\n".join(pages), encoding="utf-8")
    memory = engine.load_corpus(folder, passage_words=300)
    disk = DiskCorpus.from_texts(folder, tmp_path / "disk", passage_words=300)
    assert memory.n_docs == disk.n_docs == 20  # a header and 120 words a page: three pages a passage
    assert memory.vectorizer.boilerplate == disk.vectorizer.boilerplate == (header,)  # one document: no boilerplate
    assert (disk.counts[:] != memory.counts).nnz == 0 and "empire" not in memory.vocabulary
    assert engine.load_corpus(folder).vectorizer.boilerplate == ()


def test_passage_documents_find_each_passages_document_again():
    """Documents cut by split_passages, some into several passages and some not (one with a title ending like a
    passage's): passage_documents gives back each passage's document, its id and its title, in order."""
    long_text = "\n\n".join(f"paragraph {i} " + "word " * 40 for i in range(12))
    documents = [RawDocument("a.txt", "Report", long_text), RawDocument("b#x", "Note (2)", "a short note"),
                 RawDocument("c.txt", "Book", long_text)]
    passages = split_passages(documents, 100)
    groups, ids, titles = passage_documents([p.doc_id for p in passages], [p.title for p in passages])
    expected = [next(d for d, document in enumerate(documents)
                     if p.doc_id == document.doc_id or p.doc_id.startswith(f"{document.doc_id}#")) for p in passages]
    assert groups == expected and groups.count(0) > 1 and groups.count(1) == 1
    assert ids == ["a.txt", "b#x", "c.txt"] and titles == ["Report", "Note (2)", "Book"]

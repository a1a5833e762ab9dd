"""Tests of engine/data/corpus.py: building, validating, subsetting and saving a Corpus."""

from __future__ import annotations

import json
import pickle
import zipfile

import numpy as np
import pytest
import scipy.sparse as sp

from engine.data.bow_formats import load_corpus
from engine.data.corpus import Corpus, DroppedDocument
from engine.data.text import NOT_TEXT, SkippedFile
from engine.errors import (
    CorpusFormatError,
    EmptyCorpusError,
    EmptyVocabularyError,
    EngineError,
    FileDecodingError,
    MissingColumnError,
)

TEXTS = [
    "The Café serves coffee; coffee is good.",
    "   ",
    "The and of it 42 x_y",
    "Dogs chase cats. Cats chase mice!",
]


def dense(corpus):
    return corpus.counts.toarray()


def assert_same_corpus(a, b):
    assert (a.counts != b.counts).nnz == 0 and a.counts.shape == b.counts.shape
    assert a.vocabulary == b.vocabulary
    assert (a.doc_ids, a.titles, a.texts, a.dropped, a.skipped) == (b.doc_ids, b.titles, b.texts, b.dropped, b.skipped)


# from_texts -----------------------------------------------------------------------------


def test_from_texts_tokenises_and_counts():
    corpus = Corpus.from_texts(TEXTS, titles=["A", "B", "C", "D"], ids=["a", "b", "c", "d"])
    assert corpus.vocabulary == ("cafe", "cats", "chase", "coffee", "dogs", "good", "mice", "serves")
    assert isinstance(corpus.counts, sp.csr_matrix) and corpus.counts.dtype.kind == "i"
    assert dense(corpus).tolist() == [[1, 0, 0, 2, 0, 1, 0, 1], [0, 2, 2, 0, 1, 0, 1, 0]]
    assert corpus.doc_ids == ("a", "d") and corpus.titles == ("A", "D")
    assert corpus.texts == (TEXTS[0], TEXTS[3])
    assert (corpus.n_docs, corpus.n_words, corpus.n_tokens, len(corpus)) == (2, 8, 11, 2)
    assert corpus.doc_words(1) == [("cats", 2), ("chase", 2), ("dogs", 1), ("mice", 1)]


def test_from_texts_reports_dropped_documents_with_ids():
    corpus = Corpus.from_texts(TEXTS, ids=["a", "b", "c", "d"])
    assert corpus.dropped == (DroppedDocument("b", "b", "empty text"),
                              DroppedDocument("c", "c", corpus.dropped[1].reason))
    assert "no words left" in corpus.dropped[1].reason
    assert set(corpus.doc_ids).isdisjoint(d.doc_id for d in corpus.dropped)


def test_from_texts_stop_words_and_filters():
    texts = ["apple banana cherry", "apple banana", "apple durian", "Éclair"]
    assert "apple" not in Corpus.from_texts(texts, extra_stop_words=["APPLE"]).vocabulary
    assert "eclair" not in Corpus.from_texts(texts, stop_words=["éclair"]).vocabulary
    assert "the" in Corpus.from_texts(["the cat"], stop_words=None).vocabulary
    assert Corpus.from_texts(texts, min_df=2).vocabulary == ("apple", "banana")
    assert Corpus.from_texts(texts, max_df=0.5).vocabulary == ("banana", "cherry", "durian", "eclair")
    assert Corpus.from_texts(texts, max_features=1).vocabulary == ("apple",)


def test_from_texts_empty_inputs():
    with pytest.raises(EmptyCorpusError, match="no documents were given"):
        Corpus.from_texts([])
    with pytest.raises(EmptyCorpusError, match="all 2 documents are empty"):
        Corpus.from_texts(["", " \n\t"])


def test_from_texts_empty_vocabulary_says_what_to_do():
    with pytest.raises(EmptyVocabularyError, match="lower min_df, raise max_df, or check the stop words"):
        Corpus.from_texts(["the and of", "it is 42"])
    with pytest.raises(EmptyVocabularyError, match="min_df=5"):
        Corpus.from_texts(["apple pie", "banana split"], min_df=5)


@pytest.mark.parametrize(
    ("options", "match"),
    [({"min_df": 0}, "min_df must be"), ({"max_df": 1.5}, "max_df must be"), ({"min_df": True}, "min_df"),
     ({"max_features": 0}, "max_features must be"), ({"stop_words": "klingon"}, "stop_words must be"),
     ({"min_df": 3, "max_df": 2}, "max_df=2 allows fewer documents than min_df=3"),
     ({"ids": ["x", "x", "y"]}, "ids must be unique"), ({"titles": ["a"]}, "titles must have one entry")],
)
def test_from_texts_invalid_options(options, match):
    with pytest.raises(ValueError, match=match):
        Corpus.from_texts(["apple pie", "apple tart", "banana pie"], **options)


# from_counts and validation -------------------------------------------------------------


def test_from_counts_drops_empty_rows_and_names_defaults():
    corpus = Corpus.from_counts(np.array([[1, 0, 2], [0, 0, 0], [0, 3, 0]]))
    assert dense(corpus).tolist() == [[1, 0, 2], [0, 3, 0]]
    assert corpus.vocabulary == ("w0", "w1", "w2") and corpus.doc_ids == ("0", "2")
    assert corpus.dropped == (DroppedDocument("1", "1", "no words (empty row of counts)"),)
    assert corpus.texts is None
    floats = Corpus.from_counts(sp.csr_matrix(np.array([[1.0, 2.0]])), ["a", "b"], ["d"], ["title"])
    assert floats.counts.dtype == np.int64 and floats.titles == ("title",)


@pytest.mark.parametrize(
    ("counts", "vocabulary", "error", "match"),
    [(np.array([[1, -1]]), None, ValueError, "non-negative"),
     (np.array([[0.5, 1.0]]), None, ValueError, "whole numbers"),
     (np.array([[np.nan, 1.0]]), None, ValueError, "whole numbers"),
     (np.array([["a", "b"]]), None, TypeError, "integers"),
     (np.array([1, 2]), None, ValueError, "2-D"),
     (np.array([[1, 2]]), ["only"], ValueError, "vocabulary must have one entry per document"),
     (np.array([[1, 2]]), ["same", "same"], ValueError, "repeat"),
     (np.zeros((2, 2), int), None, EmptyCorpusError, "all 2 rows of counts are empty"),
     (np.zeros((0, 2), int), None, EmptyCorpusError, "no rows")],
)
def test_from_counts_validates(counts, vocabulary, error, match):
    with pytest.raises(error, match=match):
        Corpus.from_counts(counts, vocabulary)


def test_corpus_is_frozen_and_input_is_copied():
    counts = sp.csr_matrix(np.array([[1, 2], [3, 0]]))
    corpus = Corpus.from_counts(counts)
    counts.data[:] = 9
    assert dense(corpus).tolist() == [[1, 2], [3, 0]]
    with pytest.raises(ValueError, match="read-only"):
        corpus.counts.data[0] = 5
    with pytest.raises(AttributeError):
        corpus.vocabulary = ("x", "y")


def test_pickle_keeps_the_corpus_frozen():
    corpus = Corpus.from_texts(TEXTS)
    copy = pickle.loads(pickle.dumps(corpus))
    assert_same_corpus(copy, corpus)
    with pytest.raises(ValueError, match="read-only"):
        copy.counts.data[0] = 5


def test_from_texts_type_errors():
    with pytest.raises(TypeError, match="texts must be strings, got 3"):
        Corpus.from_texts(["apple", 3])
    with pytest.raises(TypeError, match="extra_stop_words must be a list of words"):
        Corpus.from_texts(["apple"], extra_stop_words="apple")
    with pytest.raises(ValueError, match="capturing group"):  # scikit-learn's own message passes through
        Corpus.from_texts(["apple pie"], token_pattern=r"(a)(p)")


def test_direct_construction_rejects_empty_rows():
    with pytest.raises(ValueError, match="empty rows"):
        Corpus(sp.csr_matrix(np.array([[1, 0], [0, 0]])), ("a", "b"), ("0", "1"), ("0", "1"))


def test_subset():
    corpus = Corpus.from_texts(["apple pie", "banana split", "cherry tart"], ids=["a", "b", "c"])
    part = corpus.subset([2, 0])
    assert part.doc_ids == ("c", "a") and part.texts == ("cherry tart", "apple pie")
    assert part.vocabulary == corpus.vocabulary
    assert (part.counts != corpus.counts[[2, 0]]).nnz == 0
    with pytest.raises(EmptyCorpusError):
        corpus.subset([])
    with pytest.raises(IndexError, match="indices must be in"):
        corpus.subset([3])


# save / load ----------------------------------------------------------------------------


def test_save_load_round_trip(tmp_path):
    corpus = Corpus.from_texts(TEXTS, ids=["a", "b", "c", "d"],
                               skipped=[SkippedFile("x.xlsx", NOT_TEXT)])
    folder = corpus.save(tmp_path / "saved")
    assert sorted(p.name for p in folder.iterdir()) == ["corpus.json", "counts.npz"]
    assert_same_corpus(Corpus.load(folder), corpus)
    assert_same_corpus(load_corpus(folder), corpus)
    bag = Corpus.from_counts(np.array([[1, 2], [0, 4]]), ["ü", "b"])
    bag.save(folder)  # replaces the earlier saved corpus
    assert_same_corpus(Corpus.load(folder), bag)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["saved"]  # no temporary folders left


def test_save_refuses_foreign_folder_and_failed_save_keeps_old(tmp_path, monkeypatch):
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "precious.txt").write_text("keep me", encoding="utf-8")
    corpus = Corpus.from_counts(np.array([[1, 2]]))
    with pytest.raises(FileExistsError, match="not a saved corpus"):
        corpus.save(tmp_path / "other")
    corpus.save(tmp_path / "saved")

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr("engine.data._corpus_folder.np.savez", fail)
    with pytest.raises(OSError, match="disk full"):
        Corpus.from_counts(np.array([[5, 5]])).save(tmp_path / "saved")
    monkeypatch.undo()
    assert_same_corpus(Corpus.load(tmp_path / "saved"), corpus)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["other", "saved"]


def test_load_rejects_damaged_folders(tmp_path):
    with pytest.raises(CorpusFormatError, match="is not a saved corpus"):
        Corpus.load(tmp_path)
    folder = Corpus.from_counts(np.array([[1, 2]])).save(tmp_path / "c")
    meta = json.loads((folder / "corpus.json").read_text(encoding="utf-8"))
    (folder / "corpus.json").write_text(json.dumps({**meta, "version": 99}), encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="not a version-1 saved corpus"):
        Corpus.load(folder)
    (folder / "corpus.json").write_text(json.dumps({**meta, "vocabulary": ["a"]}), encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="inconsistent corpus"):
        Corpus.load(folder)
    (folder / "counts.npz").write_bytes(b"garbage")
    with pytest.raises(CorpusFormatError, match="damaged corpus"):
        Corpus.load(folder)


# load_corpus on raw text ----------------------------------------------------------------


def test_load_corpus_folder_zip_and_single_file(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "one.txt").write_text("apple banana apple", encoding="utf-8")
    (folder / "two.txt").write_bytes("banana crème brûlée".encode("cp1252"))
    (folder / "readme.css").write_text("ignored", encoding="utf-8")
    corpus = load_corpus(folder)
    assert corpus.doc_ids == ("one.txt", "two.txt") and corpus.titles == ("one", "two")
    assert corpus.vocabulary == ("apple", "banana", "brulee", "creme")
    assert corpus.skipped == (SkippedFile("readme.css", NOT_TEXT),)
    archive = tmp_path / "docs.zip"
    with zipfile.ZipFile(archive, "w") as zf:
        for path in sorted(folder.iterdir()):
            zf.write(path, f"docs/{path.name}")
    from_zip = load_corpus(archive, min_df=2)
    assert from_zip.vocabulary == ("banana",)
    assert from_zip.skipped == (SkippedFile("docs/readme.css", NOT_TEXT),)
    single = load_corpus(folder / "one.txt")
    assert single.doc_ids == ("one.txt",) and dense(single).tolist() == [[2, 1]]


def test_load_corpus_tables(tmp_path):
    (tmp_path / "d.csv").write_text("id,title,text\n1,First,apple pie\n2,Second,\n", encoding="utf-8")
    corpus = load_corpus(tmp_path / "d.csv", title_column="title")
    assert corpus.titles == ("First",) and corpus.dropped == (DroppedDocument("2", "Second", "empty text"),)
    (tmp_path / "ids.csv").write_text("key,text\nk1,apple pie\nk2,plum pie\n", encoding="utf-8")
    assert load_corpus(tmp_path / "ids.csv", id_column="key").doc_ids == ("k1", "k2")
    (tmp_path / "d.jsonl").write_text('{"body": "apple pie"}\n{"body": "cherry pie"}\n', encoding="utf-8")
    assert load_corpus(tmp_path / "d.jsonl", text_column="body").vocabulary == ("apple", "cherry", "pie")
    (tmp_path / "d.tsv").write_text("body\nplum cake\n", encoding="utf-8")
    with pytest.raises(MissingColumnError, match="available columns: 'body'"):
        load_corpus(tmp_path / "d.tsv")


def test_load_corpus_errors(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such file"):
        load_corpus(tmp_path / "missing.csv")
    (tmp_path / "empty").mkdir()
    with pytest.raises(EmptyCorpusError):
        load_corpus(tmp_path / "empty")
    (tmp_path / "data.bin").write_bytes(b"\x00")
    with pytest.raises(CorpusFormatError, match=r"cannot tell the format of 'data.bin'"):
        load_corpus(tmp_path / "data.bin")
    (tmp_path / "bad.txt").write_bytes(b"\x00\x01")
    with pytest.raises(FileDecodingError, match=r"bad.txt"):
        load_corpus(tmp_path / "bad.txt")
    with pytest.raises(ValueError, match="text_column, title_column and id_column apply to"):
        load_corpus(tmp_path / "empty", text_column="body")
    (tmp_path / "x.mtx").touch()
    with pytest.raises(TypeError, match="already a bag of words"):
        load_corpus(tmp_path / "x.mtx", min_df=2)
    with pytest.raises(ValueError, match="vocab= applies to bag-of-words files"):
        load_corpus(tmp_path / "empty", vocab=tmp_path / "vocab.txt")
    assert issubclass(MissingColumnError, EngineError)


def test_english_stop_words_drop_contraction_fragments():
    corpus = Corpus.from_texts(["We've said we'll win; they didn't.", "We won the vote"])
    assert {"ve", "ll", "didn"}.isdisjoint(corpus.vocabulary)
    assert {"said", "win", "won", "vote"} <= set(corpus.vocabulary)

"""Tests of engine/data/bow_formats.py: UCI, LDA-C and Matrix Market files, written then read back."""

from __future__ import annotations

import gzip

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from engine.data.bow_formats import (
    load_corpus,
    read_ldac,
    read_mtx,
    read_uci,
    read_vocabulary,
    write_ldac,
    write_mtx,
    write_uci,
)
from engine.data.corpus import Corpus, DroppedDocument
from engine.errors import CorpusFormatError, EmptyCorpusError

COUNTS = np.array([[2, 0, 1, 0, 0], [0, 3, 0, 1, 7], [1, 1, 1, 1, 1]])
VOCABULARY = ("alpha", "beta", "gamma", "delta", "épsilon")


@pytest.fixture
def corpus():
    return Corpus.from_counts(COUNTS, VOCABULARY)


def write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


def same_counts(corpus, expected=COUNTS):
    return corpus.counts.toarray().tolist() == np.asarray(expected).tolist()


# round trips ----------------------------------------------------------------------------


def test_uci_round_trip(tmp_path, corpus):
    write_uci(corpus, tmp_path / "docword.toy.txt", tmp_path / "vocab.toy.txt")
    assert (tmp_path / "docword.toy.txt").read_text().splitlines()[:4] == ["3", "5", "10", "1 1 2"]
    for loaded in (read_uci(tmp_path / "docword.toy.txt"), load_corpus(tmp_path / "docword.toy.txt")):
        assert same_counts(loaded) and loaded.vocabulary == VOCABULARY
        assert loaded.doc_ids == ("1", "2", "3") and loaded.texts is None
    assert sorted(p.name for p in tmp_path.iterdir()) == ["docword.toy.txt", "vocab.toy.txt"]


def test_uci_gzip_and_explicit_vocabulary(tmp_path, corpus):
    write_uci(corpus, tmp_path / "plain.txt", tmp_path / "words.txt")
    (tmp_path / "docword.big.txt.gz").write_bytes(gzip.compress((tmp_path / "plain.txt").read_bytes()))
    loaded = load_corpus(tmp_path / "docword.big.txt.gz", vocab=tmp_path / "words.txt")
    assert same_counts(loaded) and loaded.vocabulary == VOCABULARY


def test_ldac_round_trip(tmp_path, corpus):
    write_ldac(corpus, tmp_path / "toy.dat", tmp_path / "vocab.txt")
    assert (tmp_path / "toy.dat").read_text().splitlines()[0] == "2 0:2 2:1"
    for loaded in (read_ldac(tmp_path / "toy.dat"), load_corpus(tmp_path / "toy.dat")):
        assert same_counts(loaded) and loaded.vocabulary == VOCABULARY


def test_mtx_round_trip_with_and_without_vocabulary(tmp_path, corpus):
    write_mtx(corpus, tmp_path / "toy.mtx", tmp_path / "toy.vocab")
    loaded = load_corpus(tmp_path / "toy.mtx")
    assert same_counts(loaded) and loaded.vocabulary == VOCABULARY
    (tmp_path / "toy.vocab").unlink()
    anonymous = read_mtx(tmp_path / "toy.mtx")
    assert same_counts(anonymous) and anonymous.vocabulary == ("w0", "w1", "w2", "w3", "w4")


def test_saved_folder_round_trip_through_load_corpus(tmp_path, corpus):
    corpus.save(tmp_path / "saved")
    loaded = load_corpus(tmp_path / "saved")
    assert same_counts(loaded) and loaded.vocabulary == VOCABULARY and loaded.doc_ids == corpus.doc_ids


def test_empty_documents_are_reported(tmp_path):
    write(tmp_path / "vocab.txt", "a\nb\n")
    write(tmp_path / "docword.txt", "3\n2\n2\n1 1 4\n3 2 1\n")
    assert read_uci(tmp_path / "docword.txt").dropped == (DroppedDocument("2", "2", "no words (empty row of counts)"),)
    write(tmp_path / "c.ldac", "1 0:1\n0\n")
    loaded = read_ldac(tmp_path / "c.ldac")
    assert same_counts(loaded, [[1, 0]]) and [d.doc_id for d in loaded.dropped] == ["2"]


def test_writers_are_atomic(tmp_path, corpus, monkeypatch):
    write_uci(corpus, tmp_path / "docword.txt")
    before = (tmp_path / "docword.txt").read_bytes()

    def fail(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail)
    with pytest.raises(OSError, match="disk full"):
        write_uci(Corpus.from_counts(np.ones((2, 2), int)), tmp_path / "docword.txt")
    assert (tmp_path / "docword.txt").read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["docword.txt"]
    bad = Corpus.from_counts(np.ones((1, 2), int), ["two\nlines", "ok"])
    with pytest.raises(ValueError, match="line break"):
        write_ldac(bad, tmp_path / "bad.dat", tmp_path / "bad.vocab")
    assert [p.name for p in tmp_path.iterdir()] == ["docword.txt"]


# strict validation with line numbers ----------------------------------------------------


@pytest.mark.parametrize(
    ("docword", "match"),
    [("", "line 1: expected the number of documents D, got nothing"),
     ("2\n2\n", "line 3: expected the number of non-zero entries NNZ, got nothing"),
     ("2\nx\n1\n1 1 1\n", "line 2: expected the number of words W, got 'x'"),
     ("2\n2\n3\n1 1 1\n2 2 1000000\n", "announces NNZ=3 entries but lines 4-5 hold 2"),
     ("2\n2\n3\n1 1 1\n2 2 1\n", "declares 3 entries, which take at least 17 bytes, but only 12 bytes"),
     ("2\n2\n2\n1 1 1\n2 2 1 9\n", r"line 5: expected 'docID wordID count'"),
     ("2\n2\n2\n1 1 1\n\n2 2 1\n", r"line 5: expected 'docID wordID count' .*got ''"),
     ("2\n2\n2\n1 1 1\n2 two 1\n", r"line 5: expected 'docID wordID count'"),
     ("2\n2\n2\n1 1 1\n2 3 1\n", "line 5: wordID 3 is outside"),
     ("2\n2\n2\n0 1 1\n2 2 1\n", "line 4: docID 0 is outside"),
     ("2\n2\n2\n1 1 0\n2 2 1\n", "line 4: count 0 is outside"),
     ("2\n2\n3\n1 1 1\n2 2 1\n1 1 5\n", "line 6: docID 1 wordID 1 repeats line 4"),
     ("2\n2\n0\n", "all 2 rows of counts are empty")],
)
def test_uci_errors_name_the_line(tmp_path, docword, match):
    write(tmp_path / "vocab.txt", "a\nb\n")
    with pytest.raises((CorpusFormatError, EmptyCorpusError), match=match):
        read_uci(write(tmp_path / "docword.txt", docword))


def test_uci_vocabulary_errors(tmp_path):
    path = write(tmp_path / "docword.txt", "1\n3\n1\n1 1 1\n")
    with pytest.raises(CorpusFormatError, match=r"no vocabulary found beside docword.txt .*pass vocab="):
        read_uci(path)
    write(tmp_path / "vocab.txt", "a\nb\n")
    with pytest.raises(CorpusFormatError, match=r"the vocabulary has 2 words but docword.txt has 3"):
        read_uci(path)
    write(tmp_path / "vocab.txt", "a\nb\na\n")
    with pytest.raises(CorpusFormatError, match=r"vocab.txt line 3: the word 'a' repeats line 1"):
        read_uci(path)
    write(tmp_path / "vocab.txt", "a\n\nc\n")
    with pytest.raises(CorpusFormatError, match=r"vocab.txt line 2: empty word"):
        read_vocabulary(tmp_path / "vocab.txt")


@pytest.mark.parametrize(
    ("ldac", "match"),
    [("2 0:1 1:1\n2 0:1\n", r"line 2: expected 'N id:count \.\.\.' with N pairs"),
     ("1 0:1\n\n1 1:1\n", "line 2: expected 'N id:count"),
     ("1 0:1\n1 1-1\n", "line 2: expected 'id:count' with a positive count, got '1-1'"),
     ("1 0:0\n", "line 1: expected 'id:count' with a positive count"),
     ("1 0:1\n1 2:1\n", "line 2: word id 2 is outside the vocabulary of 2 words"),
     ("2 1:1 1:2\n", "line 1: word id 1 appears twice")],
)
def test_ldac_errors_name_the_line(tmp_path, ldac, match):
    write(tmp_path / "vocab.txt", "a\nb\n")
    with pytest.raises(CorpusFormatError, match=match):
        read_ldac(write(tmp_path / "bad.dat", ldac))


def test_mtx_errors(tmp_path):
    with pytest.raises(CorpusFormatError, match="not a valid Matrix Market file"):
        read_mtx(write(tmp_path / "bad.mtx", "this is not matrix market\n"))
    real = "%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 0.5\n2 2 1\n"
    with pytest.raises(CorpusFormatError, match=r"real.mtx: counts must be whole numbers"):
        read_mtx(write(tmp_path / "real.mtx", real))
    write(tmp_path / "vocab.txt", "a\nb\nc\n")
    with pytest.raises(CorpusFormatError, match=r"the vocabulary has 3 words but real.mtx has 2"):
        read_mtx(tmp_path / "real.mtx")


def test_mtx_accepts_integral_real_and_dense_arrays(tmp_path):
    real = "%%MatrixMarket matrix coordinate real general\n2 3 2\n1 1 2.0\n2 3 1\n"
    assert same_counts(read_mtx(write(tmp_path / "a.mtx", real)), [[2, 0, 0], [0, 0, 1]])
    dense = "%%MatrixMarket matrix array integer general\n2 1\n4\n5\n"
    assert same_counts(read_mtx(write(tmp_path / "b.mtx", dense)), [[4], [5]])


def test_large_uci_file_uses_the_fast_parser(tmp_path):
    rng = np.random.default_rng(0)
    counts = sp.random(400, 300, density=0.1, format="csr", random_state=rng,
                       data_rvs=lambda n: rng.integers(1, 9, n)).astype(np.int64)
    counts[np.diff(counts.indptr) == 0, 0] = 1  # no empty documents
    corpus = Corpus.from_counts(counts)
    write_uci(corpus, tmp_path / "docword.txt", tmp_path / "vocab.txt")
    assert (read_uci(tmp_path / "docword.txt").counts != corpus.counts).nnz == 0

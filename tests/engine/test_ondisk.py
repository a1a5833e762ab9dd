"""Tests of engine/data/ondisk.py: disk corpora built by streaming equal the in-memory readers."""

from __future__ import annotations

import gzip
import json
import pickle
import zipfile

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import engine
from engine.data import _disk_format, ondisk
from engine.data.corpus import Corpus
from engine.data.ondisk import DiskCorpus
from engine.errors import CorpusFormatError, EmptyVocabularyError
from tests.engine._disk import assert_same_csr, disk_counts

TEXTS = {
    "a.txt": "The quick brown fox jumps over the lazy dog. The dog sleeps.",
    "b.txt": "",
    "c.txt": "Café RÉSUMÉ naïve café; the fox and the dog are friends",
    "d.txt": "a 1 2 3 it is",  # nothing left after tokenisation and stop words
    "sub/e.txt": "Dogs and foxes, dogs and foxes: brown dogs everywhere",
    "sub/f.txt": "brown brown BROWN fox quick quick",
    "sub/z/g.txt": "lazy summer evenings with a quick brown fox",
    "a-b/h.txt": "résumé of the lazy dog",
    "notes.css": "not a text document",
}
OPTIONS = [
    {},
    {"min_df": 2, "max_df": 0.8},
    {"max_features": 4},
    {"stop_words": None, "extra_stop_words": ["fox"], "min_df": 0.2},
]


def write_folder(root, files=TEXTS):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def assert_same(disk: DiskCorpus, corpus: Corpus) -> None:
    memory = disk.subset_to_memory(np.arange(disk.n_docs))
    assert disk.vocabulary == corpus.vocabulary
    assert memory.counts.shape == corpus.counts.shape
    assert np.array_equal(memory.counts.toarray(), corpus.counts.toarray())
    assert disk.doc_ids == corpus.doc_ids
    assert disk.dropped == corpus.dropped and disk.skipped == corpus.skipped
    assert (disk.n_tokens, disk.nnz) == (corpus.n_tokens, corpus.counts.nnz)


# ----------------------------------------------------------------- building
@pytest.mark.parametrize("options", OPTIONS)
def test_texts_from_folder_equal_corpus_from_texts(tmp_path, options):
    source = write_folder(tmp_path / "texts")
    disk = DiskCorpus.from_texts(source, tmp_path / "disk", chunk_size=2, **options)
    assert_same(disk, engine.load_corpus(source, **options))
    assert_same(DiskCorpus.open(tmp_path / "disk"), engine.load_corpus(source, **options))


@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("chunk_size", [1, 3, 100])
def test_copies_are_left_out_as_the_in_memory_corpus_leaves_them(tmp_path, options, chunk_size):
    files = {**TEXTS, "sub/z/a-again.txt": "the QUICK brown fox jumps over the lazy dog -- the dog sleeps!",
             "x/d-again.txt": "A 1 2 3, it is.",  # a copy of a text without words: dropped as it is
             "x/g-again.txt": TEXTS["sub/z/g.txt"], "x/g-twice.txt": TEXTS["sub/z/g.txt"] + "\n"}
    source = write_folder(tmp_path / "texts", files)
    disk = DiskCorpus.from_texts(source, tmp_path / "disk", chunk_size=chunk_size, keep_copies=False, **options)
    memory = engine.load_corpus(source, keep_copies=False, **options)
    assert_same(disk, memory)
    assert sorted((d.doc_id, d.copy_of) for d in disk.copies) == sorted(
        (d.doc_id, d.copy_of) for d in memory.copies) and len(disk.copies) == 3
    # the views by why a document was left out are the in-memory corpus' (one class gives both)
    assert sorted(disk.emptied) == sorted(memory.emptied) and len(disk.emptied) >= 1
    assert disk.near_copies == disk.left_out == () == memory.near_copies == memory.left_out
    assert disk.manifest["source"]["options"]["keep_copies"] is False
    every = DiskCorpus.from_texts(source, tmp_path / "every", chunk_size=chunk_size, **options)
    assert every.copies == () and every.n_docs == disk.n_docs + 3
    with pytest.raises(TypeError, match="keep_copies must be True or False"):
        DiskCorpus.from_texts(source, tmp_path / "none", keep_copies=None)


@pytest.mark.parametrize("keep_copies", [True, False])
@pytest.mark.parametrize("chunk_size", [1, 3, 100])
def test_documents_left_out_are_left_out_as_the_in_memory_corpus_leaves_them(tmp_path, keep_copies, chunk_size):
    """leave_out: the vocabulary is learned without the documents named (min_df=2 keeps "lighthouse" only with
    them), each is listed first in dropped, and without keep_copies their copies go with them, listed as theirs."""
    files = {"a.txt": "the lighthouse keeper rows home", "b.txt": "a lighthouse keeper of bees rows",
             "c.txt": "bees and honey at home", "d.txt": "The lighthouse keeper rows home!",
             "e.txt": "the keeper rows bees home", "f.txt": "", "g.txt": "bees and honey at home"}
    source = write_folder(tmp_path / "texts", files)
    options = {"min_df": 2, "keep_copies": keep_copies, "leave_out": iter(["a.txt", "f.txt"])}
    disk = DiskCorpus.from_texts(source, tmp_path / "disk", chunk_size=chunk_size, **options)
    memory = engine.load_corpus(source, **{**options, "leave_out": ["a.txt", "f.txt"]})
    assert_same(disk, memory)
    assert [d.doc_id for d in disk.left_out] == ["a.txt", "f.txt"] and disk.dropped[:2] == disk.left_out
    # in a.txt, its copy d.txt and b.txt: without a.txt, twice if the copy stays, once if it goes with a.txt
    assert ("lighthouse" in disk.vocabulary) == keep_copies
    assert [(d.doc_id, d.copy_of) for d in disk.copies] == ([] if keep_copies else
                                                            [("d.txt", "a.txt"), ("g.txt", "c.txt")])
    assert DiskCorpus.open(tmp_path / "disk").left_out == disk.left_out
    assert disk.manifest["source"]["options"]["leave_out"] == ["a.txt", "f.txt"]


def test_leave_out_takes_every_passage_of_a_document_in_a_table_as_in_memory(tmp_path):
    long_text = "\n\n".join(f"paragraph {i} about lighthouse keepers and their boats at sea" for i in range(40))
    frame = pd.DataFrame({"key": ["book", "n1", "n2", "n3"],
                          "text": [long_text, "bees make honey in summer meadows",
                                   "honey bees and summer flowers in meadows", "boats at sea with bees"]})
    frame.to_csv(tmp_path / "docs.csv", index=False)
    options = {"id_column": "key", "passage_words": 50, "leave_out": ["book"]}
    disk = DiskCorpus.from_texts(tmp_path / "docs.csv", tmp_path / "disk", chunk_size=2, **options)
    memory = engine.load_corpus(tmp_path / "docs.csv", **options)
    assert_same(disk, memory)
    assert disk.doc_ids == ("n1", "n2", "n3") and [d.doc_id for d in disk.left_out] == ["book"]
    assert "lighthouse" not in disk.vocabulary


def test_leave_out_errors_match_the_in_memory_corpus_and_write_nothing(tmp_path):
    source = write_folder(tmp_path / "texts", {"a.txt": "bees make honey", "b.txt": "boats at sea",
                                               "c.txt": "Bees make honey!"})
    cases = [(["7.txt", "a.txt"], {}, ValueError, r"1 id\(s\) of no document: '7\.txt'"),
             (["a.txt", "b.txt", "c.txt"], {}, engine.EmptyCorpusError, "leave at least one in"),
             (["a.txt", "b.txt"], {"keep_copies": False}, engine.EmptyCorpusError, "leaves no document with text"),
             ("a.txt", {}, TypeError, "not one string"),
             ([1], {}, TypeError, "leave_out must be strings")]
    for leave_out, options, error, message in cases:
        with pytest.raises(error, match=message):
            engine.load_corpus(source, leave_out=leave_out, **options)
        with pytest.raises(error, match=message):
            DiskCorpus.from_texts(source, tmp_path / "none", leave_out=leave_out, **options)
        assert not (tmp_path / "none").exists()
    assert not [path for path in tmp_path.iterdir() if path.name != "texts"]  # no half-written folder either


def test_texts_from_zip_csv_and_jsonl_equal_the_readers(tmp_path):
    with zipfile.ZipFile(tmp_path / "docs.zip", "w") as archive:
        for name, text in TEXTS.items():
            archive.writestr(name, text)
        archive.writestr("__MACOSX/._a.txt", "junk")
    disk = DiskCorpus.from_texts(tmp_path / "docs.zip", tmp_path / "from_zip", chunk_size=3, min_df=2)
    assert_same(disk, engine.load_corpus(tmp_path / "docs.zip", min_df=2))
    frame = pd.DataFrame({"key": [f"k{i}" for i in range(len(TEXTS))], "body": list(TEXTS.values())})
    frame.to_csv(tmp_path / "docs.csv", index=False)
    disk = DiskCorpus.from_texts(tmp_path / "docs.csv", tmp_path / "from_csv", text_column="body",
                                 id_column="key", chunk_size=2)
    assert_same(disk, engine.load_corpus(tmp_path / "docs.csv", "body", id_column="key"))
    frame.to_json(tmp_path / "docs.jsonl", orient="records", lines=True)
    disk = DiskCorpus.from_texts(tmp_path / "docs.jsonl", tmp_path / "from_jsonl", text_column="body",
                                 chunk_size=4, max_features=3)
    assert_same(disk, engine.load_corpus(tmp_path / "docs.jsonl", "body", max_features=3))


def test_texts_errors_match_the_in_memory_corpus(tmp_path):
    source = write_folder(tmp_path / "texts")
    with pytest.raises(EmptyVocabularyError, match="no word is left"):
        DiskCorpus.from_texts(source, tmp_path / "none", min_df=50)
    with pytest.raises(ValueError, match="allows fewer documents than min_df"):
        DiskCorpus.from_texts(source, tmp_path / "none", min_df=3, max_df=2)
    with pytest.raises(TypeError, match="unknown tokenizer options"):
        DiskCorpus.from_texts(source, tmp_path / "none", lowercase=False)
    with pytest.raises(TypeError, match=r"^near_copies is an option of Corpus\.from_texts only: near-copies are"):
        DiskCorpus.from_texts(source, tmp_path / "none", keep_copies=False, near_copies=0.8)
    with pytest.raises(TypeError, match=r"^near_copies is an option of Corpus\.from_texts only"):
        DiskCorpus.from_texts(source, tmp_path / "none", near_copies=0.8, leave_out=["a.txt"])
    (tmp_path / "dup.csv").write_text("id,text\nx,dog\nx,cat\n", encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="repeats the id 'x'"):
        DiskCorpus.from_texts(tmp_path / "dup.csv", tmp_path / "none", id_column="id")
    assert not (tmp_path / "none").exists()


FRENCH = {
    "a.txt": "Le pêcheur et la pêche: une pêche au bord de la mer, sans péché.",
    "b.txt": "Le péché du pêcheur est la pêche interdite; nous avons péché.",
    "c.txt": "La mer et le bateau du pêcheur, à l'aube, avec le filet.",
}


@pytest.mark.parametrize("options", [{"stop_words": "french"}, {"strip_accents": False},
                                     {"stop_words": "fr", "strip_accents": False, "min_df": 2},
                                     {"stop_words": "auto"}, {"stop_words": "auto", "strip_accents": "auto"}])
def test_languages_and_accents_equal_corpus_from_texts_and_are_recorded(tmp_path, options):
    source = write_folder(tmp_path / "texts", FRENCH)
    disk = DiskCorpus.from_texts(source, tmp_path / "disk", chunk_size=2, **options)
    corpus = Corpus.from_texts([FRENCH[name] for name in sorted(FRENCH)], ids=sorted(FRENCH), **options)
    assert_same(disk, corpus)
    assert disk.vectorizer == corpus.vectorizer and disk.vectorizer is not None
    if options.get("stop_words") == "auto":
        assert disk.vectorizer.stop_words == "french"  # guessed, and recorded as the language
    if options.get("strip_accents") in (False, "auto"):  # "auto": French stop words, so accents kept
        assert {"pêche", "péché"} <= set(disk.vocabulary) and disk.vectorizer.strip_accents is False
    reopened = DiskCorpus.open(tmp_path / "disk")
    assert reopened.vectorizer == corpus.vectorizer
    assert pickle.loads(pickle.dumps(reopened)).vectorizer == corpus.vectorizer
    assert disk.subset_to_memory([0]).vectorizer == corpus.vectorizer
    assert DiskCorpus.from_counts(corpus, tmp_path / "copy").vectorizer == corpus.vectorizer


@pytest.mark.parametrize("as_zip", [False, True])
def test_a_folder_or_archive_is_sampled_evenly_for_its_language_and_boilerplate(tmp_path, as_zip, monkeypatch):
    """English pages first, then French ones that end with a footer: the first documents would show neither."""
    from tests.engine.test_language import TEXTS

    footer = ("This page was translated by volunteers of the parish translation team.\n"
              "Report mistakes in the translation to the team's mailing list.")
    files = {f"en/{i:04d}.txt": f"{TEXTS['english']} Page {i}." for i in range(600)}
    files.update({f"fr/{i:04d}.txt": f"{TEXTS['french']} Page {i}.\n\n{footer}" for i in range(80)})
    folder = write_folder(tmp_path / "pages", files)
    source = folder
    if as_zip:
        source = tmp_path / "pages.zip"
        with zipfile.ZipFile(source, "w") as archive:
            for name, text in files.items():
                archive.writestr(name, text)
    read = []
    real = ondisk._text_documents

    def counting(*args, **kwargs):
        for document in real(*args, **kwargs):
            read.append(document[0])
            yield document

    monkeypatch.setattr(ondisk, "_text_documents", counting)
    disk = DiskCorpus.from_texts(source, tmp_path / "disk", stop_words="auto")
    assert disk.vectorizer.stop_words == "english+french"
    assert sorted(disk.vectorizer.boilerplate) == sorted(footer.splitlines())
    sample = read[: len(read) - 2 * len(files)]  # before the two passes: the sample only
    assert len(sample) == 500 and sample[0] == "en/0000.txt" and sample[-1] == "fr/0079.txt"
    assert sum(name.startswith("fr/") for name in sample) in (58, 59)  # 80 of 680 files: an even spread
    memory = Corpus.from_texts([files[name] for name in sorted(files)], ids=sorted(files), stop_words="auto")
    assert memory.vectorizer == disk.vectorizer
    assert_same(disk, memory)


def test_a_table_is_sampled_evenly_in_one_pass_holding_at_most_twice_the_sample():
    def stream(n_texts, size):
        for start in range(0, n_texts, size):
            texts = [f"text {i}" for i in range(start, min(n_texts, start + size))]
            yield texts, texts, texts

    for n_texts, n, size in [(0, 5, 3), (4, 5, 3), (5, 5, 2), (1000, 10, 7), (999, 500, 100), (12345, 500, 1000)]:
        picked = [int(text.split()[1]) for text in ondisk._spread_texts(stream(n_texts, size), n)]
        assert len(picked) == min(n, n_texts) and picked == sorted(set(picked))
        if n_texts > n:
            assert picked[0] == 0 and picked[-1] >= n_texts - 2 * n_texts // n  # from the first to near the last
            gaps = np.diff(picked)
            assert gaps.max() <= 2 * gaps.min() + 1  # evenly: no gap more than about twice another


def test_a_table_is_sampled_over_all_its_rows_for_its_language(tmp_path):
    from tests.engine.test_language import TEXTS

    rows = [{"text": f"{TEXTS['english']} Row {i}."} for i in range(600)]
    rows += [{"text": f"{TEXTS['french']} Ligne {i}."} for i in range(80)]
    pd.DataFrame(rows).to_csv(tmp_path / "rows.csv", index=False)
    disk = DiskCorpus.from_texts(tmp_path / "rows.csv", tmp_path / "disk", stop_words="auto", chunk_size=64)
    assert disk.vectorizer.stop_words == "english+french"  # the French rows all come after the first 500


def test_a_folder_written_before_the_vectorizer_was_recorded_opens(tmp_path):
    DiskCorpus.from_texts(write_folder(tmp_path / "texts", FRENCH), tmp_path / "disk", stop_words="french")
    manifest_path = tmp_path / "disk" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    del manifest["vectorizer"]
    manifest_path.write_text(json.dumps(manifest))
    old = DiskCorpus.open(tmp_path / "disk")
    assert old.vectorizer is None and old.subset_to_memory([0]).vectorizer is None
    model = engine.LDA(n_topics=2, seed=0, n_epochs=1).fit(old)
    assert "vectorizer_" not in model.__dict__
    assert model.transform_texts([FRENCH["a.txt"]]).shape == (1, 2)  # counted with the defaults


def test_a_stored_token_pattern_is_checked_unless_trusted(tmp_path):
    source = write_folder(tmp_path / "texts", FRENCH)
    disk = DiskCorpus.from_texts(source, tmp_path / "disk", token_pattern=r"(?u)\b\w{3,}\b")
    assert disk.vectorizer.token_pattern == r"(?u)\b\w{3,}\b"
    assert pickle.loads(pickle.dumps(disk)).vectorizer == disk.vectorizer  # opened trusted: its copies too
    with pytest.raises(CorpusFormatError, match=r"token_pattern .* is not one this project writes"):
        DiskCorpus.open(tmp_path / "disk")
    assert DiskCorpus.open(tmp_path / "disk", trust_token_pattern=True).vectorizer == disk.vectorizer
    manifest_path = tmp_path / "disk" / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    manifest["vectorizer"] = {"stop_words": "klingon"}
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(CorpusFormatError, match="unusable preprocessing settings"):
        DiskCorpus.open(tmp_path / "disk")


def uci_file(path, lines, header=(6, 5, None)):
    n_docs, n_words, nnz = header
    nnz = len(lines) if nnz is None else nnz
    text = f"{n_docs}\n{n_words}\n{nnz}\n" + "".join(f"{line}\n" for line in lines)
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return path


# documents 2 and 6 have no entries; words are unsorted within documents
UCI_LINES = ["1 3 2", "1 1 1", "3 5 4", "3 2 1", "3 4 7", "4 1 1", "5 5 2", "5 4 1", "5 1 9", "5 2 1"]


@pytest.mark.parametrize("suffix", [".txt", ".txt.gz"])
@pytest.mark.parametrize("chunk_size", [1, 2, 3, 100])
def test_uci_equals_read_uci(tmp_path, suffix, chunk_size):
    (tmp_path / "vocab.toy.txt").write_text("alpha\nbeta\ngamma\ndelta\népsilon\n", encoding="utf-8")
    docword = uci_file(tmp_path / f"docword.toy{suffix}", UCI_LINES)
    disk = DiskCorpus.from_uci(docword, tmp_path / "disk", chunk_size=chunk_size)
    assert_same(disk, engine.read_uci(docword))
    assert disk.doc_ids == ("1", "3", "4", "5") and [d.doc_id for d in disk.dropped] == ["2", "6"]


@pytest.mark.parametrize(
    ("lines", "header", "match"),
    [
        (["1 1 1", "3 1 1", "2 1 1"], (6, 5, None), "sorted by docID"),
        (["1 1 1", "1 2 1", "1 1 4"], (6, 5, None), "appears twice"),
        (["1 1 1", "1 9 1"], (2, 5, None), "wordID 9 is outside"),
        (["1 1 1", "1 2 0"], (2, 5, None), "count 0 is outside"),
        (["1 1 1", "1 2 1000000"], (2, 5, 3), "announces NNZ=3"),  # long enough for 3 entries
        (["1 1 1", "1 2 x"], (2, 5, None), "cannot parse"),
    ],
)
def test_malformed_uci_is_rejected_and_leaves_nothing(tmp_path, lines, header, match):
    (tmp_path / "vocab.txt").write_text("a\nb\nc\nd\ne\n")
    docword = uci_file(tmp_path / "docword.bad.txt", lines, header)
    with pytest.raises(CorpusFormatError, match=match):
        DiskCorpus.from_uci(docword, tmp_path / "out" / "disk", chunk_size=1)
    assert list((tmp_path / "out").iterdir()) == []  # no target, no half-built hidden folder


def test_failure_midway_leaves_no_target(tmp_path, monkeypatch):
    source = write_folder(tmp_path / "texts")
    calls = []

    def failing(*args):
        calls.append(1)
        if len(calls) == 2:
            raise RuntimeError("disk full")
        return real(*args)

    real = ondisk._count_chunk
    monkeypatch.setattr(ondisk, "_count_chunk", failing)
    with pytest.raises(RuntimeError, match="disk full"):
        DiskCorpus.from_texts(source, tmp_path / "out" / "disk", chunk_size=2)
    assert list((tmp_path / "out").iterdir()) == []


def test_overwrite_replaces_only_disk_corpora(tmp_path):
    first = DiskCorpus.from_counts(np.array([[1, 0], [2, 3]]), tmp_path / "disk")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        DiskCorpus.from_counts(np.array([[1, 1]]), tmp_path / "disk")
    second = DiskCorpus.from_counts(np.array([[1, 1]]), tmp_path / "disk", overwrite=True)
    assert (first.n_docs, second.n_docs) == (2, 1)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["disk"]
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "precious.txt").write_text("keep me")
    with pytest.raises(FileExistsError, match="not a disk corpus"):
        DiskCorpus.from_counts(np.array([[1, 1]]), tmp_path / "other", overwrite=True)
    assert (tmp_path / "other" / "precious.txt").exists()


def test_files_are_plain_npy_and_a_manifest(tmp_path):
    counts = sp.random(40, 30, density=0.2, format="csr", random_state=0, data_rvs=lambda n: np.arange(1, n + 1))
    corpus = Corpus.from_counts(counts)
    disk = DiskCorpus.from_counts(corpus, tmp_path / "disk", chunk_size=7)
    manifest = json.loads((tmp_path / "disk" / "manifest.json").read_text())
    assert manifest["format"] == "engine-disk-corpus" and manifest["version"] == 1
    assert (manifest["n_docs"], manifest["n_words"], manifest["nnz"], manifest["n_tokens"]) == (
        corpus.n_docs, corpus.n_words, corpus.counts.nnz, corpus.n_tokens)
    assert manifest["dtypes"] == {"indptr": "int64", "indices": "int32", "data": "int32"}
    for name, array in (("indptr", corpus.counts.indptr), ("indices", corpus.counts.indices),
                        ("data", corpus.counts.data)):
        loaded = np.load(tmp_path / "disk" / f"{name}.npy", mmap_mode="r")
        assert isinstance(loaded, np.memmap) and np.array_equal(loaded, array)
    assert_same(disk, corpus)


# ------------------------------------------------------------------ reading
@pytest.fixture
def csr_with_empty_rows():
    rng = np.random.default_rng(3)
    dense = rng.poisson(0.4, size=(60, 25)) * (rng.random((60, 1)) < 0.8)  # about a fifth of the rows empty
    dense[-1] = 0
    return sp.csr_matrix(dense)


def test_row_gathering_equals_csr_indexing(tmp_path, csr_with_empty_rows):
    matrix = csr_with_empty_rows
    counts = disk_counts(tmp_path, matrix)
    assert counts.shape == matrix.shape and counts.nnz == matrix.nnz
    rng = np.random.default_rng(0)
    empty_rows = np.flatnonzero(np.diff(matrix.indptr) == 0)
    keys = [rng.integers(0, 60, size=n) for n in (1, 7, 60, 200)]  # with repeats
    keys += [empty_rows, np.repeat(empty_rows, 3), rng.permutation(60), np.array([], dtype=np.int64),
             np.array([-1, -60, 0, 59]), rng.random(60) < 0.5, [3, 3, 3], np.arange(60, dtype=np.uint32)]
    keys += [slice(None), slice(5, 17), slice(50, 70), slice(10, 2), slice(None, None, 7), slice(None, None, -3)]
    for key in keys:
        assert_same_csr(counts[key], matrix[key])
    for index in (0, 17, -1):
        assert_same_csr(counts[index], matrix[[index]])
    with pytest.raises(IndexError, match="out of range"):
        counts[[0, 60]]
    with pytest.raises(IndexError, match="rows only"):
        counts[0, 1]
    assert np.array_equal(counts.row_sums(), matrix.sum(axis=1).A1)


def test_subset_to_memory_equals_corpus_subset(tmp_path):
    corpus = engine.load_corpus(write_folder(tmp_path / "texts"))
    disk = DiskCorpus.from_counts(corpus, tmp_path / "disk")
    for rows in ([2, 0], [1], slice(1, None)):
        got, expected = disk.subset_to_memory(rows), corpus.subset(np.arange(corpus.n_docs)[rows])
        assert np.array_equal(got.counts.toarray(), expected.counts.toarray())
        assert got.doc_ids == expected.doc_ids and got.vocabulary == expected.vocabulary


# --------------------------------------------------------------- validation
def resave(name, change):
    def damage(folder):
        array = np.load(folder / f"{name}.npy")
        np.save(folder / f"{name}.npy", change(array.copy()))
    return damage


def set_at(index, value):
    def change(array):
        array[index] = value
        return array
    return change


def edit_manifest(**fields):
    def damage(folder):
        manifest = json.loads((folder / "manifest.json").read_text())
        (folder / "manifest.json").write_text(json.dumps({**manifest, **fields}))
    return damage


DAMAGES = {
    "missing manifest": (lambda f: (f / "manifest.json").unlink(), "manifest.json is missing"),
    "manifest not json": (lambda f: (f / "manifest.json").write_text("{oops"), "not valid JSON"),
    "foreign format": (edit_manifest(format="something-else"), "not a version-1"),
    "bad count": (edit_manifest(n_docs=-3), "n_docs=-3"),
    "missing indices": (lambda f: (f / "indices.npy").unlink(), "indices.npy is missing"),
    "not npy": (lambda f: (f / "data.npy").write_bytes(b"garbage"), "data.npy is not a valid .npy"),
    "wrong size": (resave("indices", lambda a: a[:-1]), "indices.npy holds int32 of shape"),
    "wrong dtype": (resave("data", lambda a: a.astype(np.int64)), "data.npy holds int64"),
    "indptr end": (resave("indptr", set_at(-1, 3)), "indptr.npy runs from 0 to 3"),
    "not monotone": (resave("indptr", set_at(2, 1)), "not monotone"),
    "empty row": (resave("indptr", lambda a: set_at(2, a[1])(a)), "row 1 is empty"),
    "index out of range": (resave("indices", set_at(4, 30)), "word 30, outside \\[0, 30\\)"),
    "unsorted in row": (resave("indices", lambda a: np.concatenate([a[:1], a[1:3][::-1], a[3:]])), "not sorted"),
    "unsorted across pieces": (resave("indices", lambda a: np.concatenate([a[:4], a[4:6][::-1], a[6:]])),
                               "not sorted"),
    "zero count": (resave("data", set_at(5, 0)), "count 0"),
    "token total": (edit_manifest(n_tokens=1), "sums to"),
    "vocabulary size": (lambda f: (f / "vocab.txt").write_text("only\nthree\nwords\n"), "vocab.txt has 3 lines"),
    "missing vocabulary": (lambda f: (f / "vocab.txt").unlink(), "vocab.txt is missing"),
}


@pytest.mark.parametrize("scan", [None, 5])
@pytest.mark.parametrize("damage", list(DAMAGES))
def test_damaged_folders_are_rejected(tmp_path, monkeypatch, damage, scan):
    if scan:  # the full check reads the arrays in pieces of 5 entries: damage across piece boundaries
        monkeypatch.setattr(_disk_format, "_SCAN", scan)
    rng = np.random.default_rng(1)
    counts = rng.poisson(1.0, size=(20, 30)) + (np.arange(30) == 0)  # no empty rows, several words per row
    DiskCorpus.from_counts(counts, tmp_path / "disk")
    DiskCorpus.open(tmp_path / "disk")  # intact
    act, match = DAMAGES[damage]
    act(tmp_path / "disk")
    with pytest.raises(CorpusFormatError, match=match):
        DiskCorpus.open(tmp_path / "disk")


def test_open_rejects_a_missing_folder(tmp_path):
    with pytest.raises(CorpusFormatError, match="is not a folder"):
        DiskCorpus.open(tmp_path / "nowhere")


def test_pickling_reopens_the_folder(tmp_path):
    disk = DiskCorpus.from_counts(np.array([[1, 0, 2], [0, 3, 0]]), tmp_path / "disk", vocabulary=["a", "b", "c"])
    copy = pickle.loads(pickle.dumps(disk))
    assert len(pickle.dumps(disk)) < 500 and isinstance(copy.counts.data, np.memmap)
    assert copy.vocabulary == ("a", "b", "c") and np.array_equal(copy.counts[:].toarray(), [[1, 0, 2], [0, 3, 0]])


# ----------------------------------------------------------------- training
def test_svi_on_a_disk_corpus_matches_svi_in_memory(tmp_path, planted_corpus):
    disk = DiskCorpus.from_counts(planted_corpus.counts, tmp_path / "disk")
    memory = disk.subset_to_memory(slice(None)).counts
    on_disk, in_memory = (engine.LDA(planted_corpus.n_topics, disk.n_words, seed=0) for _ in range(2))
    trainer = engine.SVI(on_disk, disk, batch_size=16, seed=3)
    reference = engine.SVI(in_memory, memory, batch_size=16, seed=3)
    report = trainer.run(n_steps=4)
    reference.run(n_steps=4)
    assert report.t == 4 and trainer.docs_seen == reference.docs_seen == 4 * report.batch_size < 64  # first pass
    assert np.array_equal(on_disk.lambda_, in_memory.lambda_)


def test_the_documents_start_reads_its_documents_from_a_disk_corpus_as_from_memory(tmp_path, planted_corpus):
    disk = DiskCorpus.from_counts(planted_corpus.counts, tmp_path / "disk")
    memory = disk.subset_to_memory(slice(None)).counts
    on_disk, in_memory = (engine.HDP(12, 3, disk.n_words, seed=0, topic_init="documents") for _ in range(2))
    engine.SVI(on_disk, disk, batch_size=16, seed=3)
    engine.SVI(in_memory, memory, batch_size=16, seed=3)
    assert np.array_equal(on_disk.lambda_, in_memory.lambda_)
    plain = engine.HDP(12, 3, disk.n_words, seed=0)
    engine.SVI(plain, memory, batch_size=16, seed=3)
    assert not np.array_equal(plain.lambda_, in_memory.lambda_)  # the documents did lean the start


def test_the_clusters_start_reads_its_documents_from_a_disk_corpus_as_from_memory(tmp_path, planted_corpus):
    disk = DiskCorpus.from_counts(planted_corpus.counts, tmp_path / "disk")
    memory = disk.subset_to_memory(slice(None)).counts
    on_disk, in_memory = (engine.LDA(8, disk.n_words, seed=0, topic_init="clusters") for _ in range(2))
    engine.SVI(on_disk, disk, batch_size=16, seed=3)
    engine.SVI(in_memory, memory, batch_size=16, seed=3)
    assert np.array_equal(on_disk.lambda_, in_memory.lambda_)
    plain = engine.LDA(8, disk.n_words, seed=0)
    engine.SVI(plain, memory, batch_size=16, seed=3)
    added = in_memory.lambda_ - plain.lambda_  # the clusters' word counts: the corpus's tokens, once
    np.testing.assert_allclose(added.sum(), memory.sum(), rtol=1e-9)


@pytest.mark.parametrize("model_class", [engine.LDA, engine.HDP])
def test_a_model_fitted_on_a_disk_corpus_counts_new_text_like_its_training_text(tmp_path, model_class):
    source = write_folder(tmp_path / "texts", FRENCH)
    disk = DiskCorpus.from_texts(source, tmp_path / "disk", stop_words="french", strip_accents=False)
    options = {"n_topics": 2} if model_class is engine.LDA else {"n_topics": 3, "doc_truncation": 2}
    model = model_class(seed=0, n_epochs=2, **options).fit(disk)
    assert model.vectorizer_ == disk.vectorizer
    for row, name in enumerate(sorted(FRENCH)):
        np.testing.assert_array_equal(model.transform_texts([FRENCH[name]]), model.transform(disk.counts[[row]]))
    engine.save_model(tmp_path / "model.npz", model)
    loaded = engine.load_model(tmp_path / "model.npz").model
    assert loaded.vectorizer_ == disk.vectorizer
    np.testing.assert_array_equal(loaded.transform_texts([FRENCH["b.txt"]]), loaded.transform(disk.counts[[1]]))

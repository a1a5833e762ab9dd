"""Copies: engine.find_copies against a brute-force comparison of rows, and Corpus.without_copies /
Corpus.from_texts(keep_copies=False) keeping one document of each group and listing the others; documents left
out by Corpus.from_texts(leave_out=...)."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine import Corpus, CorpusFormatError, find_copies, find_text_copies


def brute_force_first(dense: np.ndarray) -> np.ndarray:
    """The first earlier row equal to each row, by comparing every pair (an empty row is its own)."""
    first = np.arange(dense.shape[0])
    for d in range(dense.shape[0]):
        if not dense[d].any():
            continue
        for e in range(d):
            if np.array_equal(dense[e], dense[d]):
                first[d] = e
                break
    return first


@pytest.mark.parametrize("seed", range(8))
def test_find_copies_matches_brute_force(seed):
    rng = np.random.default_rng(seed)
    base = rng.poisson(0.4, size=(12, 9))
    rows = rng.integers(0, 12, size=40)  # many rows drawn from a few: copies, and copies of copies
    dense = base[rows]
    dense[rng.random(40) < 0.1] = 0  # empty documents are nobody's copy
    first = find_copies(sp.csr_matrix(dense))
    np.testing.assert_array_equal(first, brute_force_first(dense))
    assert (first <= np.arange(40)).all()
    np.testing.assert_array_equal(find_copies(dense), first)  # dense input: the same
    np.testing.assert_array_equal(find_copies(dense.astype(float)), first)


def test_find_copies_reads_rows_as_counts_not_as_stored():
    # the same row stored three ways: unsorted entries, a word split over two entries, an explicit zero
    indptr = np.array([0, 2, 5, 8, 10])
    indices = np.array([0, 3, 3, 0, 2, 0, 3, 1, 0, 3])
    data = np.array([2, 1, 1, 2, 0, 2, 0, 0, 1, 1])
    matrix = sp.csr_matrix((data, indices, indptr), shape=(4, 4))
    matrix.has_canonical_format = False  # as a user's matrix may be: left for find_copies to sum
    # rows: {0: 2, 3: 1}, {3: 1, 0: 2}, {0: 2, 3: 0, 1: 0} = {0: 2}, {0: 1, 3: 1}
    assert find_copies(matrix).tolist() == [0, 0, 2, 3]
    assert matrix.nnz == 10  # the caller's matrix is not changed


def test_find_copies_checks_its_input():
    with pytest.raises(ValueError, match="non-negative"):
        find_copies(np.array([[1, -1]]))
    with pytest.raises(ValueError, match="2-D"):
        find_copies(np.array([1, 2]))
    corpus = Corpus.from_counts(np.array([[1, 2], [1, 2], [0, 3]]))
    assert find_copies(corpus).tolist() == [0, 0, 2]


def test_without_copies_keeps_the_first_of_each_group_and_lists_the_others():
    counts = np.array([[1, 0, 2], [0, 1, 0], [1, 0, 2], [0, 1, 0], [1, 0, 2], [0, 0, 3]])
    corpus = Corpus.from_counts(counts, vocabulary=["a", "b", "c"], doc_ids=list("uvwxyz"),
                                titles=["U", "V", "W", "X", "Y", "Z"])
    kept = corpus.without_copies()
    assert kept.doc_ids == ("u", "v", "z")
    np.testing.assert_array_equal(kept.counts.toarray(), counts[[0, 1, 5]])
    assert [(d.doc_id, d.copy_of) for d in kept.copies] == [("w", "u"), ("x", "v"), ("y", "u")]
    assert kept.copies[0].reason == "a copy of “U”: the same words, each as often"
    assert kept.emptied == () and kept.dropped == kept.copies
    assert kept.without_copies() is kept  # nothing left to leave out
    assert corpus.without_copies().counts.shape == (3, 3)


def test_without_copies_keeps_empty_documents_listed_apart():
    corpus = Corpus.from_counts(np.array([[1, 1], [0, 0], [1, 1]]))
    kept = corpus.without_copies()
    assert kept.doc_ids == ("0",)
    assert [d.doc_id for d in kept.emptied] == ["1"]
    assert [d.doc_id for d in kept.copies] == ["2"]


def test_find_text_copies_compares_the_words_in_order():
    texts = ["The cat sat.", "the  CAT\nsat", "sat the cat", "The cat sat down.", "Report 1", "Report 2",
             "report 1!", "", "...", "Straße", "STRASSE"]
    assert find_text_copies(texts).tolist() == [0, 0, 2, 3, 4, 5, 4, 7, 8, 9, 10]
    assert find_text_copies(()).tolist() == []
    with pytest.raises(TypeError, match="texts must be strings"):
        find_text_copies(["a", None])


TEXTS = [
    "The cat sat on the mat with another cat.",
    "Dogs bark at the postman every morning.",
    "the CAT sat on the mat, with another cat!",  # the same words: a copy of 0
    "The cat sat on the rug with another cat.",  # "rug" for "mat": not a copy
    "",
    "<p>Dogs bark at the postman every morning.</p>",  # markup and stop words aside: a copy of 1
]


def test_from_texts_leaves_copies_out_when_asked():
    kept = Corpus.from_texts(TEXTS, titles=[f"t{i}" for i in range(6)], strip_markup=True, keep_copies=False)
    assert kept.doc_ids == ("0", "1", "3")
    assert kept.texts == (TEXTS[0], TEXTS[1], TEXTS[3])  # the kept documents' own texts
    assert [(d.doc_id, d.copy_of) for d in kept.copies] == [("2", "0"), ("5", "1")]
    assert [d.doc_id for d in kept.emptied] == ["4"]
    every = Corpus.from_texts(TEXTS, strip_markup=True)  # the default keeps every document
    assert every.doc_ids == ("0", "1", "2", "3", "5") and every.copies == ()
    assert kept.vocabulary == every.vocabulary
    with pytest.raises(TypeError, match="keep_copies must be True or False"):
        Corpus.from_texts(TEXTS, keep_copies="no")


def test_from_texts_tells_copies_apart_by_any_word_even_one_its_vocabulary_leaves_out():
    # rows 0, 1 and 3 count the same words once "fiji" and "tonga" are below min_df, but they are three entries
    texts = ["Fiji country code", "Tonga country code", "fiji: country code.", "country code"] + ["code word"] * 2
    kept = Corpus.from_texts(texts, min_df=3, keep_copies=False)
    assert kept.vocabulary == ("code", "country")  # "fiji", "tonga" and "word" in fewer than 3 documents
    assert kept.doc_ids == ("0", "1", "3", "4")
    assert [(d.doc_id, d.copy_of) for d in kept.copies] == [("2", "0"), ("5", "4")]
    assert kept.copies[0].reason == "a copy of “0”: the same words, in the same order"


def test_copies_are_left_out_before_the_vocabulary_is_chosen():
    # "lighthouse" is in one text and its two copies: three documents with the copies, one without
    texts = ["the lighthouse keeper rows home", "The lighthouse keeper rows home!", "the LIGHTHOUSE keeper rows home",
             "a keeper of bees rows", "bees and honey at home"]
    kept = Corpus.from_texts(texts, min_df=2, keep_copies=False)
    assert "lighthouse" not in kept.vocabulary and {"keeper", "rows", "home"} <= set(kept.vocabulary)
    assert "lighthouse" in Corpus.from_texts(texts, min_df=2).vocabulary
    # a copy of a text left without words is listed as that text is, not as a copy of a document kept
    empty = Corpus.from_texts(["the of and", "The, of AND", "bees rows"], keep_copies=False)
    assert [(d.doc_id, d.reason, d.copy_of) for d in empty.dropped] == [
        ("0", "no words left after tokenisation, stop words and min_df/max_df/max_features", None),
        ("1", "no words left after tokenisation, stop words and min_df/max_df/max_features", None)]


def test_copies_survive_save_and_load(tmp_path):
    kept = Corpus.from_texts(TEXTS, keep_copies=False)
    loaded = Corpus.load(kept.save(tmp_path / "c"))
    assert loaded.dropped == kept.dropped and loaded.copies == kept.copies
    # a corpus saved before copies were recorded: its dropped documents have no copy_of
    meta = json.loads((tmp_path / "c" / "corpus.json").read_text(encoding="utf-8"))
    for entry in meta["dropped"]:
        entry.pop("copy_of")
    (tmp_path / "c" / "corpus.json").write_text(json.dumps(meta), encoding="utf-8")
    old = Corpus.load(tmp_path / "c")
    assert old.copies == () and len(old.emptied) == len(kept.dropped)
    # a tampered entry is refused, not shown
    meta["dropped"][0]["copy_of"] = 5
    (tmp_path / "c" / "corpus.json").write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(CorpusFormatError, match="inconsistent corpus"):
        Corpus.load(tmp_path / "c")


def test_copy_index_finds_the_first_of_each_text_in_one_pass():
    from engine.data.copies import CopyIndex

    texts = ["The cat sat.", "the  CAT\nsat", "sat the cat", "", "...", "The cat sat.", "Report 1", "report 1!"]
    index = CopyIndex()
    found = [index.first(text, (d,)) for d, text in enumerate(texts)]
    assert found == [None, (0,), None, None, None, (0,), None, (6,)]  # the same groups as find_text_copies
    first = find_text_copies(texts)
    assert [d if of is None else of[0] for d, of in enumerate(found)] == first.tolist()
    with pytest.raises(ValueError, match="value must not be None"):
        index.first("a new text", None)


def test_documents_named_in_leave_out_are_left_out_before_the_vocabulary_is_chosen(tmp_path):
    """"lighthouse" is in the left-out text and one other: below min_df=2 without it, kept with it."""
    texts = ["the lighthouse keeper rows home", "a lighthouse keeper of bees rows", "bees and honey at home",
             "the keeper rows bees home"]
    every = Corpus.from_texts(texts, min_df=2)
    kept = Corpus.from_texts(texts, min_df=2, titles=["a", "b", "c", "d"], leave_out=iter(["0"]))
    assert "lighthouse" in every.vocabulary and "lighthouse" not in kept.vocabulary
    assert kept.doc_ids == ("1", "2", "3") and kept.texts == tuple(texts[1:])
    assert kept.left_out == (engine.DroppedDocument("0", "a", engine.LEFT_OUT_REASON),)
    assert kept.emptied == () and kept.copies == () and kept.dropped == kept.left_out
    assert Corpus.load(kept.save(tmp_path / "c")).left_out == kept.left_out


def test_leave_out_takes_every_passage_of_a_document_and_lists_it_once():
    long_text = "\n\n".join(f"paragraph {i} about lighthouse keepers and their boats at sea" for i in range(40))
    texts = [long_text, "bees make honey in summer meadows", "honey bees and summer flowers in meadows"]
    cut = Corpus.from_texts(texts, passage_words=50)
    assert sum(doc_id.startswith("0#") for doc_id in cut.doc_ids) > 1
    kept = Corpus.from_texts(texts, passage_words=50, leave_out=["0"])
    assert kept.doc_ids == ("1", "2") and [d.doc_id for d in kept.left_out] == ["0"]


def test_leave_out_refuses_ids_of_no_document_and_leaving_nothing():
    texts = ["bees make honey", "boats at sea"]
    with pytest.raises(ValueError, match=r"1 id\(s\) of no document: '7'"):
        Corpus.from_texts(texts, leave_out=["7", "0"])
    with pytest.raises(engine.EmptyCorpusError, match="leave at least one in"):
        Corpus.from_texts(texts, leave_out=["0", "1"])
    with pytest.raises(TypeError, match="not one string"):
        Corpus.from_texts(texts, leave_out="0")
    with pytest.raises(TypeError, match="leave_out must be strings"):
        Corpus.from_texts(texts, leave_out=[0])


def test_a_document_left_out_takes_its_copies_with_it():
    """Leaving out a text that two others repeat leaves those copies out too (listed as copies of it), instead of
    keeping the next copy in its place; a left-out copy of a kept text is listed as left out."""
    texts = ["the lighthouse keeper rows home", "bees make honey in summer", "The lighthouse keeper rows home!",
             "boats at sea in summer", "the lighthouse keeper, rows home", "Bees make honey in summer."]
    kept = Corpus.from_texts(texts, keep_copies=False, leave_out=["0", "5"])
    assert kept.doc_ids == ("1", "3")
    assert [d.doc_id for d in kept.left_out] == ["0", "5"]
    assert [(d.doc_id, d.copy_of) for d in kept.copies] == [("2", "0"), ("4", "0")]
    assert "lighthouse" not in kept.vocabulary
    every = Corpus.from_texts(texts, leave_out=["0"])  # copies kept: only the text named goes
    assert every.doc_ids == ("1", "2", "3", "4", "5") and every.copies == ()


def test_without_documents_leaves_rows_of_counts_out_and_lists_them():
    counts = sp.csr_matrix(np.array([[3, 0, 1], [0, 2, 0], [40, 1, 9], [1, 1, 1]]))
    corpus = Corpus.from_counts(counts, ["bee", "boat", "sea"], doc_ids=["a", "b", "c", "d"],
                                titles=["A", "B", "C", "D"])
    kept = corpus.without_documents(["c"])
    assert kept.doc_ids == ("a", "b", "d") and kept.vocabulary == corpus.vocabulary
    np.testing.assert_array_equal(kept.counts.toarray(), counts.toarray()[[0, 1, 3]])
    assert kept.left_out == (engine.DroppedDocument("c", "C", engine.LEFT_OUT_REASON),) and kept.emptied == ()
    assert corpus.without_documents([]) is corpus
    with pytest.raises(ValueError, match="1 id\\(s\\) of no document: 'z'"):
        corpus.without_documents(["z"])
    with pytest.raises(engine.EmptyCorpusError, match="leave at least one in"):
        corpus.without_documents(["a", "b", "c", "d"])


# near-copies ---------------------------------------------------------------------------------------------------


def brute_force_near(texts: list[str], similarity: float) -> tuple[list[int], list[float]]:
    """find_near_copies by its definition, with Python sets of word tuples: texts in order, each compared with
    every text kept before it; kept unless the most similar (the earliest of equals) reaches ``similarity``."""
    runs = []
    for text in texts:
        words = re.findall(r"\w+", text.lower())
        runs.append({tuple(words)} if 0 < len(words) < 5 else {tuple(words[i:i + 5]) for i in range(len(words) - 4)})
    first, shares, kept = [], [], []
    for d, mine in enumerate(runs):
        best, best_share = d, 1.0
        if mine:
            scored = [(len(mine & runs[k]) / len(mine | runs[k]), -k) for k in kept]
            top = max(scored, default=(0.0, 0))
            if top[0] >= similarity:
                best, best_share = -top[1], top[0]
        if best == d:
            kept.append(d)
        first.append(best)
        shares.append(best_share)
    return first, shares


def edited(words: list[str], rng: np.random.Generator, vocabulary: list[str]) -> list[str]:
    """``words`` with a few changes: a run replaced, a word dropped or one put in."""
    words = list(words)
    for _ in range(int(rng.integers(1, 4))):
        at = int(rng.integers(0, len(words)))
        kind = rng.integers(3)
        if kind == 0:
            words[at:at + 2] = rng.choice(vocabulary, 2).tolist()
        elif kind == 1 and len(words) > 6:
            del words[at]
        else:
            words.insert(at, str(rng.choice(vocabulary)))
    return words


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("similarity", [0.5, 0.8, 0.95])
def test_find_near_copies_matches_its_definition(seed, similarity):
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(40)]
    originals = [rng.choice(vocabulary, int(rng.integers(3, 200))).tolist() for _ in range(15)]
    texts = []
    for _ in range(60):  # originals, their edits, edits of edits, copies word for word, empty and short texts
        pick = int(rng.integers(4))
        if pick == 0 or not texts:
            texts.append(" ".join(originals[int(rng.integers(len(originals)))]))
        elif pick == 1:
            texts.append(" ".join(edited(texts[int(rng.integers(len(texts)))].split() or ["w0"], rng, vocabulary)))
        elif pick == 2:
            texts.append(texts[int(rng.integers(len(texts)))].upper() + " !")
        else:
            texts.append(str(rng.choice(["", "  ", "w1 w2", "w1, w2.", "w3"])))
    found = engine.find_near_copies(texts, similarity)
    first, shares = brute_force_near(texts, similarity)
    # the case holds near-copies beyond the copies word for word
    n_near, n_exact = (sum(f != d for d, f in enumerate(found)) for found in (first, find_text_copies(texts)))
    assert similarity > 0.9 or n_near > n_exact
    np.testing.assert_array_equal(found.first, first)
    np.testing.assert_allclose(found.similarity, shares, rtol=1e-12)
    np.testing.assert_array_equal(found.copies, find_text_copies(texts))
    assert (found.first <= np.arange(len(texts))).all()
    kept = found.first == np.arange(len(texts))
    assert kept[found.first].all()  # every near-copy names a text kept


def test_find_near_copies_reads_words_as_find_text_copies_does():
    words = [f"word{i}" for i in range(40)]
    text = " ".join(words)
    texts = [text, text.upper() + "!!", " ".join([*words[:20], "new", *words[21:]]), "", "short text",
             "Short, text.", "short texts", " ".join(words[10:30]), " ".join(words[5:])]
    found = engine.find_near_copies(texts, 0.75)
    assert found.first.tolist() == [0, 0, 0, 3, 4, 4, 6, 7, 0]
    assert engine.find_near_copies(texts, 0.76).first.tolist() == [0, 0, 2, 3, 4, 4, 6, 7, 0]
    assert found.similarity[2] == pytest.approx(31 / 41)  # one word changed: 5 of 36 runs, 31 shared of 41
    assert found.similarity[8] == pytest.approx(31 / 36)  # the first five words gone: 31 of 36 runs left
    assert found.similarity[[0, 1, 3, 4, 5, 6, 7]].tolist() == [1.0] * 7
    # a chain of edits: B is near A, C near B but not near A; C is kept, as the rule says
    chain = [" ".join(words), " ".join(words[:30] + ["x"] * 10), " ".join(words[:20] + ["x"] * 20)]
    assert engine.find_near_copies(chain, 0.6).first.tolist() == [0, 0, 2]
    assert engine.find_near_copies([]).first.tolist() == []


@pytest.mark.parametrize("bad", [0, -0.1, 1.5, True, "0.8", None])
def test_find_near_copies_checks_its_input(bad):
    with pytest.raises(ValueError, match="similarity must be a share in"):
        engine.find_near_copies(["a b c"], bad)
    with pytest.raises(TypeError, match="texts must be strings"):
        engine.find_near_copies(["a b c", b"bytes"])


def test_from_texts_leaves_near_copies_out_before_the_vocabulary_is_chosen(tmp_path):
    base = ("the harbour board met on monday and agreed the budget for the new lighthouse after a long debate "
            "about the cost of keeping ships safe on the rocks in summer")
    texts = [base, "bees make honey in summer when the fields are in flower",
             base.replace("monday", "tuesday"), base.replace("monday", "friday") + " Signed, the clerk.",
             base.replace("monday", "tuesday") + "!", "boats at sea in summer"]
    kept = Corpus.from_texts(texts, titles=[f"t{i}" for i in range(6)], keep_copies=False, near_copies=0.55,
                             min_df=2)
    assert kept.doc_ids == ("0", "1", "5")
    assert [(d.doc_id, d.copy_of) for d in kept.copies] == [("2", "0"), ("3", "0"), ("4", "2")]
    assert kept.copies[0].reason == ("a near-copy of “t0”: 67 % of the runs of five words in either text are in "
                                     "both")
    assert kept.copies[2].reason == "a copy of “t2”: the same words, in the same order"
    assert [d.similarity for d in kept.copies] == [pytest.approx(21 / 31), pytest.approx(21 / 34), None]
    assert [d.doc_id for d in kept.near_copies] == ["2", "3"]
    assert "harbour" not in kept.vocabulary  # in one document of those kept: below min_df 2
    assert "summer" in kept.vocabulary
    assert Corpus.load(kept.save(tmp_path / "kept")).dropped == kept.dropped  # how nearly, kept on disk
    exact_only = Corpus.from_texts(texts, keep_copies=False, min_df=2)
    assert exact_only.doc_ids == ("0", "1", "2", "3", "5") and "harbour" in exact_only.vocabulary
    gone = Corpus.from_texts(texts, keep_copies=False, near_copies=0.55, leave_out=["0"])
    assert gone.doc_ids == ("1", "5")  # a document left out takes its near-copies with it
    assert [(d.doc_id, d.copy_of) for d in gone.copies] == [("2", "0"), ("3", "0"), ("4", "2")]
    with pytest.raises(ValueError, match="pass keep_copies=False with it"):
        Corpus.from_texts(texts, near_copies=0.8)
    with pytest.raises(ValueError, match="similarity must be a share in"):
        Corpus.from_texts(texts, keep_copies=False, near_copies=2)


def test_near_copies_of_one_template_filled_in_many_ways_take_bounded_work(monkeypatch):
    """A hostile upload: 600 texts of one 100-word template, each with 2 of its words replaced, so that every pair
    is close (0.6 to 0.8) and shares bands.  Each text is compared exactly with at most COMPARED_TEXTS others and
    each reported near-copy still reaches the threshold; on 40 of them, whose bands hold fewer texts than the bound,
    the answer is the definition's."""
    from engine.data import copies

    rng = np.random.default_rng(0)
    template = [f"t{i}" for i in range(100)]
    texts = []
    for d in range(600):
        words = list(template)
        for p in rng.choice(100, 2, replace=False):
            words[p] = f"u{d}x{p}"
        texts.append(" ".join(words))
    calls = []
    jaccard = copies._jaccard
    monkeypatch.setattr(copies, "_jaccard", lambda a, b: calls.append(1) or jaccard(a, b))
    found = engine.find_near_copies(texts, 0.8)
    assert 0 < len(calls) <= len(texts) * copies.COMPARED_TEXTS
    near = np.flatnonzero(found.first != np.arange(len(texts)))
    assert near.size > 100 and (found.similarity[near] >= 0.8).all()
    first, _ = brute_force_near(texts[:40], 0.8)  # few texts: no bound reached, the definition's answer
    np.testing.assert_array_equal(engine.find_near_copies(texts[:40], 0.8).first, first)


def test_the_texts_compared_exactly_are_those_whose_min_hashes_agree_most():
    from engine.data import copies

    signatures = np.array([[1, 2, 3, 4, 5], [1, 2, 3, 4, 9], [1, 2, 9, 9, 9], [1, 2, 3, 9, 9], [9, 9, 9, 9, 9]],
                          dtype=np.uint64)
    # against text 0: agreement 0.8, 0.4, 0.6, 0.0; at threshold 0.8, a margin of 0.2 keeps those of 0.6 or more
    assert copies._closest(signatures, 0, {1, 2, 3, 4}, 0.8) == [1, 3]
    assert copies._closest(signatures, 0, {1, 2, 3, 4}, 0.5) == [1, 3, 2]
    assert copies._closest(signatures, 0, set(), 0.5) == []

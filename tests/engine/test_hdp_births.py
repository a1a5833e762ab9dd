"""The HDP's topic births (births): splits by documents, their undoing, the schedule and its clock."""

from __future__ import annotations

import copy

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.kernels.cache import workload_name
from engine.models._hdp_births import (
    BIRTH_ROUNDS,
    DocumentSplit,
    _SpreadRows,
    birth_round,
    rename_merged,
    undo_pairs,
)
from engine.models._sticks import stick_counts
from tests.engine._reference import planted_counts
from tests.engine._resume import resume_from_checkpoint

WORDS = 10  # words per planted theme


def _theme_documents(themes: list[int], n_docs: int, seed: int) -> sp.csr_matrix:
    """Documents each about one of ``themes`` (blocks of WORDS words), 50 words each, V = 4 * WORDS."""
    rng = np.random.default_rng(seed)
    rows = np.zeros((n_docs * len(themes), 4 * WORDS))
    for i, theme in enumerate(np.repeat(themes, n_docs)):
        rows[i, theme * WORDS:(theme + 1) * WORDS] = rng.multinomial(50, np.full(WORDS, 1.0 / WORDS))
    return sp.csr_matrix(rows)


def _model_holding_two_themes_in_one_topic(**options) -> engine.HDP:
    """Topic 0 covers themes 0 and 1, topic 1 theme 2, topic 2 theme 3; topics 3 to 5 are empty."""
    eta = 0.01
    lam = np.full((6, 4 * WORDS), eta)
    lam[0, :2 * WORDS] += 100.0
    lam[1, 2 * WORDS:3 * WORDS] += 60.0
    lam[2, 3 * WORDS:] += 40.0
    model = engine.HDP(n_topics=6, doc_truncation=3, n_words=4 * WORDS, eta=eta, seed=0, dtype="float64", **options)
    model.lambda_ = lam
    model.restore_training_clock({"epochs_seen": 1.0, "birth_rounds": 0, "pairs": []})
    return model


def _theme_mass(row: np.ndarray) -> np.ndarray:
    """The share of a topic's expected words on each of the four themes."""
    return row.reshape(4, WORDS).sum(axis=1) / row.sum()


def test_a_topic_holding_two_themes_is_split_along_them_and_chance_splits_are_merged_back():
    documents = _theme_documents([0, 1, 2, 3], 60, seed=1)
    model = _model_holding_two_themes_in_one_topic()
    model.prepare_step(lambda n: documents)
    clock = model.training_clock()
    assert clock["birth_rounds"] == 1
    excess = model.lambda_ - model.eta
    split = [pair for pair in clock["pairs"] if pair[1] == 0]
    assert len(split) == 1
    donor, child = excess[0], excess[split[0][2]]
    # each half holds one of the two themes the topic covered, almost all of it
    halves = np.stack([_theme_mass(donor), _theme_mass(child)])
    assert sorted(halves[:, :2].argmax(axis=1).tolist()) == [0, 1]
    assert halves[:, :2].max(axis=1).min() > 0.85
    np.testing.assert_allclose(excess.sum(), 300.0 * WORDS, rtol=1e-9)  # no word is lost
    # four epochs on, the chance halves of the single-theme topics are merged back; the themes are not
    model.restore_training_clock({**clock, "epochs_seen": 5.0, "birth_rounds": BIRTH_ROUNDS})
    model.prepare_step(lambda n: pytest.fail("no birth round is due after the third"))
    pairs_left = model.training_clock()["pairs"]
    assert pairs_left == []
    after = model.lambda_ - model.eta
    np.testing.assert_allclose(after[[0, split[0][2]]], excess[[0, split[0][2]]])
    assert sum(_theme_mass(row)[2] > 0.5 for row in after if row.sum() > 1.0) == 1  # theme 2 in one topic again
    np.testing.assert_allclose(after.sum(), 300.0 * WORDS, rtol=1e-9)


def test_judging_the_births_now_makes_the_merges_due_four_epochs_later():
    documents = _theme_documents([0, 1, 2, 3], 60, seed=1)
    now = _model_holding_two_themes_in_one_topic()
    now.prepare_step(lambda n: documents)
    clock = now.training_clock()
    later = copy.deepcopy(now)
    merged = now.judge_births()
    assert merged and len(merged) < len(clock["pairs"])  # the chance halves, not the split themes
    assert now.training_clock() == {**clock, "pairs": []}
    later.restore_training_clock({**clock, "epochs_seen": 5.0, "birth_rounds": BIRTH_ROUNDS})
    later.prepare_step(lambda n: pytest.fail("no birth round is due after the third"))
    np.testing.assert_array_equal(now.lambda_, later.lambda_)
    np.testing.assert_array_equal(now.sticks_, later.sticks_)
    before = now.lambda_.copy()
    assert now.judge_births() == []  # nothing pending: nothing changes
    np.testing.assert_array_equal(now.lambda_, before)
    assert engine.HDP(n_topics=4, doc_truncation=2, n_words=5).judge_births() == []  # not trained


def test_document_split_parts_documents_of_two_themes_exactly():
    documents = _theme_documents([0, 1], 40, seed=2)
    theta = np.column_stack([np.ones(80), np.zeros(80)])
    topics = np.full((2, 4 * WORDS), 1.0 / (4 * WORDS))
    found = DocumentSplit(documents, theta, topics, np.random.default_rng(0)).shares(0)
    assert found is not None
    moved, share = found
    counts = np.asarray(documents.sum(axis=0)).ravel()
    moved_theme = int(moved[:WORDS].mean() < 0.5)  # the theme the new topic took
    kept = 1 - moved_theme
    block = slice(moved_theme * WORDS, (moved_theme + 1) * WORDS)
    smoothing = 0.1 * counts.mean()  # (B_w + s) / (A_w + B_w + 2 s) with s = 0.1 x the mean count
    np.testing.assert_allclose(moved[block], (counts[block] + smoothing) / (counts[block] + 2 * smoothing))
    np.testing.assert_allclose(moved[kept * WORDS:(kept + 1) * WORDS],
                               smoothing / (counts[kept * WORDS:(kept + 1) * WORDS] + 2 * smoothing))
    assert share == pytest.approx(counts[block].sum() / counts.sum())


def test_two_means_stopping_when_its_groups_repeat_splits_as_all_its_rounds_do(monkeypatch):
    """Documents mixing three themes in random proportions: 2-means takes a few rounds; stopping once the
    groups repeat gives the very shares that all ten rounds give."""
    rng = np.random.default_rng(1)
    themes = np.zeros((3, 4 * WORDS))
    for t in range(3):
        themes[t, t * WORDS:(t + 1) * WORDS] = rng.dirichlet(np.ones(WORDS))
    mixes = rng.dirichlet([0.3, 0.3, 0.3], size=120)
    documents = sp.csr_matrix(rng.poisson(60 * mixes @ themes).astype(float))
    theta = np.column_stack([np.ones(120), np.zeros(120)])
    topics = np.full((2, 4 * WORDS), 1.0 / (4 * WORDS))
    rounds = []
    real_equal = np.array_equal

    def counted(a, b):
        rounds.append(1)
        return real_equal(a, b)

    monkeypatch.setattr(np, "array_equal", counted)
    stopped = DocumentSplit(documents, theta, topics, np.random.default_rng(0)).shares(0)
    assert 3 <= len(rounds) < 9  # the groups changed over several rounds, then repeated before the tenth
    monkeypatch.setattr(np, "array_equal", lambda a, b: False)  # never stop early
    every_round = DocumentSplit(documents, theta, topics, np.random.default_rng(0)).shares(0)
    np.testing.assert_array_equal(stopped[0], every_round[0])
    assert stopped[1] == every_round[1]


def test_document_split_declines_topics_few_documents_use():
    documents = _theme_documents([0, 1], 4, seed=3)  # 8 documents, fewer than 10
    theta = np.column_stack([np.ones(8), np.zeros(8)])
    topics = np.full((2, 4 * WORDS), 1.0 / (4 * WORDS))
    assert DocumentSplit(documents, theta, topics, np.random.default_rng(0)).shares(0) is None


class _FixedSplit:
    """Every topic split with the same word shares and mass share (or declined for the topics in ``declined``)."""

    def __init__(self, moved: np.ndarray, share: float, declined=()):
        self.moved, self.share, self.declined, self.asked = moved, share, set(declined), []

    def shares(self, topic: int):
        self.asked.append(topic)
        return None if topic in self.declined else (self.moved, self.share)


def test_birth_round_conserves_words_and_sticks_and_skips_what_it_must():
    rng = np.random.default_rng(4)
    K, V = 8, 30
    excess = rng.uniform(0.9, 1.1, size=(K, V)) * np.array([50, 40, 30, 20, 10, 0.5, 0.2, 0.1])[:, None]
    sticks = np.array([50.0, 40.0, 30.0, 20.0, 0.01, 0.5, 0.2, 0.1])
    before_excess, before_sticks = excess.copy(), sticks.copy()
    moved = rng.uniform(0.2, 0.8, V)
    split = _FixedSplit(moved, 0.3, declined={2})
    pairs = birth_round(excess, sticks, 1.0, 3, general=np.array([1]), split=split)
    # 1 is general, 2 declines, 4's weight is under 0.01: 0 and 3 are split, into the two emptiest topics
    assert split.asked == [0, 2, 3]
    assert pairs == [(0, 7), (3, 6)]
    np.testing.assert_allclose(excess.sum(), before_excess.sum(), rtol=1e-12)
    np.testing.assert_allclose(sticks.sum(), before_sticks.sum(), rtol=1e-12)
    for donor, child in pairs:  # up to the emptiest topic spread into them when the next pair was made
        np.testing.assert_allclose(excess[child] / (excess[donor] + excess[child]), moved, rtol=1e-2)
        assert sticks[child] / (sticks[donor] + sticks[child]) == pytest.approx(0.3, rel=1e-2)
    assert np.all(excess >= 0) and np.all(sticks >= 0)


def _spread_whole_array(excess: np.ndarray, sticks: np.ndarray, slot: int) -> None:
    """The spread written plainly: row k gains w_k x the slot's row, w_k = its words / the other rows' words."""
    words = excess.sum(axis=1)
    weights = words / np.delete(words, slot).sum()
    weights[slot] = 0.0
    excess += weights[:, None] * excess[slot][None, :]
    sticks += weights * sticks[slot]
    excess[slot], sticks[slot] = 0.0, 0.0


def test_held_back_spreads_equal_spreading_the_whole_array_each_time(monkeypatch):
    """Spreads and row writes in turn, as a round makes them: every row read, the row sums, the sticks and, once
    applied (3 rows a block here), the store equal the whole-array updates made one by one; no word is lost."""
    monkeypatch.setattr("engine.models._hdp_births._SPREAD_CELLS", 3 * 25)
    rng = np.random.default_rng(8)
    excess, sticks = rng.gamma(0.5, 10.0, size=(10, 25)), rng.uniform(0.0, 5.0, 10)
    plain, plain_sticks = excess.copy(), sticks.copy()
    total, stick_total = excess.sum(), sticks.sum()
    rows = _SpreadRows(excess)
    for slot, donor in ((4, 0), (7, 2), (4, 7), (9, 2)):  # slot 4 is refilled and emptied again, 2 split twice
        rows.spread(slot, sticks)
        _spread_whole_array(plain, plain_sticks, slot)
        whole = rows.row(donor)
        np.testing.assert_allclose(whole, plain[donor], rtol=1e-12)
        moved = rng.uniform(0.2, 0.8, 25)
        rows.set(slot, whole * moved)
        rows.set(donor, whole * (1.0 - moved))
        plain[slot], plain[donor] = plain[donor] * moved, plain[donor] * (1.0 - moved)
        np.testing.assert_allclose(rows.totals, plain.sum(axis=1), rtol=1e-12)
        np.testing.assert_allclose(np.stack([rows.row(k) for k in range(10)]), plain, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(sticks, plain_sticks, rtol=1e-12)
    rows.apply()
    np.testing.assert_allclose(excess, plain, rtol=1e-12, atol=1e-12)
    assert excess.sum() == pytest.approx(total, rel=1e-12) and sticks.sum() == pytest.approx(stick_total, rel=1e-12)
    assert np.all(excess >= 0)


def test_document_split_is_the_same_with_either_kernel():
    """The compiled per-entry mixtures give the NumPy reference's split: the same groups, shares to rounding."""
    pytest.importorskip("numba")
    rng = np.random.default_rng(11)
    themes = rng.dirichlet(np.full(4 * WORDS, 0.1), size=5)
    theta = rng.dirichlet(np.full(5, 0.3), size=150)
    documents = sp.csr_matrix(rng.poisson(40 * theta @ themes).astype(float))
    workload = workload_name("HDP", "zero_order", np.float32)
    splits = [DocumentSplit(documents, theta, themes, np.random.default_rng(0), kernel, workload).shares(topic)
              for kernel in ("numpy", "compiled") for topic in range(5)]
    assert any(found is not None for found in splits[:5])
    for reference, compiled in zip(splits[:5], splits[5:], strict=True):
        assert (reference is None) == (compiled is None)
        if reference is not None:
            np.testing.assert_allclose(compiled[0], reference[0], rtol=1e-5)
            assert compiled[1] == pytest.approx(reference[1], rel=1e-5)


def test_undo_merges_only_pairs_that_stay_copies():
    rng = np.random.default_rng(5)
    base = rng.dirichlet(np.ones(20))
    excess = np.stack([100 * base, 80 * base * rng.uniform(0.98, 1.02, 20), 60 * rng.dirichlet(np.ones(20)),
                       np.zeros(20)])
    sticks = np.array([5.0, 4.0, 3.0, 0.0])
    total = excess.sum()
    merged = undo_pairs(excess, sticks, [(0, 1), (0, 2), (2, 3)])
    assert merged == [(0, 1)]  # (0, 2) are distinct; 3 holds no words
    assert excess[1].sum() == 0 and sticks.tolist() == [9.0, 0.0, 3.0, 0.0]
    np.testing.assert_allclose(excess.sum(), total)


def test_pending_pairs_are_renamed_after_a_merge():
    pending = [(2, 5, 7), (2, 7, 9), (3, 9, 5)]
    assert rename_merged(pending, [(1, 5)]) == [(2, 1, 7), (2, 7, 9), (3, 9, 1)]
    assert rename_merged([(2, 4, 6)], [(4, 6)]) == []  # became one topic


def test_reordering_the_topics_carries_the_pending_pairs():
    X, _ = planted_counts(n_docs=20, n_topics=2, seed=6)
    model = engine.HDP(n_topics=4, doc_truncation=2, n_words=X.shape[1], seed=0)
    model.lambda_ = np.ones((4, X.shape[1]))
    counts = np.array([1.0, 5.0, 3.0, 0.0])
    model.sticks_ = np.stack((1.0 + counts[:-1], model.omega + np.cumsum(counts[::-1])[::-1][1:]), axis=1)
    model.restore_training_clock({"epochs_seen": 1.5, "birth_rounds": 1, "pairs": [[1, 0, 1], [1, 2, 3]]})
    rows = model.lambda_.copy()
    rows[:, 0] = 1.0 + np.arange(4)  # tags to follow each topic
    model.lambda_ = rows
    model.global_step(model.local_step(X), scale=1.0, rho=0.0)  # nothing blended in: a pure reorder by N_k
    tags = (np.rint(model.lambda_[:, 0]).astype(int) - 1).tolist()
    assert tags == [1, 2, 0, 3]
    for _, donor, child in model.training_clock()["pairs"]:
        assert (tags[donor], tags[child]) in {(0, 1), (2, 3)}


def test_training_with_births_stays_consistent_and_matches_a_checkpointed_run(tmp_path):
    X, _ = planted_counts(n_docs=200, n_topics=6, seed=7)
    options = {"n_topics": 20, "doc_truncation": 5, "n_words": X.shape[1], "seed": 1, "dtype": "float64"}
    straight = engine.HDP(**options)
    engine.SVI(straight, X, batch_size=40, seed=2).run(n_docs=8 * X.shape[0])
    clock = straight.training_clock()
    assert clock["birth_rounds"] == BIRTH_ROUNDS and clock["pairs"] == []  # every pair judged by epoch 7
    assert np.all(np.isfinite(straight.lambda_)) and straight.lambda_.min() > 0
    assert straight.topic_weights().sum() == pytest.approx(1.0)

    first = engine.HDP(**options)
    trainer = engine.SVI(first, X, batch_size=40, seed=2)
    trainer.run(n_docs=int(2.5 * X.shape[0]))  # two birth rounds made, their pairs pending
    assert first.training_clock()["birth_rounds"] == 2 and first.training_clock()["pairs"]
    resumed = resume_from_checkpoint(first, trainer, X, tmp_path / "checkpoint.npz", 8 * X.shape[0], batch_size=40)
    assert resumed.training_clock() == pytest.approx(clock)
    np.testing.assert_allclose(resumed.lambda_, straight.lambda_, rtol=1e-8)


def test_no_births_under_the_paper_preset_nor_for_a_model_saved_before_births():
    X, _ = planted_counts(n_docs=60, n_topics=3, seed=8)
    paper = engine.HDP(n_topics=10, doc_truncation=3, n_words=X.shape[1], preset="paper")
    assert paper.births == 0
    engine.SVI(paper, X, batch_size=20).run(n_docs=5 * X.shape[0])
    assert paper.training_clock()["birth_rounds"] == 0
    old = engine.HDP(n_topics=10, doc_truncation=3, n_words=X.shape[1])
    engine.SVI(old, X, batch_size=20).run(n_steps=1)
    old.restore_training_clock({})  # what a file written before the clock existed restores
    before = old.lambda_.copy()
    old.prepare_step(lambda n: pytest.fail("a model of unknown age is never split"))
    np.testing.assert_array_equal(old.lambda_, before)


def test_births_leave_stick_counts_and_words_of_the_model_whole():
    documents = _theme_documents([0, 1, 2, 3], 30, seed=9)
    model = _model_holding_two_themes_in_one_topic()
    words, atoms = (model.lambda_ - model.eta).sum(), stick_counts(model.sticks_.astype(float), model.omega).sum()
    model.prepare_step(lambda n: documents)
    assert (model.lambda_ - model.eta).sum() == pytest.approx(words)
    assert stick_counts(model.sticks_.astype(float), model.omega).sum() == pytest.approx(atoms)


@pytest.mark.parametrize(("clock", "match"), [
    ({"epochs_seen": 1.0}, "holds epochs_seen, birth_rounds and pairs"),
    ({"epochs_seen": -1.0, "birth_rounds": 0, "pairs": []}, "epochs_seen must be"),
    ({"epochs_seen": 1.0, "birth_rounds": 4, "pairs": []}, "birth_rounds must be"),
    ({"epochs_seen": 1.0, "birth_rounds": True, "pairs": []}, "birth_rounds must be"),
    ({"epochs_seen": 1.0, "birth_rounds": 1, "pairs": [[2, 0, 1]]}, "pairs must be"),
    ({"epochs_seen": 1.0, "birth_rounds": 1, "pairs": [[1, 0, 10]]}, "pairs must be"),
    ({"epochs_seen": 1.0, "birth_rounds": 1, "pairs": [[1, 3, 3]]}, "pairs must be"),
    ({"epochs_seen": 1.0, "birth_rounds": 1, "pairs": "[[1, 0, 1]]"}, "pairs must be"),
])
def test_a_malformed_clock_is_refused(clock, match):
    with pytest.raises(ValueError, match=match):
        engine.HDP(n_topics=10, doc_truncation=3, n_words=5).restore_training_clock(clock)


def test_births_is_validated():
    with pytest.raises(ValueError, match="births"):
        engine.HDP(n_topics=10, doc_truncation=3, births=6).settings()
    with pytest.raises(ValueError, match="births"):
        engine.HDP(n_topics=10, doc_truncation=3, births=-1).settings()


def test_undo_merges_halves_that_show_the_same_top_words_even_when_further_apart():
    # the same ten leading words in different proportions (JS well above 0.02), a long tail apart
    head = np.zeros(40)
    head[:10] = np.linspace(10.0, 5.0, 10)
    donor, child = head.copy(), head[::1].copy()
    donor[:10] *= np.linspace(1.0, 2.0, 10)
    child[10:25] = 0.4
    excess, sticks = np.stack([donor, child]), np.array([3.0, 2.0])
    rows = excess / excess.sum(axis=1, keepdims=True)
    assert engine.jensen_shannon(rows)[0, 1] > 0.02
    assert undo_pairs(excess, sticks, [(0, 1)]) == [(0, 1)]
    assert excess[1].sum() == 0 and sticks.tolist() == [5.0, 0.0]


def test_a_round_never_frees_a_topic_of_a_pending_pair():
    excess = np.array([[50.0, 40.0, 1.0], [30.0, 30.0, 1.0], [0.5, 0.2, 0.1], [0.1, 0.1, 0.0], [2.0, 1.0, 1.0]])
    sticks = np.array([50.0, 30.0, 1.0, 0.5, 2.0])
    split = _FixedSplit(np.full(3, 0.5), 0.5)
    none = np.array([], dtype=int)
    # the emptiest topics, 3 then 2, wait in pairs: topic 4 is the slot; then none is left
    assert birth_round(excess.copy(), sticks.copy(), 1.0, 1, none, split, pending=np.array([2, 3])) == [(0, 4)]
    assert birth_round(excess.copy(), sticks.copy(), 1.0, 3, none, split, pending=np.array([2, 3, 4])) == [(0, 1)]
    assert birth_round(excess.copy(), sticks.copy(), 1.0, 1, none, split) == [(0, 3)]

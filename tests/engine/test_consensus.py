"""engine.consensus_topics: the topics several runs agree on, checked against known truth and invariants."""

from __future__ import annotations

import dataclasses
import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import engine


def _hellinger(p: np.ndarray, q: np.ndarray) -> float:
    """The textbook form: ||sqrt p - sqrt q|| / sqrt 2."""
    return float(np.sqrt(0.5 * np.sum((np.sqrt(p) - np.sqrt(q)) ** 2)))


def _runs(seed: int, n_runs: int = 4, n_true: int = 5, n_junk: int = 2, noise: float = 0.05, n_words: int = 40):
    """Runs that each find the true topics (shuffled, blurred) and a few topics of their own.

    A run's own topics put 90 % of their mass on 5 words no other run uses and 10 % evenly on
    the shared words: nearer to some true topic than to another run's own topics.
    """
    rng = np.random.default_rng(seed)
    truth = rng.dirichlet(np.full(n_words, 0.1), size=n_true)
    width = n_words + 5 * n_runs
    runs, orders = [], []
    for run in range(n_runs):
        order = rng.permutation(n_true + n_junk)
        topics = np.zeros((n_true + n_junk, width))
        topics[:n_true, :n_words] = (1 - noise) * truth + noise * rng.dirichlet(np.ones(n_words), size=n_true)
        topics[n_true:, :n_words] = 0.1 / n_words
        topics[n_true:, n_words + 5 * run:n_words + 5 * run + 5] = 0.9 * rng.dirichlet(np.ones(5), size=n_junk)
        runs.append(topics[order])
        orders.append(order)
    return np.hstack([truth, np.zeros((n_true, width - n_words))]), runs, orders


def _links(runs: list[np.ndarray]) -> list[tuple[tuple[int, int], tuple[int, int]]]:
    """Every pair of topics found again across two runs, by engine.match_topics."""
    found = []
    for a, b in itertools.combinations(range(len(runs)), 2):
        match = engine.match_topics(runs[a], runs[b])
        found += [((a, int(t)), (b, int(match.partner[t]))) for t in np.flatnonzero(match.recurring)]
    return found


@pytest.mark.parametrize("seed", range(5))
def test_the_topics_every_run_finds_are_kept_and_each_runs_own_are_left_out(seed):
    truth, runs, orders = _runs(seed)
    consensus = engine.consensus_topics(runs)
    assert consensus.n_runs == 4 and consensus.min_runs == 3  # more than half by default
    assert consensus.n_topics == 5 and np.all(consensus.support == 4)
    back = engine.match_topics(truth, consensus.topics)
    assert back.recurring.all()
    assert back.distance.max() < 0.15
    for c in range(consensus.n_topics):  # each member is the run's blurred copy of the same true topic
        true_topic = int(np.flatnonzero(back.partner == c)[0])
        for run, member in enumerate(consensus.members[c]):
            assert orders[run][member] == true_topic


@pytest.mark.parametrize("seed", range(5))
def test_a_consensus_topic_is_the_mean_of_its_members_and_its_spread_their_mean_distance(seed):
    _, runs, _ = _runs(seed, noise=0.3)
    consensus = engine.consensus_topics(runs, min_runs=2)
    for c in range(consensus.n_topics):
        members = [runs[run][m] for run, m in enumerate(consensus.members[c]) if m >= 0]
        assert len(members) == consensus.support[c]
        np.testing.assert_allclose(consensus.topics[c], np.mean(members, axis=0), atol=1e-12)
        assert consensus.spread[c] == pytest.approx(
            np.mean([_hellinger(member, consensus.topics[c]) for member in members]), abs=1e-9)
        assert consensus.share[c] == pytest.approx(1 / 7)  # runs given as arrays: an even share
    assert np.all(np.diff(consensus.support) <= 0)  # the most widely found first
    assert consensus.mass is None and consensus.eta is None


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), n_runs=st.integers(2, 5), min_runs=st.integers(2, 5),
       noise=st.floats(0.05, 0.9))
def test_groups_hold_one_topic_per_run_are_linked_and_no_link_that_could_join_two_is_left(seed, n_runs, min_runs,
                                                                                          noise):
    min_runs = min(min_runs, n_runs)
    _, runs, _ = _runs(seed, n_runs=n_runs, noise=noise, n_words=12)
    consensus = engine.consensus_topics(runs, min_runs=min_runs)
    group_of = {}
    for c, members in enumerate(consensus.members):
        assert np.count_nonzero(members >= 0) == consensus.support[c] >= min_runs
        for run, m in enumerate(members):
            if m >= 0:
                assert (run, int(m)) not in group_of  # each topic in one group at most
                group_of[(run, int(m))] = c
    links = _links(runs)
    for members in consensus.members:  # the links inside a group connect it
        nodes = {(run, int(m)) for run, m in enumerate(members) if m >= 0}
        reached, frontier = set(), [next(iter(nodes))]
        while frontier:
            node = frontier.pop()
            reached.add(node)
            frontier += [b if a == node else a for a, b in links if node in (a, b)
                         and (b if a == node else a) in nodes and (b if a == node else a) not in reached]
        assert reached == nodes

    def runs_of(node):  # the runs of the group holding a topic (itself alone if it is in none kept)
        if node in group_of:
            return {run for run, m in enumerate(consensus.members[group_of[node]]) if m >= 0}
        return {node[0]}

    for a, b in links:  # a link between two groups was skipped only because they shared a run
        if min_runs > 2 and not (a in group_of and b in group_of):
            continue  # a group of fewer than min_runs runs was made and left out: its runs are not known here
        if group_of.get(a, a) != group_of.get(b, b):
            assert runs_of(a) & runs_of(b)


def test_the_closest_link_wins_when_two_would_put_one_runs_topics_together():
    a = np.array([[0.6, 0.4, 0.0, 0.0]])
    b = np.array([[0.4, 0.6, 0.0, 0.0]])
    c_and_d = np.array([[0.3, 0.7, 0.0, 0.0], [0.7, 0.3, 0.0, 0.0]])  # d is a's nearest, c is b's
    assert engine.match_topics(a, b).recurring.all()
    assert engine.match_topics(a, c_and_d).partner.tolist() == [1]
    assert engine.match_topics(b, c_and_d).partner.tolist() == [0]
    consensus = engine.consensus_topics([a, b, c_and_d], min_runs=2)
    # a-d and b-c are closer than a-b, so they join first; a-b would then join c and d of one run
    assert sorted(consensus.members.tolist()) == [[-1, 0, 0], [0, -1, 1]]
    assert engine.consensus_topics([a, b, c_and_d], min_runs=3).n_topics == 0


def test_a_topic_of_two_runs_of_three_is_kept_by_default_and_left_out_at_min_runs_three():
    rng = np.random.default_rng(1)
    shared = rng.dirichlet(np.full(20, 0.1), size=3)
    second_only = rng.dirichlet(np.full(20, 0.1))
    runs = [shared, np.vstack([shared, second_only]), np.vstack([shared[::-1], second_only])]
    assert engine.consensus_topics(runs, min_runs=3).n_topics == 3
    with_two = engine.consensus_topics(runs)  # more than half of 3 runs: 2
    assert with_two.min_runs == 2
    assert with_two.n_topics == 4 and with_two.support.tolist() == [3, 3, 3, 2]
    assert with_two.members[3].tolist() == [-1, 3, 3]


def test_trained_runs_agree_on_the_planted_topics_and_make_a_model(planted_corpus):
    runs = []
    for seed in range(3):
        model = engine.LDA(n_topics=5, n_words=planted_corpus.n_words, seed=seed)
        engine.SVI(model, corpus=planted_corpus.counts, batch_size=50, seed=seed).run(n_docs=2000)
        runs.append(model)
    consensus = engine.consensus_topics(runs)
    assert consensus.n_topics == 5 and np.all(consensus.support == 3)
    assert engine.match_topics(planted_corpus.topics, consensus.topics).recurring.all()
    excess = [np.maximum(run.lambda_.astype(float) - run.eta, 0).sum(axis=1) for run in runs]
    for c in range(5):
        assert consensus.mass[c] == pytest.approx(np.mean([excess[r][m] for r, m in enumerate(consensus.members[c])]))
        assert consensus.share[c] == pytest.approx(
            np.mean([runs[r].word_shares()[m] for r, m in enumerate(consensus.members[c])]))
    model = consensus.model()
    assert isinstance(model, engine.LDA) and model.n_topics == 5 and model.eta == pytest.approx(0.01)
    assert np.all(consensus.alpha == runs[0].alpha) and model.alpha == runs[0].alpha  # one number, as the runs had
    np.testing.assert_allclose(model.lambda_, 0.01 + consensus.mass[:, None] * consensus.topics, rtol=1e-12)
    np.testing.assert_allclose(model.expected_topics(), consensus.topics, atol=1e-3)
    theta = model.transform(planted_corpus.counts[:20])
    assert np.all(np.isfinite(theta)) and np.allclose(theta.sum(axis=1), 1.0)
    assert np.isfinite(engine.predictive_log_likelihood(model, planted_corpus.counts[:20], planted_corpus.counts[:20]))
    one = dataclasses.replace(consensus, topics=consensus.topics[:1], members=consensus.members[:1],
                              support=consensus.support[:1], mass=consensus.mass[:1])
    with pytest.raises(ValueError, match="only 1 topic found in at least 2 of the 3 runs; a model needs two"):
        one.model()


def test_a_model_takes_part_with_its_live_topics_by_their_share_of_the_words(planted_corpus):
    runs = []
    for seed in range(3):
        model = engine.HDP(n_topics=12, doc_truncation=4, n_words=planted_corpus.n_words, seed=seed)
        engine.SVI(model, corpus=planted_corpus.counts, batch_size=50, seed=seed).run(n_docs=2000)
        runs.append(model)
    consensus = engine.consensus_topics(runs)
    for run, model in enumerate(runs):
        live = set(np.flatnonzero(model.word_shares() >= 0.25 / 12).tolist())
        kept = {int(m) for m in consensus.members[:, run] if m >= 0}
        assert kept <= live
    assert engine.match_topics(planted_corpus.topics, consensus.topics).recurring.all()
    # each topic's prior: the mean of its members' alpha E[sigma_k], the HDP's document prior, given to the model
    for c, members in enumerate(consensus.members):
        priors = [runs[run].alpha * runs[run].topic_weights()[m] for run, m in enumerate(members) if m >= 0]
        assert consensus.alpha[c] == pytest.approx(np.mean(priors), rel=1e-12)
    np.testing.assert_allclose(consensus.model().alpha, consensus.alpha, rtol=1e-12)
    # an LDA topic holding almost no words takes no part, even when another run has the same one
    lda = engine.LDA(n_topics=3, n_words=4, seed=0)
    lda.lambda_ = np.array([[50.0, 1, 1, 1], [1, 50.0, 1, 1], [1.0, 1, 1.3, 1.2]])  # topic 2: 4.5 % of the words
    assert lda.word_shares()[2] < 0.25 / 3 < lda.word_shares()[1]
    assert engine.consensus_topics([lda, lda.copy()]).members.tolist() == [[0, 0], [1, 1]]


def test_vocabularies_that_differ_are_combined_over_their_union():
    rng = np.random.default_rng(7)
    words = [f"w{i}" for i in range(15)]
    topics = rng.dirichlet(np.full(15, 0.1), size=4)
    order = rng.permutation(15)
    other_words = [words[i] for i in order] + ["new"]
    other = np.hstack([topics[:, order], np.zeros((4, 1))])
    consensus = engine.consensus_topics([topics, other], vocabularies=[words, other_words])
    assert consensus.vocabulary == [*words, "new"]
    assert consensus.n_topics == 4 and np.all(consensus.spread < 1e-7)  # sqrt of 1 - a sum of rounding
    assert engine.match_topics(topics, consensus.topics[:, :15]).distance.max() < 1e-6
    # one vocabulary not known: the columns must then be the same words
    with pytest.raises(engine.VocabularyMismatchError, match="pass vocabularies="):
        engine.consensus_topics([topics, other], vocabularies=[words, None])


def test_bad_inputs_say_what_to_fix():
    rng = np.random.default_rng(0)
    topics = rng.dirichlet(np.ones(10), size=3)
    with pytest.raises(ValueError, match="at least two runs"):
        engine.consensus_topics([topics])
    with pytest.raises(engine.LimitExceededError, match="at most 20"):
        engine.consensus_topics([topics] * (engine.MAX_CONSENSUS_RUNS + 1))
    with pytest.raises(ValueError, match="min_runs"):
        engine.consensus_topics([topics, topics], min_runs=1)
    with pytest.raises(ValueError, match="at most the number of runs"):
        engine.consensus_topics([topics, topics], min_runs=3)
    with pytest.raises(ValueError, match="one entry per run"):
        engine.consensus_topics([topics, topics], vocabularies=[None])
    with pytest.raises(ValueError, match="no topics yet"):
        engine.consensus_topics([topics, engine.LDA(n_topics=3, n_words=10)])
    with pytest.raises(ValueError, match="non-negative"):
        engine.consensus_topics([topics, -topics])
    with pytest.raises(ValueError, match="hold no word counts"):
        engine.consensus_topics([topics, topics]).model()
    big = rng.dirichlet(np.ones(10), size=2_600)
    with pytest.raises(engine.LimitExceededError, match="5,200 topics"):
        engine.consensus_topics([big, big])


def test_the_runs_topic_word_cells_together_obey_the_dense_cells_limit(monkeypatch):
    rng = np.random.default_rng(0)
    topics = rng.dirichlet(np.ones(10), size=3)
    words, others = [f"w{i}" for i in range(10)], [f"v{i}" for i in range(10)]
    monkeypatch.setenv("SVI_TOPICS_MAX_DENSE_CELLS", "100")
    assert engine.consensus_topics([topics, topics]).n_topics == 3  # 6 topics x 10 words
    # over two vocabularies of 10 words each: 6 topics x 20 words
    with pytest.raises(engine.LimitExceededError, match=r"topics x words = 6 x 20\) is 120, above the limit "
                                                        r"max_dense_cells = 100.*SVI_TOPICS_MAX_DENSE_CELLS"):
        engine.consensus_topics([topics, topics], vocabularies=[words, others])


def test_the_runs_are_left_unchanged_and_nothing_is_nan():
    _, runs, _ = _runs(3)
    before = [run.copy() for run in runs]
    consensus = engine.consensus_topics(runs)
    for run, kept in zip(runs, before, strict=True):
        np.testing.assert_array_equal(run, kept)
    assert np.all(np.isfinite(consensus.topics)) and np.allclose(consensus.topics.sum(axis=1), 1.0)
    assert np.all(np.isfinite(consensus.spread))

"""benchmarks/stability.py: topics found again across seeds, summed over the pairs of seeds."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "stability.py"
_SPEC = importlib.util.spec_from_file_location("stability_benchmark", _PATH)
stability = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(stability)


def _lda(topics: np.ndarray) -> engine.LDA:
    model = engine.LDA(n_topics=topics.shape[0], n_words=topics.shape[1], seed=0)
    model.lambda_ = topics
    return model


def test_pairs_count_the_topics_found_again_and_their_coherence(planted_corpus):
    truth = planted_corpus.topics + 1e-3
    reference = engine.CoherenceReference(planted_corpus.counts)
    # three "seeds": the truth, the truth in another order, and one with two topics blurred together
    blurred = truth.copy()
    blurred[0] = blurred[1] = truth[0] + truth[1]
    models = [_lda(truth), _lda(truth[[4, 3, 2, 1, 0]]), _lda(blurred)]
    figures = stability.pair_figures(models, "lda", reference)
    # by hand: each pair once, from the lower seed's side
    npmi = [reference.score_model(model) for model in models]
    shares, found_npmi, other_npmi, found_words = [], [], [], []
    for a, b in ((0, 1), (0, 2), (1, 2)):
        match = engine.match_topics(models[a], models[b])
        shares.append(match.recurring.mean())
        found_npmi += list(npmi[a][match.recurring])
        other_npmi += list(npmi[a][~match.recurring])
        found_words += list(match.shared_words[match.recurring])
    assert shares[0] == 1.0 and shares[1] < 1.0  # the blurred pair leaves a topic without its partner
    np.testing.assert_allclose(figures["recurring"], shares)
    np.testing.assert_allclose(figures["recurring_npmi"], found_npmi)
    np.testing.assert_allclose(figures["other_npmi"], other_npmi)
    np.testing.assert_allclose(figures["recurring_words"], found_words)
    np.testing.assert_allclose(stability.truth_recovered(models[:2], truth), [1.0, 1.0])


def test_an_hdps_spare_topics_are_left_out():
    hdp = engine.HDP(n_topics=6, doc_truncation=2, n_words=4, seed=0)
    hdp.lambda_ = np.ones((6, 4))
    weights = hdp.topic_weights()
    assert list(stability.considered(hdp, "hdp")) == list(np.flatnonzero(weights >= stability.IN_USE_WEIGHT))
    assert list(stability.considered(_lda(np.ones((3, 4))), "lda")) == [0, 1, 2]


def test_the_script_prints_a_row_per_system_on_synthetic_data(capsys):
    assert stability.main(["--corpora", "synthetic", "--k", "20", "--seeds", "0", "1", "--epochs", "1",
                           "--systems", "engine-lda"]) == 0
    out = capsys.readouterr().out
    [row] = [line for line in out.splitlines() if line.startswith("| synthetic | 20 | engine-lda |")]
    cells = [cell.strip() for cell in row.split("|")[1:-1]]
    assert len(cells) == 9
    for share in (cells[3], cells[-1]):  # topics found again, true topics recovered: "mean ± sd", shares
        mean, sd = (float(part) for part in share.split(" ± "))
        assert 0.0 <= mean <= 1.0 and sd >= 0.0


def test_the_script_needs_two_seeds():
    with pytest.raises(SystemExit):
        stability.main(["--seeds", "0"])


def test_consensus_figures_combine_each_half_and_score_it_as_by_hand(planted_corpus):
    from types import SimpleNamespace

    truth = planted_corpus.topics + 1e-3
    reference = engine.CoherenceReference(planted_corpus.counts)
    blurred = truth.copy()
    blurred[0] = blurred[1] = truth[0] + truth[1]
    models = [_lda(truth), _lda(truth[[4, 3, 2, 1, 0]]), _lda(blurred), _lda(truth[[1, 0, 2, 3, 4]])]
    collection = SimpleNamespace(observed=planted_corpus.counts[:40], heldout=planted_corpus.counts[40:80])
    figures = stability.consensus_figures(models, [1.0, 2.0, 3.0, 4.0], collection, reference, truth)
    made = [engine.consensus_topics(models[:2]).model(), engine.consensus_topics(models[2:]).model()]
    assert figures["topics"] == [5, 4]  # the blurred run shares 4 topics with its partner
    np.testing.assert_allclose(figures["recurring"], [engine.match_topics(made[0], made[1]).recurring.mean(),
                                                      engine.match_topics(made[1], made[0]).recurring.mean()])
    singles = [engine.match_topics(models[a], models[b]).recurring.mean() for a, b in
               ((0, 2), (0, 3), (1, 2), (1, 3), (2, 0), (2, 1), (3, 0), (3, 1))]
    np.testing.assert_allclose(figures["single_recurring"], singles)
    np.testing.assert_allclose(figures["npmi"], [reference.score_model(m).mean() for m in made])
    np.testing.assert_allclose(figures["loglik"], [engine.predictive_log_likelihood(
        m, collection.observed, collection.heldout) for m in made])
    np.testing.assert_allclose(figures["truth"], [1.0, 0.8])
    assert figures["train_seconds"] == 3.0 and figures["combine_seconds"].shape == (2,)


def test_the_script_needs_four_seeds_to_combine_halves():
    with pytest.raises(SystemExit):
        stability.main(["--seeds", "0", "1", "2", "--consensus"])

"""Tests of engine/data/semisynthetic.py: LDA documents with fitted topics and empirical lengths."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import engine
from engine.data.ondisk import DiskCorpus
from engine.data.semisynthetic import SemiSyntheticGenerator, _alias_tables

LENGTHS = np.array([5] * 5 + [20] * 3 + [80] * 2)  # an empirical distribution: 50% / 30% / 20%


@pytest.fixture(scope="module")
def generator() -> SemiSyntheticGenerator:
    rng = np.random.default_rng(0)
    topics = rng.dirichlet(np.full(40, 0.2), size=4)
    return SemiSyntheticGenerator(topics, LENGTHS, alpha=0.5, topic_weights=[0.4, 0.3, 0.2, 0.1], block_size=64)


def same(a: sp.csr_matrix, b: sp.csr_matrix) -> bool:
    return a.shape == b.shape and (a != b).nnz == 0


def test_alias_tables_reproduce_the_distributions():
    distributions = np.random.default_rng(1).dirichlet(np.full(30, 0.3), size=5)
    distributions[0] = np.eye(30)[7]  # a point mass
    threshold, alias = _alias_tables(distributions)
    n_rows, n_outcomes = distributions.shape
    implied = np.zeros_like(distributions)
    for k in range(n_rows):  # column j is kept with probability threshold, else replaced by alias
        np.add.at(implied[k], np.arange(n_outcomes), threshold[k] / n_outcomes)
        np.add.at(implied[k], alias[k], (1.0 - threshold[k]) / n_outcomes)
    np.testing.assert_allclose(implied, distributions, atol=1e-12)


def test_deterministic_per_seed(generator):
    first = generator.counts(300, seed=5)
    assert same(first, generator.counts(300, seed=5))
    assert not same(first, generator.counts(300, seed=6))
    assert first.shape == (300, 40) and first.has_sorted_indices and first.data.min() >= 1


def test_any_range_equals_the_one_shot_generation(generator, tmp_path):
    one_shot = generator.counts(1000, seed=2)
    pieces = [generator.counts(n, seed=2, start=start) for start, n in ((0, 100), (100, 37), (137, 863))]
    assert same(sp.vstack(pieces, format="csr"), one_shot)
    assert same(generator.counts(10, seed=2, start=500), one_shot[500:510])
    seen = []
    disk = generator.build(tmp_path / "disk", 1000, seed=2, progress=seen.append)  # written block by block
    assert seen == [*range(64, 1000, 64), 1000]
    assert same(disk.counts[:], one_shot) and disk.n_tokens == one_shot.sum()
    assert same(DiskCorpus.open(tmp_path / "disk").counts[:], one_shot)


def test_lengths_follow_the_empirical_distribution(generator):
    lengths = generator.counts(4000, seed=1).sum(axis=1).A1
    values, counts = np.unique(lengths, return_counts=True)
    assert values.tolist() == [5, 20, 80]
    shares, expected = counts / lengths.size, np.array([0.5, 0.3, 0.2])
    assert np.all(np.abs(shares - expected) < 4 * np.sqrt(expected * (1 - expected) / lengths.size))


def test_word_frequencies_match_the_mixture(generator):
    counts = generator.counts(6000, seed=3)
    observed = counts.sum(axis=0).A1 / counts.sum()
    expected = generator.word_distribution()
    distance = lambda p: 0.5 * np.abs(observed - p).sum()  # noqa: E731 - total variation
    # measured ~0.01 over seeds (the spread comes mostly from theta_d varying between documents);
    # the same topics mixed with the weights reversed are ~0.25 away, uniformly ~0.12
    assert counts.sum() > 100_000 and distance(expected) < 0.03
    assert distance(np.array([0.1, 0.2, 0.3, 0.4]) @ generator.topics) > 0.1


def test_invalid_inputs_are_rejected():
    topics = np.full((2, 3), 1 / 3)
    with pytest.raises(ValueError, match="doc_lengths must be >= 1"):
        SemiSyntheticGenerator(topics, [3, 0])
    with pytest.raises(ValueError, match="whole numbers"):
        SemiSyntheticGenerator(topics, [2.5])
    with pytest.raises(ValueError, match="topics must be finite and non-negative"):
        SemiSyntheticGenerator(-topics, [3])
    with pytest.raises(ValueError, match="topic_weights must be 2"):
        SemiSyntheticGenerator(topics, [3], topic_weights=[1.0])
    with pytest.raises(ValueError, match="alpha must be"):
        SemiSyntheticGenerator(topics, [3], alpha=0)
    with pytest.raises(ValueError, match="n_docs must be"):
        SemiSyntheticGenerator(topics, [3]).counts(0)


def test_from_a_fitted_model_then_svi_on_disk(tmp_path, planted_corpus):
    model = engine.LDA(planted_corpus.n_topics, planted_corpus.counts.shape[1], seed=0)
    engine.SVI(model, planted_corpus.counts, batch_size=32, seed=0).run(n_steps=5)
    generator = SemiSyntheticGenerator.from_model(model, planted_corpus.counts.sum(axis=1).A1, block_size=100)
    disk = generator.build(tmp_path / "semi", 500, seed=0, vocabulary=planted_corpus.vocabulary)
    assert disk.vocabulary == planted_corpus.vocabulary and disk.manifest["source"]["kind"] == "semisynthetic"
    student = engine.LDA(planted_corpus.n_topics, disk.n_words, seed=1, first_pass_steps=0)  # S a step
    trainer = engine.SVI(student, disk, batch_size=50, seed=0)
    reports = [trainer.step() for _ in range(3)]
    assert [r.t for r in reports] == [1, 2, 3] and trainer.docs_seen == 150
    assert np.all(np.isfinite(student.lambda_))

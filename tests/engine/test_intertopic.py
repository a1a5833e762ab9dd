"""The intertopic map's math: Jensen-Shannon divergences and principal coordinates (classical MDS)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.spatial.distance import jensenshannon, pdist, squareform

import engine


def _topics(n_topics: int = 6, n_words: int = 40, seed: int = 0) -> np.ndarray:
    rows = np.random.default_rng(seed).dirichlet(np.full(n_words, 0.3), size=n_topics)
    rows[0, :5] = 0.0  # zeros must follow 0 log 0 = 0
    return rows / rows.sum(axis=1, keepdims=True)


def test_jensen_shannon_is_scipys_distance_squared():
    topics = _topics()
    divergence = engine.jensen_shannon(topics)
    expected = np.array([[jensenshannon(p, q) ** 2 for q in topics] for p in topics])
    np.testing.assert_allclose(divergence, expected, atol=1e-12)
    assert np.array_equal(divergence, divergence.T) and np.all(np.diag(divergence) == 0)


def test_jensen_shannon_by_the_definition():
    topics = _topics(n_topics=3, n_words=7, seed=3)

    def kl(p, q):
        return sum(a * np.log(a / b) for a, b in zip(p, q, strict=True) if a > 0)

    for i in range(3):
        for j in range(3):
            mixture = (topics[i] + topics[j]) / 2
            expected = (kl(topics[i], mixture) + kl(topics[j], mixture)) / 2
            assert engine.jensen_shannon(topics)[i, j] == pytest.approx(expected, abs=1e-12)
    disjoint = np.array([[0.5, 0.5, 0.0, 0.0], [0.0, 0.0, 0.5, 0.5]])
    assert engine.jensen_shannon(disjoint)[0, 1] == pytest.approx(np.log(2))


def test_jensen_shannon_of_float32_topics():
    topics = np.random.default_rng(4).dirichlet(np.full(20_000, 0.05), size=3).astype(np.float32)
    np.testing.assert_allclose(engine.jensen_shannon(topics), engine.jensen_shannon(topics.astype(np.float64)),
                               atol=1e-6)


def test_jensen_shannon_rejects_rows_that_are_not_distributions():
    with pytest.raises(ValueError, match="row 1 sums to"):
        engine.jensen_shannon(np.array([[0.5, 0.5], [0.5, 0.6]]))
    with pytest.raises(ValueError, match="non-negative"):
        engine.jensen_shannon(np.array([[1.5, -0.5]]))


def _procrustes_residual(found: np.ndarray, planted: np.ndarray) -> float:
    """Largest distance between ``found`` and the best rotation/reflection of the centred ``planted``."""
    planted = planted - planted.mean(axis=0)
    u, _, vt = np.linalg.svd(planted.T @ found)
    return float(np.abs(planted @ (u @ vt) - found).max())


def test_principal_coordinates_recover_planar_points_up_to_rotation():
    points = np.random.default_rng(1).normal(size=(8, 2)) * [3.0, 1.0]
    rotation = np.array([[np.cos(0.7), -np.sin(0.7)], [np.sin(0.7), np.cos(0.7)]])
    found = engine.principal_coordinates(squareform(pdist(points @ rotation)))
    assert found.shape == (8, 2)
    np.testing.assert_allclose(found.mean(axis=0), 0.0, atol=1e-12)
    assert _procrustes_residual(found, points) < 1e-9
    np.testing.assert_allclose(squareform(pdist(found)), squareform(pdist(points)), atol=1e-9)
    assert found[:, 0].var() >= found[:, 1].var()  # the first axis has the largest spread


def test_principal_coordinates_of_few_points_and_orientation():
    assert engine.principal_coordinates(np.zeros((1, 1))).tolist() == [[0.0, 0.0]]
    two = engine.principal_coordinates(np.array([[0.0, 2.0], [2.0, 0.0]]))
    np.testing.assert_allclose(np.abs(two), [[1.0, 0.0], [1.0, 0.0]], atol=1e-12)
    distances = squareform(pdist(np.random.default_rng(2).normal(size=(5, 3))))
    found = engine.principal_coordinates(distances, n_components=3)
    assert np.all(found[np.argmax(np.abs(found), axis=0), [0, 1, 2]] > 0)  # each axis' largest value is positive
    with pytest.raises(ValueError, match="symmetric"):
        engine.principal_coordinates(np.array([[0.0, 1.0], [2.0, 0.0]]))
    with pytest.raises(ValueError, match="square"):
        engine.principal_coordinates(np.zeros((2, 3)))


def test_intertopic_coordinates_match_pcoa_of_the_divergences_and_pyldavis():
    topics = _topics(n_topics=7)
    found = engine.intertopic_coordinates(topics)
    # the independent route: scipy's distance squared, then eigen-decomposition of the centred Gram matrix
    squared = squareform(pdist(topics, metric=jensenshannon)) ** 4
    centring = np.eye(7) - 1.0 / 7
    values, vectors = np.linalg.eig(-centring @ squared @ centring / 2)
    top = np.argsort(-values.real)[:2]
    expected = vectors.real[:, top] * np.sqrt(values.real[top])
    np.testing.assert_allclose(np.abs(found), np.abs(expected), atol=1e-9)
    pyldavis = pytest.importorskip("pyLDAvis._prepare")
    np.testing.assert_allclose(np.abs(found), np.abs(pyldavis.js_PCoA(topics)), atol=1e-9)

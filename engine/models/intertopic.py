"""The intertopic distance map of LDAvis (Sievert & Shirley 2014): topics placed on a plane.

Topics are compared by the Jensen-Shannon divergence of their word distributions and
placed in two dimensions by classical multidimensional scaling (principal coordinate
analysis, Gower 1966), as LDAvis and pyLDAvis do by default (their ``js_PCoA``), so the
explorer's map and a pyLDAvis page place the topics alike (up to rotation and reflection).
"""

from __future__ import annotations

import numpy as np
from scipy.special import xlogy

from engine.validation import check_int

__all__ = ["intertopic_coordinates", "jensen_shannon", "principal_coordinates"]


def _distributions(topics, name: str) -> np.ndarray:
    rows = np.asarray(topics, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] == 0 or rows.shape[1] == 0:
        raise ValueError(f"{name} must be a 2-D (topics x words) array with at least one row and column, "
                         f"got shape {rows.shape}")
    if not np.all(np.isfinite(rows)) or rows.min() < 0:
        raise ValueError(f"{name} must hold finite, non-negative probabilities")
    sums = rows.sum(axis=1)
    if not np.allclose(sums, 1.0, atol=1e-4):  # float32 topics of many words are off by more than 1e-6
        bad = int(np.argmax(np.abs(sums - 1.0)))
        raise ValueError(f"every row of {name} must sum to 1 (a word distribution), row {bad} sums to {sums[bad]!r}; "
                         "pass model.expected_topics()")
    return rows / sums[:, None]


def jensen_shannon(topics) -> np.ndarray:
    """Jensen-Shannon divergence between every pair of topics, in nats.

    JS(p, q) = (KL(p || m) + KL(q || m)) / 2 with m = (p + q) / 2, computed as
    H(m) - (H(p) + H(q)) / 2 (H the entropy, 0 log 0 = 0).  It lies in [0, log 2];
    ``scipy.spatial.distance.jensenshannon`` returns its square root.

    Parameters
    ----------
    topics : array-like of shape (n_topics, n_words)
        Word distributions p(w | k), rows summing to one (``model.expected_topics()``).

    Returns
    -------
    ndarray of shape (n_topics, n_topics)
        Symmetric, zero on the diagonal.
    """
    rows = _distributions(topics, "topics")
    n_topics = rows.shape[0]
    entropy = -xlogy(rows, rows).sum(axis=1)
    divergence = np.zeros((n_topics, n_topics))
    for k in range(n_topics - 1):  # one (n_topics - k - 1, n_words) block at a time: memory O(K V)
        mixture = 0.5 * (rows[k] + rows[k + 1:])
        mixed_entropy = -xlogy(mixture, mixture).sum(axis=1)
        divergence[k, k + 1:] = mixed_entropy - 0.5 * (entropy[k] + entropy[k + 1:])
    divergence = np.clip(divergence, 0.0, np.log(2.0))  # rounding can leave -1e-17
    return divergence + divergence.T


def principal_coordinates(distances, n_components: int = 2) -> np.ndarray:
    """Classical multidimensional scaling (principal coordinate analysis) of a distance matrix.

    The double-centred matrix B = -J D**2 J / 2 (J = I - 11'/n) is the Gram matrix of
    points whose Euclidean distances are D when D is Euclidean; its leading eigenvectors
    scaled by the square roots of their eigenvalues give the coordinates.  Negative or
    missing eigenvalues (non-Euclidean D, fewer points than components) give zero
    columns.  Each axis is oriented so its largest coordinate in absolute value is
    positive, so the result does not flip between calls on nearly equal inputs.

    Parameters
    ----------
    distances : array-like of shape (n_points, n_points)
        Symmetric, non-negative, zero diagonal.
    n_components : int
        Number of coordinates per point.

    Returns
    -------
    ndarray of shape (n_points, n_components)
        Centred at the origin; the first axis has the largest spread.
    """
    n_components = check_int("n_components", n_components, 1)
    matrix = np.asarray(distances, dtype=np.float64)
    if matrix.ndim != 2 or matrix.shape[0] != matrix.shape[1] or matrix.shape[0] == 0:
        raise ValueError(f"distances must be a square, non-empty matrix, got shape {matrix.shape}")
    if not np.all(np.isfinite(matrix)) or matrix.min() < 0 or not np.allclose(matrix, matrix.T):
        raise ValueError("distances must be finite, non-negative and symmetric")
    n_points = matrix.shape[0]
    squared = matrix ** 2
    # double centring: subtract row and column means, add back the grand mean
    gram = -0.5 * (squared - squared.mean(axis=0) - squared.mean(axis=1)[:, None] + squared.mean())
    eigenvalues, eigenvectors = np.linalg.eigh(gram)  # ascending
    order = np.argsort(-eigenvalues, kind="stable")[:n_components]
    scale = np.sqrt(np.clip(eigenvalues[order], 0.0, None))
    coordinates = np.zeros((n_points, n_components))
    coordinates[:, :order.size] = eigenvectors[:, order] * scale
    largest = np.argmax(np.abs(coordinates), axis=0)
    signs = np.sign(coordinates[largest, np.arange(n_components)])
    return coordinates * np.where(signs == 0, 1.0, signs)


def intertopic_coordinates(topics) -> np.ndarray:
    """LDAvis' default topic positions: principal coordinates of the Jensen-Shannon divergences.

    Parameters
    ----------
    topics : array-like of shape (n_topics, n_words)
        Word distributions p(w | k), rows summing to one (``model.expected_topics()``).

    Returns
    -------
    ndarray of shape (n_topics, 2)
        x and y of each topic; topics with similar words lie close together.
    """
    return principal_coordinates(jensen_shannon(topics), n_components=2)

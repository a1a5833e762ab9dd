"""Per-word held-out predictive log likelihood, the paper's measure of model fit."""

from __future__ import annotations

import numpy as np

from engine.validation import as_counts

__all__ = ["predictive_log_likelihood"]


def predictive_log_likelihood(model, observed, heldout) -> float:
    """Average log p(w_new | w_obs) per held-out word (Hoffman et al. 2013, section on evaluation).

    Each test document's topic proportions are fitted on its observed words
    with the model's own local inference (``model.transform``, giving
    E[theta_d]); each held-out word is then scored under the approximate
    predictive distribution p(w | w_obs) ≈ sum_k E[theta_dk] E[beta_kw].

    Parameters
    ----------
    model : LDA or HDP
        A trained model.
    observed, heldout : sparse matrices of shape (n_test, n_words)
        Row d of each holds test document d's observed and held-out words
        (disjoint word types), as made by :func:`engine.heldout_split`.

    Returns
    -------
    float
        sum of count * log p over held-out words, divided by their total count.
    """
    observed = as_counts(observed, model.n_words, name="observed")
    heldout = as_counts(heldout, model.n_words, name="heldout")
    if observed.shape[0] != heldout.shape[0]:
        raise ValueError(
            f"observed has {observed.shape[0]} documents but heldout has {heldout.shape[0]}; "
            "they must be the two halves of the same test documents"
        )
    if heldout.nnz == 0:
        raise ValueError("heldout holds no words to score")
    theta = np.asarray(model.transform(observed), dtype=np.float64)
    topics = np.asarray(model.expected_topics(), dtype=np.float64)
    rows = np.repeat(np.arange(heldout.shape[0]), np.diff(heldout.indptr))
    total = 0.0
    chunk = max(1, (1 << 20) // topics.shape[0])
    for start in range(0, heldout.nnz, chunk):
        sl = slice(start, start + chunk)
        # p(w | d) = sum_k E[theta_dk] E[beta_kw], one row per held-out (d, w) pair
        prob = np.einsum("nk,kn->n", theta[rows[sl]], topics[:, heldout.indices[sl]])
        total += float(heldout.data[sl] @ np.log(prob))
    return total / float(heldout.data.sum())

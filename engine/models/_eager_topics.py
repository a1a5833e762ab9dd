"""The global step of SVI: blend intermediate parameters into the current ones."""

from __future__ import annotations

import numpy as np

__all__ = ["blend_topics"]


def blend_topics(
    lambda_: np.ndarray, topic_word: np.ndarray, columns: np.ndarray, eta: float, scale: float, rho: float
) -> np.ndarray:
    """Return lambda^(t) = (1 - rho) lambda^(t-1) + rho * lambda_hat.

    The intermediate topics are lambda_hat = eta + scale * topic_word, where
    ``topic_word`` holds sum_d sum_n phi_dn^k w_dn over the minibatch on the
    given columns (zero elsewhere) and scale = D / S treats the minibatch as if
    it were the corpus repeated D / S times (Hoffman et al. 2013).  The input
    is not modified: readers of the old array keep a consistent copy.
    """
    blended = (1.0 - rho) * lambda_ + rho * eta
    blended[:, columns] += (rho * scale) * topic_word
    return blended

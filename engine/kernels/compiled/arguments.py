"""The arguments of the compiled document loops, as small named tuples (numba takes them; it takes no dataclasses).

Each loop unpacks its records in its first lines, so its body reads the same names
as the mathematics in its module docstring.  The arrays a loop writes stay separate
arguments: with numba 0.68, writes inside ``prange`` to an array unpacked from a tuple
argument are lost (the kernel tests' iteration counts and fallbacks catch it).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np


class Minibatch(NamedTuple):
    """A minibatch's CSR arrays (int64 positions, counts in the kernel's dtype)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray


class HDPTopicTerm(NamedTuple):
    """The topics as the document loop reads them, one row per minibatch word (see the module docstring)."""

    elog_beta_t: np.ndarray  # (n_columns, K): E[log beta] (or log E[beta]) per word
    exp_elog_beta_t: np.ndarray  # exp(E[log beta] - max_k) per word, for the "lda" start; (0, K) otherwise
    word_max_abs: np.ndarray  # per word: max_k |E[log beta_kw]|
    word_tail_max: np.ndarray  # per word: the largest topic term past the head
    head: int  # topics 0..head-1 are within reach of the largest stick term
    tail_stick: float  # the largest stick term past the head
    skip_mass: float  # phi mass below which a topic is left out of a document's sums


class HDPDocSettings(NamedTuple):
    """Everything the document loop needs besides the data and the topics."""

    sticks: np.ndarray  # E[log sigma_k] of the corpus sticks
    empty_zeta: np.ndarray  # zeta of a document without words
    alpha: float  # document-level concentration
    n_atoms: int  # T
    tol: float
    max_iter: int
    warmup: int
    mode: int  # _LDA, _PAPER or _WARM: how phi starts
    lda_alpha: np.ndarray  # the "lda" start's Dirichlet prior alpha E[sigma(V)]
    psi_lda_alpha: np.ndarray  # psi (log, zero order) of lda_alpha
    topic_prior: np.ndarray  # lda_alpha in the kernel's dtype
    phi_init: np.ndarray  # warm start: the previous word-atom assignment, (nnz, T)
    floor: float
    lda_floor: float
    tiny: float
    zero_order: bool


class LDADocSettings(NamedTuple):
    """What LDA's document loop needs besides the data and the topic rows."""

    alpha: np.ndarray  # (K,) float64
    tol: float
    max_iter: int
    tiny: float  # a normaliser below this hands the document to the NumPy reference
    floor: float  # theta~ below exp(floor) is flushed to zero
    zero_order: bool

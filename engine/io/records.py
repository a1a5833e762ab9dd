"""The records of a run's history, part of the model file format (see :mod:`engine.io.model_files`).

A :class:`engine.TrainingRun` appends them while it trains; a model file stores them,
so a resumed run and the explorer's charts see the whole history.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["EvalPoint", "SettingChange"]


@dataclass(frozen=True)
class EvalPoint:
    """One held-out evaluation: the paper's per-word predictive log likelihood after ``step`` updates.

    ``seconds`` is training time so far (evaluation and pauses excluded);
    ``rho`` is the step size of the latest update.
    """

    step: int
    docs_seen: int
    seconds: float
    heldout_loglik: float
    rho: float


@dataclass(frozen=True)
class SettingChange:
    """A change applied after ``step`` updates: ``kappa``, ``tau`` or ``batch_size`` (numbers), or ``kernel``.

    ``births`` marks the step in which the HDP split topics (:meth:`engine.HDP.prepare_step`):
    ``old`` is the birth round (1 to 3), ``new`` the number of topics it split.  ``merges``
    marks the end of a run in which the HDP judged its pending birth pairs
    (:meth:`engine.HDP.judge_births`): ``old`` pairs judged, ``new`` pairs merged back.

    A ``kernel`` change (names such as "numpy" -> "compiled") is recorded when a run that
    trained with the NumPy reference while the compiled kernels were being built switches
    to them.
    """

    step: int
    docs_seen: int
    seconds: float
    name: str
    old: float | str
    new: float | str

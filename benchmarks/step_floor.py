"""``quality.py`` with every SVI step floored at 1/(t + 1) (RESULTS.md run 37, a probe of issue 13).

rho_t = max(the model's own step size, 1/(t + 1)): the random start then never weighs more
than any one minibatch (after t steps its weight is at most 1/(t + 1)).  Applied to every
model not under ``preset="paper"``; the arguments are ``quality.py``'s::

    cd benchmarks
    NUMBA_NUM_THREADS=1 python step_floor.py --corpora ap jargon --systems engine-hdp \\
        --svi-options '{"kappa": 0.9, "tau": 64}' --label floor --out /tmp/floor.jsonl

t counts the trainer's updates, so the probe is for fresh models (as ``quality.py`` trains).
"""

from __future__ import annotations

import sys

import engine.inference.svi as svi

_scheduled_rho = svi.scheduled_rho


def floored_rho(model, t: int, kappa: float, tau: float) -> float:
    """The model's step size for update ``t``, at least 1/(t + 1) unless the model is under the paper preset."""
    rho = _scheduled_rho(model, t, kappa, tau)
    if getattr(model, "preset", "default") == "paper":
        return rho
    return max(rho, 1.0 / (t + 1))


def main(argv=None) -> int:
    svi.scheduled_rho = floored_rho  # engine.SVI looks the function up in its module at each step
    import quality

    return quality.main(sys.argv[1:] if argv is None else argv)


if __name__ == "__main__":
    sys.exit(main())

"""What every numba kernel of the engine shares: one lock around parallel calls, and the math flags.

numba's fallback "workqueue" threading layer (the one available without TBB
or OpenMP) aborts the process when two Python threads enter parallel code at
once, which two training runs in one explorer server would do.  Each kernel
call already uses every core, so serialising them costs nothing.
"""

from __future__ import annotations

import threading

PARALLEL_LOCK = threading.Lock()

# Every numba kernel takes its math flags from here (numba takes sets, not frozensets).
#
# FAST_MATH, the LDA kernels and the lazy topic store: sums may be reassociated
# (vectorised) and divisions use reciprocals, but infinities and NaN keep their IEEE
# meaning, so a -inf start or an overflow check is never optimised away.
FAST_MATH = {"reassoc", "contract", "arcp", "nsz", "afn"}
# FAST_MATH_FINITE, the HDP kernels: every fast-math flag (numba's fastmath=True), so
# the compiler may also assume no inf or NaN.  They never compute one on purpose: each
# shifted logit is floored before exp, and a document whose results are not finite is
# caught by ``all_finite`` (compiled without fast math, which would assume it away)
# and refitted by the NumPy reference.
FAST_MATH_FINITE = True
# EXP_DIGAMMA, the vectorised exp and digamma (engine.kernels.compiled.numerics): no
# "reassoc", so the range reduction x - t ln2_hi - t ln2_lo and the polynomials are
# evaluated as written, in the order their error bounds assume.
EXP_DIGAMMA = {"nnan", "ninf", "nsz", "contract", "arcp"}

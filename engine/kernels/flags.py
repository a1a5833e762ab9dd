"""What every numba kernel of the engine shares: one lock around parallel calls, and the math flags.

numba's fallback "workqueue" threading layer (the one available without TBB
or OpenMP) aborts the process when two Python threads enter parallel code at
once, which two training runs in one explorer server would do.  Each kernel
call already uses every core, so serialising them costs nothing.
"""

from __future__ import annotations

import threading

PARALLEL_LOCK = threading.Lock()

# fastmath without "nnan"/"ninf": sums may be reassociated (vectorised) and
# divisions use reciprocals, but infinities and NaN keep their IEEE meaning,
# so a -inf start or an overflow check is never optimised away
FAST_MATH = {"reassoc", "contract", "arcp", "nsz", "afn"}  # a set: numba takes no frozenset

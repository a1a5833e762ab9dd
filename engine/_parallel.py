"""One lock around every call of a numba ``parallel=True`` kernel.

numba's fallback "workqueue" threading layer (the one available without TBB
or OpenMP) aborts the process when two Python threads enter parallel code at
once, which two training runs in one explorer server would do.  Each kernel
call already uses every core, so serialising them costs nothing.
"""

from __future__ import annotations

import threading

PARALLEL_LOCK = threading.Lock()

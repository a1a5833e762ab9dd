"""Compile the engine's kernels into numba's cache in a second process while the first tests run.

A fresh checkout has an empty cache, and compiling every workload (model x local update x
dtype) costs a large share of a full test run, most of it on one core while the other is
idle.  :func:`start` runs ``python -m engine.inference._compile_worker`` (the explorer's
background compiler) for the workloads the main process needs last, the HDP's first, so
that by the time a test steps such a model the kernels load from the cache.  A test that
needs one of them while it is still compiling does not compile it again: its own compile
worker waits for the background one's lock (:func:`engine.kernels.cache.compile_lock`)
and then loads.

When the tests run in several processes (pytest-xdist), every core is busy with tests and a
background compile would only slow them: :func:`compile_before` then compiles every workload,
the main process's default LDA step included, in one compile process per core before the
first test (on two cores in about half the time one process takes), and the tests load what
they need.

Nothing depends on it for correctness: without it (a run of a few tests, no numba) every
kernel compiles where it is first called, as before.
"""

from __future__ import annotations

import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor

from engine.kernels.cache import compile_in_worker, end_compile_worker

# in the order the background process compiles them: the HDP's first (the default float32 first, which
# the command line's tests need early; float64 for the Dask tests, whose workers are processes of
# their own), then LDA's less common steps; the main process compiles LDA's default step ("auto",
# float64), the first workload every run needs, itself
WORKLOADS = (
    "HDP:zero_order:float32",
    "HDP:zero_order:float64",
    "HDP:mean_field:float64",
    "HDP:mean_field:float32",
    "LDA:zero_order:float32",
    "LDA:cvb0:float32",
    "LDA:zero_order:float64:squarem",
    "LDA:zero_order:float32:squarem",
    "LDA:mean_field:float32",
    "LDA:mean_field:float64",
)

# every workload a full run needs, in two halves of about equal compile time (by precision: the kernels a
# workload shares with the other half's are compiled in both, and the halves still end together)
ALL_WORKLOADS = (
    ("HDP:zero_order:float32", "LDA:zero_order:float32", "LDA:cvb0:float32", "LDA:zero_order:float32:squarem",
     "HDP:mean_field:float32", "LDA:mean_field:float32"),
    ("LDA:auto:float64", "HDP:zero_order:float64", "HDP:mean_field:float64", "LDA:zero_order:float64:squarem",
     "LDA:mean_field:float64"),
)

_process: subprocess.Popen | None = None


def compile_before(processes: int) -> str:
    """Compile :data:`ALL_WORKLOADS` in up to ``processes`` compile processes at once and wait for them; a line saying
    what was compiled (or loaded, from a warm cache) and how long it took."""
    started = time.monotonic()
    groups = ALL_WORKLOADS if processes >= 2 else (tuple(w for group in ALL_WORKLOADS for w in group),)
    with ThreadPoolExecutor(len(groups)) as pool:  # each thread waits on its own compile process
        compiled = [found or set() for found in pool.map(compile_in_worker, groups)]
    wanted = sum(len(group) for group in groups)
    return (f"engine kernels: {sum(map(len, compiled))} of {wanted} workloads in numba's cache after "
            f"{time.monotonic() - started:.0f} s ({len(groups)} compile processes)")


def start() -> None:
    """Start compiling :data:`WORKLOADS` in a background process (low priority); a no-op if started."""
    global _process
    if _process is not None:
        return
    _process = subprocess.Popen(
        [sys.executable, "-m", "engine.inference._compile_worker", *WORKLOADS],
        stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True,
    )


def stop() -> None:
    """End the background process (closing its input ends it) and wait for it."""
    global _process
    process, _process = _process, None
    if process is not None:
        end_compile_worker(process, timeout=30, close_output=False)

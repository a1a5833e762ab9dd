"""Compile the engine's kernels into numba's cache in a second process while the first tests run.

A fresh checkout has an empty cache, and compiling every workload (model x local update x
dtype) costs a large share of a full test run, most of it on one core while the other is
idle.  :func:`start` runs ``python -m engine.inference._compile_worker`` (the explorer's
background compiler) for the workloads the main process needs last, the HDP's first, so
that by the time a test steps such a model the kernels load from the cache.  A test that
would otherwise compile one of them at the same moment (the Dask tests, whose workers are
processes of their own) calls :func:`wait_for` first.

Nothing depends on it for correctness: without it (a run of a few tests, no numba) every
kernel compiles where it is first called, as before.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time

from engine.kernels.cache import REPORT_MARK, end_compile_worker  # "<mark> compiled <workload>" or "... failed ..."

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


class _Background:
    def __init__(self) -> None:
        self.process: subprocess.Popen | None = None
        self.reader: threading.Thread | None = None
        self.reported: set[str] = set()
        self.changed = threading.Condition()

    def read(self) -> None:
        assert self.process is not None and self.process.stdout is not None
        for line in self.process.stdout:
            words = line.split()
            if len(words) >= 3 and words[0] == REPORT_MARK:
                with self.changed:
                    self.reported.add(words[2])
                    self.changed.notify_all()
        with self.changed:  # the process ended: nobody waits for it any more
            self.reported.update(WORKLOADS)
            self.changed.notify_all()


_background = _Background()


def start() -> None:
    """Start compiling :data:`WORKLOADS` in a background process (low priority); a no-op if started."""
    if _background.process is not None:
        return
    _background.process = subprocess.Popen(
        [sys.executable, "-m", "engine.inference._compile_worker", *WORKLOADS],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    _background.reader = threading.Thread(target=_background.read, daemon=True, name="kernel-cache-reader")
    _background.reader.start()


def wait_for(workload: str, timeout: float = 600.0) -> None:
    """Block until the background process has compiled (or failed) ``workload``.

    Returns at once if no background process runs or ``workload`` is not one of its :data:`WORKLOADS`.
    """
    if _background.process is None or workload not in WORKLOADS:
        return
    deadline = time.monotonic() + timeout
    with _background.changed:
        while workload not in _background.reported and time.monotonic() < deadline:
            _background.changed.wait(timeout=max(0.0, deadline - time.monotonic()))


def stop() -> None:
    """End the background process (closing its input ends it) and wait for it."""
    process, _background.process = _background.process, None
    if process is None:
        return
    end_compile_worker(process, timeout=30, close_output=False)
    if _background.reader is not None:
        _background.reader.join(timeout=30)  # it has read to the end of the output
    process.stdout.close()

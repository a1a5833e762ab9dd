"""Compile kernels into numba's cache in a process of its own: ``python -m engine.inference._compile_worker``.

Started by :class:`engine.inference.warmup.KernelWarmUp` and by
:func:`engine.kernels.cache.compile_in_worker` with the workloads as arguments
(``LDA:zero_order:float64`` ...), in order.  After each it prints one line,
``engine-warm-up: compiled <workload> kernels=<n> waited=<seconds>`` or
``engine-warm-up: failed <workload> <error>``, so the starting process can load that
workload from the cache while the next one compiles.  Each workload is compiled under
:func:`engine.kernels.cache.compile_lock`: a worker that finds another process compiling
the same workload waits for it and then loads what it cached (``kernels=0``, the
number of kernels numba compiled here rather than loaded).  It runs at a lower priority
than the process that started it, and ends as soon as its standard input closes: the
starting process closes it when done, and the operating system does when that process dies.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

from engine.inference.warmup import Workload, _step
from engine.kernels.cache import REPORT_MARK, compile_lock, compiling_here


def _end_with_stdin() -> None:
    sys.stdin.read()  # returns at end of file only
    os._exit(0)


def main(arguments: list[str]) -> int:
    threading.Thread(target=_end_with_stdin, daemon=True).start()
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(10)  # the user-facing process (its UI, its training) comes first
    for argument in arguments:
        try:
            workload = Workload.parse(argument)
            with compile_lock(argument) as waited, _compile_events() as recorded, compiling_here():
                _step(workload)  # this process is where kernels are compiled, not handed on
            kernels = 0 if recorded is None else sum(event.is_start for _, event in recorded.buffer)
        except Exception as exc:  # reported to the starting process, which decides what to do
            message = f"{type(exc).__name__}: {exc}".replace("\n", " ")
            print(f"{REPORT_MARK} failed {argument} {message}", flush=True)
        else:
            print(f"{REPORT_MARK} compiled {argument} kernels={kernels} waited={waited:.1f}", flush=True)
    return 0


def _compile_events():
    """Records numba's "numba:compile" events in its body: one start event per kernel compiled, none per one loaded."""
    try:
        from numba.core import event
    except ImportError:  # nothing compiles without numba
        return contextlib.nullcontext(None)
    return event.install_recorder("numba:compile")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

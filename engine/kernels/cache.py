"""Run only machine code from numba's on-disk cache, so every process computes the same numbers.

numba's machine code for a kernel is not the same to the last bit in the process that
compiles it and in the processes that later load it from the cache (measured: the HDP's
local step by about 1e-13 in float64, and a few SVI steps of either model end with another
lambda, benchmarks/RESULTS.md run 35; numba's issue 10617 reports the two running at
different speeds).  A seed would then give one result in the first run
after an install and another in every later run.  So a process never runs code it
compiled itself when it can help it: :func:`cache_first` makes a workload's first
compiled call with compiling forbidden; if some kernel is not in the cache, a separate
Python process (:data:`WORKER_MODULE`) compiles the workload into the cache, and the
call is made again, now loading.  Only if that process could not deliver (the cache
could not be written, no process could start) is the rest compiled here.

Processes that share the cache (two app servers started together, a test run and its
background compiler) compile a workload once between them: the worker holds a lock file
per workload in the cache's folder while it compiles (:func:`compile_lock`), and a second
worker for the same workload waits for it and then loads what the first one cached.

"Compiling forbidden" is a listener on numba's ``numba:compile`` event, which numba
sends before it compiles a kernel and never when it loads one from the cache; the
listener stops a thread that is only loading with :class:`CompileNeededError`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import numpy as np

from engine.processes import python_command

try:
    import fcntl  # POSIX: the compile lock
except ImportError:  # Windows: no lock, a workload may be compiled twice
    fcntl = None

WORKER_MODULE = "engine.inference._compile_worker"  # run with the workloads as arguments: <workload> ...
REPORT_MARK = "engine-warm-up:"  # the worker prints "<mark> compiled <workload>" or "<mark> failed <workload> ..."

# how long a compile waits for another process's compile of the same workload: that one runs at
# low priority and may get little of a busy server's cores, so allow it far more than its minute
LOCK_WAIT_SECONDS = 1200.0
_LOCK_POLL_SECONDS = 0.1

_Result = TypeVar("_Result")
_logger = logging.getLogger(__name__)  # a child of the "engine" logger


class CompileNeededError(Exception):
    """Raised inside numba when a thread that may only load from the cache meets a kernel that is not there."""


_mode = threading.local()  # .value: None (cache first), "loading" (never compile) or "compiling" (compile here)
_guard_lock = threading.Lock()
_guard_installed = False
_ready: set[tuple[str, ...]] = set()  # workloads this process has loaded (or, failing that, compiled)
_workload_locks: dict[tuple[str, ...], threading.Lock] = {}


def guard_available() -> bool:
    """True if compiling can be forbidden: the listener on numba's "numba:compile" event is registered (once).

    False if numba, or its event API, is missing.
    """
    global _guard_installed
    try:
        from numba.core import event
    except ImportError:
        return False
    with _guard_lock:
        if not _guard_installed:

            class Guard(event.Listener):
                def on_start(self, _event) -> None:
                    if getattr(_mode, "value", None) == "loading":
                        raise CompileNeededError

                def on_end(self, _event) -> None:
                    pass

            event.register("numba:compile", Guard())
            _guard_installed = True
    return True


@contextlib.contextmanager
def _in_mode(value: str) -> Iterator[None]:
    before = getattr(_mode, "value", None)
    _mode.value = value
    try:
        yield
    finally:
        _mode.value = before


def loading_only() -> contextlib.AbstractContextManager[None]:
    """In this thread, loading a kernel from the cache works and compiling one raises :class:`CompileNeededError`.

    Needs the guard (see :func:`guard_available`); kernels loaded before the missing one stay loaded.
    """
    return _in_mode("loading")


def compiling_here() -> contextlib.AbstractContextManager[None]:
    """In this thread, kernels missing from the cache are compiled here (the compile worker's own mode)."""
    return _in_mode("compiling")


def workload_name(model: str, local_update: str, dtype, local_acceleration: str = "none") -> str:
    """A workload's name, ``model:local_update:dtype[:local_acceleration]`` (``"LDA:zero_order:float32"``).

    The one spelling of it: the compile worker, the warm-up (:class:`engine.inference.warmup.Workload`)
    and the models' local steps must agree on it.
    """
    name = f"{model}:{local_update}:{np.dtype(dtype).name}"
    return name if local_acceleration == "none" else f"{name}:{local_acceleration}"


def cache_first(workloads: tuple[str, ...], call: Callable[[], _Result]) -> _Result:
    """``call()``, whose compiled kernels belong to ``workloads``, run on machine code loaded from numba's cache.

    The first time in a process, ``call()`` runs with compiling forbidden; if a
    kernel is missing, :func:`compile_in_worker` compiles ``workloads`` into the
    cache and ``call()`` runs again (compiling here whatever is still missing).
    ``call`` must therefore change nothing before its first compiled kernel runs
    that a second call would not redo (the local steps change nothing at all).
    Later calls, and calls inside :func:`loading_only` or :func:`compiling_here`,
    are plain ``call()``.  Workloads are written ``model:local_update:dtype[:local_acceleration]``.
    """
    if workloads in _ready or getattr(_mode, "value", None) is not None or not guard_available():
        return call()
    with _guard_lock:
        lock = _workload_locks.setdefault(workloads, threading.Lock())
    with lock:  # one thread per workload compiles; the others wait and then load
        if workloads in _ready:
            return call()
        try:
            with loading_only():
                result = call()
        except CompileNeededError:
            _logger.info("compiling the engine's numba kernels for %s in a separate process, once after an "
                         "install (or an edit of engine/kernels): up to a minute or two", ", ".join(workloads))
            compile_in_worker(workloads)
            with compiling_here():  # loads what the worker cached, compiles what it could not
                result = call()
        _ready.add(workloads)
        return result


@contextlib.contextmanager
def compile_lock(workload: str, timeout: float = LOCK_WAIT_SECONDS,
                 folder: Path | None = None) -> Iterator[float]:
    """Hold the lock that lets one process at a time compile ``workload`` into the cache; yields the seconds waited.

    The lock is ``fcntl.flock`` on a file ``.compile-<workload>.lock`` in ``folder``
    (default :func:`engine.kernels.compiled.cache_folder`, numba's cache of the kernels);
    the operating system releases it when the holder ends, even by a crash.  After
    ``timeout`` seconds of waiting (a holder that hangs) the body runs without it, as it
    does where no lock can be taken (no ``fcntl``, as on Windows; a folder that cannot be
    written): compiling twice is only slower.
    """
    started = time.monotonic()
    if folder is None:
        from engine.kernels.compiled import cache_folder

        folder = cache_folder()
    descriptor = _open_lock_file(folder, workload) if folder is not None else None
    locked = False
    try:
        if descriptor is not None:
            while True:
                try:
                    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    locked = True
                    break
                except BlockingIOError:
                    if time.monotonic() - started >= timeout:
                        _logger.warning("another process has been compiling %s for %.0f s; compiling it here "
                                        "as well", workload, timeout)
                        break
                    time.sleep(_LOCK_POLL_SECONDS)
                except OSError:  # a file system without locks
                    break
        yield time.monotonic() - started
    finally:
        if descriptor is not None:
            if locked:
                fcntl.flock(descriptor, fcntl.LOCK_UN)
            os.close(descriptor)


def _open_lock_file(folder: Path, workload: str) -> int | None:
    """A descriptor of ``workload``'s lock file in ``folder`` (made if missing); None where locks cannot be had."""
    if fcntl is None:
        return None
    name = ".compile-" + "".join(c if c.isalnum() or c in "_-" else "-" for c in workload) + ".lock"
    flags = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return os.open(folder / name, os.O_RDWR | os.O_CREAT | flags, 0o644)
    except OSError:
        try:  # made by another user of a shared install: a read-only descriptor locks as well
            return os.open(folder / name, os.O_RDONLY | flags)
        except OSError:
            return None


def compile_in_worker(workloads: tuple[str, ...]) -> set[str] | None:
    """Compile ``workloads`` into numba's cache in a separate Python process; the set of those it reports compiled.

    None if no process could start.  The process inherits this one's environment
    (so ``NUMBA_CACHE_DIR`` and ``NUMBA_NUM_THREADS``).
    """
    worker = start_compile_worker(workloads)
    return None if worker is None else read_reports(worker, workloads)


def start_compile_worker(workloads: tuple[str, ...]) -> subprocess.Popen | None:
    """:data:`WORKER_MODULE` run as ``__main__`` on ``workloads...``, output piped by lines; None if it cannot start.

    The process imports this process's ``engine`` (:func:`engine.processes.python_command`):
    were it to compile another checkout's kernels, this process would compile its own
    itself, and its first run would differ from later ones.
    """
    command = python_command(f"import runpy; runpy.run_module({WORKER_MODULE!r}, run_name='__main__', alter_sys=True)",
                             *workloads)
    try:
        return subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True, bufsize=1)
    except OSError:
        return None


def read_reports(worker: subprocess.Popen, workloads: tuple[str, ...],
                 on_compiled: Callable[[str], None] | None = None) -> set[str]:
    """Read a compile worker's reports until it has reported every workload, then end it; those compiled.

    ``on_compiled(workload)`` is called as each "compiled" report arrives, so the
    caller can load one workload while the next compiles.
    """
    compiled: set[str] = set()
    reported: set[str] = set()
    try:
        for line in worker.stdout:
            if not line.startswith(REPORT_MARK):
                continue  # numba's or Python's own messages
            word, _, rest = line[len(REPORT_MARK):].strip().partition(" ")
            name = rest.split(" ", 1)[0]
            reported.add(name)
            if word == "compiled":
                compiled.add(name)
                if on_compiled is not None:
                    on_compiled(name)
            if reported >= set(workloads):
                break
    finally:
        end_compile_worker(worker, timeout=10)
    return compiled


def end_compile_worker(worker: subprocess.Popen, timeout: float, close_output: bool = True) -> None:
    """End a :data:`WORKER_MODULE` process and wait for it.

    Closing its standard input ends it (it also ends so if the starting process dies); its
    output is closed too unless ``close_output`` is False (a thread of the caller still
    reads it to the end).  A worker still running after ``timeout`` seconds is killed.
    """
    worker.stdin.close()
    if close_output:
        worker.stdout.close()
    try:
        worker.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        worker.kill()
        worker.wait()

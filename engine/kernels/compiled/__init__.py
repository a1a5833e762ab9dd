"""The numba local steps and row kernels: the fast path, tested against :mod:`engine.kernels.reference`.

numba's on-disk cache (``cache=True``) checks only the source file that defines a
kernel, but these kernels inline helpers from each other's files.  So that editing a
helper never runs stale machine code, importing this package compares a hash of every
source file here (and of the shared flags) with the one stored beside the cache, and
clears this package's cache files when they differ.  The cache is where numba puts it
(:func:`cache_folder`): ``__pycache__`` here, or a folder under ``NUMBA_CACHE_DIR``, or
numba's per-user folder for a read-only install.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

_HERE = Path(__file__).resolve().parent
_SOURCES = (*sorted(_HERE.glob("*.py")), _HERE.parent / "flags.py")
_STAMP = "sources.sha256"


def _source_hash(sources=_SOURCES) -> str:
    digest = hashlib.sha256()
    for path in sources:
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _located() -> None:
    """Stands for this package's kernels when numba's cache locators are asked where their cache is."""


def cache_folder() -> Path | None:
    """The folder numba caches this package's kernels in, as numba's cache locators choose it.

    ``__pycache__`` here when it can be written, a folder under ``NUMBA_CACHE_DIR`` when
    that is set, else numba's folder for the user; None without numba or a usable folder.
    Every file of this package has the same folder, which numba picks by the file's directory.
    """
    try:
        from numba.core import caching
    except ImportError:
        return None
    try:  # what numba's FunctionCache asks for a kernel of this folder (numba >= 0.59)
        return Path(caching.CompileResultCacheImpl(_located).locator.get_cache_path())
    except Exception:  # another numba's internals, or no locator (caching disabled): nothing to clear
        return None


def clear_stale_cache(cache: Path | None = None, sources=_SOURCES) -> bool:
    """Delete the numba cache files in ``cache`` if the sources changed since they were written; True if it did.

    ``cache`` defaults to :func:`cache_folder` (``__pycache__`` here if numba cannot say).
    A folder that cannot be written and a cache another process is clearing at the
    same moment are both left alone.
    """
    if cache is None:
        cache = cache_folder() or _HERE / "__pycache__"
    current = _source_hash(sources)
    stamp = cache / _STAMP
    try:
        if stamp.read_text(encoding="ascii").strip() == current:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(parents=True, exist_ok=True)
        for pattern in ("*.nbi", "*.nbc"):
            for stale in cache.glob(pattern):
                stale.unlink(missing_ok=True)
        descriptor, tmp = tempfile.mkstemp(dir=cache, prefix=f".{_STAMP}.")
        with os.fdopen(descriptor, "w", encoding="ascii") as file:
            file.write(current + "\n")
        os.replace(tmp, stamp)
    except OSError:
        return False
    return True


clear_stale_cache()

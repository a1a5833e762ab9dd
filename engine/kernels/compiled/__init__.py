"""The numba local steps and row kernels: the fast path, tested against :mod:`engine.kernels.reference`.

numba's on-disk cache (``cache=True``) checks only the source file that defines a
kernel, but these kernels inline helpers from each other's files.  So that editing a
helper never runs stale machine code, importing this package compares a hash of every
source file here (and of the shared flags) with the one stored beside the cache, and
clears this package's cache files when they differ.
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


def clear_stale_cache(cache: Path = _HERE / "__pycache__", sources=_SOURCES) -> bool:
    """Delete the numba cache files in ``cache`` if the sources changed since they were written; True if it did.

    A read-only install (where numba caches elsewhere and nobody edits the code) and a
    cache another process is clearing at the same moment are both left alone.
    """
    current = _source_hash(sources)
    stamp = cache / _STAMP
    try:
        if stamp.read_text(encoding="ascii").strip() == current:
            return False
    except OSError:
        pass
    try:
        cache.mkdir(exist_ok=True)
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

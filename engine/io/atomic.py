"""Atomic file writes: a reader sees the old file or the new one, never half of one."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import IO

__all__ = ["atomic_file"]


@contextlib.contextmanager
def atomic_file(path: str | os.PathLike, mode: str = "wb", encoding: str | None = None) -> Iterator[IO]:
    """Open a temporary file beside ``path``; on success it replaces ``path`` durably.

    The data is flushed and fsynced, the temporary file renamed over the
    target (keeping an existing file's permissions) and the folder fsynced.  If
    the ``with`` block raises, the temporary file is removed and an existing
    ``path`` is left untouched.

    Examples
    --------
    >>> with atomic_file("record.json", "w", encoding="utf-8") as file:
    ...     json.dump(record, file)
    """
    path = Path(path)
    folder = path.parent
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, mode, encoding=encoding) as file:
            yield file
            file.flush()
            os.fsync(file.fileno())
        os.chmod(temporary, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise
    _fsync_folder(folder)


def probe_writable(path: str | os.PathLike) -> None:
    """Create and remove a temporary file beside ``path``; raises ``OSError`` if that fails.

    Callers check ``path`` is not a folder and its folder exists first, and
    word the ``OSError`` for their own users.
    """
    path = Path(path)
    with tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".probe"):
        pass


def _fsync_folder(folder: Path) -> None:
    """Make a rename durable (POSIX); a no-op where folders cannot be opened."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)

"""Child Python processes that import this installation's ``engine`` and ``explorer``, wherever they start.

``python -m package`` puts the working directory first on the child's path, so a folder
there named ``engine`` or ``explorer`` (another checkout, a user's own package) would be
imported instead of ours.  :func:`python_command` starts the child with ``-c`` and a first
statement that drops the working directory from the path and puts the folder holding this
``engine`` in its place, unless the path has it already (an installed wheel: site-packages
stays where it is, after the standard library).
"""

from __future__ import annotations

import sys
from pathlib import Path

HOME = str(Path(__file__).resolve().parents[1])  # the folder holding this engine package (and explorer)


def python_command(statement: str, *arguments: str) -> list[str]:
    """``[python, "-c", <path fix>; statement, *arguments]``: a command running ``statement`` as a child process.

    In the child, ``sys.argv`` is ``["-c", *arguments]``.
    """
    fix = ("import os as _os, sys as _sys\n"
           "if _sys.path and _sys.path[0] in ('', _os.getcwd()):\n"
           "    del _sys.path[0]\n"
           f"if {HOME!r} not in _sys.path:\n"
           f"    _sys.path.insert(0, {HOME!r})\n"
           "del _os, _sys\n")
    return [sys.executable, "-c", fix + statement, *arguments]

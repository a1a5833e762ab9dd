"""``python -m engine``: the command line of :mod:`engine.cli` (the ``svi-topics`` command)."""

from engine.cli import main

raise SystemExit(main(prog="python -m engine"))

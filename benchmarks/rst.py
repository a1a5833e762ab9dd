#!/usr/bin/env python
"""reStructuredText read as plain text and as rendered: the words only its markup adds, in the vocabulary and topics.

Python projects write their documentation in reStructuredText (Sphinx).  Read as plain text, the
names of roles and directives ("func", "class", "code", "block", "toctree"), directive options
("maxdepth", "linenos") and link addresses add words nobody reads on the rendered page.
``engine.rst_text`` (what the engine's readers apply to ``.rst`` files) keeps what the page shows.

The collections are reStructuredText installed on this machine, found at run time (a collection
whose files are missing is skipped):

- ``python-libraries``: the Sphinx documentation, READMEs and change logs of the Python libraries
  the Google Cloud SDK carries (requests, urllib3, rsa, charset_normalizer...:
  ``/usr/lib/google-cloud-sdk/platform/gsutil/third_party/**/*.rst``);
- ``awscli``: the AWS command line's examples, one file per command (``awscli/examples/**/*.rst``
  of the installed ``awscli`` package, ``pip install awscli``).

Each is read two ways with the app's preprocessing, as ``benchmarks/markdown.py`` reads Markdown
(the same table, the same default LDA; see there):

    python benchmarks/rst.py --seeds 0 1 2 3 4
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import markdown  # noqa: E402  (benchmarks/markdown.py, found through the sys.path entry above)


def _package_folder(name: str) -> str:
    """The folder of an installed package, found without importing it ("" if it is not installed)."""
    spec = importlib.util.find_spec(name)
    return str(Path(spec.origin).parent) if spec is not None and spec.origin else ""


COLLECTIONS = {
    "python-libraries": ("/usr/lib/google-cloud-sdk/platform/gsutil/third_party", "**/*.rst"),
    "awscli": (str(Path(_package_folder("awscli") or "/nonexistent") / "examples"), "**/*.rst"),
}

if __name__ == "__main__":
    markdown.main(COLLECTIONS, "reStructuredText", __doc__)

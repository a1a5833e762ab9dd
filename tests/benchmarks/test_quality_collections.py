"""The quality benchmark's collections built at run time: the man pages' roff is read as words."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
_quality_panel = pytest.importorskip("_quality_panel")

_PAGE = r""".\" Copyright (C) 1992 Someone
'\" t
.TH OPEN 2 2023-02-05 "Linux man-pages 6.03"
.SH NAME
open, openat \- open and possibly create a file
.SH DESCRIPTION
.BI "int open(const char *" pathname ", int " flags );
The \fIflags\fP argument must include one of\(em \fBO_RDONLY\fR,
\*(lqquoted\*(rq, \s-1small\s+1 and \[cq]bracketed\[cq] words.
"""


def test_roff_text_keeps_the_words_and_drops_the_markup():
    text = _quality_panel.roff_text(_PAGE)
    words = text.split()
    for word in ("open,", "openat", "possibly", "pathname", "flags", "O_RDONLY", "quoted", "small", "bracketed",
                 "DESCRIPTION"):
        assert word in words, word
    for markup in ("Copyright", ".TH", ".BI", "\\f", "\\(", "\\*", "\\s", "\\[", "fIflags", "fBO_RDONLY", "lq"):
        assert markup not in text, markup

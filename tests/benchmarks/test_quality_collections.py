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


def test_docstrings_are_read_from_the_sources_each_once_without_tests_or_installed_packages(tmp_path):
    (tmp_path / "json").mkdir()
    (tmp_path / "json" / "__init__.py").write_text(
        '"""JSON encoder and decoder."""\n\ndef dumps(obj):\n    """Serialize obj to a JSON formatted str."""\n\n'
        'class Decoder:\n    """Simple JSON decoder."""\n\n    async def parse(self):\n        """Parse it."""\n'
        '    def _private(self):\n        return 1\n', encoding="utf-8")
    (tmp_path / "copy.py").write_text('def dumps(obj):\n    """Serialize obj to a JSON formatted str."""\n',
                                      encoding="utf-8")  # the same docstring again: kept once
    (tmp_path / "broken.py").write_text('"""Never read."""\ndef (:\n', encoding="utf-8")
    for excluded in ("test", "site-packages", "lib2to3", "idlelib/idle_test"):
        (tmp_path / excluded).mkdir(parents=True)
        (tmp_path / excluded / "mod.py").write_text(f'"""Left out: {excluded}."""\n', encoding="utf-8")
    texts, where = _quality_panel.docstring_texts(tmp_path, minimum=1)
    assert sorted(texts) == ["JSON encoder and decoder.", "Parse it.", "Serialize obj to a JSON formatted str.",
                             "Simple JSON decoder."]
    assert str(tmp_path) in where
    with pytest.raises(FileNotFoundError, match="only 4 docstrings"):
        _quality_panel.docstring_texts(tmp_path, minimum=5)


@pytest.mark.parametrize(("path", "is_page"), [
    ("/usr/share/man/man2/open.2.gz", True),
    ("/usr/share/man/de/man1/ls.1.gz", True),
    ("/usr/share/man/pt_BR/man8/mount.8.gz", True),
    ("/usr/share/man/fr.UTF-8/man5/fstab.5.gz", True),
    ("/usr/share/man/de/man1", False),  # the folder, not a page
    ("/usr/share/doc/manpages-de/changelog.gz", False),
    ("/usr/share/man/de/LC_MESSAGES/x.gz", False),
])
def test_translated_man_pages_are_found_under_their_language_folder(path, is_page):
    assert bool(_quality_panel._MANPAGE_PATH.search(path)) is is_page


def test_another_languages_stop_words_are_read_as_the_text_is():
    """German stop words lose their accents as the text does, so "für" in a page is dropped as "fur"; French
    compounds are split into the same tokens ("par-devant"); English keeps scikit-learn's list (the shared
    corpora's)."""
    texts = ["Für die Datei gilt: über alles", "für Dateien über Verzeichnisse"] * 5
    german = _quality_panel.collection_vectorizer("german").fit(texts)
    assert set(german.get_feature_names_out()) == {"datei", "dateien", "gilt", "verzeichnisse"}
    french = _quality_panel.collection_vectorizer("french")
    assert {"par", "devant", "qu", "apres", "derriere", "le"} <= set(french.stop_words)
    assert all(word == word.lower() and "é" not in word for word in french.stop_words)
    assert _quality_panel.collection_vectorizer().stop_words == "english"

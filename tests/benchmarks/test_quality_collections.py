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


def _dictd_digits(value: int) -> str:
    """``value`` in dictd's base 64 (A-Za-z0-9+/ digits, big-endian), written independently of the reader."""
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    digits = ""
    while True:
        value, digit = divmod(value, 64)
        digits = alphabet[digit] + digits
        if value == 0:
            return digits


def test_a_dictd_dictionary_is_read_one_entry_each_without_its_own_entries_or_source_lines(tmp_path):
    import gzip

    entries = [("00-database-info", b"This database was built for a test.\n"),
               ("cat", b"Cat \\Cat\\, n.\n   A small feline animal.\n   [1913 Webster]\n"),
               ("caf\u00e9", "Caf\u00e9 \\Caf`\u00e9\\, n.\n   A coffee house.\n   [Webster 1913 Suppl.]\n".encode()),
               ("dog", "Dog, n.  A  \u201cloyal\u201d animal [of old].\n".encode("cp1252"))]
    data, index = b"", []
    for headword, entry in entries:
        index.append(f"{headword}\t{_dictd_digits(len(data))}\t{_dictd_digits(len(entry))}")
        data += entry
    offset, length = index[1].split("\t")[1:]
    index.insert(2, f"kitty\t{offset}\t{length}")  # a second headword for the cat's entry
    index.append(f"00-test-short\t{_dictd_digits(0)}\t{_dictd_digits(10)}")
    (tmp_path / "test.index").write_text("\n".join(index) + "\n", encoding="utf-8")
    with gzip.open(tmp_path / "test.dict.dz", "wb") as file:
        file.write(data)

    texts, where = _quality_panel.dictd_entries("test", folder=tmp_path)
    assert texts == ["Cat \\Cat\\, n.\n   A small feline animal.", "Caf\u00e9 \\Caf`\u00e9\\, n.\n   A coffee house.",
                     "Dog, n.  A  \u201cloyal\u201d animal [of old]."]
    assert "test.index" in where
    sample, _ = _quality_panel.dictd_entries("test", folder=tmp_path, sample=2)
    assert len(sample) == 2 and set(sample) <= set(texts)
    assert sample == [text for text in texts if text in sample]  # the index's order kept
    with pytest.raises(FileNotFoundError):
        _quality_panel.dictd_entries("absent", folder=tmp_path)


def test_distinct_changelog_entries_keep_each_entry_once(tmp_path):
    import gzip

    entry = ("{pkg} ({version}) unstable; urgency=medium\n\n  * {change}\n\n"
             " -- A Maintainer <a@example.org>  Mon, 01 Jan 2024 10:00:00 +0000\n")
    releases = (("alpha", ("New upstream release.", "Fix the build.")), ("alpha-doc", ("New upstream release.",)))
    for pkg, changes in releases:
        (tmp_path / pkg).mkdir()
        with gzip.open(tmp_path / pkg / "changelog.Debian.gz", "wt", encoding="utf-8") as file:
            file.write("\n".join(entry.format(pkg="alpha", version=f"1.{i}", change=change)
                                 for i, change in enumerate(changes)))
    texts, where = _quality_panel.distinct_changelog_entries(str(tmp_path / "*" / "changelog.Debian.gz"))
    assert [text.split("\n")[0] for text in texts] == ["alpha (1.0) unstable; urgency=medium",
                                                        "alpha (1.1) unstable; urgency=medium"]
    assert where.endswith("3 entries")


def test_runs_building_one_collection_at_once_each_get_it_whole(tmp_path):
    """Two quality.py runs building the same collection's cache at once (run 95's screen lost one to a shared
    staging folder): each builds in its own, one complete folder lands, and every run loads it."""
    import threading
    import time

    themes = ["rivers dams floods water banks", "wheat farms harvest grain fields", "stars planets orbits comets sky"]
    texts = [f"{themes[i % 3]} {themes[(i + 1) % 3].split()[i % 5]} note {i}" for i in range(60)]
    started = threading.Barrier(4)

    def read_texts():
        started.wait()  # all four read before any writes: every one of them builds
        time.sleep(0.05)
        return texts, "the test's notes"

    results, errors = [], []

    def build():
        try:
            results.append(_quality_panel.cached_collection(tmp_path / "cache", "notes", read_texts, "install",
                                                            "{program}: {n_docs} notes", "made up"))
        except Exception as exc:  # the test reports whatever a run raised
            errors.append(exc)

    threads = [threading.Thread(target=build) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors and len(results) == 4 and all(message == "" for _, message in results)
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["notes"]  # no staging folder left behind
    assert {"train.npz", "test_obs.npz", "test_ho.npz", "vocab.txt", "PROVENANCE.md"} <= {
        p.name for p in (tmp_path / "cache" / "notes").iterdir()}
    sizes = {collection.train.shape for collection, _ in results}
    assert len(sizes) == 1 and sum(sizes.pop()) > 0


def test_a_build_stopped_half_way_leaves_no_staging_folder(tmp_path):
    themes = ["rivers dams floods water banks", "wheat farms harvest grain fields", "stars planets orbits comets sky"]
    texts = [f"{themes[i % 3]} {themes[(i + 1) % 3].split()[i % 5]} note {i}" for i in range(60)]
    with pytest.raises(KeyError, match="missing"):  # the provenance's placeholder fails after the matrices are written
        _quality_panel.cached_collection(tmp_path, "notes", lambda: (texts, "made up"), "install", "{missing}",
                                         "made up")
    assert list(tmp_path.iterdir()) == []

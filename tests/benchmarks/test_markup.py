"""benchmarks/markup.py: the words that live in the markup, and the cache of unpacked packages."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import engine

_PATH = Path(__file__).resolve().parents[2] / "benchmarks" / "markup.py"
_SPEC = importlib.util.spec_from_file_location("markup_benchmark", _PATH)
markup_benchmark = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(markup_benchmark)


def test_markup_words_are_those_the_text_without_markup_mostly_lacks():
    pages = ["<td class='cell'>table of costs</td>", "<td>the cell holds a table</td>", "<p>costs</p>"]
    corpus = engine.Corpus.from_texts(pages, strip_markup=False, stop_words="english")
    assert set(corpus.vocabulary) == {"td", "class", "cell", "table", "costs", "holds"}
    # "cell": once in an attribute, once in the text (1 of 2 left: not under a tenth); "p" is one letter
    assert markup_benchmark.markup_words(pages, corpus) == {"td", "class"}
    links = ["<a href='asyncio.html'>asyncio</a>" + "<a href='asyncio.html'>x</a>" * 7]
    tenth = engine.Corpus.from_texts(links * 2, strip_markup=False, stop_words="english")
    assert markup_benchmark.markup_words(links * 2, tenth) == {"href", "html"}  # asyncio: 1 of its 9 in the text


def test_an_unpacked_package_is_read_from_the_cache(tmp_path):
    (tmp_path / "some-package" / "pages").mkdir(parents=True)
    assert markup_benchmark.unpacked("some-package", tmp_path) == tmp_path / "some-package"  # no apt-get run

"""benchmarks/sphinx_site.py: the two readings of a site built by Sphinx, and the words only its copied sources hold."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import engine

_SPEC = importlib.util.spec_from_file_location(
    "sphinx_site_benchmark", Path(__file__).resolve().parents[2] / "benchmarks" / "sphinx_site.py")
sphinx_site = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sphinx_site)


def test_the_second_reading_adds_each_copied_source_as_plain_text(tmp_path):
    pages = {f"p{i}": f"Topic models of documents, part {i}: priors and samples." for i in range(6)}
    for name, text in pages.items():
        (tmp_path / f"{name}.html").write_text(f"<html><body><p>{text}</p></body></html>", encoding="utf-8")
        (tmp_path / "_sources").mkdir(exist_ok=True)
        (tmp_path / "_sources" / f"{name}.rst.txt").write_text(f".. confval:: option\n\n{text}\n", encoding="utf-8")
    read = sphinx_site.readings(tmp_path)
    assert sorted(d.doc_id for d in read["pages"]) == [f"{name}.html" for name in pages]
    assert len(read["pages+sources"]) == 12
    sources = [d for d in read["pages+sources"] if d.doc_id.startswith("_sources/")]
    assert all(d.text.startswith(".. confval:: option") for d in sources)  # as plain text, markup and all
    both = engine.Corpus.from_documents(read["pages+sources"], min_df=5, max_df=1.0)
    assert {both.vocabulary[w] for w in sphinx_site.source_words(both)} == {"confval", "option"}

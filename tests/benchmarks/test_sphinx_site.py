"""benchmarks/sphinx_site.py: three readings of a site built by Sphinx, and the words only the files left out hold."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import engine

_SPEC = importlib.util.spec_from_file_location(
    "sphinx_site_benchmark", Path(__file__).resolve().parents[2] / "benchmarks" / "sphinx_site.py")
sphinx_site = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(sphinx_site)


def test_the_readings_add_the_generated_pages_then_each_copied_source_as_plain_text(tmp_path):
    pages = {f"p{i}": f"Topic models of documents, part {i}: priors and samples." for i in range(6)}
    (tmp_path / "_sources").mkdir()
    (tmp_path / "_modules").mkdir()
    for name, text in pages.items():
        (tmp_path / f"{name}.html").write_text(f"<html><body><p>{text}</p></body></html>", encoding="utf-8")
        (tmp_path / "_sources" / f"{name}.rst.txt").write_text(f".. confval:: option\n\n{text}\n", encoding="utf-8")
        (tmp_path / "_modules" / f"{name}.html").write_text(
            f"<html><body><pre>def {name}(self):\n    return self.samples</pre></body></html>", encoding="utf-8")
    read = sphinx_site.readings(tmp_path)
    assert sorted(d.doc_id for d in read["pages"]) == [f"{name}.html" for name in pages]
    assert [len(read[name]) for name in ("pages+generated", "pages+generated+sources")] == [12, 18]
    sources = [d for d in read["pages+generated+sources"] if d.doc_id.startswith("_sources/")]
    assert all(d.text.startswith(".. confval:: option") for d in sources)  # as plain text, markup and all
    every = engine.Corpus.from_documents(read["pages+generated+sources"], min_df=5, max_df=1.0)

    def held(prefix):
        rows = [d for d, doc_id in enumerate(every.doc_ids) if doc_id.startswith(prefix)]
        return {every.vocabulary[w] for w in sphinx_site.held_words(every, rows)}

    assert held("_sources/") == {"confval", "option"}
    assert held("_modules/") == {"def", "self", "return"}  # "samples": the pages hold it too

"""benchmarks/markdown.py's comparison (which benchmarks/rst.py runs on reStructuredText) on a folder of pages."""

from __future__ import annotations

import importlib.util
from pathlib import Path

_FOLDER = Path(__file__).resolve().parents[2] / "benchmarks"


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"{name}_benchmark", _FOLDER / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_rst_comparison_finds_the_words_only_the_markup_adds(tmp_path, capsys, monkeypatch):
    monkeypatch.syspath_prepend(str(_FOLDER))  # rst.py imports markdown.py as its neighbour
    rst = _load("rst")
    themes = ["planet orbit star comet rocket launch", "bread oven butter flour salt baker",
              "team goal coach players match season"]
    roles, languages = ["func", "class", "meth"], ["python", "ruby", "perl"]  # each in a third of the pages
    for i in range(24):
        words = " ".join([themes[i % 3]] * 6)
        (tmp_path / f"page{i}.rst").write_text(
            f"Page {i}\n=======\n\nSee :{roles[i % 3]}:`{themes[i % 3].split()[0]}`.\n\n"
            f".. code-block:: {languages[i % 3]}\n\n   {words}\n\n{words}\n", encoding="utf-8")
    rst.markdown.main({"pages": (str(tmp_path), "*.rst")}, "reStructuredText", argv=["--k", "3", "--seeds", "0", "1",
                                                                                       "--epochs", "2"])
    lines = capsys.readouterr().out.splitlines()
    assert any(line.startswith("pages: 24 files") for line in lines)
    plain = next(line.split() for line in lines if line.startswith("plain "))
    rendered = next(line.split() for line in lines if line.startswith("rendered "))
    assert plain[4] != "0" and rendered[4] == "0"  # the syntax words each vocabulary keeps
    named = next(line for line in lines if line.strip().startswith("e.g."))
    assert set(named.replace(",", " ").split()[1:]) == {"func", "class", "meth", "python", "ruby", "perl"}

"""The public face of ``engine``: one sorted ``__all__``, and no Streamlit underneath."""

from __future__ import annotations

import importlib
import pkgutil
import re
import subprocess
import sys
import textwrap
import types

import pytest

import engine

# Names the shared engine contract pins.
CONTRACT_NAMES = {
    "BatchVI",
    "Corpus",
    "HDP",
    "LDA",
    "SVI",
    "TrainingRun",
    "heldout_split",
    "load_corpus",
    "load_model",
    "predictive_log_likelihood",
    "save_model",
    "step_size",
    # errors, engine/errors.py
    "CorpusFormatError",
    "DivergedError",
    "EmptyCorpusError",
    "EmptyVocabularyError",
    "EngineError",
    "FileDecodingError",
    "MissingColumnError",
    "ModelFileError",
    "UnsafeArchiveError",
    "VocabularyMismatchError",
    # synthetic corpora, engine/data/synthetic.py
    "SyntheticCorpus",
    "make_synthetic_corpus",
}

# Modules that are entry points, not libraries: their public names stay in the module.
ENTRY_POINT_MODULES = {"engine.cli", "engine.__main__"}


def _public_names(module: types.ModuleType) -> set[str]:
    """Names a reader of ``module`` would take as its API: no _private names, no modules,
    no ``from __future__`` features."""
    return {
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and type(value).__module__ != "__future__"
    }


def _public_submodules() -> list[str]:
    return sorted(
        info.name
        for info in pkgutil.walk_packages(engine.__path__, prefix="engine.")
        if info.name not in ENTRY_POINT_MODULES and not info.name.rpartition(".")[2].startswith("_")
    )


def _isort_style_key(name: str) -> tuple[int, list[object]]:
    """The order of ruff's RUF022 fix: CONSTANTS (any all-caps name of two or more
    characters, such as ``LDA``), then Classes, then functions and the rest; a natural sort
    (``w2`` before ``w10``) inside each group."""
    if len(name) > 1 and name.isupper():
        group = 0
    elif name[:1].isupper():
        group = 1
    else:
        group = 2
    chunks = [int(part) if part.isdigit() else part for part in re.split(r"(\d+)", name)]
    return group, chunks


def test_all_is_sorted_without_duplicates():
    names = list(engine.__all__)
    assert len(names) == len(set(names)), "engine.__all__ lists a name twice"
    assert names == sorted(names, key=_isort_style_key), (
        "engine.__all__ is not sorted the way ruff sorts it; run `ruff check --select RUF022 --fix engine/__init__.py`"
    )


def test_all_lists_exactly_the_public_names():
    assert set(engine.__all__) == _public_names(engine)


def test_contract_names_are_public():
    missing = CONTRACT_NAMES - set(engine.__all__)
    assert not missing, f"engine.__all__ lacks the contract's names {sorted(missing)}"


@pytest.mark.parametrize("module_name", _public_submodules())
def test_public_submodule_names_are_reexported(module_name):
    module = importlib.import_module(module_name)
    exported = set(getattr(module, "__all__", ()))
    missing = exported - set(engine.__all__)
    assert not missing, f"{module_name}.__all__ has {sorted(missing)}, which engine/__init__.py does not re-export"
    for name in exported:
        assert getattr(engine, name) is getattr(module, name), name


def test_importing_engine_leaves_streamlit_out():
    # a fresh interpreter: this test process may already have imported streamlit
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys
        import engine
        for info in pkgutil.walk_packages(engine.__path__, prefix="engine."):
            if info.name != "engine.__main__":
                importlib.import_module(info.name)
        print(sorted(name for name in sys.modules if name.split(".")[0] in {"streamlit", "explorer", "altair"}))
        """
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"

"""explorer/state.py: the only user of ``st.session_state``, the home of every key, read with ``ast``.

The rules (STYLE.md, "Explorer"): no other explorer module mentions ``session_state``;
every ``key=`` argument comes from :class:`explorer.state.Keys` (a ``lambda``, a sort
key, is not a widget key); ``state.py`` imports nothing from ``explorer`` at run time, so
any module can import it.  Each checker is also run on planted sources, so a checker
that can no longer see a breach fails too.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from explorer.state import Keys

EXPLORER = Path(__file__).resolve().parents[2] / "explorer"
STATE = EXPLORER / "state.py"
SOURCES = sorted(EXPLORER.rglob("*.py"))


def session_state_uses(source: str) -> list[int]:
    """Lines that name ``session_state`` (an attribute, a name, an import or the string)."""
    lines = []
    for node in ast.walk(ast.parse(source)):
        if ((isinstance(node, ast.Attribute) and node.attr == "session_state")
                or (isinstance(node, ast.Name) and node.id == "session_state")
                or (isinstance(node, ast.Constant) and node.value == "session_state")):
            lines.append(node.lineno)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            lines += [node.lineno for alias in node.names if alias.name.rpartition(".")[2] == "session_state"]
    return lines


def _from_keys(node: ast.expr) -> bool:
    """``Keys.x``, ``state.Keys.x`` or ``Keys.f(...)``."""
    if isinstance(node, ast.Call):
        node = node.func
    while isinstance(node, ast.Attribute):
        if node.attr == "Keys":
            return True
        node = node.value
    return isinstance(node, ast.Name) and node.id == "Keys"


def keys_not_from_keys(source: str) -> list[tuple[int, str]]:
    """(line, code) of every ``key=`` argument that is neither from ``Keys`` nor a lambda."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            found += [(kw.value.lineno, ast.unparse(kw.value)) for kw in node.keywords
                      if kw.arg == "key" and not isinstance(kw.value, ast.Lambda) and not _from_keys(kw.value)]
    return found


def _is_type_checking(test: ast.expr) -> bool:
    return ((isinstance(test, ast.Name) and test.id == "TYPE_CHECKING")
            or (isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"))


def runtime_explorer_imports(source: str) -> list[str]:
    """Modules of ``explorer`` (or relative ones) imported outside ``if TYPE_CHECKING:`` blocks."""
    tree = ast.parse(source)
    typing_only = {id(inner) for node in ast.walk(tree) if isinstance(node, ast.If) and _is_type_checking(node.test)
                   for statement in node.body for inner in ast.walk(statement)}
    found = []
    for node in ast.walk(tree):
        if id(node) in typing_only:
            continue
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = ["." * node.level + (node.module or "")]
        else:
            continue
        found += [name for name in names if name.split(".")[0] in ("explorer", "")]
    return found


PLANTED = '''
import streamlit as st
from streamlit import session_state
from explorer import runs
from explorer.state import Keys
from typing import TYPE_CHECKING
if TYPE_CHECKING:
    from explorer.storage import Collection
st.session_state["x"] = 1
getattr(st, "session_state")
st.button("Go", key="go")
st.button("Go", key=f"go.{k}")
st.button("Go", key=name)
st.button("Go", key=Keys.go)
st.container(key=Keys.card(k))
st.button("Go", key=state.Keys.go)
sorted(words, key=lambda w: -len(w))
'''


def test_checkers_find_planted_breaches():
    assert session_state_uses(PLANTED) == [3, 9, 10]
    assert [code for _, code in keys_not_from_keys(PLANTED)] == ["'go'", "f'go.{k}'", "name"]
    assert runtime_explorer_imports(PLANTED) == ["explorer", "explorer.state"]
    assert runtime_explorer_imports("from . import runs\nimport explorer.charts as charts") == [".", "explorer.charts"]
    clean = "from __future__ import annotations\nimport typing\nif typing.TYPE_CHECKING:\n    from explorer import runs"
    assert runtime_explorer_imports(clean) == []
    assert session_state_uses('"""Mentions st.session_state in prose."""') == []


def test_only_state_uses_session_state():
    assert STATE in SOURCES
    found = {str(path.relative_to(EXPLORER)): lines for path in SOURCES if path != STATE
             if (lines := session_state_uses(path.read_text(encoding="utf-8")))}
    assert found == {}, f"st.session_state outside explorer/state.py (file: lines): {found}"
    assert session_state_uses(STATE.read_text(encoding="utf-8"))


def test_every_key_argument_comes_from_keys():
    found = {str(path.relative_to(EXPLORER)): found for path in SOURCES
             if (found := keys_not_from_keys(path.read_text(encoding="utf-8")))}
    assert found == {}, f"key= arguments not taken from Keys (file: [(line, code)]): {found}"


def test_state_imports_nothing_from_explorer():
    assert runtime_explorer_imports(STATE.read_text(encoding="utf-8")) == []
    loaded = subprocess.run(
        [sys.executable, "-c", "import sys, explorer.state; print(sorted(m for m in sys.modules "
                               "if m.split('.')[0] in ('explorer', 'engine')))"],
        capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "['explorer', 'explorer.state']"


def test_keys_are_distinct_and_dynamic_keys_differ():
    values = [value for name, value in vars(Keys).items() if not name.startswith("__") and isinstance(value, str)]
    assert len(values) == len(set(values)) > 40
    dynamic = [Keys.n_shown("r1"), Keys.topic_card(0), Keys.topic_chart(0), Keys.topic_label("r1", 0),
               Keys.notice("train"), Keys.combine("runs.r1", 2), Keys.combine("min", 2)]
    assert len(set(dynamic + values)) == len(dynamic) + len(values)
    assert Keys.topic_label("r1", 0) != Keys.topic_label("r2", 0) != Keys.topic_label("r1", 1)
    assert Keys.combine("runs.r1", 2) != Keys.combine("runs.r1", 3) != Keys.combine("runs.r2", 3)


@pytest.mark.parametrize("name", ["state.py", "session.py"])
def test_state_and_session_stay_small(name):
    assert len((EXPLORER / name).read_text(encoding="utf-8").splitlines()) <= 300

"""The engine's layout rules, read from the source with ``ast``: no import cycles, private names kept in.

A module's subpackage is the first name under ``engine`` (``engine.models.lda`` ->
``models``); a top-level module (``engine.cli``) is its own.  Imports inside functions
count: they are how cycles used to hide.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parents[1] / "engine"


def _module_name(path: Path) -> str:
    parts = ("engine", *path.relative_to(ENGINE).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(ENGINE.rglob("*.py"))}


MODULES = _modules()


def _imports(module: str) -> list[tuple[str, str | None, int]]:
    """(imported module, imported name or None, line) for every engine import in ``module``."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found += [(alias.name, None, node.lineno) for alias in node.names if alias.name.split(".")[0] == "engine"]
        elif isinstance(node, ast.ImportFrom):
            if node.level:  # relative: resolve against this module's package
                base = package.split(".")
                base = base[: len(base) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "engine":
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}"
                if submodule in MODULES:  # "from engine.kernels import reference" imports a module
                    found.append((submodule, None, node.lineno))
                else:
                    found.append((target, alias.name, node.lineno))
    return found


def _subpackage(module: str) -> str:
    parts = module.split(".")
    if len(parts) == 1:
        return "engine"
    # a top-level module (engine/cli.py) is its own unit; a subpackage's modules share one
    first = f"engine.{parts[1]}"
    return first if any(name.startswith(first + ".") for name in MODULES) else module


def _graph() -> dict[str, set[str]]:
    graph = {}
    for module in MODULES:
        graph[module] = {target for target, _, _ in _imports(module) if target in MODULES and target != module}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan's algorithm)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for successor in sorted(graph[node]):
            if successor not in index:
                visit(successor)
                low[node] = min(low[node], low[successor])
            elif successor in on_stack:
                low[node] = min(low[node], index[successor])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return components


def _is_package_import(module: str, target: str) -> bool:
    """``engine/__init__.py`` and a subpackage's ``__init__`` importing their own children is not a cycle."""
    return target.startswith(module + ".")


def test_the_engine_is_split_into_subpackages():
    packages = {name for name, path in MODULES.items() if path.name == "__init__.py"}
    assert {"engine.models", "engine.inference", "engine.kernels", "engine.data", "engine.io"} <= packages
    top_level = {name for name in MODULES if name.count(".") == 1 and name not in packages}
    allowed = {"engine.__main__", "engine.cli", "engine.errors", "engine.limits", "engine.processes",
               "engine.settings", "engine.validation"}
    assert top_level <= allowed, top_level


def test_no_import_cycles():
    graph = {m: {t for t in targets if not _is_package_import(m, t)} for m, targets in _graph().items()}
    assert _cycles(graph) == []


def test_finds_a_planted_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_private_names_stay_in_their_subpackage():
    violations = []
    for module in MODULES:
        for target, name, line in _imports(module):
            private_path = any(part.startswith("_") and part != "__init__" for part in target.split(".")[1:])
            private_name = name is not None and name.startswith("_") and name != "__version__"
            if (private_path or private_name) and _subpackage(module) != _subpackage(target):
                violations.append(f"{MODULES[module].relative_to(ENGINE.parent)}:{line} imports {target}.{name or ''}")
    assert violations == []


@pytest.mark.parametrize("module", ["engine.models.lda", "engine.kernels.compiled.hdp", "engine.data.ondisk"])
def test_the_rules_see_the_imports(module):
    assert _imports(module), f"no engine imports found in {module}: the parser is broken"


def test_numba_flags_come_from_one_module():
    """Every numba decorator in engine/kernels names its fastmath flags from engine/kernels/flags.py."""
    allowed = {"FAST_MATH", "FAST_MATH_FINITE", "EXP_DIGAMMA"}
    found = []
    for module, path in MODULES.items():
        if not module.startswith("engine.kernels.compiled"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                options = {kw.arg: kw.value for kw in node.keywords}
                for value in (options.get("fastmath"),):
                    if value is not None:
                        found.append((module, node.lineno, ast.unparse(value)))
                if isinstance(options.get("jit_options"), ast.Dict):
                    for key, value in zip(options["jit_options"].keys, options["jit_options"].values, strict=True):
                        if isinstance(key, ast.Constant) and key.value == "fastmath":
                            found.append((module, node.lineno, ast.unparse(value)))
    assert found, "no numba decorators found: the check is broken"
    assert [f for f in found if f[2] not in allowed] == []

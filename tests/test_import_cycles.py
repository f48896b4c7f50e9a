"""No import cycle among fmacro's modules, counting the imports inside functions too.

``tests/test_doctests.py`` imports every module first in a fresh process, which catches a
cycle of module-level imports. A cycle closed by an import inside a function (``def
to_dict(self): from fmacro.validation.tables import ...`` while ``tables`` imports the class
in its own functions) never fails an import, yet it is the same tangle: each module needs the
other to work. Here every module of the checkout is parsed (``ast``, nothing is imported),
each ``import`` of a fmacro module is collected wherever it stands (module level, function,
method, ``try`` block), and the graph's cycles (strongly connected components) are checked:

* none may touch ``fmacro.validation`` (the ground floor: its modules form a DAG);
* elsewhere, only the cycles in :data:`KNOWN_CYCLES` may remain. A new cycle fails, and so
  does a listed one that is gone, so the list can only shrink.

Not counted: imports under ``if TYPE_CHECKING:`` (never run) and dynamic imports
(``importlib.import_module(f"fmacro.{name}")``, whose target is not in the text).
An edge goes to the module named: ``from fmacro.validation import measures`` to the
submodule ``measures``, ``from fmacro.validation import BinFValidation`` to the package's
``__init__``. A package is not taken to import its submodules' parents implicitly, so a
package ``__init__`` re-exporting its submodules is no cycle.
"""

from __future__ import annotations

import ast
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import NamedTuple

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - pytest depends on tomli before 3.11
    import tomli as tomllib

CHECKOUT = Path(__file__).resolve().parent.parent

# The cycles left in the package, each as the set of modules in one strongly connected
# component of the import graph. Only delete entries (when a cycle is broken, the test asks
# for it); a new cycle is a design question, not a line to add here.
# Empty: the last one, search.exact <-> search.fixed_point, went when the linearization
# moved to search.linearization, which both build on.
KNOWN_CYCLES: frozenset[frozenset[str]] = frozenset()


class Import(NamedTuple):
    source: str
    target: str
    line: int
    in_function: bool


def _package_folders() -> dict[str, Path]:
    """Installed package name -> folder, as ``[tool.setuptools.package-dir]`` maps them."""
    with open(CHECKOUT / "pyproject.toml", "rb") as f:
        config = tomllib.load(f)
    mapping = config["tool"]["setuptools"]["package-dir"]
    return {package: CHECKOUT / folder for package, folder in mapping.items()}


def _module_files() -> dict[str, Path]:
    """Every module of fmacro by its installed name (``__init__.py`` names its package)."""
    modules: dict[str, Path] = {}
    for package, folder in _package_folders().items():
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            # Only folders that are packages (an __init__.py all the way down).
            if any(
                not (folder.joinpath(*parts[:i]) / "__init__.py").is_file()
                for i in range(len(parts))
            ):
                continue
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join((package, *parts))] = path
    return modules


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _import_nodes(
    node: ast.AST, in_function: bool = False
) -> Iterator[tuple[ast.Import | ast.ImportFrom, bool]]:
    """Every import statement under ``node``, except those under ``if TYPE_CHECKING:``."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.Import, ast.ImportFrom)):
            yield child, in_function
        elif isinstance(child, ast.If) and _is_type_checking(child.test):
            for stmt in child.orelse:
                yield from _import_nodes(ast.Module(body=[stmt], type_ignores=[]), in_function)
        else:
            nested = in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
            )
            yield from _import_nodes(child, nested)


def _imports(name: str, path: Path, modules: set[str]) -> list[Import]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    is_package = path.name == "__init__.py"
    found = []
    for node, in_function in _import_nodes(tree):
        targets: list[str] = []
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        else:
            if node.level:
                anchor = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{node.module}" if node.module else anchor
            else:
                base = node.module or ""
            for alias in node.names:
                # A submodule by that name is what is imported; else a name of the module.
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else base)
        for target in targets:
            if target in modules and target != name:
                found.append(Import(name, target, node.lineno, in_function))
    return found


def import_graph() -> list[Import]:
    """Every import of a fmacro module by a fmacro module, from the checkout's source."""
    files = _module_files()
    names = set(files)
    return [imp for name, path in files.items() for imp in _imports(name, path, names)]


def _cycles(edges: list[Import]) -> list[frozenset[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    graph: dict[str, set[str]] = {}
    for e in edges:
        graph.setdefault(e.source, set()).add(e.target)
        graph.setdefault(e.target, set())
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[frozenset[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(frozenset(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def _describe(component: frozenset[str], edges: list[Import]) -> str:
    inside = sorted(
        (e for e in edges if e.source in component and e.target in component),
        key=lambda e: (e.source, e.line),
    )
    lines = [
        f"  {e.source}:{e.line} imports {e.target}" + (" (in a function)" if e.in_function else "")
        for e in inside
    ]
    return "{" + ", ".join(sorted(component)) + "}\n" + "\n".join(lines)


EDGES = import_graph()
CYCLES = _cycles(EDGES)


def test_the_graph_sees_every_folder_and_function_level_imports() -> None:
    # A parser that found nothing would find no cycle either.
    files = _module_files()
    for module in ("fmacro", "fmacro.cli", "fmacro.validation.tables", "fmacro.crossval.runner"):
        assert module in files
    assert "fmacro.optimize.search.fixed_point" in files
    sources = {e.source for e in EDGES}
    for package in ("fmacro.cli", "fmacro.validation", "fmacro.crossval", "fmacro.optimize"):
        assert package in sources
    pairs = {(e.source, e.target, e.in_function) for e in EDGES}
    assert ("fmacro.validation.base", "fmacro.validation.tables", False) in pairs
    # a function-level import (the CLI imports what a subcommand needs when it runs)
    assert ("fmacro.cli", "fmacro.validation.checks", True) in pairs
    assert _cycles(
        [Import("a", "b", 1, True), Import("b", "c", 1, False), Import("c", "a", 1, True)]
    ) == [frozenset({"a", "b", "c"})]


def test_validation_modules_form_no_cycle() -> None:
    tangled = [c for c in CYCLES if any(m.startswith("fmacro.validation") for m in c)]
    assert not tangled, "import cycles in fmacro.validation:\n" + "\n".join(
        _describe(c, EDGES) for c in tangled
    )


def test_no_import_cycle_beyond_the_known_ones() -> None:
    new = [c for c in CYCLES if c not in KNOWN_CYCLES]
    assert not new, "new import cycle(s):\n" + "\n".join(_describe(c, EDGES) for c in new)
    gone = KNOWN_CYCLES - set(CYCLES)
    assert not gone, "no longer a cycle, delete from KNOWN_CYCLES: " + repr(
        [sorted(c) for c in gone]
    )


# ------------------------------------------------ private names across the subpackages
# What one subpackage (validation, crossval, optimize, cli, dask) needs from another is a
# public name of a (possibly internal) module: an import of a module or a name starting
# with "_" across two of them is a reach into the other's internals. At most this many may
# remain (issue 25); fmacro.dask takes none from optimize.
MAX_PRIVATE_ACROSS = 5


def _subpackage(module: str) -> str:
    """``fmacro.optimize.search.points`` -> ``optimize``; ``fmacro`` -> ``""``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def _private_imports(
    name: str, tree: ast.AST, is_package: bool, modules: set[str]
) -> list[tuple[str, int, str]]:
    """(importer, line, what) of every import by module ``name`` (its parsed ``tree``) of
    a private module or name of another subpackage, found by :func:`_import_nodes`."""
    found = []
    for node, _ in _import_nodes(tree):
        pairs: list[tuple[str, str]] = []
        if isinstance(node, ast.Import):
            pairs = [(alias.name, "") for alias in node.names]
        else:
            if node.level:
                anchor = name if is_package else name.rpartition(".")[0]
                for _ in range(node.level - 1):
                    anchor = anchor.rpartition(".")[0]
                base = f"{anchor}.{node.module}" if node.module else anchor
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                pairs.append((sub, "") if sub in modules else (base, alias.name))
        for module, attribute in pairs:
            if not module.startswith("fmacro") or _subpackage(module) == _subpackage(name):
                continue
            private_module = any(p.startswith("_") for p in module.split(".")[1:])
            if private_module or attribute.startswith("_"):
                found.append((name, node.lineno, f"{module} {attribute}".strip()))
    return found


def private_imports_across() -> list[tuple[str, int, str]]:
    """Every private import across two subpackages in the checkout."""
    files = _module_files()
    names = set(files)
    out = []
    for name, path in files.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        out += _private_imports(name, tree, path.name == "__init__.py", names)
    return sorted(out)


def test_the_private_import_count_sees_modules_names_and_relative_imports() -> None:
    modules = {"fmacro.dask.tune", "fmacro.optimize.tuning._solve", "fmacro.optimize.tuning"}
    source = (
        "from fmacro.optimize.tuning import _solve\n"  # a private module
        "from fmacro.optimize.search.points import _cut_numbers, class_points\n"  # a name
        "def f():\n    from ..optimize.tuning._solve import solve\n"  # relative, in a function
        "from fmacro.dask._imports import import_dask\n"  # the same subpackage: allowed
    )
    found = _private_imports("fmacro.dask.tune", ast.parse(source), False, modules)
    assert [(line, what) for _, line, what in found] == [
        (1, "fmacro.optimize.tuning._solve"),
        (2, "fmacro.optimize.search.points _cut_numbers"),
        (4, "fmacro.optimize.tuning._solve solve"),
    ]


def test_few_private_imports_across_subpackages() -> None:
    found = private_imports_across()
    listing = "\n".join(f"{name}:{line} -> {what}" for name, line, what in found)
    assert len(found) <= MAX_PRIVATE_ACROSS, f"{len(found)} private imports:\n{listing}"
    into_optimize = [f for f in found if f[0].startswith("fmacro.dask") and "optimize" in f[2]]
    assert not into_optimize, listing

"""Every fmacro module: its docstring examples, and its imports (no cycles).

Run against the installed package.

pytest's ``--doctest-modules`` would import the checkout's files under their folder names
(``validation.measures``), a second copy beside the installed ``fmacro.validation``; here
each module is imported by its installed name instead.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil
import subprocess
import sys

import pytest

import fmacro

_PACKAGES = ("fmacro", "fmacro.cli", "fmacro.validation", "fmacro.crossval", "fmacro.optimize")


def _module_names() -> list[str]:
    names: set[str] = set()
    for package_name in _PACKAGES:
        package = importlib.import_module(package_name)
        names.add(package_name)
        for info in pkgutil.walk_packages(package.__path__, prefix=f"{package_name}."):
            names.add(info.name)
    return sorted(n for n in names if not n.endswith("__main__"))


MODULES = _module_names()


def test_every_subpackage_is_walked() -> None:
    # The three design folders are mapped into fmacro.* by the build configuration; a
    # walk from fmacro alone would not see them, so the list above names them.
    assert {"fmacro.validation.measures", "fmacro.crossval.splitters"} <= set(MODULES)
    assert "fmacro.optimize.search.fixed_point" in MODULES
    assert fmacro.__version__


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE, verbose=False
    )
    report: list[str] = []
    for test in finder.find(module, name):  # globals: a copy of the module's
        runner.run(test, out=report.append)
    result = runner.summarize(verbose=False)
    assert result.failed == 0, "".join(report)


def test_every_module_imports_first_without_a_cycle() -> None:
    # An import cycle shows only when one of its modules is imported first: import each
    # module into a process that has no fmacro module loaded yet.
    script = (
        "import importlib, sys\n"
        f"for name in {MODULES!r}:\n"
        "    for loaded in [m for m in sys.modules if m.split('.')[0] == 'fmacro']:\n"
        "        del sys.modules[loaded]\n"
        "    importlib.import_module(name)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr

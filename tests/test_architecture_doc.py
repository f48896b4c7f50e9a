"""docs/architecture.md and docs/glossary.md cite only code that exists where they say.

The pages are parsed (fenced code blocks aside, except the folder tree of architecture.md)
and every code reference they make is checked against the checkout:

* **Paths** in backticks (``optimize/tuning/_hull_points.py``, ``src/fmacro/dask/``,
  ``tests/test_doctests.py``): exist, relative to the repository root (an installed path
  such as ``fmacro/`` through ``[tool.setuptools.package-dir]``). A bare file name
  (``pyproject.toml``) exists at the root or in one of the package folders.
* **Dotted names** in backticks whose first part is ``fmacro`` or a subpackage written short
  as the pages do (``validation.measures`` is ``fmacro.validation.measures``; also
  ``crossval.`` and ``optimize.``), or a public class of fmacro (``ThresholdResult.apply``);
  a call's arguments are dropped (``crossval.cross_validate(map=...)``). The longest prefix
  that names a module must be a file or package, found from the package folders as
  ``package-dir`` maps them; every part after it must be an attribute: the module is
  imported and each part looked up (``getattr``; an attrs field too). Where importing needs
  an optional dependency that is missing (dask), the module's top-level names are read from
  its source instead.
* **Class names** in backticks (``ClassPoints``, ``SampleCounts``): one word with an upper
  case first letter; defined in some fmacro module, or a builtin, or in :data:`EXTERNAL`.
* **The folder table** (``| `validation/` | `fmacro.validation` | ...``): each row is the
  mapping of pyproject.toml.
* **The folder tree** (the fenced block that starts ``optimize/``): each entry exists, and
  every module and subpackage of that folder is listed.
* **Links** to local files (``[glossary.md](glossary.md)``) exist.

Backticked text with spaces, operators or quotes (``score >= threshold``, ``fmacro
thresholds``), parameter names (``zero_division``) and names rooted elsewhere
(``numba.njit``, ``result.classes``) are prose and not checked. Nothing here is a test of
what the pages *say* code does; it catches a module, file, function or attribute that was
renamed, moved or deleted while the pages kept citing it.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any, NamedTuple

import attrs
import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - pytest depends on tomli before 3.11
    import tomli as tomllib

CHECKOUT = Path(__file__).resolve().parent.parent
PAGES = (CHECKOUT / "docs" / "architecture.md", CHECKOUT / "docs" / "glossary.md")

#: Short forms the pages use for fmacro's subpackages.
SHORT_ROOTS = ("validation", "crossval", "optimize")
#: Packages whose public names may start a dotted name (``ThresholdResult.apply``).
PUBLIC_PACKAGES = ("fmacro.optimize", "fmacro.validation", "fmacro.crossval")
#: Class names the pages cite from other libraries.
EXTERNAL = frozenset({"Executor", "Client", "Series"})

_FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.M | re.S)
_SPAN = re.compile(r"`([^`\n]+(?:\n[^`\n]+)*)`")
_CALL = re.compile(r"^([A-Za-z_][\w.]*)\(.*\)$", re.S)
_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+$")
_PATH = re.compile(r"^[\w.\-]+(?:/[\w.\-]*)+$")
_BARE_FILE = re.compile(r"^[\w\-]+\.(?:py|toml|md)$")
_CLASS_NAME = re.compile(r"^[A-Z]\w*[a-z]\w*$")
_LINK = re.compile(r"\]\(([^)\s]+)\)")
_TABLE_ROW = re.compile(r"^\|\s*`([^`]+)`\s*\|\s*`([^`]+)`\s*\|")


def _package_dirs() -> dict[str, Path]:
    """Installed package name -> folder, as ``[tool.setuptools.package-dir]`` maps them."""
    with open(CHECKOUT / "pyproject.toml", "rb") as f:
        mapping = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    return {package: CHECKOUT / folder for package, folder in mapping.items()}


PACKAGE_DIRS = _package_dirs()


class Page(NamedTuple):
    path: Path
    text: str  # without fenced blocks
    fences: list[str]


def _page(path: Path) -> Page:
    raw = path.read_text(encoding="utf-8")
    return Page(path, _FENCE.sub("", raw), _FENCE.findall(raw))


class References(NamedTuple):
    paths: list[str]
    bare_files: list[str]
    dotted: list[str]
    class_names: list[str]
    links: list[tuple[Path, str]]


def _spans(text: str) -> list[str]:
    return [" ".join(m.group(1).split()) for m in _SPAN.finditer(text)]


def _dotted_name(span: str) -> str | None:
    """The fmacro name a span cites (``validation.x`` -> ``fmacro.validation.x``), or None."""
    call = _CALL.match(span)
    name = call.group(1) if call else span.removeprefix("@")
    if name in SHORT_ROOTS or name == "fmacro":
        return name if name == "fmacro" else f"fmacro.{name}"
    if not _DOTTED.match(name):
        return None
    first = name.split(".")[0]
    if first == "fmacro":
        return name
    if first in SHORT_ROOTS:
        return f"fmacro.{name}"
    if _CLASS_NAME.match(first) and first not in EXTERNAL:
        return name  # a public class of fmacro, resolved by _public_owner
    return None


def references(pages: tuple[Path, ...] = PAGES) -> References:
    found = References([], [], [], [], [])
    for path in pages:
        page = _page(path)
        for span in _spans(page.text):
            if _PATH.match(span):
                found.paths.append(span)
            elif _BARE_FILE.match(span):
                found.bare_files.append(span)
            elif (name := _dotted_name(span)) is not None:
                found.dotted.append(name)
            elif _CLASS_NAME.match(span) and span.isidentifier():
                found.class_names.append(span)
        for target in _LINK.findall(page.text):
            if "://" not in target and not target.startswith("#"):
                found.links.append((path, target.split("#")[0]))
    return found


# --------------------------------------------------------------------------- resolving


def module_file(name: str) -> Path | None:
    """The source file of module ``name`` found from the package folders, or None."""
    owners = [p for p in PACKAGE_DIRS if name == p or name.startswith(p + ".")]
    if not owners:
        return None
    package = max(owners, key=len)
    rest = name[len(package) :].lstrip(".")
    base = PACKAGE_DIRS[package].joinpath(*rest.split(".")) if rest else PACKAGE_DIRS[package]
    if (base / "__init__.py").is_file():
        return base / "__init__.py"
    if rest and base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    return None


@cache
def _source_names(path: Path) -> frozenset[str]:
    """Top-level names a module's source defines or imports."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            names.update(t.id for t in targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return frozenset(names)


def _every_module_file() -> list[Path]:
    return sorted({p for folder in PACKAGE_DIRS.values() for p in folder.rglob("*.py")})


@cache
def defined_names() -> frozenset[str]:
    """Every top-level name of every fmacro module."""
    return frozenset().union(*(_source_names(p) for p in _every_module_file()))


def _has(obj: Any, name: str) -> bool:
    if hasattr(obj, name):
        return True
    return isinstance(obj, type) and attrs.has(obj) and name in attrs.fields_dict(obj)


def _public_owner(name: str) -> str | None:
    for package in PUBLIC_PACKAGES:
        if hasattr(importlib.import_module(package), name):
            return package
    return None


def resolve(name: str) -> str | None:
    """None if the dotted ``name`` exists in the checkout, else why not."""
    parts = name.split(".")
    if parts[0] != "fmacro":
        owner = _public_owner(parts[0])
        if owner is None:
            return f"{parts[0]} is no public name of {', '.join(PUBLIC_PACKAGES)}"
        parts = [*owner.split("."), *parts]
    for cut in range(len(parts), 0, -1):
        module = ".".join(parts[:cut])
        path = module_file(module)
        if path is not None:
            break
    else:
        return f"no module {parts[0]}"
    assert path is not None
    rest = parts[cut:]
    if not rest:
        return None
    try:
        obj: Any = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if (exc.name or "").split(".")[0] == "fmacro":
            raise
        # an optional dependency (dask) is missing: read the names from the source
        return None if rest[0] in _source_names(path) else f"{module} has no {rest[0]}"
    for i, part in enumerate(rest):
        if not _has(obj, part):
            return f"{'.'.join([module, *rest[:i]])} has no attribute {part!r}"
        obj = getattr(obj, part, None)
    return None


def resolve_path(text: str) -> bool:
    if (CHECKOUT / text).exists():
        return True
    # an installed path: its package folder through package-dir (fmacro/ -> src/fmacro/)
    parts = [p for p in text.split("/") if p]
    for cut in range(len(parts), 0, -1):
        package = ".".join(parts[:cut])
        if package in PACKAGE_DIRS:
            return PACKAGE_DIRS[package].joinpath(*parts[cut:]).exists()
    return False


def _bare_file_exists(name: str) -> bool:
    if (CHECKOUT / name).is_file():
        return True
    return any(p.name == name for folder in PACKAGE_DIRS.values() for p in folder.rglob(name))


# --------------------------------------------------------------------------- the checks

REFS = references()


def test_the_pages_cite_code() -> None:
    # The extraction itself: a broken pattern would check nothing and pass.
    assert len(REFS.dotted) >= 60 and len(REFS.paths) >= 25 and len(REFS.class_names) >= 10
    names = set(REFS.dotted)
    assert {
        "fmacro.validation.measures",
        "fmacro.validation.measures.macro_from_counts",
        "fmacro.optimize.search.linearization",
        "fmacro.dask.tune",
        "fmacro.crossval.cross_validate",
        "ThresholdResult.apply",
    } <= names
    assert "optimize/tuning/_hull_points.py" in REFS.paths
    assert "benchmarks/same_results.py" in REFS.paths


@pytest.mark.parametrize("name", sorted(set(REFS.dotted)))
def test_cited_name_exists(name: str) -> None:
    problem = resolve(name)
    assert problem is None, f"{name}: {problem}"


@pytest.mark.parametrize("path", sorted(set(REFS.paths)))
def test_cited_path_exists(path: str) -> None:
    assert resolve_path(path), f"{path} is not in the checkout"


@pytest.mark.parametrize("name", sorted(set(REFS.bare_files)))
def test_cited_file_exists(name: str) -> None:
    assert _bare_file_exists(name), f"no file {name} at the root or in a package folder"


@pytest.mark.parametrize("name", sorted(set(REFS.class_names)))
def test_cited_class_exists(name: str) -> None:
    known = name in defined_names() or hasattr(builtins, name) or name in EXTERNAL
    assert known, f"{name} is defined in no fmacro module"


@pytest.mark.parametrize(("page", "target"), sorted(set(REFS.links)))
def test_linked_file_exists(page: Path, target: str) -> None:
    assert (page.parent / target).exists(), f"{page.name} links to missing {target}"


def _table_rows() -> list[tuple[str, str]]:
    text = _page(PAGES[0]).text
    return [(m[1], m[2]) for line in text.splitlines() if (m := _TABLE_ROW.match(line))]


def test_folder_table_is_the_package_mapping() -> None:
    rows = _table_rows()
    assert len(rows) == len(PACKAGE_DIRS)
    for folder, package in rows:
        assert PACKAGE_DIRS.get(package) == CHECKOUT / folder.rstrip("/"), (folder, package)


def _trees() -> list[tuple[Path, list[str]]]:
    """(folder, entries) of each fenced block that is a folder listing."""
    trees = []
    for block in _page(PAGES[0]).fences:
        lines = block.splitlines()
        if lines and re.fullmatch(r"[\w/]+/", lines[0]) and (CHECKOUT / lines[0]).is_dir():
            entries = [m.group(1) for line in lines[1:] if (m := re.match(r"^  (\S+)", line))]
            trees.append((CHECKOUT / lines[0], entries))
    return trees


def test_folder_tree_lists_the_folder() -> None:
    trees = _trees()
    assert trees, "architecture.md has no folder tree"
    for folder, entries in trees:
        missing = [e for e in entries if not (folder / e).exists()]
        assert not missing, f"{folder.name}/ lists missing {missing}"
        actual = {p.name for p in folder.glob("*.py") if p.name != "__init__.py"}
        actual |= {p.name + "/" for p in folder.iterdir() if (p / "__init__.py").is_file()}
        unlisted = sorted(actual - set(entries))
        assert not unlisted, f"{folder.name}/ has {unlisted}, not in the tree"


def test_a_renamed_or_deleted_name_is_caught(tmp_path: Path) -> None:
    page = tmp_path / "page.md"
    page.write_text(
        "`validation.measurez` and `optimize.search.hull.no_such_function`, "
        "`ThresholdResult.no_such_method`, `NoSuchResult.apply`, `fmacro.dask.gone`, "
        "`optimize/search/gone.py`, `NoSuchClass`; prose: `numba.njit`, `x ** 4`, "
        "`fmacro thresholds`, `zero_division`\n",
        encoding="utf-8",
    )
    refs = references((page,))
    assert all(resolve(name) is not None for name in refs.dotted)
    assert len(refs.dotted) == 5
    assert refs.paths == ["optimize/search/gone.py"] and not resolve_path(refs.paths[0])
    assert refs.class_names == ["NoSuchClass"] and "NoSuchClass" not in defined_names()

"""The tests run against the installed fmacro, and the installed fmacro is complete.

The repository's top-level folders validation/, crossval/ and optimize/ (and src/fmacro) are
mapped into the one namespace ``fmacro`` by the build configuration. A packaging mistake (a
package or data file left out of the list) must fail here, not pass because the tests
happened to import the checkout.
"""

from __future__ import annotations

import importlib
import json
import subprocess
import sys
import sysconfig
from importlib.metadata import Distribution, distributions
from pathlib import Path

import pytest

import fmacro

CHECKOUT = Path(__file__).resolve().parent.parent
# Installed name -> folder in the checkout.
FOLDERS = {
    "fmacro": CHECKOUT / "src" / "fmacro",
    "fmacro.validation": CHECKOUT / "validation",
    "fmacro.crossval": CHECKOUT / "crossval",
    "fmacro.optimize": CHECKOUT / "optimize",
}


def _installed() -> Distribution:
    # Looked up in site-packages only: the build leaves a fmacro.egg-info in the checkout,
    # which is first on sys.path under `python -m pytest`.
    site = sorted({sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]})
    (dist,) = [d for d in distributions(path=site) if d.metadata["Name"] == "fmacro"]
    return dist


def _editable() -> bool:
    text = _installed().read_text("direct_url.json")
    return bool(text and json.loads(text).get("dir_info", {}).get("editable", False))


def _shipped_files(folder: Path) -> set[str]:
    """Source, marker and data files of a package folder, relative to it."""
    out = set()
    for path in folder.rglob("*"):
        if (
            "__pycache__" in path.parts
            or not path.is_file()
            or path.suffix in {".pyc", ".nbi", ".nbc"}
        ):
            continue
        out.add(path.relative_to(folder).as_posix())
    return out


def test_fmacro_is_imported_from_the_installation() -> None:
    location = Path(fmacro.__file__).resolve()
    if _editable():  # a development install maps fmacro onto this checkout by design
        assert location == FOLDERS["fmacro"] / "__init__.py"
        return
    # The README's first command puts the environment (.venv) inside the checkout: what
    # matters is that fmacro comes from its site-packages, not from the source folders.
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    assert site in location.parents, f"fmacro not imported from {site}: {location}"
    sources = [folder for folder in FOLDERS.values() if folder in location.parents]
    assert not sources, f"fmacro imported from the checkout's sources: {location}"


def test_no_generic_top_level_packages_are_installed() -> None:
    tops = {Path(str(f)).parts[0] for f in _installed().files or []}
    tops = {t for t in tops if not t.endswith(".dist-info") and not t.startswith("__editable__")}
    assert tops <= {"fmacro", "..", "bin", "__pycache__"}, tops
    assert not tops & {"validation", "crossval", "optimize"}


@pytest.mark.parametrize("name", sorted(FOLDERS))
def test_every_file_of_the_checkout_is_installed(name: str) -> None:
    package = importlib.import_module(name)
    installed = Path(package.__file__).resolve().parent
    expected = _shipped_files(FOLDERS[name])
    # fmacro's own folder holds only its root; the mapped subpackages are checked by name.
    found = _shipped_files(installed) & expected if name == "fmacro" else _shipped_files(installed)
    assert expected <= found, f"missing from the installed {name}: {sorted(expected - found)}"
    assert "py.typed" in found


def test_python_dash_m_fmacro_runs_the_cli() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "fmacro", "--version"], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == f"fmacro {fmacro.__version__}"

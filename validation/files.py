"""Opening input files: every OS, decoding and archive error becomes one line naming the file.

Every reader (label files, ``.npz``/``.npy``, XC, ranked lists, class sizes, thresholds)
opens its file through :func:`read_text` / :func:`reading`, so the command line can answer
any bad file with exit code 2 and a one-line message instead of a traceback.
"""

from __future__ import annotations

import os
import re
import zipfile
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "about_file",
    "check_numpy_file",
    "check_output_path",
    "checked_path",
    "decode_text",
    "load_npy",
    "pickled_data",
    "read_text",
    "reading",
]


def checked_path(path: str | os.PathLike[str]) -> Path:
    """``path`` as a Path after checking it names a readable regular file."""
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{path}: is a directory, not a file")
    if not p.exists():
        raise ValueError(f"{path}: no such file")
    if not p.is_file():
        raise ValueError(f"{path}: not a regular file")
    return p


def _same_file(a: Path, b: Path) -> bool:
    try:
        if a.exists() and b.exists():
            return os.path.samefile(a, b)
    except OSError:
        pass
    return a.resolve() == b.resolve()


def check_output_path(
    path: str | os.PathLike[str],
    inputs: Iterable[str | os.PathLike[str] | None] = (),
    option: str = "-o/--output",
) -> Path:
    """``path`` as a Path after checking that a command may write its output there.

    Refused: a directory, a file in a folder that does not exist, and the same file as one
    of ``inputs`` (resolved through links; :func:`os.path.samefile` when both exist), which
    the output would overwrite. Commands call this before their work, so a bad output name
    costs nothing. ``option`` names the option in the messages.

    Raises
    ------
    ValueError
        One line naming ``path`` (and the input it would overwrite).
    """
    p = Path(path)
    if p.is_dir():
        raise ValueError(f"{path}: is a directory; {option} needs a file name")
    if not p.parent.is_dir():
        raise ValueError(f"{path}: the folder {p.parent} does not exist ({option})")
    for source in inputs:
        if source is not None and _same_file(p, Path(source)):
            raise ValueError(
                f"{path}: {option} names the input file {source}, which writing would "
                "overwrite; choose another file name"
            )
    return p


@contextmanager
def about_file(path: str | os.PathLike[str]) -> Iterator[None]:
    """Prefix ``path`` to a ``ValueError``/``TypeError`` raised inside that does not name it.

    For library calls on a file's contents (labels, scores), whose messages name arguments
    (``labels``) rather than the file the command line read them from.
    """
    named = re.compile(rf"(?<![\w./-]){re.escape(str(path))}(?![\w.-])")
    try:
        yield
    except ValueError as exc:
        if named.search(str(exc)):
            raise
        raise ValueError(f"{path}: {exc}") from None
    except TypeError as exc:
        if named.search(str(exc)):
            raise
        raise TypeError(f"{path}: {exc}") from None


def _os_message(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    if isinstance(exc, IsADirectoryError):
        return "is a directory, not a file"
    if isinstance(exc, FileNotFoundError):
        return "no such file"
    return exc.strerror or str(exc)


@contextmanager
def reading(path: str | os.PathLike[str], what: str = "file") -> Iterator[None]:
    """Turn the errors of reading ``path`` into one-line ``ValueError`` messages naming it.

    ``what`` names the expected format (``".npz file"``) in the messages.
    """
    try:
        yield
    except OSError as exc:
        raise ValueError(f"{path}: cannot read the {what}: {_os_message(exc)}") from None
    except EOFError:
        raise ValueError(f"{path}: empty or truncated {what}") from None
    except zipfile.BadZipFile:
        raise ValueError(
            f"{path}: not a valid {what} (a damaged or truncated zip archive)"
        ) from None
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}, {_decode_message(exc)}") from None
    except (OverflowError, KeyError, IndexError, AttributeError) as exc:
        raise ValueError(f"{path}: not a valid {what} ({type(exc).__name__}: {exc})") from None


def _decode_message(exc: UnicodeDecodeError) -> str:
    data = exc.object
    line = bytes(data[: exc.start]).count(b"\n") + 1
    return f"line {line}: not UTF-8 text (byte 0x{data[exc.start]:02x}); save the file as UTF-8"


def decode_text(data: bytes, path: str | os.PathLike[str]) -> str:
    """Text of a file's bytes: UTF-8 (a byte-order mark is dropped) or UTF-16 with its BOM.

    Excel's "CSV UTF-8" starts with a UTF-8 BOM and its "Unicode text" is UTF-16; both read
    as their text. Anything else that is not UTF-8 is refused naming the line.
    """
    if data[:2] in (b"\xff\xfe", b"\xfe\xff"):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not valid UTF-16 text") from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise ValueError(f"{path}, {_decode_message(exc)}") from None


def read_text(path: str | os.PathLike[str], what: str = "text file") -> str:
    """The decoded text of a file (see :func:`decode_text`), errors naming the file."""
    p = checked_path(path)
    with reading(path, what):
        data = p.read_bytes()
    return decode_text(data, path)


_NPY_MAGIC = b"\x93NUMPY"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


def check_numpy_file(path: str | os.PathLike[str], kind: str) -> Path:
    """Check that ``path`` starts like a ``.npy`` array or a ``.npz`` archive (``kind``).

    numpy would try to unpickle anything else and report "pickled (object) data" for a
    file that is merely garbage, empty, or the other of the two formats.
    """
    p = checked_path(path)
    with reading(path, f"{kind} file"), open(p, "rb") as fh:
        head = fh.read(6)
    if not head:
        raise ValueError(f"{path}: empty {kind} file")
    is_npy, is_zip = head.startswith(_NPY_MAGIC), head[:4] in _ZIP_MAGIC
    if kind == ".npy" and is_zip:
        raise ValueError(f"{path}: a .npz archive, not a .npy array; name it .npz")
    if kind == ".npz" and is_npy:
        raise ValueError(f"{path}: a .npy array, not a .npz archive; name it .npy")
    if not (is_npy or is_zip):
        raise ValueError(f"{path}: not a {kind} file (it starts with {head[:6]!r})")
    return p


def pickled_data(path: str | os.PathLike[str]) -> ValueError:
    """The error for a ``.npy``/``.npz`` file holding Python objects (never unpickled)."""
    return ValueError(
        f"{path}: holds Python objects (pickled data), which fmacro does not load; save "
        "arrays of numbers or strings"
    )


def load_npy(path: str | os.PathLike[str]) -> NDArray[Any]:
    """The array in a ``.npy`` file, read without unpickling; errors name the file."""
    p = check_numpy_file(path, ".npy")
    with reading(path, ".npy file"):
        try:
            return np.asarray(np.load(p, allow_pickle=False))
        except ValueError as exc:
            if "pickle" in str(exc):
                raise pickled_data(path) from None
            raise ValueError(f"{path}: not a readable .npy array ({exc})") from None

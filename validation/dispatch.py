"""``kernel``: ``numba.njit`` that interprets a kernel when compiling it would cost more.

A numba kernel's first call in a fresh environment (empty on-disk cache: a new virtualenv,
a CI job, a dask worker) compiles it: 0.1-3 s per kernel and argument types, up to 15 s
for the largest on a loaded machine, far longer than the call itself on small inputs. The
kernels are plain Python, so ``@kernel(...)`` (the options of ``numba.njit``; it returns
numba's own dispatcher) runs the SAME source one of two ways, decided per call:

1. compiled, if the dispatcher holds machine code for the argument types (numba's C
   dispatcher finds it without calling back here: a warm call costs what it did), or if
   numba's on-disk cache (``cache=True``) has it: loaded, then as above;
2. interpreted, by CPython: the kernel's Python function, every numba function it calls
   (helpers, ``inline="always"`` bodies, kernels of other modules) replaced by its own
   interpreted version, while that costs less than compiling (below);
3. else compiled, as ``numba.njit`` does (into the disk cache too, so later processes
   take path 1).

Interpret or compile ("ski rental"): a kernel is interpreted as long as its interpreting
time in this process, this call's included, stays within the estimated time to compile
it, ``COMPILE_SECONDS + COMPILE_SECONDS_PER_BYTE * bytecode`` (the bytecode of the kernel
and of every numba function it calls; measured in benchmarks/bench_startup.py). A call's
time is predicted from its work, the number of elements of its array arguments (in tuples
too; a kernel whose time is not proportional to that declares ``work=``), times the
kernel's measured seconds per unit of work over its interpreted calls so far
(``SECONDS_PER_ELEMENT`` before the first). So small inputs are interpreted, large ones
compiled at once, and a loop of many small calls costs at most about twice what
compiling first would have.

The two ways give the same results bit for bit. The kernels avoid numpy functions whose
numpy and numba implementations differ: numpy's ``arctan2`` (SIMD on CPUs with AVX-512)
and libm's ``atan2``, which numba calls, differ in the last bit, so kernels call
``math.atan2`` (numba compiles both to that libm call); ``x ** 4`` is a product of
squares in numba but ``pow()`` in CPython, so kernels write the product; a float
``np.sum`` adds pairwise in numpy and in order in numba, so kernels add in loops. An
interpreted run follows numba's error model (integers wrap, floats overflow to inf and
invalid operations give NaN, all without warnings; a division by zero raises
``ZeroDivisionError``) and its results are boxed as numba boxes them (numpy scalars
become ``int``, ``float``, ``bool``). tests/test_kernel_paths.py checks it.

The environment variable ``FMACRO_KERNELS`` forces a path, read at every such decision:
``auto`` (default: the rule above), ``compiled`` (always compile, as plain
``numba.njit``) or ``interpreted`` (always interpret, unless machine code for the
argument types is in memory already). :func:`forced` does the same inside a ``with``
block. ``NUMBA_DISABLE_JIT=1`` still turns every kernel into its plain Python function.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
import types
from collections.abc import Callable, Iterator
from typing import Any, TypeVar, overload

import numba
import numpy as np
from numba.core.compiler_lock import global_compiler_lock
from numba.core.dispatcher import Dispatcher, OmittedArg, _DispatcherBase
from numba.core.errors import NumbaValueError
from numba.core.typing.typeof import Purpose, typeof

_COMPILE_FOR_ARGS: Any = vars(_DispatcherBase)["_compile_for_args"]  # numba's own

__all__ = [
    "COMPILE_SECONDS",
    "COMPILE_SECONDS_PER_BYTE",
    "ENV",
    "MODES",
    "SECONDS_PER_ELEMENT",
    "forced",
    "interpreted",
    "kernel",
    "kernel_mode",
]

#: Environment variable that forces a path: one of :data:`MODES`.
ENV = "FMACRO_KERNELS"
MODES = ("auto", "compiled", "interpreted")

#: Estimated compile time of a kernel: a fixed part plus a part per byte of the bytecode
#: of the kernel and of the numba functions it calls (benchmarks/bench_startup.py).
COMPILE_SECONDS = 0.1
COMPILE_SECONDS_PER_BYTE = 1e-3
#: Interpreting time per element of the array arguments assumed before a kernel's first
#: interpreted call has been timed.
SECONDS_PER_ELEMENT = 2e-6

_ATTR = "_fmacro_interpreted"  # a dispatcher's interpreted function, built on first use
_lock = threading.Lock()
_KERNELS: list[Any] = []  # every dispatcher made by ``kernel`` (numba's internals used)
_forced: str | None = None  # set by ``forced``; wins over $FMACRO_KERNELS


def kernel_mode() -> str:
    """The path in force: :func:`forced`'s, else ``$FMACRO_KERNELS``'s: ``"auto"``
    (default), ``"compiled"`` or ``"interpreted"``."""
    if _forced is not None:
        return _forced
    mode = os.environ.get(ENV, "").strip().lower() or "auto"
    if mode not in MODES:
        raise ValueError(f"${ENV} must be one of {', '.join(MODES)}; got {mode!r}")
    return mode


@contextlib.contextmanager
def forced(mode: str) -> Iterator[None]:
    """Force a path for every kernel call inside the block, in every thread (for tests
    and benchmarks; blocks must not overlap in time).

    ``"interpreted"`` interprets even kernels whose machine code is in memory (it is set
    aside for the block); ``"compiled"`` compiles what is not in memory.
    """
    global _forced
    if mode not in MODES:
        raise ValueError(f"mode must be one of {', '.join(MODES)}; got {mode!r}")
    previous = _forced
    hidden: list[Any] = []
    _forced = mode
    try:
        if mode == "interpreted":
            for disp in _KERNELS:
                if disp.overloads:
                    disp._clear()  # empties the C dispatch table; ``overloads`` keeps the code
                    hidden.append(disp)
        yield
    finally:
        _forced = previous
        for disp in hidden:
            for cres in disp.overloads.values():
                disp._insert([a._code for a in cres.signature.args], cres.entry_point)


_F = TypeVar("_F", bound=Callable[..., Any])


@overload
def kernel(fn: _F, /) -> _F: ...
@overload
def kernel(fn: None = None, /, **options: Any) -> Callable[[_F], _F]: ...
def kernel(fn: Callable[..., Any] | None = None, /, **options: Any) -> Any:
    """``numba.njit`` (same options, same dispatcher) that interprets the kernel when
    compiling it would cost more (module docstring).

    ``@kernel`` and ``@kernel(cache=True, nogil=True, ...)`` as ``@numba.njit``; one more
    option, ``work``: a function of the kernel's arguments returning its work in units
    of about one element of a linear loop, for a kernel whose time is not proportional
    to the elements of its array arguments (the default measure).
    """
    if fn is None:
        return lambda f: _kernel(f, options)
    return _kernel(fn, options)


def _kernel(fn: Callable[..., Any], options: dict[str, Any]) -> Any:
    options = dict(options)
    work = options.pop("work", None)
    disp = numba.njit(**options)(fn)
    if not isinstance(disp, Dispatcher):  # NUMBA_DISABLE_JIT: the Python function itself
        return disp
    # numba's C dispatcher calls ``_compile_for_args`` when it holds no machine code for
    # the argument types, then calls what that returns: machine code, or (as for numba's
    # own object-mode fallback) a Python callable.
    setattr(disp, "_compile_for_args", _Chooser(disp, work))  # noqa: B010
    _KERNELS.append(disp)
    return disp


class _Chooser:
    """A dispatcher's ``_compile_for_args``: load, interpret or compile (module docstring)."""

    __slots__ = (
        "_budget",
        "_compile",
        "_disp",
        "_elements",
        "_no_cache",
        "_run",
        "_seconds",
        "_work",
    )

    def __init__(self, disp: Any, work: Callable[..., float] | None = None) -> None:
        self._disp = disp
        self._work = work
        self._compile = types.MethodType(_COMPILE_FOR_ARGS, disp)
        self._no_cache: set[tuple[Any, ...]] = set()  # signatures not in the disk cache
        self._run: Callable[..., Any] | None = None
        self._budget = -1.0  # estimated compile time; computed on first need
        self._seconds = 0.0  # time spent interpreting (this process)
        self._elements = 0.0  # their work: elements of the array arguments, or ``work``

    def __call__(self, *args: Any, **kws: Any) -> Any:
        mode = kernel_mode()
        disp = self._disp
        if mode == "compiled" or kws or not disp._can_compile:
            return self._compile(*args, **kws)
        if mode == "interpreted":
            return self._interpreter()
        sig = tuple(_arg_type(a) for a in args)
        loaded = self._load(sig)
        if loaded is not None:
            return loaded
        work: float
        if self._work is None:
            work = _elements(args)
        else:
            work = self._work(*(a.value if isinstance(a, OmittedArg) else a for a in args))
        if self._budget < 0:
            self._budget = COMPILE_SECONDS + COMPILE_SECONDS_PER_BYTE * _bytecode(disp, set())
        rate = self._seconds / self._elements if self._elements else SECONDS_PER_ELEMENT
        if self._seconds + work * rate > self._budget:
            return self._compile(*args)
        run = self._interpreter()

        def timed(*args: Any) -> Any:
            start = time.perf_counter()
            try:
                return run(*args)
            finally:
                self._seconds += time.perf_counter() - start
                self._elements += work

        return timed

    def _interpreter(self) -> Callable[..., Any]:
        if self._run is None:
            self._run = _boxed(interpreted(self._disp))
        return self._run

    def _load(self, sig: tuple[Any, ...]) -> Any:
        """The machine code for ``sig`` from numba's disk cache, or None (loaded as
        ``Dispatcher.compile`` loads it, without compiling on a miss)."""
        if sig in self._no_cache:
            return None
        disp = self._disp
        if not _on_disk(disp, sig):
            self._no_cache.add(sig)
            return None
        disp._compilation_chain_init_hook()
        with global_compiler_lock:
            existing = disp.overloads.get(sig)
            if existing is not None:
                return existing.entry_point
            cres = disp._cache.load_overload(sig, disp.targetctx)
            if cres is None:
                self._no_cache.add(sig)
                return None
            disp._cache_hits[sig] += 1
            if not cres.objectmode:
                disp.targetctx.insert_user_function(cres.entry_point, cres.fndesc, [cres.library])
            disp.add_overload(cres)
            return cres.entry_point


def _on_disk(disp: Any, sig: tuple[Any, ...]) -> bool:
    """Whether numba's disk cache has machine code of ``disp`` for ``sig``: its index
    read as ``load_overload`` reads it, without the setup of numba's code generator that
    ``load_overload`` starts with (about a second, on the first call in a process)."""
    cache = disp._cache
    if not getattr(cache, "_enabled", False):  # no disk cache (cache=False)
        return False
    try:
        key = cache._index_key(sig, disp.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # numba's internals changed: let load_overload look
        return True


def _elements(args: tuple[Any, ...]) -> int:
    """Elements of the arrays among ``args``, in tuples too: the measure of a call's work."""
    n = 0
    for a in args:
        if isinstance(a, np.ndarray):
            n += a.size
        elif isinstance(a, tuple):
            n += _elements(a)
    return n


def _bytecode(disp: Any, seen: set[int]) -> int:
    """Bytes of bytecode of ``disp`` and of the numba functions it calls, each once."""
    if id(disp) in seen:
        return 0
    seen.add(id(disp))
    py = disp.py_func
    size = len(py.__code__.co_code)
    callees = [py.__globals__.get(name) for name in _names(py.__code__)]
    callees += [cell.cell_contents for cell in py.__closure__ or () if _filled(cell)]
    for callee in callees:
        if isinstance(callee, Dispatcher):
            size += _bytecode(callee, seen)
    return size


def _names(code: types.CodeType) -> set[str]:
    """The global names ``code`` and the code nested in it (comprehensions) use."""
    names = set(code.co_names)
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            names |= _names(const)
    return names


def _filled(cell: Any) -> bool:
    try:
        cell.cell_contents  # noqa: B018
    except ValueError:  # an empty cell
        return False
    return True


def _arg_type(a: Any) -> Any:
    """numba's type of argument ``a``, as ``Dispatcher.typeof_pyval`` finds it."""
    if isinstance(a, OmittedArg):
        return numba.types.Omitted(a.value)
    try:
        found = typeof(a, Purpose.argument)
    except (NumbaValueError, ValueError):
        return numba.types.pyobject
    return numba.types.pyobject if found is None else found


def interpreted(fn: Any) -> Callable[..., Any]:
    """The Python function of numba dispatcher ``fn``, each numba dispatcher it uses
    (through its globals or closure) replaced by that one's interpreted function.

    Built once per dispatcher, callees too (cycles allowed); a function that is not a
    dispatcher is returned unchanged.
    """
    if not isinstance(fn, Dispatcher):
        return fn  # type: ignore[no-any-return]
    done = fn.__dict__.get(_ATTR)
    if done is not None:
        return done  # type: ignore[no-any-return]
    with _lock:
        return _build(fn)  # type: ignore[no-any-return]


def _build(disp: Any) -> Any:
    done = disp.__dict__.get(_ATTR)
    if done is not None:
        return done
    py = disp.py_func
    # A copy of the globals: numba freezes a kernel's globals when compiling it, too.
    namespace = dict(py.__globals__)
    closure = None
    if py.__closure__ is not None:
        closure = tuple(types.CellType() for _ in py.__closure__)
    new = types.FunctionType(py.__code__, namespace, py.__name__, py.__defaults__, closure)
    new.__kwdefaults__ = py.__kwdefaults__
    new.__qualname__ = py.__qualname__
    new.__doc__ = py.__doc__
    new.__dict__.update(py.__dict__)
    setattr(disp, _ATTR, new)  # before its callees are built: recursion finds it
    for name in _names(py.__code__):
        value = namespace.get(name)
        if isinstance(value, Dispatcher):
            namespace[name] = _build(value)
    for cell, old in zip(closure or (), py.__closure__ or (), strict=True):
        if _filled(old):
            value = old.cell_contents
            cell.cell_contents = _build(value) if isinstance(value, Dispatcher) else value
    return new


def _boxed(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` called as numba's dispatcher calls machine code: omitted arguments take
    their defaults, numba's error model holds, results are boxed as numba boxes them."""

    def run(*args: Any) -> Any:
        if any(isinstance(a, OmittedArg) for a in args):
            args = tuple(a.value if isinstance(a, OmittedArg) else a for a in args)
        try:
            with np.errstate(over="ignore", under="ignore", invalid="ignore", divide="raise"):
                out = fn(*args)
        except FloatingPointError as exc:  # numpy's division by zero, raised as numba does
            raise ZeroDivisionError(str(exc)) from None
        return _box(out)

    run.__wrapped__ = fn  # type: ignore[attr-defined]
    return run


def _box(value: Any) -> Any:
    """A numpy scalar as numba returns it (``int``, ``float``, ``bool``, ``complex``);
    tuples (named ones too) item by item; anything else unchanged."""
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, tuple):
        items = [_box(v) for v in value]
        return type(value)(*items) if hasattr(value, "_fields") else tuple(items)
    return value

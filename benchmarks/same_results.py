"""Bit-for-bit fingerprints of fmacro's results, to compare two versions of the code.

Refactors of the threshold search (issue 25) and of how the kernels run (issue 27)
promise "thresholds, F, bounds and diagnostics bit for bit the same". This script checks
that promise on a fixed, seeded suite of about 1,760 cases: it computes every case with
whatever ``fmacro`` is importable, writes a compact fingerprint of each result, and
compares two such records (or a record and a fresh run) case by case.

What it covers
--------------
Inputs: seeded random problems (dense float32/float64 scores, tied scores on a grid,
classes without positives, dense or sparse CSR/CSC scores holding only retrieved entries,
sparse labels, pandas DataFrames with str or int column names), the bundled Corel5k
rankings (``fmacro.optimize``'s ``data/corel5k_test_scores.npz``: 500 x 374, 111 classes
without a positive), and six small Mulan sets (yeast, enron, medical, genbase, birds from
``tests/data`` through ``fmacro.validation.datasets.load_dataset``, ``FMACRO_DATA``
defaulting to ``tests/data``; emotions bundled). The Mulan sets are scored by a
closed-form ridge scorer fitted here (a seeded 75/25 split of the training rows: tuning
scores on the 25%, test scores on the official test split). The inputs are fingerprinted
too (``data/...`` cases: the loader's own output, type and dtype apart from the values;
and an ``input`` field in each case), so a changed input shows as such, not as a changed
result. A few ``large`` problems reach the sizes where the kernels run differently:
several column blocks on threads in optimize's dense walks (over 2**16 entries), the
parallel counting kernels of validation (from 2**18 elements).

Groups of cases (the first part of a case's name is the function):

* ``tune``: 518 :func:`fmacro.optimize.tune` results: prior a in {0, 0.5, 1, 3, 10, 30}
  and ``"cv"`` (grids, repeats, seeds), ``n_eval`` (None, 1, 7, 1000, inf, the test
  size), ``zero_division`` 0/1/nan, ``beta`` 0.5/1/2, given ``base_rates`` (random with 0
  and 1, the own rates, training rates, 0.5), classes without tuning positives under
  ``unseen="prior"``/``"never"``, dense and sparse scores and labels, ``calibrated=True``,
  ``points=``, DataFrames, and ``method`` exact/domain/per_class/cyclic. Both ends of the
  search are covered; a run prints how many results ended at a fixed point of the
  linearization and how many on a hull edge (``diagnostics["search_diagnostics"]
  ["status"]``: 185 and 272 at 2da3ff7; the rest ran another method), and
  ``searched_cuts`` (hull 152 / screened 233 / every cut 133).
* ``search``: ``fixed_point`` (exact step on and off, ``polish``), ``exact``, ``domain``
  (64 angles and the exact hull); ``baselines``: ``per_class``, ``global_threshold``,
  ``proportional`` (with and without priors), ``top_k`` (and ``k_max``), ``cyclic`` (T_b
  start and a given start), ``best_threshold`` (weighted and not); ``etu``;
  ``evaluate``: ``evaluate_thresholds`` of tuned thresholds on held-out rows and the
  predictions of ``ThresholdResult.apply``; ``points``: ``class_points`` (sums of tp and
  fp and every array; weights, ``dominated="drop"``, ``empty_classes``).
* ``validation``: ``BinFValidation``, ``MultiFValidation`` (also the bundled scene
  predictions, and 1,200 classes), ``MultiLabelFValidation`` (Mulan and Corel5k
  predictions, dense uint8/bool and CSR) ``from_predictions``, weighted and not: the
  counts and about 20 measures.
* ``dask`` (``--no-dask`` skips it): 64 :func:`fmacro.dask.tune` runs on dask's
  synchronous scheduler, on dask arrays (several chunkings; labels numpy, dask or CSC;
  Corel5k, random, Mulan) and on (object, class, score, label) row DataFrames (truncated
  rankings, classes without positives or without any row), half ending at a fixed point
  and half on an edge; plus ``fd.fixed_point``/``per_class``/``domain``/
  ``global_threshold``/``evaluate`` runs.

What a fingerprint holds
------------------------
Every field of a ``ThresholdResult``: thresholds, cuts, precision, recall, f,
upper_bound, gap, method, beta, zero_division, classes, the rule (type and every
attribute) and every diagnostics entry, nested mappings flattened to dotted keys
(``diagnostics.search_diagnostics.exact.n_points``). Floats are stored exactly as
``float.hex()`` (tagged ``f:``, ``f4:`` for float32), ints, bools and strings as such
(``i:``, ``b:``, ``s:``: the name 3 and the name '3' differ); an array as dtype, shape
and its values (hex floats) when it has at most 4 elements, else the sha256 of its raw
bytes (64 bits kept). NaNs are canonicalized before hashing (a NaN's payload is not a
value); signed zeros are not (-0.0 != 0.0 here). Values measured in time (the exact
search's ``seconds``) are recorded as ``<timing>``, never compared. A case that raises
records its error (type and message): the suite uses valid inputs only, so an error in
a record is itself a finding.

Usage
-----
Record with the importable fmacro (the editable working tree in the dev venv)::

    /work/venv/bin/python benchmarks/same_results.py record /tmp/now.json.gz

Compare a fresh run of the importable fmacro with a reference record::

    /work/venv/bin/python benchmarks/same_results.py compare \\
        benchmarks/reference/same_results_0375adb.json.gz [--quiet] [--save /tmp/now.json.gz]

or two records without computing anything: ``compare REF --against OTHER``. It prints
one line per case: ``equal``; ``DIFFER`` with the first field that differs or is gone
(in the reference's order) and both values, hex floats with their decimal form;
``ADDED`` when every reference field is equal but the result has new fields (a new
attribute, a new diagnostics entry); ``MISSING`` for a reference case not computed.
``--quiet`` prints only those that are not equal. Then the counts per group, where the
searches ended, and the run time. Exit 1 on any DIFFER, MISSING or ADDED
(``--allow-added``: not on ADDED). ``--only TEXT`` (repeatable) runs only the cases whose
name contains TEXT; ``show TEXT`` prints every field of those cases in full (arrays
written out), to look at one difference under two versions.

Record against another commit (how to compare with the commit a change started from, in
the same environment: a reference recorded under other numpy, BLAS or scikit-learn
versions shows changed ``input`` fields, and its results cannot be compared): install
that commit into its own folder and put it first on the path::

    git -C /work/main worktree add /tmp/fmacro-at 2da3ff7
    /work/venv/bin/pip install --no-deps --target /tmp/at-site /tmp/fmacro-at
    cd /tmp && PYTHONPATH=/tmp/at-site /work/venv/bin/python \\
        /work/main/benchmarks/same_results.py record OUT.json.gz --label 2da3ff7
    git -C /work/main worktree remove /tmp/fmacro-at

The script prints ``fmacro.__file__`` (the record's meta keeps it): check that it is the
installed commit, not the working tree. The first run of a fresh install compiles the
numba kernels (cached on disk after that); warm, the whole suite takes 20-30 s on the
2-core dev machine (one case, ``tune/large/70000x3/a=10 zd=1 beta=2``, up to about 15 s
of it: the exact step on 70,000 rows).

Threads: BLAS runs on one thread (the ridge scorer's solves then give the same scores on
every run) and numba on two, unless the environment sets ``OPENBLAS_NUM_THREADS`` /
``NUMBA_NUM_THREADS``. The weighted counts of the parallel validation kernels are sums of
per-chunk float sums, with chunks following the thread count, so their last bits depend
on it (at 2da3ff7 already: with one thread, 4 weighted ``large`` validations differ in
the last bits; every other case is equal). The record's meta keeps the thread counts and
versions; compare warns when they differ.
"""

from __future__ import annotations

import os

# One BLAS thread: the ridge scorer's solves give the same bits on every run. Two numba
# threads (the dev machine's cores, where the reference was recorded): weighted counts of
# the parallel validation kernels are sums of per-chunk float sums, and the chunks follow
# the thread count (module docstring). A value already in the environment is kept.
for _var, _value in (("OPENBLAS_NUM_THREADS", "1"), ("MKL_NUM_THREADS", "1")):
    os.environ.setdefault(_var, _value)
os.environ.setdefault("NUMBA_NUM_THREADS", "2")
os.environ.setdefault("FMACRO_DATA", os.path.join(os.path.dirname(__file__), "..", "tests", "data"))

import argparse  # noqa: E402
import csv  # noqa: E402
import functools  # noqa: E402
import gzip  # noqa: E402
import hashlib  # noqa: E402
import json  # noqa: E402
import math  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from collections import Counter  # noqa: E402
from collections.abc import Callable, Iterator, Mapping  # noqa: E402
from importlib import resources  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402
import scipy.sparse as sp  # noqa: E402

FORMAT = "fmacro-same-results/1"
SEED = 20250125
# arrays with at most this many elements are stored value by value (show: every array)
LIMITS = {"inline": 4}
HASH_CHARS = 16  # 64 bits of sha256
TIMING_KEYS = frozenset({"seconds"})
MULAN = ("yeast", "enron", "medical", "genbase", "birds", "emotions")
GROUPS = ("data", "tune", "search", "baselines", "etu", "evaluate", "points", "validation", "dask")

Fields = dict[str, str]
Case = tuple[str, Callable[[], Fields]]


# --------------------------------------------------------------------------- fingerprints


def _canonical(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.dtype.kind in "fc" and np.isnan(a).any():
        a = a.copy()
        a[np.isnan(a)] = np.nan
    return a


def enc_scalar(v: Any) -> str:
    if v is None:
        return "none"
    if isinstance(v, (bool, np.bool_)):
        return f"b:{bool(v)}"
    if isinstance(v, (int, np.integer)):
        return f"i:{int(v)}"
    if isinstance(v, np.float32):
        return f"f4:{float(v).hex()}"
    if isinstance(v, (float, np.floating)):
        return f"f:{float(v).hex()}"
    if isinstance(v, str):
        return f"s:{v}"
    return f"r:{type(v).__name__}:{v!r}"


def enc_array(a: Any) -> str:
    inline = LIMITS["inline"]
    arr = np.asarray(a)
    head = f"a:{arr.dtype.str}:{list(arr.shape)}"
    if arr.dtype.kind in "OUS":
        items = json.dumps([str(x) for x in arr.ravel().tolist()])
        if arr.size <= inline:
            return f"{head}:{items}"
        return f"{head}:sha={hashlib.sha256(items.encode()).hexdigest()[:HASH_CHARS]}"
    if arr.size <= inline:
        vals = ",".join(
            float(x).hex() if arr.dtype.kind in "fc" else str(x) for x in arr.ravel().tolist()
        )
        return f"{head}:[{vals}]"
    digest = hashlib.sha256(_canonical(arr).tobytes()).hexdigest()[:HASH_CHARS]
    return f"{head}:sha={digest}"


def flatten(out: Fields, key: str, v: Any) -> None:
    """Fingerprint ``v`` into ``out`` under ``key`` (mappings, sequences and attrs
    instances recurse into dotted keys)."""
    import attrs

    leaf = key.rsplit(".", 1)[-1]
    if leaf in TIMING_KEYS:
        out[key] = "<timing>"
    elif isinstance(v, np.ndarray):
        out[key] = enc_array(v)
    elif sp.issparse(v):
        csr = sp.csr_matrix(v)
        out[key] = f"sparse:{type(v).__name__}"
        for part in ("indptr", "indices", "data"):
            out[f"{key}.{part}"] = enc_array(getattr(csr, part))
    elif isinstance(v, Mapping):
        out[key] = "map"  # its entries follow as dotted keys
        for k, x in v.items():
            flatten(out, f"{key}.{k}", x)
    elif isinstance(v, (list, tuple)):
        out[key] = f"seq:{type(v).__name__}"  # its items follow as key[i]
        for i, x in enumerate(v):
            flatten(out, f"{key}[{i}]", x)
    elif attrs.has(type(v)):
        out[key] = f"obj:{type(v).__name__}"
        for f in attrs.fields(type(v)):
            flatten(out, f"{key}.{f.name}", getattr(v, f.name))
    else:
        out[key] = enc_scalar(v)


def fields_of(obj: Any, names: tuple[str, ...]) -> Fields:
    """Each named attribute of ``obj``, fingerprinted (an attribute that raises records
    its error)."""
    out: Fields = {}
    for name in names:
        try:
            value = getattr(obj, name)
        except Exception as exc:  # recorded, compared like a value
            out[name] = f"error:{type(exc).__name__}"
            continue
        flatten(out, name, value() if callable(value) else value)
    return out


RESULT_FIELDS = (
    "thresholds",
    "cuts",
    "precision",
    "recall",
    "f",
    "upper_bound",
    "gap",
    "method",
    "beta",
    "zero_division",
    "classes",
)


def fp_result(r: Any) -> Fields:
    """Every field of a ThresholdResult: arrays, scalars, the rule, every diagnostic."""
    out = fields_of(r, RESULT_FIELDS)
    flatten(out, "rule", r.rule)
    flatten(out, "diagnostics", r.diagnostics)
    return out


BINARY_THRESHOLD_FIELDS = (
    "threshold",
    "f",
    "precision",
    "recall",
    "cut",
    "k",
    "support",
    "beta",
    "zero_division",
    "thresholds",
    "tp",
    "fp",
    "precisions",
    "recalls",
    "fs",
)
MACRO_EVALUATION_FIELDS = (
    "f",
    "precision",
    "recall",
    "macro_f",
    "class_index",
    "tp",
    "fp",
    "support",
    "class_precision",
    "class_recall",
    "class_f",
    "beta",
    "zero_division",
)
POINTS_FIELDS = (
    "indptr",
    "tp",
    "fp",
    "threshold",
    "support",
    "class_index",
    "n_samples",
    "n_columns",
    "zero_division",
    "full_cut",
)
AVERAGES = (
    "score",
    "f_macro",
    "macro_f",
    "micro_f",
    "weighted_f",
    "macro_precision",
    "macro_recall",
    "micro_precision",
    "micro_recall",
    "weighted_precision",
    "weighted_recall",
    "precision",
    "recall",
    "per_class_precision",
    "per_class_recall",
    "per_class_f",
    "per_class_specificity",
    "support",
    "absent_classes",
    "beta",
    "zero_division",
)
CLASS_COUNTS = ("class_counts.tp", "class_counts.fp", "class_counts.fn", "class_counts.tn")


def fp_validation(v: Any) -> Fields:
    kind = type(v).__name__
    out: Fields = {"type": f"s:{kind}"}
    if kind == "BinFValidation":
        names: tuple[str, ...] = (
            "counts.tp",
            "counts.fp",
            "counts.fn",
            "counts.tn",
            "precision",
            "recall",
            "f_beta",
            "f1",
            "g",
            "accuracy",
            "specificity",
            "sensitivity",
            "score",
            "beta",
            "zero_division",
        )
    elif kind == "MultiFValidation":
        names = ("confusion_matrix", *CLASS_COUNTS, "accuracy", "n_classes", *AVERAGES)
    else:
        names = (
            *CLASS_COUNTS,
            "sample_counts.tp",
            "sample_counts.true",
            "sample_counts.predicted",
            "sample_counts.weight",
            "samples_f",
            "subset_accuracy",
            "hamming_loss",
            "per_sample_f",
            "n_samples",
            "n_labels",
            *AVERAGES,
        )
    for name in names:
        try:
            if name == "confusion_matrix":
                conf = v.confusion
                value: Any = getattr(conf, "matrix", None)
                if value is None:
                    value = conf.toarray() if hasattr(conf, "toarray") else repr(conf)
            else:
                value = v
                for part in name.split("."):
                    value = getattr(value, part)
                if callable(value):
                    value = value()
        except Exception as exc:  # recorded
            out[name] = f"error:{type(exc).__name__}"
            continue
        flatten(out, name, value)
    return out


def fp_inputs(*arrays: Any) -> str:
    """One hash of a case's inputs (dense or sparse arrays)."""
    h = hashlib.sha256()
    for a in arrays:
        if a is None:
            h.update(b"none")
        elif sp.issparse(a):
            csr = sp.csr_matrix(a)
            h.update(f"{type(a).__name__}{csr.shape}{csr.dtype}".encode())
            for part in (csr.indptr, csr.indices, csr.data):
                h.update(_canonical(np.asarray(part)).tobytes())
        else:
            arr = np.asarray(a)
            h.update(f"{arr.dtype.str}{arr.shape}".encode())
            h.update(_canonical(arr).tobytes())
    return h.hexdigest()[:HASH_CHARS]


def with_input(inp: str, fields: Fields) -> Fields:
    return {"input": inp, **fields}


def run_case(fn: Callable[[], Fields]) -> Fields:
    try:
        return fn()
    except Exception as exc:  # an error is recorded and compared
        return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}


# --------------------------------------------------------------------------- inputs


def random_problem(seed: int, n_obj: int, n_cls: int, levels: int | None) -> tuple[Any, Any]:
    """Scores with a signal (float32 for odd seeds); ``levels`` rounds them onto a grid
    (tied scores); every class has a positive."""
    rng = np.random.default_rng(seed)
    y = (rng.random((n_obj, n_cls)) < rng.uniform(0.02, 0.5, n_cls)).astype(np.uint8)
    y[rng.integers(0, n_obj), :] = 1
    s = y * rng.normal(1.0, 1.0, (n_obj, n_cls)) + rng.normal(0.0, 1.0, (n_obj, n_cls))
    if levels is not None:
        s = np.round(s * levels) / levels
    return s.astype(np.float32 if seed % 2 else np.float64), y


def without_positives(y: np.ndarray, n_unseen: int) -> np.ndarray:
    """``y`` with the positives of its first ``n_unseen`` columns removed (one column
    always keeps its positives)."""
    y = np.array(y, copy=True)
    y[:, : min(n_unseen, y.shape[1] - 1)] = 0
    return y


def retrieved(s: np.ndarray, share: float, seed: int, fmt: str) -> Any:
    """Sparse scores holding each entry with probability ``share`` (stored values > 0)."""
    s = s - s.min() + 1.0
    keep = np.random.default_rng(seed + 1).random(s.shape) < share
    return sp.csr_matrix(np.where(keep, s, 0.0)).asformat(fmt)


def top_retrieved(s: np.ndarray, k: int) -> Any:
    """CSR scores keeping each column's top ``k`` (shifted positive)."""
    s = np.asarray(s, dtype=np.float64)
    keep = s >= np.sort(s, axis=0)[-k]
    return sp.csr_matrix(np.where(keep, s - s.min() + 1.0, 0.0))


def probabilities(s: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-6.0 * (np.asarray(s, dtype=np.float64) - 0.5)))


@functools.cache
def corel5k() -> tuple[np.ndarray, np.ndarray]:
    source = resources.files("fmacro.optimize") / "data" / "corel5k_test_scores.npz"
    with resources.as_file(source) as path, np.load(path) as data:
        return data["scores"], data["labels"]


def ridge(x: np.ndarray, y: np.ndarray, alpha: float = 10.0) -> Callable[[np.ndarray], Any]:
    """Closed-form ridge one-vs-rest on standardized features (primal or dual solve)."""
    mu = x.mean(axis=0)
    sd = x.std(axis=0)
    sd[sd == 0] = 1.0
    xc = (x - mu) / sd
    ym = y.mean(axis=0)
    yc = y - ym
    n, d = xc.shape
    if n >= d:
        w = np.linalg.solve(xc.T @ xc + alpha * np.eye(d), xc.T @ yc)
    else:
        w = xc.T @ np.linalg.solve(xc @ xc.T + alpha * np.eye(n), yc)
    return lambda z: ((z - mu) / sd) @ w + ym


@functools.cache
def load_mulan(name: str, split: str, sparse: bool = False) -> tuple[Any, Any]:
    from fmacro.validation.datasets import load_dataset

    return load_dataset(name, split, sparse=sparse)  # type: ignore[arg-type]


@functools.cache
def mulan(name: str) -> dict[str, Any]:
    """Tuning scores (25% of the training rows, seeded), test scores, probabilities."""
    x_tr, y_tr = load_mulan(name, "train")
    x_te, y_te = load_mulan(name, "test")
    x_tr, x_te = np.asarray(x_tr, dtype=np.float64), np.asarray(x_te, dtype=np.float64)
    y_tr, y_te = np.asarray(y_tr, dtype=np.uint8), np.asarray(y_te, dtype=np.uint8)
    perm = np.random.default_rng(SEED).permutation(x_tr.shape[0])
    n_val = x_tr.shape[0] // 4
    fit, val = np.sort(perm[n_val:]), np.sort(perm[:n_val])
    model = ridge(x_tr[fit], y_tr[fit].astype(np.float64))
    s_tune, s_test = model(x_tr[val]), model(x_te)
    return {
        "s_tune": s_tune,
        "y_tune": y_tr[val],
        "s_test": s_test,
        "y_test": y_te,
        "p_tune": probabilities(s_tune),
        "p_test": probabilities(s_test),
        "train_rates": y_tr[fit].mean(axis=0),
    }


def real_sets() -> Iterator[tuple[str, Callable[[], dict[str, Any]]]]:
    """(name, loader) of the real tuning sets: Corel5k (all 500 rows tune; the test side
    is the same rows) and the Mulan sets."""

    @functools.cache
    def corel() -> dict[str, Any]:
        s, y = corel5k()
        return {
            "s_tune": s,
            "y_tune": y,
            "s_test": s,
            "y_test": y,
            "p_tune": np.clip(s.astype(np.float64), 0.0, 1.0),
            "p_test": np.clip(s.astype(np.float64), 0.0, 1.0),
            "train_rates": None,
        }

    yield "corel5k", corel
    for name in MULAN:
        yield name, functools.partial(mulan, name)


# --------------------------------------------------------------------------- the suite


def data_cases() -> Iterator[Case]:
    def corel() -> Fields:
        s, y = corel5k()
        return {"scores": enc_array(s), "labels": enc_array(y)}

    def loaded(out: Fields, key: str, arr: Any) -> None:
        """A loaded array: its type and dtype, and its values whatever the dtype."""
        out[f"{key}.type"] = enc_scalar(type(arr).__name__)
        out[f"{key}.dtype"] = enc_scalar(str(arr.dtype))
        dense = arr.toarray() if sp.issparse(arr) else arr
        out[key] = enc_array(np.asarray(dense, dtype=np.float64))

    yield "data/corel5k", corel
    for name in MULAN:

        def one(name: str = name) -> Fields:
            out: Fields = {}
            for split in ("train", "test"):
                x, y = load_mulan(name, split)
                loaded(out, f"x_{split}", x)
                loaded(out, f"y_{split}", y)
            d = mulan(name)  # the scores the suite tunes on, from those
            for key in ("s_tune", "y_tune", "s_test", "p_test", "train_rates"):
                out[key] = enc_array(d[key])
            return out

        yield f"data/mulan/{name}", one

    for name, split in (("medical", "test"), ("corel5k", "test")):

        def sparse(name: str = name, split: str = split) -> Fields:
            out: Fields = {}
            x, y = load_mulan(name, split, sparse=True)
            loaded(out, "x", x)
            loaded(out, "y", y)
            return out

        yield f"data/mulan/{name} {split} sparse=True", sparse


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return "inf" if v == math.inf else ("nan" if math.isnan(v) else f"{v:g}")
    return str(v)


def random_tune_cases(n_cases: int) -> Iterator[Case]:
    """Seeded random problems with random options (each option drawn per case)."""
    from fmacro.optimize import class_points, tune

    for i in range(n_cases):
        rng = np.random.default_rng([SEED, 1, i])
        n_obj = int(rng.choice([2, 5, 12, 30, 60, 100, 150, 250, 400]))
        n_cls = int(rng.integers(1, 13))
        levels = [None, 2, 8][int(rng.integers(3))]
        seed = int(rng.integers(0, 10_000))
        prior: Any = float(rng.choice([0.0, 0.5, 1.0, 3.0, 3.0, 10.0, 30.0]))
        n_eval = [None, None, 1.0, 7.0, 1000.0, math.inf][int(rng.integers(6))]
        zd = [0.0, 0.0, 1.0, math.nan][int(rng.integers(4))]
        beta = [0.5, 1.0, 1.0, 2.0][int(rng.integers(4))]
        n_unseen = int(rng.choice([0, 0, 1, 2, 3]))
        unseen = ["prior", "prior", "never"][int(rng.integers(3))]
        rates = ["none", "none", "given", "own"][int(rng.integers(4))]
        scores = ["dense", "dense", "dense", "csr", "csc"][int(rng.integers(5))]
        share = [0.2, 0.6, 1.0][int(rng.integers(3))]
        sparse_labels = bool(rng.random() < 0.2)
        special = ["", "", "", "", "", "", "cv", "calibrated", "points", "method"][
            int(rng.integers(10))
        ]
        method = ["exact", "domain", "per_class", "cyclic"][int(rng.integers(4))]
        if special == "cv":  # both halves of every split need positives
            n_obj, n_cls = max(n_obj, 60), max(n_cls, 3)
        grid = [(0.0, 1.0, 3.0, 10.0, 30.0), (0.0, 3.0, 10.0), (1.0, 3.0)][int(rng.integers(3))]
        repeats, rstate = int(rng.integers(1, 3)), int(rng.integers(0, 5))
        pi_draw = rng.choice([0.0, 1.0, 1e-3, 0.5, -1.0], size=n_cls)
        pi_rand = rng.random(n_cls)
        pi = np.where(pi_draw < 0, pi_rand, pi_draw)

        kw: dict[str, Any] = {
            "prior": prior,
            "n_eval": n_eval,
            "zero_division": zd,
            "beta": beta,
            "unseen": unseen,
        }
        desc = [
            f"n={n_obj}",
            f"k={n_cls}",
            f"lv={levels}",
            f"s{seed}",
            f"a={_fmt(prior)}",
            f"n_eval={_fmt(n_eval)}",
            f"zd={_fmt(zd)}",
            f"beta={_fmt(beta)}",
            f"unseen={n_unseen}:{unseen}",
        ]
        if special == "calibrated":
            desc.append("calibrated")
        elif special == "points":
            desc.append("points")
        else:
            desc.append(f"rates={rates}")
            desc.append(f"scores={scores}" + (f"{share}" if scores != "dense" else ""))
            if sparse_labels:
                desc.append("labels=csr")
        if special == "cv":
            desc.append(f"cv{len(grid)}x{repeats}r{rstate}")
        if special == "method":
            desc.append(f"method={method}")

        def case(
            i: int = i,
            n_obj: int = n_obj,
            n_cls: int = n_cls,
            levels: int | None = levels,
            seed: int = seed,
            kw: dict[str, Any] = kw,
            n_unseen: int = n_unseen,
            rates: str = rates,
            scores: str = scores,
            share: float = share,
            sparse_labels: bool = sparse_labels,
            special: str = special,
            method: str = method,
            grid: tuple[float, ...] = grid,
            repeats: int = repeats,
            rstate: int = rstate,
            pi: np.ndarray = pi,
        ) -> Fields:
            kw = dict(kw)
            s, y = random_problem(seed, n_obj, n_cls, levels)
            y = without_positives(y, n_unseen)
            if special == "calibrated":
                eta = np.random.default_rng(seed).random((n_obj, n_cls)) ** 3
                y = (np.random.default_rng(seed + 7).random(eta.shape) < eta).astype(np.uint8)
                y[0, :] = 1
                y = without_positives(y, n_unseen)
                return with_input(fp_inputs(eta, y), fp_result(tune(eta, y, calibrated=True, **kw)))
            if special == "points":
                pts = class_points(s, y, zero_division=kw["zero_division"])
                kw.pop("unseen")
                return with_input(fp_inputs(s, y), fp_result(tune(points=pts, **kw)))
            sc: Any = s if scores == "dense" else retrieved(s, share, seed, scores)
            lab: Any = sp.csr_matrix(y) if sparse_labels else y
            if rates == "given":
                kw["base_rates"] = pi
            elif rates == "own":
                kw["base_rates"] = np.count_nonzero(y, axis=0) / float(n_obj)
            if special == "cv":
                kw.update(prior="cv", cv_grid=grid, cv_repeats=repeats, random_state=rstate)
            if special == "method":
                kw["method"] = method
            return with_input(fp_inputs(sc, lab), fp_result(tune(sc, lab, **kw)))

        yield f"tune/random/{i:03d} " + " ".join(desc), case


REAL_TUNE_OPTIONS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("default", {}),
    ("a=0 n_eval=inf", {"prior": 0.0, "n_eval": math.inf}),
    ("a=1", {"prior": 1.0}),
    ("a=10", {"prior": 10.0}),
    ("a=30", {"prior": 30.0}),
    ("unseen=never", {"unseen": "never"}),
    ("n_eval=test", {"n_eval": "test"}),
    ("rates=train", {"base_rates": "train"}),
    ("rates=train a=1", {"base_rates": "train", "prior": 1.0}),
    ("cv", {"prior": "cv"}),
    ("zd=1 beta=2", {"zero_division": 1.0, "beta": 2.0}),
    ("zd=nan beta=0.5 a=1", {"zero_division": math.nan, "beta": 0.5, "prior": 1.0}),
    ("method=exact", {"method": "exact"}),
    ("method=per_class", {"method": "per_class"}),
    ("method=domain", {"method": "domain"}),
    ("method=cyclic", {"method": "cyclic"}),
    ("calibrated", {"calibrated": True}),
    ("calibrated n_eval=test", {"calibrated": True, "n_eval": "test"}),
    ("sparse top20%", {"sparse": True}),
    ("sparse top20% rates=train a=1", {"sparse": True, "base_rates": "train", "prior": 1.0}),
)
COREL_EXTRA: tuple[tuple[str, dict[str, Any]], ...] = (
    ("a=3", {"prior": 3.0}),
    ("rates=0.5 a=0.5", {"base_rates": "half", "prior": 0.5}),
    ("rates=0.5 a=3", {"base_rates": "half", "prior": 3.0}),
    ("rates=first250 a=1", {"base_rates": "first250", "prior": 1.0}),
    ("rates=first250 a=3", {"base_rates": "first250", "prior": 3.0}),
    ("n_eval=1000 zd=1", {"n_eval": 1000.0, "zero_division": 1.0}),
)


def real_options(name: str, d: dict[str, Any], opts: dict[str, Any]) -> tuple[Any, Any, dict]:
    """The scores, labels and keyword arguments of one real-data option set."""
    kw = dict(opts)
    s, y = d["s_tune"], d["y_tune"]
    if kw.pop("sparse", False):
        s = top_retrieved(s, max(1, s.shape[0] // 5))
    if kw.get("calibrated"):
        s = d["p_tune"]
    if kw.get("n_eval") == "test":
        kw["n_eval"] = float(d["y_test"].shape[0])
    rates = kw.get("base_rates")
    if rates == "train":
        kw["base_rates"] = d["train_rates"] if d["train_rates"] is not None else "first250"
        rates = kw["base_rates"]
    if isinstance(rates, str):
        if rates == "half":
            kw["base_rates"] = np.full(y.shape[1], 0.5)
        else:  # the first 250 rows' rates, 0.01 for the classes without a positive
            half = y[:250].mean(axis=0)
            half[y.sum(axis=0) == 0] = 0.01
            kw["base_rates"] = half
    return s, y, kw


def real_tune_cases() -> Iterator[Case]:
    from fmacro.optimize import tune

    for name, load in real_sets():
        options = REAL_TUNE_OPTIONS + (COREL_EXTRA if name == "corel5k" else ())
        for label, opts in options:

            def case(
                load: Callable[[], dict[str, Any]] = load, opts: dict = opts, name: str = name
            ) -> Fields:
                d = load()
                s, y, kw = real_options(name, d, opts)
                res = tune(s, y, **kw)
                test = d["p_test"] if kw.get("calibrated") else d["s_test"]
                out = with_input(fp_inputs(s, y), fp_result(res))
                out["apply(test)"] = enc_array(np.packbits(res.apply(test)))
                return out

            yield f"tune/{name}/{label}", case


def random_small(i: int, group: int) -> tuple[Any, Any, dict[str, Any], str]:
    """A random problem and options for the non-tune functions."""
    rng = np.random.default_rng([SEED, group, i])
    n_obj = int(rng.choice([3, 10, 40, 80, 150, 300]))
    n_cls = int(rng.integers(1, 11))
    levels = [None, 2, 8][int(rng.integers(3))]
    seed = int(rng.integers(0, 10_000))
    s, y = random_problem(seed, n_obj, n_cls, levels)
    n_unseen = int(rng.choice([0, 0, 1, 2]))
    y = without_positives(y, n_unseen)
    kw = {
        "zero_division": [0.0, 1.0, math.nan][i % 3],
        "beta": [1.0, 0.5, 2.0, 1.0][i % 4],
        "empty_classes": ["exclude", "include"][(i // 3) % 2] if n_unseen else "exclude",
    }
    if math.isnan(kw["zero_division"]):  # include needs a defined precision of nothing
        kw["empty_classes"] = "exclude"
    sc: Any = s
    if i % 5 == 4:
        sc = retrieved(s, 0.6, seed, "csr")
    desc = (
        f"{i:02d} n={n_obj} k={n_cls} lv={levels} s{seed} unseen={n_unseen} "
        f"zd={_fmt(kw['zero_division'])} beta={_fmt(kw['beta'])} {kw['empty_classes']}"
        + (" csr" if sp.issparse(sc) else "")
    )
    return sc, y, kw, desc


N_SMALL = 40


def small_inputs(group: int) -> Iterator[tuple[str, Callable[[], tuple[Any, Any, dict]]]]:
    for i in range(N_SMALL):
        _, _, _, desc = random_small(i, group)
        yield f"random/{desc}", functools.partial(_small, i, group)


@functools.cache
def _small(i: int, group: int) -> tuple[Any, Any, dict[str, Any]]:
    sc, y, kw, _ = random_small(i, group)
    return sc, y, kw


def real_inputs() -> Iterator[tuple[str, Callable[[], tuple[Any, Any, dict]]]]:
    for name, load in real_sets():
        for label, kw in (
            ("", {}),
            (
                " zd=1 beta=2 include",
                {"zero_division": 1.0, "beta": 2.0, "empty_classes": "include"},
            ),
        ):

            def get(load: Callable[[], dict[str, Any]] = load, kw: dict = kw) -> tuple:
                d = load()
                return d["s_tune"], d["y_tune"], dict(kw)

            yield f"{name}{label}", get


def search_cases() -> Iterator[Case]:
    from fmacro.optimize import domain, exact, fixed_point

    variants: tuple[tuple[str, Callable[..., Any]], ...] = (
        ("fixed_point", lambda s, y, kw: fixed_point(s, y, **kw)),
        ("fixed_point exact=False", lambda s, y, kw: fixed_point(s, y, exact=False, **kw)),
        ("fixed_point polish", lambda s, y, kw: fixed_point(s, y, polish=True, exact=False, **kw)),
        ("exact", lambda s, y, kw: exact(s, y, **kw)),
        ("domain", lambda s, y, kw: domain(s, y, **kw)),
        ("domain n_angles=None", lambda s, y, kw: domain(s, y, n_angles=None, **kw)),
    )
    yield from _method_cases(variants, real_too=True)


def _method_cases(
    variants: tuple[tuple[str, Callable[..., Any]], ...], real_too: bool, group: int = 2
) -> Iterator[Case]:
    sources = [*small_inputs(group), *(real_inputs() if real_too else ())]
    for label, call in variants:
        for src, get in sources:

            def case(call: Callable[..., Any] = call, get: Callable[[], tuple] = get) -> Fields:
                s, y, kw = get()
                return with_input(fp_inputs(s, y), fp_result(call(s, y, kw)))

            yield f"{label.split()[0]}/{src} [{label}]", case


def baseline_cases() -> Iterator[Case]:
    from fmacro.optimize import (
        best_threshold,
        cyclic,
        global_threshold,
        per_class,
        proportional,
        top_k,
    )

    def priors(y: Any) -> np.ndarray:
        return np.linspace(0.01, 0.3, y.shape[1])

    def dense(s: Any) -> Any:
        return s.toarray() if sp.issparse(s) else s

    variants: tuple[tuple[str, Callable[..., Any]], ...] = (
        ("per_class", lambda s, y, kw: per_class(s, y, **kw)),
        ("global_threshold", lambda s, y, kw: global_threshold(s, y, **kw)),
        ("proportional", lambda s, y, kw: proportional(s, y, **kw)),
        ("proportional priors", lambda s, y, kw: proportional(s, y, priors=priors(y), **kw)),
        ("top_k", lambda s, y, kw: top_k(dense(s), y, **kw)),
        ("top_k k_max=2", lambda s, y, kw: top_k(dense(s), y, k_max=2, **kw)),
        ("cyclic", lambda s, y, kw: cyclic(s, y, **kw)),
        (
            "cyclic start=global",
            lambda s, y, kw: cyclic(s, y, start=global_threshold(s, y, **kw), **kw),
        ),
    )
    yield from _method_cases(variants, real_too=True, group=3)
    # best_threshold: one ranking, weighted and not
    for i in range(24):
        rng = np.random.default_rng([SEED, 4, i])
        n = int(rng.choice([1, 5, 40, 300, 2000]))
        levels = [None, 4][i % 2]
        weighted = i % 3 == 2
        kw = {"beta": [1.0, 0.5, 2.0][i % 3], "zero_division": [0.0, 1.0, 0.0, math.nan][i % 4]}

        def case(rng_seed: int = int(rng.integers(1 << 30)), n: int = n, lv: Any = levels,
                 weighted: bool = weighted, kw: dict = kw) -> Fields:  # fmt: skip
            r = np.random.default_rng(rng_seed)
            y = (r.random(n) < 0.3).astype(np.int64)
            s = y * 0.8 + r.normal(size=n)
            if lv:
                s = np.round(s * lv) / lv
            w = r.uniform(0.0, 3.0, n) if weighted else None
            res = best_threshold(s, y, sample_weight=w, **kw)
            return with_input(fp_inputs(s, y, w), fields_of(res, BINARY_THRESHOLD_FIELDS))

        desc = f"{i:02d} n={n} lv={levels} beta={_fmt(kw['beta'])} zd={_fmt(kw['zero_division'])}"
        yield f"best_threshold/random/{desc}" + (" weighted" if weighted else ""), case
    for name, load in real_sets():
        for col in (0, 3):

            def real(load: Callable[[], dict[str, Any]] = load, col: int = col) -> Fields:
                d = load()
                s, y = d["s_tune"][:, col], d["y_tune"][:, col]
                return with_input(
                    fp_inputs(s, y), fields_of(best_threshold(s, y), BINARY_THRESHOLD_FIELDS)
                )

            yield f"best_threshold/{name}/column {col}", real


def etu_cases() -> Iterator[Case]:
    from fmacro.optimize import etu

    for i in range(16):
        n_obj = [5, 40, 200, 600][i % 4]
        n_cls = [1, 4, 9, 15][(i // 4) % 4]
        kw = {"beta": [1.0, 0.5, 2.0][i % 3], "zero_division": [0.0, 1.0, math.nan][(i // 3) % 3]}

        def case(i: int = i, n_obj: int = n_obj, n_cls: int = n_cls, kw: dict = kw) -> Fields:
            rng = np.random.default_rng([SEED, 5, i])
            eta = rng.random((n_obj, n_cls)) ** 2
            if i % 2:
                eta = np.round(eta, 2)  # ties
            return with_input(fp_inputs(eta), fp_result(etu(eta, **kw)))

        yield (
            f"etu/random/{i:02d} n={n_obj} k={n_cls} beta={kw['beta']} zd={kw['zero_division']}",
            case,
        )
    for name, load in real_sets():
        for label, kw in (("", {}), (" beta=2", {"beta": 2.0})):

            def real(load: Callable[[], dict[str, Any]] = load, kw: dict = kw) -> Fields:
                p = load()["p_test"]
                return with_input(fp_inputs(p), fp_result(etu(p, **kw)))

            yield f"etu/{name}{label}", real


def evaluate_cases() -> Iterator[Case]:
    from fmacro.optimize import evaluate_thresholds, fixed_point, per_class, tune

    for name, load in real_sets():
        for label, method in (
            ("tune", tune),
            ("per_class", per_class),
            ("fixed_point", fixed_point),
        ):
            for kw in ({}, {"beta": 2.0, "zero_division": 1.0, "empty_classes": "include"}):

                def case(
                    load: Callable[[], dict] = load, method: Callable = method, kw: dict = kw
                ) -> Fields:
                    d = load()
                    res = method(d["s_tune"], d["y_tune"])
                    ev = evaluate_thresholds(d["s_test"], d["y_test"], res, **kw)
                    out = with_input(
                        fp_inputs(d["s_test"], d["y_test"]), fields_of(ev, MACRO_EVALUATION_FIELDS)
                    )
                    out["thresholds"] = enc_array(res.thresholds)
                    out["apply(test)"] = enc_array(np.packbits(res.apply(d["s_test"])))
                    return out

                extra = " beta=2 zd=1 include" if kw else ""
                yield f"evaluate_thresholds/{name}/{label}{extra}", case
    for src, get in small_inputs(6):

        def small(get: Callable[[], tuple] = get) -> Fields:
            s, y, kw = get()
            res = tune(s, y)
            held = s[::-1]  # the rows reversed: other labels
            ev = evaluate_thresholds(held, y, res.thresholds, **kw)
            out = with_input(fp_inputs(s, y), fields_of(ev, MACRO_EVALUATION_FIELDS))
            out["apply"] = enc_array(np.packbits(res.apply(s)))
            return out

        yield f"evaluate_thresholds/{src}", small


def points_cases() -> Iterator[Case]:
    from fmacro.optimize import class_points

    def fp_points(p: Any) -> Fields:
        out = fields_of(p, POINTS_FIELDS)
        out["sum(tp)"] = enc_scalar(np.asarray(p.tp).sum())
        out["sum(fp)"] = enc_scalar(np.asarray(p.fp).sum())
        out["n_cuts"] = enc_scalar(int(np.asarray(p.indptr)[-1]))
        return out

    sources = [*small_inputs(7), *real_inputs()]
    for src, get in sources:
        for label in ("", "weighted", "dominated=drop"):

            def case(get: Callable[[], tuple] = get, label: str = label) -> Fields:
                s, y, kw = get()
                kw = {k: v for k, v in kw.items() if k != "beta"}
                if math.isnan(kw.get("zero_division", 0.0)):
                    kw["zero_division"] = 0.0
                w = None
                if label == "weighted":
                    w = np.random.default_rng(y.shape[0]).uniform(0.0, 2.0, y.shape[0])
                    kw["sample_weight"] = w
                if label == "dominated=drop":
                    kw["dominated"] = "drop"
                return with_input(fp_inputs(s, y, w), fp_points(class_points(s, y, **kw)))

            yield f"class_points/{src}" + (f" [{label}]" if label else ""), case


def validation_cases() -> Iterator[Case]:
    from fmacro.optimize import tune
    from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation

    for i in range(8):
        kw: dict[str, Any] = {"beta": [1.0, 2.0, 0.5, 1.0][i % 4]}
        kw["zero_division"] = [0.0, 1.0, math.nan, 0.0][(i + 1) % 4]
        weighted = i % 2 == 1

        def binary(i: int = i, kw: dict = kw, weighted: bool = weighted) -> Fields:
            rng = np.random.default_rng([SEED, 8, i])
            n = [3001, 50, 1, 800][i % 4]
            e = rng.integers(0, 2, n)
            p = np.where(rng.random(n) < 0.7, e, 1 - e)
            w = rng.uniform(0.0, 2.0, n) if weighted else None
            if i == 6:  # string labels, positive named
                e, p = np.where(e == 1, "yes", "no"), np.where(p == 1, "yes", "no")
                kw = {**kw, "positive": "yes"}
            v = BinFValidation.from_predictions(e, p, sample_weight=w, **kw)
            return with_input(fp_inputs(e.astype("U3"), p.astype("U3"), w), fp_validation(v))

        yield (
            f"BinFValidation/random/{i} beta={kw['beta']} zd={kw['zero_division']}"
            + (" weighted" if weighted else ""),
            binary,
        )
    for i in range(8):
        weighted = i % 2 == 1

        def multi(i: int = i, weighted: bool = weighted) -> Fields:
            rng = np.random.default_rng([SEED, 9, i])
            n, k = [5000, 40, 700, 3][i % 4], [7, 3, 12, 2][i % 4]
            e = rng.integers(0, k, n)
            p = np.where(rng.random(n) < 0.6, e, rng.integers(0, k, n))
            w = rng.uniform(0.0, 2.0, n) if weighted else None
            kw: dict[str, Any] = {
                "beta": [1.0, 2.0][i % 2],
                "zero_division": [0.0, 1.0, math.nan][i % 3],
            }
            classes = None if i < 4 else [*range(k + 1)][::-1]  # a class never seen, reordered
            v = MultiFValidation.from_predictions(e, p, classes, sample_weight=w, **kw)
            return with_input(fp_inputs(e, p, w), fp_validation(v))

        yield f"MultiFValidation/random/{i}" + (" weighted" if weighted else ""), multi

    def scene(weighted: bool) -> Fields:
        text = (resources.files("fmacro.validation") / "data" / "scene_predictions.csv").read_text()
        rows = list(csv.DictReader(text.splitlines()))
        e = np.array([r["expected"] for r in rows])
        p = np.array([r["predicted"] for r in rows])
        w = np.linspace(0.5, 1.5, e.size) if weighted else None
        v = MultiFValidation.from_predictions(e, p, sample_weight=w)
        return with_input(fp_inputs(e, p, w), fp_validation(v))

    yield "MultiFValidation/scene_predictions.csv", functools.partial(scene, False)
    yield "MultiFValidation/scene_predictions.csv weighted", functools.partial(scene, True)
    for name, load in real_sets():
        for label in ("", "weighted", "sparse", "sparse weighted zd=1"):

            def ml(load: Callable[[], dict] = load, label: str = label) -> Fields:
                d = load()
                y = d["y_test"]
                pred = tune(d["s_tune"], d["y_tune"]).apply(d["s_test"]).astype(np.uint8)
                w = np.linspace(0.2, 2.0, y.shape[0]) if "weighted" in label else None
                kw = {"zero_division": 1.0} if "zd=1" in label else {}
                yy, pp = (sp.csr_matrix(y), sp.csr_matrix(pred)) if "sparse" in label else (y, pred)
                v = MultiLabelFValidation.from_predictions(yy, pp, sample_weight=w, **kw)
                return with_input(fp_inputs(y, pred, w), fp_validation(v))

            yield (
                f"MultiLabelFValidation/{name}/tune predictions" + (f" {label}" if label else ""),
                ml,
            )
    for i in range(4):

        def ml_random(i: int = i) -> Fields:
            rng = np.random.default_rng([SEED, 10, i])
            y = rng.random((900, 13)) < 0.2
            p = rng.random((900, 13)) < 0.25
            w = rng.uniform(0, 1, 900) if i % 2 else None
            v = MultiLabelFValidation.from_predictions(
                y, p, sample_weight=w, beta=[1.0, 2.0][i // 2]
            )
            return with_input(fp_inputs(y, p, w), fp_validation(v))

        yield f"MultiLabelFValidation/random/{i}" + (" weighted" if i % 2 else ""), ml_random


def frame_cases() -> Iterator[Case]:
    """DataFrame scores and labels: the results name their classes (``classes``)."""
    import pandas as pd

    from fmacro.optimize import evaluate_thresholds, fixed_point, per_class, top_k, tune

    calls: tuple[tuple[str, Callable[..., Any]], ...] = (
        ("tune", lambda s, y: fp_result(tune(s, y))),
        ("tune a=1", lambda s, y: fp_result(tune(s, y, prior=1.0))),
        ("fixed_point", lambda s, y: fp_result(fixed_point(s, y))),
        ("per_class", lambda s, y: fp_result(per_class(s, y))),
        ("top_k", lambda s, y: fp_result(top_k(s, y))),
        (
            "evaluate_thresholds",
            lambda s, y: fields_of(evaluate_thresholds(s, y, tune(s, y)), MACRO_EVALUATION_FIELDS),
        ),
    )
    for names in ("str", "int"):
        for label, call in calls:

            def case(names: str = names, call: Callable[..., Any] = call) -> Fields:
                s, y = random_problem(42, 120, 6, 8)
                cols: list[Any] = [f"c{j}" for j in range(6)] if names == "str" else [*range(6)]
                sf, yf = pd.DataFrame(s, columns=cols), pd.DataFrame(y, columns=cols)
                return with_input(fp_inputs(s, y), call(sf, yf))

            yield f"{label.split()[0]}/frame/{names} columns [{label}]", case


# --------------------------------------------------------------------------- large inputs

# Problems above the sizes where the kernels change how they run: optimize's dense walks
# split the columns into several blocks run on a thread each once a matrix holds more
# than 2**16 entries (optimize/search/_blocks.py), validation's counting kernels run in
# parallel from 2**18 elements (validation/_kernels). Only Corel5k reaches the first
# among the inputs above; these cover both, with one or many blocks of columns.
LARGE_PROBLEMS: tuple[tuple[str, int, int, int | None, str], ...] = (
    ("2000x120 f32", 2000, 120, None, "dense"),
    ("3000x60 lv8", 3000, 60, 8, "dense"),
    ("70000x3", 70000, 3, None, "dense"),
    ("1500x200 csr.3", 1500, 200, 4, "csr"),
)


@functools.cache
def large_problem(label: str) -> tuple[Any, Any]:
    i = [p[0] for p in LARGE_PROBLEMS].index(label)
    _, n_obj, n_cls, levels, kind = LARGE_PROBLEMS[i]
    seed = 2 * i + (1 if "f32" in label else 0)  # odd seeds give float32 scores
    s, y = random_problem(seed, n_obj, n_cls, levels)
    y = without_positives(y, min(10, n_cls // 10))  # classes without positives
    if kind == "csr":
        return retrieved(s, 0.3, seed, "csr"), y
    return s, y


def large_cases() -> Iterator[Case]:
    from fmacro.optimize import (
        class_points,
        evaluate_thresholds,
        fixed_point,
        global_threshold,
        per_class,
        top_k,
        tune,
    )
    from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation

    def own_rates(y: Any) -> np.ndarray:
        return np.count_nonzero(y, axis=0) / float(y.shape[0])

    tune_options: tuple[tuple[str, dict[str, Any]], ...] = (
        ("default", {}),
        ("a=1", {"prior": 1.0}),
        ("a=0 n_eval=inf", {"prior": 0.0, "n_eval": math.inf}),
        ("a=10 zd=1 beta=2", {"prior": 10.0, "zero_division": 1.0, "beta": 2.0}),
        ("rates=0.3 a=1", {"base_rates": 0.3, "prior": 1.0}),
        ("rates=own unseen=never", {"base_rates": "own", "unseen": "never"}),
        ("cv", {"prior": "cv", "cv_grid": (0.0, 3.0, 10.0), "cv_repeats": 1}),
    )
    for label, *_ in LARGE_PROBLEMS:
        for opt, opts in tune_options:

            def case(label: str = label, opts: dict = opts) -> Fields:
                s, y = large_problem(label)
                kw = dict(opts)
                if kw.get("base_rates") == "own":
                    kw["base_rates"] = own_rates(y)
                elif isinstance(kw.get("base_rates"), float):
                    kw["base_rates"] = np.full(y.shape[1], kw["base_rates"])
                return with_input(fp_inputs(s, y), fp_result(tune(s, y, **kw)))

            yield f"tune/large/{label}/{opt}", case
        methods: tuple[tuple[str, Callable[..., Any]], ...] = (
            ("fixed_point", lambda s, y: fixed_point(s, y)),
            ("per_class", lambda s, y: per_class(s, y, zero_division=1.0)),
            ("global_threshold", lambda s, y: global_threshold(s, y)),
            ("top_k", lambda s, y: top_k(s.toarray() if sp.issparse(s) else s, y)),
        )
        for name, call in methods:

            def method(label: str = label, call: Callable[..., Any] = call) -> Fields:
                s, y = large_problem(label)
                return with_input(fp_inputs(s, y), fp_result(call(s, y)))

            yield f"{name}/large/{label}", method

        def points(label: str = label) -> Fields:
            s, y = large_problem(label)
            p = class_points(s, y)
            out = with_input(fp_inputs(s, y), fields_of(p, POINTS_FIELDS))
            out["sum(tp)"] = enc_scalar(np.asarray(p.tp).sum())
            out["sum(fp)"] = enc_scalar(np.asarray(p.fp).sum())
            return out

        yield f"class_points/large/{label}", points

        def evaluate(label: str = label) -> Fields:
            s, y = large_problem(label)
            res = tune(s, y)
            ev = evaluate_thresholds(s, y, res, beta=2.0)
            out = with_input(fp_inputs(s, y), fields_of(ev, MACRO_EVALUATION_FIELDS))
            out["apply"] = enc_array(np.packbits(res.apply(s)))
            return out

        yield f"evaluate_thresholds/large/{label}", evaluate

    # validations above the parallel threshold (2**18 elements)
    def binary(kind: str, weighted: bool) -> Fields:
        rng = np.random.default_rng([SEED, 14])
        n = 300_001
        e = rng.integers(0, 2, n)
        p = np.where(rng.random(n) < 0.8, e, 1 - e)
        w = rng.uniform(0.0, 2.0, n) if weighted else None
        kw: dict[str, Any] = {"beta": 2.0}
        if kind == "labels 1/2, positive 2":  # the general kernel (labels not 0/1)
            e, p = e + 1, p + 1
            kw["positive"] = 2
        v = BinFValidation.from_predictions(e, p, sample_weight=w, **kw)
        return with_input(fp_inputs(e, p, w), fp_validation(v))

    def multiclass(k: int, weighted: bool) -> Fields:
        rng = np.random.default_rng([SEED, 15, k])
        n = 400_000
        e = rng.integers(0, k, n)
        p = np.where(rng.random(n) < 0.6, e, rng.integers(0, k, n))
        w = rng.uniform(0.0, 2.0, n) if weighted else None
        v = MultiFValidation.from_predictions(e, p, sample_weight=w, zero_division=1.0)
        return with_input(fp_inputs(e, p, w), fp_validation(v))

    def multilabel(kind: str, weighted: bool) -> Fields:
        rng = np.random.default_rng([SEED, 16])
        n, k = 40_000, 12
        y = rng.random((n, k)) < rng.uniform(0.01, 0.4, k)
        p = np.where(rng.random((n, k)) < 0.85, y, ~y)
        w = rng.uniform(0.0, 2.0, n) if weighted else None
        yy: Any
        pp: Any
        if kind == "uint8":
            yy, pp = y.astype(np.uint8), p.astype(np.uint8)
        elif kind == "bool":
            yy, pp = y, p
        else:  # CSR, 60000 x 50 at about 10%
            n, k = 60_000, 50
            y = rng.random((n, k)) < 0.1
            p = np.where(rng.random((n, k)) < 0.9, y, ~y)
            w = rng.uniform(0.0, 2.0, n) if weighted else None
            yy, pp = sp.csr_matrix(y), sp.csr_matrix(p)
        v = MultiLabelFValidation.from_predictions(yy, pp, sample_weight=w)
        return with_input(fp_inputs(y, p, w), fp_validation(v))

    for weighted in (False, True):
        sfx = " weighted" if weighted else ""
        for kind in ("0/1", "labels 1/2, positive 2"):
            yield (
                f"BinFValidation/large/n=300001 {kind}{sfx}",
                functools.partial(binary, kind, weighted),
            )
        for k in (9, 1200):
            yield (
                f"MultiFValidation/large/n=400000 k={k}{sfx}",
                functools.partial(multiclass, k, weighted),
            )
        for kind in ("uint8", "bool", "csr"):
            yield (
                f"MultiLabelFValidation/large/{kind}{sfx}",
                functools.partial(multilabel, kind, weighted),
            )


# --------------------------------------------------------------------------- dask


def _rows(scores: np.ndarray, labels: np.ndarray, keep: np.ndarray) -> Any:
    """(object, class, score, label) rows of the kept entries and of every positive
    (score NaN: a positive not retrieved)."""
    import pandas as pd

    obj, cls = np.nonzero(keep | (labels != 0))
    score = np.where(keep[obj, cls], scores[obj, cls], np.nan)
    return pd.DataFrame(
        {"object": obj, "class": cls, "score": score, "label": labels[obj, cls].astype(np.int8)}
    )


@functools.cache
def _row_problem(seed: int) -> dict[str, Any]:
    """A random problem with truncated rankings (each class's top 60 retrieved), classes
    without positives, and one class with no row at all."""
    rng = np.random.default_rng([SEED, 11, seed])
    n_obj, n_cls = [(300, 40), (200, 25), (500, 12)][seed % 3]
    scores = rng.random((n_obj, n_cls)).round(2)
    labels = (rng.random((n_obj, n_cls)) < rng.uniform(0.005, 0.2, n_cls)).astype(np.uint8)
    labels[:, [1, 5]] = 0
    labels[rng.integers(0, n_obj), 2:] = 1  # every other class has a positive ...
    keep = scores >= np.sort(scores, axis=0)[-60]
    keep[:, -1] = False  # ... but the last: no positive and nothing retrieved
    labels[:, -1] = 0
    rates = rng.uniform(0.0, 0.1, n_cls)
    rates[[1, 5, n_cls - 1]] = 0.5
    return {"scores": scores, "labels": labels, "keep": keep, "rates": rates}


def dask_cases() -> Iterator[Case]:
    import dask
    import dask.array as da
    import dask.dataframe as dd

    import fmacro.dask as fd

    def run(fn: Callable[[], Any], *inputs: Any) -> Fields:
        with dask.config.set(scheduler="synchronous"):
            return with_input(fp_inputs(*inputs), fp_result(fn()))

    corel_options: tuple[tuple[str, dict[str, Any]], ...] = (
        ("default", {}),
        ("a=0 n_eval=inf", {"prior": 0.0, "n_eval": math.inf}),
        ("a=1", {"prior": 1.0}),
        ("a=10", {"prior": 10.0}),
        ("a=30 n_eval=1000", {"prior": 30.0, "n_eval": 1000.0}),
        ("rates=uniform", {"base_rates": "uniform"}),
        ("rates=uniform a=1", {"base_rates": "uniform", "prior": 1.0}),
        ("rates=0.5 a=3", {"base_rates": "half"}),
        ("zd=1 beta=0.5 a=10", {"zero_division": 1.0, "beta": 0.5, "prior": 10.0}),
        ("zd=nan beta=2", {"zero_division": math.nan, "beta": 2.0}),
        ("unseen=never", {"unseen": "never"}),
        ("unseen=never a=1", {"unseen": "never", "prior": 1.0}),
    )

    def corel_kw(opts: dict[str, Any]) -> dict[str, Any]:
        kw = dict(opts)
        s, _ = corel5k()
        if kw.get("base_rates") == "uniform":
            kw["base_rates"] = np.random.default_rng(0).uniform(0.0, 0.05, s.shape[1])
        elif kw.get("base_rates") == "half":
            kw["base_rates"] = np.full(s.shape[1], 0.5)
        return kw

    for label, opts in corel_options:

        def corel(opts: dict = opts) -> Fields:
            s, y = corel5k()
            kw = corel_kw(opts)
            return run(lambda: fd.tune(da.from_array(s, chunks=(200, 64)), y, **kw), s, y)

        yield f"dask/tune/corel5k chunks=(200,64)/{label}", corel
    for chunks, lab in (((500, 100), "numpy"), ((64, 374), "dask"), ((128, 50), "csc")):

        def corel_chunks(chunks: tuple = chunks, lab: str = lab) -> Fields:
            s, y = corel5k()
            labels: Any = {
                "numpy": y,
                "dask": da.from_array(y, chunks=chunks),
                "csc": sp.csc_matrix(y),
            }[lab]
            return run(lambda: fd.tune(da.from_array(s, chunks=chunks), labels), s, y)

        yield f"dask/tune/corel5k chunks={chunks} labels={lab}/default", corel_chunks
        yield (
            f"dask/tune/corel5k chunks={chunks} labels={lab}/a=1",
            lambda chunks=chunks: run(
                lambda: fd.tune(
                    da.from_array(corel5k()[0], chunks=chunks), corel5k()[1], prior=1.0
                ),
                *corel5k(),
            ),
        )
    # row DataFrames: truncated rankings
    row_options: tuple[tuple[str, dict[str, Any]], ...] = (
        ("default", {}),
        ("rates", {"base_rates": "rates"}),
        ("rates zd=1 n_eval=1000", {"base_rates": "rates", "zero_division": 1.0, "n_eval": 1000}),
        ("a=0", {"prior": 0.0}),
        ("a=1 beta=2", {"prior": 1.0, "beta": 2.0}),
        ("unseen=never", {"unseen": "never"}),
        ("zd=nan a=10", {"zero_division": math.nan, "prior": 10.0}),
        ("a=30 n_eval=inf", {"prior": 30.0, "n_eval": math.inf}),
    )
    for seed, parts in ((0, 3), (1, 2), (2, 5)):
        for label, opts in row_options:

            def rows(seed: int = seed, parts: int = parts, opts: dict = opts) -> Fields:
                d = _row_problem(seed)
                kw = dict(opts)
                if kw.get("base_rates") == "rates":
                    kw["base_rates"] = d["rates"]
                frame = _rows(d["scores"], d["labels"], d["keep"])
                n_obj, n_cls = d["scores"].shape
                ddf = dd.from_pandas(frame, npartitions=parts)
                return run(
                    lambda: fd.tune(ddf, n_samples=n_obj, n_classes=n_cls, **kw),
                    d["scores"],
                    d["labels"],
                    d["keep"],
                )

            yield f"dask/tune/rows {seed} parts={parts}/{label}", rows
    # dense dask arrays of random problems, sparse labels too
    for i in range(10):
        rng = np.random.default_rng([SEED, 12, i])
        n_obj, n_cls = int(rng.choice([60, 150, 400])), int(rng.integers(3, 13))
        seed, levels = int(rng.integers(10_000)), [None, 4][i % 2]
        opts = [
            {},
            {"prior": 1.0},
            {"prior": 0.0, "n_eval": math.inf},
            {"prior": 10.0, "zero_division": 1.0},
            {"beta": 2.0, "base_rates": "own"},
            {"beta": 0.5, "prior": 0.5, "unseen": "never"},
            {"zero_division": math.nan, "n_eval": 7.0},
            {"prior": 30.0},
            {"base_rates": "own", "prior": 1.0},
            {"prior": 3.0, "n_eval": 1000.0},
        ][i]

        def arrays(n_obj: int = n_obj, n_cls: int = n_cls, seed: int = seed, levels: Any = levels,
                   opts: dict = opts, i: int = i) -> Fields:  # fmt: skip
            s, y = random_problem(seed, n_obj, n_cls, levels)
            y = without_positives(y, i % 3)
            kw = dict(opts)
            if kw.get("base_rates") == "own":
                kw["base_rates"] = np.count_nonzero(y, axis=0) / float(n_obj)
            lab: Any = sp.csr_matrix(y) if i % 4 == 3 else y
            return run(
                lambda: fd.tune(da.from_array(s, chunks=(max(1, n_obj // 2), 4)), lab, **kw), s, y
            )

        desc = " ".join(f"{k}={_fmt(v)}" for k, v in opts.items()) or "default"
        yield f"dask/tune/random {i} n={n_obj} k={n_cls} lv={levels} s{seed}/{desc}", arrays
    # Mulan tuning sets as dask arrays
    for name in MULAN:
        for label, kw in (
            ("default", {}),
            ("a=1 rates=train", {"prior": 1.0, "base_rates": "train"}),
        ):

            def mul(name: str = name, kw: dict = kw) -> Fields:
                d = mulan(name)
                kw = dict(kw)
                if kw.get("base_rates") == "train":
                    kw["base_rates"] = d["train_rates"]
                s, y = d["s_tune"], d["y_tune"]
                return run(lambda: fd.tune(da.from_array(s, chunks=(100, 8)), y, **kw), s, y)

            yield f"dask/tune/{name}/{label}", mul

    # other fmacro.dask entry points
    def others(which: str) -> Fields:
        s, y = corel5k()
        ds = da.from_array(s, chunks=(200, 64))
        fn: Callable[[], Any] = {
            "fixed_point": lambda: fd.fixed_point(ds, y),
            "fixed_point beta=0.5": lambda: fd.fixed_point(ds, y, beta=0.5),
            "per_class": lambda: fd.per_class(ds, y),
            "global_threshold": lambda: fd.global_threshold(ds, da.from_array(y, chunks=(500, 64))),
            "domain": lambda: fd.domain(ds, y),
        }[which]
        return run(fn, s, y)

    for which in ("fixed_point", "fixed_point beta=0.5", "per_class", "global_threshold", "domain"):
        yield f"dask/{which.split()[0]}/corel5k/{which}", functools.partial(others, which)

    def rows_fixed_point(empty: str) -> Fields:
        d = _row_problem(0)
        frame = dd.from_pandas(_rows(d["scores"], d["labels"], d["keep"]), npartitions=3)
        n_obj, n_cls = d["scores"].shape
        return run(
            lambda: fd.fixed_point(frame, n_samples=n_obj, n_classes=n_cls, empty_classes=empty),
            d["scores"],
            d["labels"],
            d["keep"],
        )

    for empty in ("exclude", "include"):
        yield f"dask/fixed_point/rows 0/{empty}", functools.partial(rows_fixed_point, empty)

    def evaluate(kind: str) -> Fields:
        with dask.config.set(scheduler="synchronous"):
            rng = np.random.default_rng([SEED, 13])
            if kind == "multiclass":
                e = rng.integers(0, 7, 5000)
                p = np.where(rng.random(5000) < 0.3, rng.integers(0, 7, 5000), e)
                v = fd.evaluate(
                    da.from_array(e, chunks=700), da.from_array(p, chunks=1100), beta=2.0
                )
            else:
                s, y = corel5k()
                e, p = y, (s >= 0.3).astype(np.uint8)
                v = fd.evaluate(
                    da.from_array(e, chunks=(64, 374)), da.from_array(p, chunks=(100, 200))
                )
            return with_input(fp_inputs(e, p), fp_validation(v))

    for kind in ("multiclass", "multilabel corel5k"):
        yield f"dask/evaluate/{kind}", functools.partial(evaluate, kind)


# --------------------------------------------------------------------------- running


def suite(n_random: int, with_dask: bool) -> Iterator[Case]:
    yield from data_cases()
    yield from random_tune_cases(n_random)
    yield from real_tune_cases()
    yield from search_cases()
    yield from baseline_cases()
    yield from etu_cases()
    yield from evaluate_cases()
    yield from points_cases()
    yield from validation_cases()
    yield from large_cases()
    yield from frame_cases()
    if with_dask:
        yield from dask_cases()


def group_of(name: str) -> str:
    head = name.split("/", 1)[0]
    return {
        "fixed_point": "search",
        "exact": "search",
        "domain": "search",
        "per_class": "baselines",
        "global_threshold": "baselines",
        "proportional": "baselines",
        "top_k": "baselines",
        "cyclic": "baselines",
        "best_threshold": "baselines",
        "evaluate_thresholds": "evaluate",
        "class_points": "points",
        "BinFValidation": "validation",
        "MultiFValidation": "validation",
        "MultiLabelFValidation": "validation",
    }.get(head, head)


def selected(name: str, only: list[str] | None) -> bool:
    return not only or any(o in name for o in only)


def git_describe(path: Path) -> str | None:
    try:
        out = subprocess.run(
            ["git", "-C", str(path), "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True,
            text=True,
            timeout=20,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def compute(args: argparse.Namespace) -> dict[str, Any]:
    """Run the suite with the importable fmacro: the record (meta and cases)."""
    import fmacro

    where = Path(fmacro.__file__).resolve()
    import fmacro.optimize

    opt_file = Path(fmacro.optimize.__file__).resolve()
    print(f"fmacro: {where} (optimize: {opt_file})", flush=True)
    t_all = time.perf_counter()
    cases: dict[str, Fields] = {}
    seconds: Counter[str] = Counter()
    slowest: list[tuple[float, str]] = []
    n_per_group: Counter[str] = Counter()
    for name, fn in suite(args.n_random, not args.no_dask):
        if not selected(name, args.only):
            continue
        t0 = time.perf_counter()
        cases[name] = run_case(fn)
        group = group_of(name)
        dt = time.perf_counter() - t0
        seconds[group] += dt
        slowest.append((dt, name))
        n_per_group[group] += 1
        if "error" in cases[name] and args.command == "record":
            print(f"  error in {name}: {cases[name]['error']}", flush=True)
    total = time.perf_counter() - t_all
    print("slowest cases: " + "; ".join(f"{n} {dt:.2f} s" for dt, n in sorted(slowest)[-6:][::-1]))
    import numba

    meta = {
        "label": getattr(args, "label", None),
        "fmacro_file": str(where),
        "fmacro_optimize_file": str(opt_file),
        "fmacro_version": getattr(fmacro, "__version__", None),
        "git": git_describe(opt_file.parent),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "numba": numba.__version__,
        "numba_threads": numba.get_num_threads(),
        "numba_threading_layer": os.environ.get("NUMBA_THREADING_LAYER"),
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS"),
        "dask": None if args.no_dask else _dask_version(),
        "machine": f"{platform.machine()} {os.cpu_count()} cpus",
        "n_random": args.n_random,
        "only": args.only,
        "with_dask": not args.no_dask,
        "seconds": round(total, 1),
        "seconds_per_group": {g: round(t, 2) for g, t in seconds.items()},
        "cases_per_group": dict(n_per_group),
        "tune_ended": ended_counts(cases),
        "recorded": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    return {"format": FORMAT, "meta": meta, "cases": cases}


def _dask_version() -> str | None:
    try:
        import dask
    except ImportError:
        return None
    return str(dask.__version__)


def ended_counts(cases: Mapping[str, Fields]) -> dict[str, dict[str, int]]:
    """Where each tune result's search ended (fixed point / edge) and which cuts it
    searched, for the in-memory and the dask runs."""
    out: dict[str, Counter[str]] = {}
    for name, f in cases.items():
        if not (name.startswith("tune/") or name.startswith("dask/tune/")):
            continue
        key = "dask.tune" if name.startswith("dask/") else "tune"
        c = out.setdefault(key, Counter())
        c["results"] += 1
        status = f.get("diagnostics.search_diagnostics.status", "none")
        c[f"status {status.removeprefix('s:')}"] += 1
        searched = f.get("diagnostics.searched_cuts", "none")
        c[f"searched_cuts {searched.removeprefix('s:')}"] += 1
        if "error" in f:
            c["errors"] += 1
    return {k: dict(sorted(v.items())) for k, v in out.items()}


def write_record(record: dict[str, Any], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps(record, separators=(",", ":")).encode()
    with (
        open(path, "wb") as raw,
        gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=9, mtime=0) as gz,
    ):
        gz.write(data)


def read_record(path: Path) -> dict[str, Any]:
    with gzip.open(path, "rt") as f:
        record = json.load(f)
    if record.get("format") != FORMAT:
        raise SystemExit(f"{path}: not a {FORMAT} record")
    return dict(record)


def readable(v: str | None) -> str:
    """A stored value, with the decimal form of a hex float."""
    if v is None:
        return "(absent)"
    for tag in ("f:", "f4:"):
        if v.startswith(tag) and not v.endswith(("nan", "inf")):
            return f"{v} ({float.fromhex(v[len(tag) :])!r})"
    return v


def differences(ref: Fields, now: Fields) -> tuple[list[str], list[str]]:
    """The reference's fields whose value differs or that are gone (in the reference's
    order), and the fields only the compared record has."""
    changed = [k for k in ref if ref[k] != now.get(k)]
    added = [k for k in now if k not in ref]
    return changed, added


def summarize(meta: Mapping[str, Any], title: str) -> None:
    print(f"{title}: {meta.get('label') or ''} fmacro {meta.get('fmacro_optimize_file')} "
          f"(git {meta.get('git')}), {meta.get('seconds')} s")  # fmt: skip
    print(f"  cases per group: {meta.get('cases_per_group')}")
    for key, counts in (meta.get("tune_ended") or {}).items():
        print(f"  {key}: {counts}")


def do_compare(args: argparse.Namespace) -> int:
    ref = read_record(Path(args.reference))
    if args.against:
        now = read_record(Path(args.against))
    else:
        now = compute(args)
        if args.save:
            write_record(now, Path(args.save))
    summarize(ref["meta"], "reference")
    summarize(now["meta"], "compared ")
    for key in ("numba_threads", "blas_threads", "numpy", "numba", "python"):
        a, b = ref["meta"].get(key), now["meta"].get(key)
        if a != b:
            print(
                f"warning: {key} differs (reference {a}, compared {b}): results may differ for it"
            )
    ref_cases, now_cases = ref["cases"], now["cases"]
    dask_skipped = not now["meta"].get("with_dask", True)
    counts: Counter[str] = Counter()
    per_group: dict[str, Counter[str]] = {}
    for name, fields in ref_cases.items():
        if not selected(name, args.only) or not selected(name, now["meta"].get("only")):
            continue
        if dask_skipped and name.startswith("dask/"):
            continue
        g = per_group.setdefault(group_of(name), Counter())
        if name not in now_cases:
            counts["missing"] += 1
            g["missing"] += 1
            print(f"MISSING {name}")
            continue
        now_fields = now_cases[name]
        changed, added = differences(fields, now_fields)
        if not changed and not added:
            counts["equal"] += 1
            g["equal"] += 1
            if not args.quiet:
                print(f"equal   {name}")
        elif not changed:
            counts["added"] += 1
            g["added"] += 1
            shown = ", ".join(f"{k} = {now_fields[k]}" for k in added[:3])
            more = f" (+{len(added) - 3} more)" if len(added) > 3 else ""
            print(f"ADDED   {name}: every reference field equal; new: {shown}{more}")
        else:
            key = changed[0]
            counts["differ"] += 1
            g["differ"] += 1
            more = f" (+{len(changed) - 1} more fields differ)" if len(changed) > 1 else ""
            if added:
                more += f" (+{len(added)} new fields)"
            pad = " " * len(key)
            print(f"DIFFER  {name}\n        {key}: reference {readable(fields[key])}")
            print(f"        {pad}  now       {readable(now_fields.get(key))}{more}")
    new = [n for n in now_cases if n not in ref_cases]
    for name in new:
        print(f"new     {name} (not in the reference: not compared)")
    print("per group: " + ", ".join(f"{g} {dict(c)}" for g, c in per_group.items()))
    print(
        f"total: {counts['equal']} equal, {counts['differ']} differ, "
        f"{counts['added']} equal but with added fields, {counts['missing']} missing, "
        f"{len(new)} new cases"
    )
    failed = counts["differ"] or counts["missing"] or (counts["added"] and not args.allow_added)
    return 1 if failed else 0


def do_show(args: argparse.Namespace) -> int:
    """Every field of the cases whose name contains the pattern, arrays written out."""
    LIMITS["inline"] = 10**12
    shown = 0
    for name, fn in suite(args.n_random, not args.no_dask):
        if args.pattern not in name:
            continue
        shown += 1
        print(name)
        for key, value in run_case(fn).items():
            print(f"  {key} = {readable(value)}")
    print(f"{shown} case(s)")
    return 0 if shown else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("--no-dask", action="store_true", help="skip the fmacro.dask cases")
        p.add_argument("--n-random", type=int, default=340, help=argparse.SUPPRESS)

    rec = sub.add_parser("record", help="compute the suite and write its fingerprints")
    rec.add_argument("out", help="output file (.json.gz)")
    rec.add_argument("--label", help="a name for the code recorded (e.g. a commit)")
    rec.add_argument("--only", action="append", help="only cases whose name contains this")
    common(rec)
    cmp_ = sub.add_parser("compare", help="compare a record with a fresh run or another record")
    cmp_.add_argument("reference", help="the reference record (.json.gz)")
    cmp_.add_argument("--against", help="a second record instead of a fresh run")
    cmp_.add_argument("--save", help="also write the fresh run's record here")
    cmp_.add_argument("--only", action="append", help="only cases whose name contains this")
    cmp_.add_argument("--quiet", action="store_true", help="print differences only")
    cmp_.add_argument(
        "--allow-added",
        action="store_true",
        help="exit 0 when the only differences are fields the reference does not have "
        "(e.g. a new attribute of a result): reported as ADDED either way",
    )
    cmp_.add_argument("--label", help="a name for the fresh run (with --save)")
    common(cmp_)
    show = sub.add_parser("show", help="print every field of matching cases in full")
    show.add_argument("pattern")
    common(show)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    if args.command == "record":
        record = compute(args)
        write_record(record, Path(args.out))
        summarize(record["meta"], "recorded")
        n_err = sum("error" in f for f in record["cases"].values())
        size = Path(args.out).stat().st_size
        print(
            f"{len(record['cases'])} cases ({n_err} errors) -> {args.out} ({size / 1024:.0f} KiB)"
        )
        code = 0
    elif args.command == "compare":
        code = do_compare(args)
    else:
        code = do_show(args)
    print(f"time: {time.perf_counter() - t0:.1f} s")
    return code


if __name__ == "__main__":
    sys.exit(main())

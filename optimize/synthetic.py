"""Seeded synthetic ranking problems for tests, examples and benchmarks.

* :func:`extreme_rankings` - extreme multi-label classification: power-law (Zipf)
  class sizes, and for every object only its top-``k`` retrieved classes stored in
  a CSR score matrix (missing entries rank below every retrieved score), with the
  full true label matrix in CSR.
* :func:`calibrated_probabilities` - a dense problem whose scores are the true
  conditional probabilities: labels are drawn as ``Bernoulli(scores)``.
* :func:`dense_scores` - dense Gaussian scores with a per-class signal.

All generators take ``seed`` (anything :func:`numpy.random.default_rng` accepts;
checked by :func:`fmacro.validation.checks.check_seed`, whose errors name it) and never
touch the global random state. Label matrices are int64 0/1, dense or the data of a CSR
matrix: scikit-learn's ``label_binarize`` casts the class list to the dtype of an integer
``y``, so uint8 labels would train permuted columns past 256 labels (docs/f-macro.md).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.checks import check_seed

__all__ = ["calibrated_probabilities", "dense_scores", "extreme_rankings", "zipf_weights"]


def _check_positive_int(value: object, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a positive integer, got {type(value).__name__}")
    if int(value) < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def zipf_weights(n_classes: int, exponent: float = 1.0) -> NDArray[np.float64]:
    """Class popularities ``(c + 1) ** -exponent``, normalized to sum to 1."""
    n = _check_positive_int(n_classes, "n_classes")
    if not exponent >= 0.0:
        raise ValueError(f"exponent must be >= 0, got {exponent!r}")
    w = np.arange(1, n + 1, dtype=np.float64) ** -float(exponent)
    out: NDArray[np.float64] = w / w.sum()
    return out


def _sample_classes(
    rng: np.random.Generator, cdf: NDArray[np.float64], size: int
) -> NDArray[np.int64]:
    out = np.searchsorted(cdf, rng.random(size), side="right")
    return np.minimum(out, cdf.size - 1).astype(np.int64)


def extreme_rankings(
    n_samples: int,
    n_classes: int,
    top_k: int,
    *,
    labels_per_object: float = 3.0,
    exponent: float = 1.0,
    hit_rate: float = 0.7,
    signal: float = 1.5,
    seed: Any = 0,
) -> tuple[Any, Any]:
    """An extreme-classification ranking problem in CSR form.

    Every object has ``1 + Poisson(labels_per_object - 1)`` true classes drawn from
    Zipf popularities (so class sizes follow a power law). A retrieval model
    returns up to ``top_k`` classes per object: each true class is retrieved with
    probability ``hit_rate`` (score ``N(signal, 1)``), the rest are popular
    distractors (score ``N(0, 1)``); the ``top_k`` best-scored distinct classes
    are kept. Scores are shifted to be positive, so a stored entry is never 0.

    Parameters
    ----------
    n_samples, n_classes, top_k
        Matrix shape ``(n_samples, n_classes)`` and retrieved entries per object.
    labels_per_object
        Mean number of true classes per object (>= 1).
    exponent
        Zipf exponent of class popularity.
    hit_rate
        Probability that a true class is among the retrieved candidates.
    signal
        Mean score of a retrieved true class (distractors have mean 0).
    seed
        Seed for :func:`numpy.random.default_rng`.

    Returns
    -------
    scores, labels
        ``scipy.sparse.csr_matrix`` of shape ``(n_samples, n_classes)``: float64
        scores of the retrieved entries (about ``n_samples * top_k`` of them), and
        the int64 true label indicator matrix.

    Notes
    -----
    Memory and time are O(entries); 10^7 entries take a few seconds.
    """
    import scipy.sparse as sp

    n = _check_positive_int(n_samples, "n_samples")
    m = _check_positive_int(n_classes, "n_classes")
    k = _check_positive_int(top_k, "top_k")
    if not labels_per_object >= 1.0:
        raise ValueError(f"labels_per_object must be >= 1, got {labels_per_object!r}")
    if not 0.0 <= hit_rate <= 1.0:
        raise ValueError(f"hit_rate must lie in [0, 1], got {hit_rate!r}")
    rng = np.random.default_rng(check_seed(seed))
    cdf = np.cumsum(zipf_weights(m, exponent))

    # True labels, deduplicated per object.
    n_true = 1 + rng.poisson(labels_per_object - 1.0, size=n)
    true_obj = np.repeat(np.arange(n, dtype=np.int64), n_true)
    true_cls = _sample_classes(rng, cdf, true_obj.size)
    true_keys = np.unique(true_obj * m + true_cls)

    # Candidates: retrieved true labels plus k popular distractors per object.
    hit = true_keys[rng.random(true_keys.size) < hit_rate]
    dis_obj = np.repeat(np.arange(n, dtype=np.int64), k)
    dis_keys = dis_obj * m + _sample_classes(rng, cdf, dis_obj.size)
    keys = np.concatenate((hit, dis_keys))
    scores = np.concatenate(
        (rng.normal(signal, 1.0, size=hit.size), rng.normal(0.0, 1.0, size=dis_keys.size))
    )
    # Deduplicate (object, class): keep the largest score of each pair.
    order = np.lexsort((-scores, keys))
    keys, scores = keys[order], scores[order]
    first = np.append(True, keys[1:] != keys[:-1])
    keys, scores = keys[first], scores[first]
    obj = keys // m
    # Keep the top_k scores per object.
    order = np.lexsort((-scores, obj))
    keys, scores, obj = keys[order], scores[order], obj[order]
    starts = np.searchsorted(obj, np.arange(n), side="left")
    rank = np.arange(obj.size) - starts[obj]
    keep = rank < k
    keys, scores, obj = keys[keep], scores[keep], obj[keep]
    cls = keys % m
    scores = scores - scores.min() + 1.0 if scores.size else scores

    score_mat = sp.csr_matrix((scores, (obj, cls)), shape=(n, m))
    score_mat.sort_indices()
    t_obj, t_cls = np.divmod(true_keys, m)
    label_mat = sp.csr_matrix(
        (np.ones(true_keys.size, dtype=np.int64), (t_obj, t_cls)), shape=(n, m)
    )
    return score_mat, label_mat


def calibrated_probabilities(
    n_samples: int,
    n_classes: int,
    *,
    exponent: float = 1.0,
    max_prior: float = 0.3,
    concentration: float = 2.0,
    seed: Any = 0,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """A dense problem with calibrated scores: ``labels ~ Bernoulli(scores)``.

    Class priors follow a power law from ``max_prior`` down; each object's
    probability for class ``c`` is ``Beta(a_c, b_c)`` with mean the class prior and
    total concentration ``concentration`` (small = more informative scores).

    Returns
    -------
    scores
        ``(n_samples, n_classes)`` float64 probabilities in (0, 1).
    labels
        ``(n_samples, n_classes)`` int64 indicator matrix drawn from ``scores``.
    """
    n = _check_positive_int(n_samples, "n_samples")
    m = _check_positive_int(n_classes, "n_classes")
    if not 0.0 < max_prior < 1.0:
        raise ValueError(f"max_prior must lie in (0, 1), got {max_prior!r}")
    if not concentration > 0.0:
        raise ValueError(f"concentration must be > 0, got {concentration!r}")
    rng = np.random.default_rng(check_seed(seed))
    prior = max_prior * np.arange(1, m + 1, dtype=np.float64) ** -float(exponent)
    prior = np.maximum(prior, 1.0 / (10.0 * n))
    a = prior * concentration
    b = (1.0 - prior) * concentration
    probs = rng.beta(a[None, :], b[None, :], size=(n, m))
    probs = np.clip(probs, 1e-12, 1.0 - 1e-12)
    labels = (rng.random((n, m)) < probs).astype(np.int64)
    return probs, labels


def dense_scores(
    n_samples: int,
    n_classes: int,
    *,
    prevalence: float = 0.05,
    signal: float = 1.0,
    seed: Any = 0,
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Dense Gaussian scores: positives ``N(signal, 1)``, negatives ``N(0, 1)``.

    Each class has about ``prevalence * n_samples`` positives (at least one). Returns
    ``(scores, labels)``: float64 scores and the int64 0/1 label matrix.
    """
    n = _check_positive_int(n_samples, "n_samples")
    m = _check_positive_int(n_classes, "n_classes")
    if not 0.0 < prevalence < 1.0:
        raise ValueError(f"prevalence must lie in (0, 1), got {prevalence!r}")
    rng = np.random.default_rng(check_seed(seed))
    labels = (rng.random((n, m)) < prevalence).astype(np.int64)
    labels[rng.integers(0, n, size=m), np.arange(m)] = 1
    scores = rng.standard_normal((n, m)) + signal * labels
    return scores, labels

"""PATSI image annotation with a trained second tier (Paradowski et al. 2019, section 5).

PATSI (Photo Annotation Through Similar Images) annotates a query image word by word.
First tier: the ``m`` training images nearest to the query (here by Jaccard distance
on binary bag-of-blob features, which suits Corel5k's sparse binary vectors) give a
binary vector ``q = [c_1, ..., c_m]``, ``c_i = 1`` when the i-th nearest image has
the word (eq. 45). Second tier: a linear decision on ``q``. Compared here:

``PATSI global t``  original: fixed weights ``1/i`` and one threshold ``t`` for
             all words (the paper's "manually set threshold"), chosen on a grid to
             maximize the mean training F-score over the words (eq. 46);
``PATSI``    the same weights with ``t`` tuned per word to maximize that word's
             training F-score (a stronger baseline, and the start of the two below);
``MSE``      the tanh perceptron trained by the weighted delta rule from the PATSI weights;
``F-Delta``  the tanh perceptron trained by the single-class F-score rule from the
             PATSI weights (gamma = 20, no random search, at most 1000 iterations,
             epsilon = 0.1, step 0.025; MSE uses step 0.0005, as in the paper).

For training images the first tier uses the other training images (the image
itself is excluded), so training features look like test features. Evaluation is by
cross-validation (any splitter with ``split(X)`` yielding ``(train, validation)``
index pairs, e.g. ``crossval.KFold(k=10, seed=0)``) with predictions pooled over the
folds: for each word, the F1-score of its pooled out-of-fold counts, then the mean
over the 10, 20, 50, 100 most frequent words and over all words (macro-F).

Because the first-tier vector is binary with ``m`` entries, a word's training set has
at most ``2^(m+1)`` distinct (vector, label) rows; training runs on the distinct rows
with their counts as sample weights, which gives exactly the same criterion.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs
import numpy as np
from numpy.typing import NDArray

from fmacro.optimize.fdelta._inputs import check_positive_int
from fmacro.optimize.fdelta.objectives import Problem
from fmacro.optimize.fdelta.training import fit_problem
from fmacro.validation.checks import check_seed, is_sparse
from fmacro.validation.counts import frozen_array
from fmacro.validation.measures import f_beta_from_counts
from fmacro.validation.progress import Progress
from fmacro.validation.values import read_only_copies

__all__ = [
    "METHODS",
    "PatsiResult",
    "best_threshold",
    "jaccard_neighbors",
    "load_corel5k",
    "one_fold_split",
    "patsi_experiment",
]

METHODS: tuple[str, ...] = ("PATSI global t", "PATSI", "MSE", "F-Delta")
Splitter = Any  # anything with split(X) -> iterable of (train_idx, validation_idx)


def load_corel5k() -> tuple[Any, NDArray[np.uint8]]:
    """Corel5k (train and test stacked): sparse binary blob features (5000, 499) and
    the dense label indicator matrix (5000, 374)."""
    from fmacro.validation.datasets import load_dataset

    X, Y = load_dataset("corel5k", "all", sparse=True)
    return X, np.asarray(Y.toarray() if is_sparse(Y) else Y, dtype=np.uint8)


def _binary_csr(X: Any) -> Any:
    from scipy import sparse

    csr = sparse.csr_matrix(X, dtype=np.float64)
    csr.data = (csr.data != 0).astype(np.float64)
    csr.eliminate_zeros()
    return csr


def jaccard_neighbors(
    queries: Any,
    reference: Any,
    m: int,
    *,
    exclude_self: NDArray[np.intp] | None = None,
    chunk: int = 512,
) -> NDArray[np.intp]:
    """Indices (into ``reference``) of the ``m`` most Jaccard-similar rows for each query.

    Features are treated as sets (non-zero = present). Similarity is
    ``|a & b| / |a | b|`` (0 when both are empty); ties are broken by the smaller
    reference index. ``exclude_self[i] = j`` forbids reference row j for query i
    (use -1 for none), for a training image's own row.
    """
    Q = _binary_csr(queries)
    R = _binary_csr(reference)
    if m > R.shape[0] - (1 if exclude_self is not None else 0):
        raise ValueError(f"m={m} exceeds the number of reference rows {R.shape[0]}")
    q_size = np.asarray(Q.sum(axis=1)).ravel()
    r_size = np.asarray(R.sum(axis=1)).ravel()
    RT = R.T.tocsc()
    out = np.empty((Q.shape[0], m), dtype=np.intp)
    for start in range(0, Q.shape[0], chunk):
        stop = min(start + chunk, Q.shape[0])
        inter = (Q[start:stop] @ RT).toarray()
        union = q_size[start:stop, None] + r_size[None, :] - inter
        sim = np.divide(inter, union, out=np.zeros_like(inter), where=union > 0)
        if exclude_self is not None:
            rows = np.arange(stop - start)
            cols = exclude_self[start:stop]
            ok = cols >= 0
            sim[rows[ok], cols[ok]] = -1.0
        out[start:stop] = np.argsort(-sim, axis=1, kind="stable")[:, :m]
    return out


def best_threshold(
    scores: NDArray[np.float64], positive: NDArray[np.bool_], weights: NDArray[np.float64]
) -> float:
    """Threshold ``t`` maximizing the (weighted) F1 of the rule ``score >= t``.

    Candidates lie midway between consecutive distinct scores (plus one below the
    minimum and one above the maximum, which predicts nothing); ties in F go to the
    larger threshold.
    """
    values = np.unique(scores)
    if values.shape[0] == 0:
        return 0.0
    cuts = np.concatenate(([values[0] - 1.0], (values[:-1] + values[1:]) / 2.0, [values[-1] + 1.0]))
    order = np.argsort(scores)
    s_sorted = scores[order]
    w_pos = np.where(positive[order], weights[order], 0.0)
    w_neg = np.where(positive[order], 0.0, weights[order])
    # weight with score >= cut = total - weight strictly below the cut
    below = np.searchsorted(s_sorted, cuts, side="left")
    cum_pos = np.concatenate(([0.0], np.cumsum(w_pos)))
    cum_neg = np.concatenate(([0.0], np.cumsum(w_neg)))
    tp = cum_pos[-1] - cum_pos[below]
    fp = cum_neg[-1] - cum_neg[below]
    fn = cum_pos[-1] - tp
    f = np.asarray(f_beta_from_counts(tp, fp, fn, 1.0, 0.0))
    best = np.flatnonzero(f == f.max())[-1]
    return float(cuts[best])


def _grid_counts(
    scores: NDArray[np.float64],
    positive: NDArray[np.bool_],
    weights: NDArray[np.float64],
    grid: NDArray[np.float64],
) -> NDArray[np.float64]:
    """Weighted (TP, FP, FN) of the rule ``score >= t`` for every ``t`` in ``grid``."""
    above = scores[:, None] >= grid[None, :]
    wp = np.where(positive, weights, 0.0)
    wn = weights - wp
    tp = wp @ above
    fp = wn @ above
    return np.stack([tp, fp, wp.sum() - tp])


def _distinct_rows(
    features: NDArray[np.uint8], labels: NDArray[np.bool_]
) -> tuple[NDArray[np.float64], NDArray[np.bool_], NDArray[np.float64]]:
    m = features.shape[1]
    keys = features.astype(np.int64) @ (1 << np.arange(m, dtype=np.int64))
    keys = keys * 2 + labels.astype(np.int64)
    _, first, counts = np.unique(keys, return_index=True, return_counts=True)
    return features[first].astype(np.float64), labels[first], counts.astype(np.float64)


def _frozen_words(words: Any) -> NDArray[np.intp]:
    return frozen_array(words, np.intp)


def _frozen_word_f(word_f: Any) -> dict[str, NDArray[np.float64]]:
    return {str(k): frozen_array(v, np.float64) for k, v in dict(word_f).items()}


@read_only_copies
@attrs.frozen(eq=False)
class PatsiResult:
    """Out-of-fold F-scores of the three second tiers.

    Attributes
    ----------
    words : ndarray (W,), read-only -- label columns evaluated, most frequent first
    word_f : dict method -> ndarray (W,), read-only -- per-word F1 of pooled counts
    subsets : tuple of int or None -- top-k word subsets (None = all words)
    config : dict -- settings of the run
    """

    words: NDArray[np.intp] = attrs.field(converter=_frozen_words)
    word_f: dict[str, NDArray[np.float64]] = attrs.field(converter=_frozen_word_f)
    subsets: tuple[int | None, ...]
    config: dict[str, Any]

    def score(self, method: str, top: int | None) -> float:
        """Mean per-word F over the ``top`` most frequent words (None = all)."""
        f = self.word_f[method]
        return float(f[: (f.shape[0] if top is None else top)].mean())

    def table(self) -> str:
        """Markdown table: rows = methods, columns = word subsets (mean per-word F)."""
        names = ["all" if s is None else f"top {s}" for s in self.subsets]
        head = "| method | " + " | ".join(names) + " |\n|---|" + "---:|" * len(names)
        rows = [
            f"| {method} | "
            + " | ".join(f"{self.score(method, s):.4f}" for s in self.subsets)
            + " |"
            for method in self.word_f
        ]
        return "\n".join([head, *rows])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dictionary."""
        return {
            "config": self.config,
            "words": self.words.tolist(),
            "word_f": {k: v.tolist() for k, v in self.word_f.items()},
            "scores": {
                method: {
                    ("all" if s is None else str(s)): self.score(method, s) for s in self.subsets
                }
                for method in self.word_f
            },
        }


def one_fold_split(
    n: int, validation_fraction: float = 0.1, seed: int = 0
) -> list[tuple[NDArray[np.intp], NDArray[np.intp]]]:
    """A single seeded random train / validation split (fallback when no splitter is given)."""
    order = np.random.default_rng(check_seed(seed)).permutation(n)
    n_val = max(1, round(n * validation_fraction))
    return [(np.sort(order[n_val:]), np.sort(order[:n_val]))]


def _fold_iter(splitter: Splitter, X: Any, seed: int) -> list[tuple[Any, Any]]:
    if splitter is None:
        return one_fold_split(X.shape[0], seed=seed)
    return [(np.asarray(tr), np.asarray(va)) for tr, va in splitter.split(X)]


def patsi_experiment(
    X: Any,
    Y: Any,
    *,
    m: int = 10,
    splitter: Splitter = None,
    subsets: Sequence[int | None] = (10, 20, 50, 100, None),
    max_words: int | None = None,
    gamma: float = 20.0,
    step_mse: float = 0.0005,
    step_fdelta: float = 0.025,
    max_iter: int = 1000,
    epsilon: float = 0.1,
    seed: int = 0,
    progress: bool = True,
) -> PatsiResult:
    """Compare the PATSI second tiers (original, MSE-trained, F-Delta-trained) by CV.

    Parameters
    ----------
    X : (N, D) features, dense or scipy sparse; non-zero = feature present
    Y : (N, L) 0/1 label indicators (dense or sparse)
    m : number of neighbours (length of the first-tier vector)
    splitter : object with ``split(X)`` yielding ``(train, validation)`` index arrays,
        e.g. ``crossval.KFold(k=10, seed=0)``; None gives one seeded 90/10 split
    subsets : word subsets to report (top-k most frequent; None = all words)
    max_words : evaluate only the most frequent ``max_words`` words (speed)
    gamma, step_mse, step_fdelta, max_iter, epsilon : training settings (paper's values)
    seed : seed of the fallback split
    progress : progress bar on stderr (terminal only)

    Returns
    -------
    PatsiResult
    """
    m = check_positive_int(m, "m")
    check_seed(seed)
    Ymat = np.asarray(Y.toarray() if is_sparse(Y) else Y)
    if Ymat.ndim != 2 or Ymat.shape[0] != X.shape[0]:
        raise ValueError(f"Y must be (N, L) with N = {X.shape[0]} rows, got {Ymat.shape}")
    Ybool = Ymat != 0
    freq = Ybool.sum(axis=0)
    words = np.argsort(-freq, kind="stable")
    words = words[freq[words] > 0]
    if max_words is not None:
        words = words[: check_positive_int(max_words, "max_words")]
    n, n_words = X.shape[0], words.shape[0]
    folds = _fold_iter(splitter, X, seed)
    predicted = {name: np.zeros((n, n_words), dtype=bool) for name in METHODS}
    evaluated = np.zeros(n, dtype=bool)
    patsi_w = 1.0 / np.arange(1, m + 1, dtype=np.float64)
    # one shared threshold: midpoints of a 0.02 grid over the range of P
    grid = np.arange(1, int(patsi_w.sum() / 0.02) + 2, dtype=np.float64) * 0.02 - 0.01
    thresholds: list[float] = []
    with Progress(len(folds) * n_words, "patsi", enabled=progress) as bar:
        for train_idx, val_idx in folds:
            evaluated[val_idx] = True
            X_train = X[train_idx]
            nbr_train = jaccard_neighbors(
                X_train, X_train, m, exclude_self=np.arange(train_idx.shape[0])
            )
            nbr_val = jaccard_neighbors(X[val_idx], X_train, m)
            grid_f = np.zeros(grid.shape[0])
            val_scores = np.zeros((val_idx.shape[0], n_words))
            for col, word in enumerate(words):
                y_train = Ybool[train_idx, word]
                bar.advance()
                feat_train = y_train[nbr_train].astype(np.uint8)
                feat_val = y_train[nbr_val].astype(np.float64)
                rows, y_rows, counts = _distinct_rows(feat_train, y_train)
                val_scores[:, col] = feat_val @ patsi_w
                tp, fp, fn = _grid_counts(rows @ patsi_w, y_rows, counts, grid)
                grid_f += f_beta_from_counts(tp, fp, fn, 1.0, 0.0)
                if not y_train.any():
                    continue  # the word never occurs in training: predict it nowhere
                t = best_threshold(rows @ patsi_w, y_rows, counts)
                predicted["PATSI"][val_idx, col] = feat_val @ patsi_w >= t
                if y_train.all():
                    predicted["MSE"][val_idx, col] = True
                    predicted["F-Delta"][val_idx, col] = True
                    continue
                init = np.concatenate(([t], patsi_w))
                for name, objective, step in (
                    ("MSE", "delta", step_mse),
                    ("F-Delta", "F", step_fdelta),
                ):
                    problem = Problem.build(
                        objective, rows, y_rows.astype(np.int64), gamma, sample_weight=counts
                    )
                    model = fit_problem(
                        problem, init, step=step, max_iter=max_iter, epsilon=epsilon
                    )
                    predicted[name][val_idx, col] = feat_val @ model.weights >= model.bias
            t_global = grid[int(np.argmax(grid_f))]
            thresholds.append(float(t_global))
            predicted["PATSI global t"][val_idx] = val_scores >= t_global
    truth = Ybool[np.ix_(evaluated, words)]
    word_f = {}
    for name, pred in predicted.items():
        p = pred[evaluated]
        tp = np.count_nonzero(p & truth, axis=0)
        fp = np.count_nonzero(p & ~truth, axis=0)
        fn = np.count_nonzero(~p & truth, axis=0)
        f = np.asarray(f_beta_from_counts(tp, fp, fn, 1.0, 0.0), dtype=np.float64)
        f.flags.writeable = False
        word_f[name] = f
    words_ro = words.astype(np.intp)
    words_ro.flags.writeable = False
    config = {
        "m": m,
        "folds": len(folds),
        "splitter": repr(splitter) if splitter is not None else "one 90/10 split",
        "n_images": int(n),
        "n_words": int(n_words),
        "gamma": gamma,
        "step_mse": step_mse,
        "step_fdelta": step_fdelta,
        "max_iter": max_iter,
        "epsilon": epsilon,
        "distance": "Jaccard on binary features",
        "patsi_threshold": "per word, maximizing training F1",
        "patsi_global_thresholds": thresholds,
        "score": "mean over words of the F1 of pooled out-of-fold counts",
    }
    kept = tuple(s for s in subsets if s is None or s <= n_words)
    return PatsiResult(words=words_ro, word_f=word_f, subsets=kept, config=config)

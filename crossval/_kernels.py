"""numba kernels behind the splitters.

Every kernel takes contiguous, typed arrays (the callers convert once at the
boundary) and is compiled with ``cache=True``: the first call in a fresh
environment compiles it (about 0.5-2 s per kernel), later processes load the
cached machine code from ``__pycache__``; until compiling pays, a kernel runs
interpreted (``validation/dispatch.py``: same source, same folds).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from fmacro.validation.dispatch import kernel

__all__ = [
    "group_folds",
    "iterative_stratification",
    "shuffle_in_place",
    "split_by_fold",
    "stratified_folds",
]


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX_1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX_2 = np.uint64(0x94D049BB133111EB)
_LOW_32 = np.uint64(0xFFFFFFFF)


@kernel(cache=True)
def _splitmix64(state: np.uint64) -> tuple[np.uint64, np.uint64]:  # pragma: no cover - compiled
    """One step of splitmix64: ``(next state, 64 random bits)``."""
    state = state + _GOLDEN
    z = state
    z = (z ^ (z >> np.uint64(30))) * _MIX_1
    z = (z ^ (z >> np.uint64(27))) * _MIX_2
    return state, z ^ (z >> np.uint64(31))


@kernel(cache=True)
def shuffle_in_place(values: NDArray[np.generic], key: np.uint64) -> None:  # pragma: no cover
    """Fisher-Yates shuffle of ``values`` (fewer than 2**32 entries), seeded by ``key``.

    numpy's ``Generator.permutation`` spends most of its time outside the swap
    loop; this one costs about a fifth of it on 10^6 entries. The random stream
    is splitmix64 (passes BigCrush; the splitters need a reproducible, well-mixed
    permutation, not cryptographic strength) and every index is drawn without
    bias by Lemire's multiply-and-reject method on 32-bit draws.
    """
    state = key
    for i in range(values.shape[0] - 1, 0, -1):
        bound = np.uint64(i + 1)
        state, bits = _splitmix64(state)
        product = (bits >> np.uint64(32)) * bound
        low = product & _LOW_32
        if low < bound:
            reject_below = (np.uint64(1 << 32) - bound) % bound
            while low < reject_below:
                state, bits = _splitmix64(state)
                product = (bits >> np.uint64(32)) * bound
                low = product & _LOW_32
        j = np.int64(product >> np.uint64(32))
        swap = values[i]
        values[i] = values[j]
        values[j] = swap


@kernel(cache=True)
def split_by_fold(
    fold_of: NDArray[np.integer], fold: int, n_validation: int
) -> tuple[NDArray[np.intp], NDArray[np.intp]]:  # pragma: no cover - compiled
    """Return sorted ``(train, validation)`` indices of ``fold`` in one pass.

    ``n_validation`` must equal the number of entries of ``fold_of`` equal to ``fold``.
    Branch-free: every index is written to both outputs and only the right counter
    advances (a shuffled assignment makes the branch unpredictable), so each output
    has one slot of slack that the returned views leave out.
    """
    n = fold_of.shape[0]
    validation = np.empty(n_validation + 1, dtype=np.intp)
    train = np.empty(n - n_validation + 1, dtype=np.intp)
    a = 0
    b = 0
    for j in range(n):
        hit = fold_of[j] == fold
        validation[a] = j
        train[b] = j
        a += hit
        b += 1 - hit
    return train[:b], validation[:a]


@kernel(cache=True)
def stratified_folds(
    codes: NDArray[np.int64],
    n_classes: int,
    order: NDArray[np.int64],
    k: int,
    fold_of: NDArray[np.integer],
) -> None:  # pragma: no cover - compiled
    """Deal samples to ``k`` folds, class by class, round-robin.

    Samples are laid out grouped by class (classes in code order, members of a
    class in the order they appear in the random permutation ``order``); the
    sample at position ``p`` of that layout goes to fold ``p % k``. Each fold thus
    receives ``floor`` or ``ceil`` of ``n_c / k`` members of every class ``c`` and
    fold sizes differ by at most one. The fold numbers are written into ``fold_of``
    (an int16 array when ``k`` fits, to keep the later passes cache-friendly).
    """
    n = codes.shape[0]
    start = np.zeros(n_classes + 1, dtype=np.int64)
    for j in range(n):
        start[codes[j] + 1] += 1
    for c in range(n_classes):
        start[c + 1] += start[c]
    for t in range(n):
        j = order[t]
        c = codes[j]
        fold_of[j] = start[c] % k
        start[c] += 1


@kernel(cache=True)
def group_folds(sizes: NDArray[np.int64], by_size: NDArray[np.int64], k: int) -> NDArray[np.int64]:
    """Greedy group assignment: largest group first, to the currently lightest fold.

    ``by_size`` lists group codes in the order they are placed. Ties between
    equally light folds go to the lowest fold number. Returns the fold of each group.
    """
    load = np.zeros(k, dtype=np.int64)
    fold_of_group = np.empty(sizes.shape[0], dtype=np.int64)
    for t in range(by_size.shape[0]):
        g = by_size[t]
        best = 0
        for f in range(1, k):
            if load[f] < load[best]:
                best = f
        load[best] += sizes[g]
        fold_of_group[g] = best
    return fold_of_group


@kernel(cache=True)
def _heap_less(keys: NDArray[np.int64], labels: NDArray[np.int64], i: int, j: int) -> bool:
    return bool(keys[i] < keys[j] or (keys[i] == keys[j] and labels[i] < labels[j]))


@kernel(cache=True)
def _heap_push(
    keys: NDArray[np.int64], labels: NDArray[np.int64], size: int, key: int, label: int
) -> int:  # pragma: no cover - compiled
    """Push ``(key, label)`` on the binary min-heap of the first ``size`` slots."""
    i = size
    keys[i] = key
    labels[i] = label
    while i > 0:
        parent = (i - 1) // 2
        if not _heap_less(keys, labels, i, parent):
            break
        keys[parent], keys[i] = keys[i], keys[parent]
        labels[parent], labels[i] = labels[i], labels[parent]
        i = parent
    return size + 1


@kernel(cache=True)
def _heap_pop(keys: NDArray[np.int64], labels: NDArray[np.int64], size: int) -> int:
    """Remove the smallest entry (slot 0); return the new size."""  # pragma: no cover
    size -= 1
    keys[0] = keys[size]
    labels[0] = labels[size]
    i = 0
    while True:
        left = 2 * i + 1
        if left >= size:
            break
        child = left
        if left + 1 < size and _heap_less(keys, labels, left + 1, left):
            child = left + 1
        if not _heap_less(keys, labels, child, i):
            break
        keys[i], keys[child] = keys[child], keys[i]
        labels[i], labels[child] = labels[child], labels[i]
        i = child
    return size


@kernel(cache=True)
def _pick_fold(
    first: NDArray[np.int64], second: NDArray[np.int64], third: NDArray[np.int64], u: float
) -> int:  # pragma: no cover - compiled
    """Fold with the largest ``first``; ties by ``second``, then ``third``, then ``u``.

    ``u`` in [0, 1) picks uniformly among the folds still tied.
    """
    k = first.shape[0]
    b1 = first[0]
    b2 = second[0]
    b3 = third[0]
    ties = 1
    for f in range(1, k):
        a1 = first[f]
        a2 = second[f]
        a3 = third[f]
        if a1 > b1 or (a1 == b1 and (a2 > b2 or (a2 == b2 and a3 > b3))):
            b1 = a1
            b2 = a2
            b3 = a3
            ties = 1
        elif a1 == b1 and a2 == b2 and a3 == b3:
            ties += 1
    choice = min(int(u * ties), ties - 1)
    for f in range(k):
        if first[f] == b1 and second[f] == b2 and third[f] == b3:
            if choice == 0:
                return f
            choice -= 1
    return -1


@kernel(cache=True)
def iterative_stratification(
    indptr: NDArray[np.int64],
    indices: NDArray[np.int64],
    n_labels: int,
    k: int,
    order: NDArray[np.int64],
    u: NDArray[np.float64],
    stream: int,
    refine: bool,
) -> NDArray[np.int64]:  # pragma: no cover - compiled
    """Iterative stratification (Sechidis, Tsoumakas and Vlahavas, 2011).

    Parameters
    ----------
    indptr, indices
        CSR structure of the (n, L) label indicator matrix (no duplicates).
    n_labels
        L.
    k
        Number of folds, each with desired proportion ``1/k``.
    order
        Random permutation of the samples: the order in which the members of a
        label are dealt, and the order of the label-free samples at the end.
    u
        Uniform numbers in [0, 1), one per sample, breaking ties between folds.
    stream
        Seed (0 <= stream < 2**63) of a SplitMix64 stream. After a label has been
        dealt, every label whose count changed draws a fresh random key (in the
        order the labels were first touched), so ties between labels with the same
        (fewest) number of remaining samples are broken at random at every step, as
        the paper prescribes.
    refine
        Break ties between folds that want the current label equally by the sum of
        their wants for all the sample's labels before the paper's criterion (the
        fold's overall want). ``False`` follows the paper exactly.

    Returns
    -------
    fold_of
        Fold number of every sample.

    Notes
    -----
    Desired counts are kept multiplied by ``k`` so they are exact integers:
    ``want_label[f, i] = n_i - k * (members of label i already in fold f)`` and
    ``want[f] = n - k * |fold f|``. The label with the fewest remaining samples is
    found with a lazy min-heap keyed by ``(remaining, random bits)``, so the whole
    run costs ``O((n + nnz) log(L + nnz) + n k)``.
    """
    n = indptr.shape[0] - 1
    nnz = indices.shape[0]
    # CSC lists, members of each label in the order given by `order`.
    col_ptr = np.zeros(n_labels + 1, dtype=np.int64)
    for p in range(nnz):
        col_ptr[indices[p] + 1] += 1
    for i in range(n_labels):
        col_ptr[i + 1] += col_ptr[i]
    fill = col_ptr[:-1].copy()
    members = np.empty(nnz, dtype=np.int64)
    for t in range(n):
        s = order[t]
        for p in range(indptr[s], indptr[s + 1]):
            i = indices[p]
            members[fill[i]] = s
            fill[i] += 1
    remaining = np.empty(n_labels, dtype=np.int64)
    for i in range(n_labels):
        remaining[i] = col_ptr[i + 1] - col_ptr[i]
    want_label = np.empty((n_labels, k), dtype=np.int64)  # label-major: row i is contiguous
    for i in range(n_labels):
        for f in range(k):
            want_label[i, f] = remaining[i]
    want = np.full(k, n, dtype=np.int64)
    fold_of = np.full(n, -1, dtype=np.int64)
    other = np.zeros(k, dtype=np.int64)
    touched = np.empty(n_labels, dtype=np.int64)
    is_touched = np.zeros(n_labels, dtype=np.bool_)
    zeros = np.zeros(k, dtype=np.int64)

    heap_keys = np.empty(n_labels + nnz + 1, dtype=np.int64)
    heap_labels = np.empty(n_labels + nnz + 1, dtype=np.int64)
    state = np.uint64(stream)
    shift = np.uint64(33)  # keep 31 random bits: key = remaining << 31 | bits
    size = 0
    for i in range(n_labels):
        if remaining[i] > 0:
            state, bits = _splitmix64(state)
            key = (remaining[i] << 31) | np.int64(bits >> shift)
            size = _heap_push(heap_keys, heap_labels, size, key, i)
    while size > 0:
        key = heap_keys[0]
        label = heap_labels[0]
        size = _heap_pop(heap_keys, heap_labels, size)
        if remaining[label] == 0 or remaining[label] != (key >> 31):
            continue  # outdated entry: the label's count changed after this push
        n_touched = 0
        for p in range(col_ptr[label], col_ptr[label + 1]):
            s = members[p]
            if fold_of[s] >= 0:
                continue
            if refine:
                for f in range(k):
                    other[f] = 0
                for q in range(indptr[s], indptr[s + 1]):
                    row = want_label[indices[q]]
                    for f in range(k):
                        other[f] += row[f]
                f = _pick_fold(want_label[label], other, want, u[s])
            else:
                f = _pick_fold(want_label[label], want, zeros, u[s])
            fold_of[s] = f
            want[f] -= k
            for q in range(indptr[s], indptr[s + 1]):
                i = indices[q]
                want_label[i, f] -= k
                remaining[i] -= 1
                if not is_touched[i]:
                    is_touched[i] = True
                    touched[n_touched] = i
                    n_touched += 1
        # One new key per label whose count changed (in first-touch order); the old
        # keys stay in the heap and are skipped when popped. Each processed label
        # pushes at most L keys and at most its members' label count, so the heap
        # never holds more than L + nnz keys.
        for t in range(n_touched):
            i = touched[t]
            is_touched[i] = False
            if remaining[i] > 0:
                state, bits = _splitmix64(state)
                key = (remaining[i] << 31) | np.int64(bits >> shift)
                size = _heap_push(heap_keys, heap_labels, size, key, i)
    # Samples without any label: to the fold that wants the most samples.
    for t in range(n):
        s = order[t]
        if fold_of[s] < 0:
            f = _pick_fold(want, zeros, zeros, u[s])
            fold_of[s] = f
            want[f] -= k
    return fold_of

"""F-Delta in a few lines: train the seed-001 perceptron for the F-score of a rare class.

Run: python examples/fdelta_quickstart.py
"""

from __future__ import annotations

import numpy as np

from fmacro.optimize.fdelta import generate, train
from fmacro.validation import BinFValidation

# An imbalanced, linearly non-separable problem: |A| / |B| = 0.1 (eqs. 35-39 of seed 001).
X, y = generate("LNS", ratio=0.1, n=4000, d=8, seed=1)
train_rows = np.arange(X.shape[0]) % 2 == 0  # a 50/50 split

settings = {"gamma": 10.0, "step": 0.05, "seed": 7}  # identical initial conditions
fdelta = train(X[train_rows], y[train_rows], objective="F", **settings)
delta = train(X[train_rows], y[train_rows], objective="delta", **settings)

for name, model in (("weighted delta rule", delta), ("F-Delta", fdelta)):
    # model.predict works per observation (as here) or batched (model.predict(X)).
    v = BinFValidation(y[~train_rows], X[~train_rows], model.predict, batched=True)
    print(
        f"{name:20s} F1(class a) = {v.f1:.3f}  precision = {v.precision:.3f}  "
        f"recall = {v.recall:.3f}  ({model.n_iter} iterations, stopped: {model.stop_reason})"
    )

"""PATSI image annotation on Corel5k with an F-Delta-trained second tier (seed 001, section 5).

Run: python examples/fdelta_patsi.py            (one 90/10 split, a few seconds)
     fmacro fdelta --patsi                      (10-fold cross-validation, ~30 s)
"""

from __future__ import annotations

from fmacro.optimize.fdelta import patsi_experiment
from fmacro.optimize.fdelta.patsi import load_corel5k

X, Y = load_corel5k()  # sparse binary blob features, 5000 x 499; labels 5000 x 374
result = patsi_experiment(X, Y, m=10)  # pass splitter=crossval.KFold(k=10, seed=0) for CV
print(result.table())

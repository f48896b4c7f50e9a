"""Classic threshold rules, without a certificate: the methods fmacro is compared with.

Terms (T_b/SCut, RCut, PCut) are explained in docs/glossary.md of the source repository.

``per_class`` (T_b / SCut, the macro-F optimum), ``global_threshold``, ``proportional``
(PCut), ``cyclic`` (coordinate ascent), ``top_k`` (RCut), ``micro_macro`` (a mix of
micro-F and macro-F), and ``best_threshold`` for one binary ranking.
"""

from fmacro.optimize.baselines._sweep import cuts_for_thresholds
from fmacro.optimize.baselines.binary import BinaryThreshold, best_threshold
from fmacro.optimize.baselines.cyclic import cyclic
from fmacro.optimize.baselines.global_threshold import global_threshold
from fmacro.optimize.baselines.micro_macro import micro_macro
from fmacro.optimize.baselines.per_class import per_class
from fmacro.optimize.baselines.proportional import proportional
from fmacro.optimize.baselines.top_k import predict_top_k, top_k

__all__ = [
    "BinaryThreshold",
    "best_threshold",
    "cuts_for_thresholds",
    "cyclic",
    "global_threshold",
    "micro_macro",
    "per_class",
    "predict_top_k",
    "proportional",
    "top_k",
]

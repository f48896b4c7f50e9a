"""Issue 13's small gaps: sum() of validations and counts, pandas label names, plot hint."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import f1_score, precision_recall_fscore_support

from fmacro.validation import BinFValidation, MultiFValidation, MultiLabelFValidation
from fmacro.validation.counts import ClassCounts, ConfusionMatrix, Counts
from fmacro.validation.multilabel import SampleCounts

# --------------------------------------------------------------------------- sum()

_RNG = np.random.default_rng(0)
_Y3 = _RNG.integers(0, 3, size=(3, 40))
_P3 = _RNG.integers(0, 3, size=(3, 40))
_YL = _RNG.integers(0, 2, size=(3, 40, 4))
_PL = _RNG.integers(0, 2, size=(3, 40, 4))


@pytest.mark.parametrize(
    ("parts", "whole"),
    [
        (
            [BinFValidation.from_predictions(_Y3[i] == 1, _P3[i] == 1) for i in range(3)],
            BinFValidation.from_predictions(_Y3.ravel() == 1, _P3.ravel() == 1),
        ),
        (
            [MultiFValidation.from_predictions(_Y3[i], _P3[i], [0, 1, 2]) for i in range(3)],
            MultiFValidation.from_predictions(_Y3.ravel(), _P3.ravel(), [0, 1, 2]),
        ),
        (
            [MultiLabelFValidation.from_predictions(_YL[i], _PL[i]) for i in range(3)],
            MultiLabelFValidation.from_predictions(_YL.reshape(-1, 4), _PL.reshape(-1, 4)),
        ),
    ],
    ids=["binary", "multiclass", "multilabel"],
)
def test_sum_of_validations_pools_them(parts: list, whole: object) -> None:
    total = sum(parts)
    assert total == whole
    assert 0 + parts[0] == parts[0]
    assert sum(parts[:1]) == parts[0]
    with pytest.raises(TypeError, match=r"only the integer 0 \(the start of sum\(\)\)"):
        1 + parts[0]
    with pytest.raises(TypeError, match=r"got 0\.0 \(float\)"):
        0.0 + parts[0]
    with pytest.raises(TypeError, match="only the integer 0"):
        False + parts[0]


def test_sum_of_counts() -> None:
    a, b = Counts(1, 2, 3, 4), Counts(10, 20, 30, 40)
    assert sum([a, b]) == Counts(11, 22, 33, 44)
    cc = [ClassCounts([1, 2], [0, 1], [2, 0], [5, 5]), ClassCounts([3, 0], [1, 1], [0, 2], [4, 4])]
    assert sum(cc) == ClassCounts([4, 2], [1, 2], [2, 2], [9, 9])
    cm = [ConfusionMatrix([[1, 2], [3, 4]]), ConfusionMatrix([[0, 1], [1, 0]])]
    assert sum(cm) == ConfusionMatrix([[1, 3], [4, 4]])
    sc = [SampleCounts([1], [2], [1]), SampleCounts([0, 2], [1, 2], [1, 3])]
    assert sum(sc) == SampleCounts([1, 0, 2], [2, 1, 2], [1, 1, 3])
    for value in (a, cc[0], cm[0], sc[0]):
        with pytest.raises(TypeError, match=f"added to a {type(value).__name__} from the left"):
            2 + value
    with pytest.raises(TypeError, match="only the integer 0"):
        "0" + a  # type: ignore[operator]


# --------------------------------------------------------------------------- pandas labels


def test_multilabel_dataframe_columns_name_the_labels() -> None:
    names = ["sports", "politics", "science", "art"]
    expected, predicted = pd.DataFrame(_YL[0], columns=names), pd.DataFrame(_PL[0], columns=names)
    v = MultiLabelFValidation.from_predictions(expected, predicted)
    assert list(v.labels) == names
    # the same numbers as with plain arrays (scikit-learn's per-label F1)
    np.testing.assert_allclose(v.per_class_f, f1_score(_YL[0], _PL[0], average=None))
    # one DataFrame is enough; explicit labels win
    assert list(MultiLabelFValidation.from_predictions(_YL[0], predicted).labels) == names
    given = MultiLabelFValidation.from_predictions(expected, predicted, labels=list("abcd"))
    assert list(given.labels) == list("abcd")
    with pytest.raises(ValueError, match="DataFrames with different columns"):
        MultiLabelFValidation.from_predictions(expected, predicted[names[::-1]])


def test_multiclass_categoricals_give_classes_in_category_order() -> None:
    order = ["low", "mid", "high", "never"]  # "never" occurs in neither
    words = np.array(order[:3])
    expected = pd.Series(pd.Categorical(words[_Y3[0]], categories=order))
    predicted = pd.Categorical(words[_P3[0]], categories=order)
    v = MultiFValidation.from_predictions(expected, predicted)
    assert list(v.classes) == order
    _, _, f, s = precision_recall_fscore_support(
        words[_Y3[0]], words[_P3[0]], labels=order, zero_division=0
    )
    np.testing.assert_allclose(v.per_class_f, f)
    np.testing.assert_array_equal(v.support, s)
    with pytest.raises(ValueError, match="categoricals with different categories"):
        MultiFValidation.from_predictions(expected, pd.Categorical(words[_P3[0]]))


def test_binary_categoricals_take_the_second_category_as_positive() -> None:
    words = np.array(["spam", "ham"])
    y, p = words[_Y3[0] % 2], words[_P3[0] % 2]
    cat = pd.CategoricalDtype(["ham", "spam"])
    v = BinFValidation.from_predictions(pd.Series(y, dtype=cat), pd.Series(p, dtype=cat))
    assert v.positive == "spam"
    assert v.f1 == pytest.approx(f1_score(y, p, pos_label="spam"))
    ham = BinFValidation.from_predictions(pd.Series(y, dtype=cat), p, positive="ham")
    assert ham.f1 == pytest.approx(f1_score(y, p, pos_label="ham"))
    with pytest.raises(
        ValueError, match=r"positive must be one of the categories \['ham', 'spam'\]"
    ):
        BinFValidation.from_predictions(pd.Series(y, dtype=cat), p, positive="eggs")
    three = pd.Categorical(y, categories=["ham", "spam", "eggs"])
    with pytest.raises(ValueError, match="has 3 categories"):
        BinFValidation.from_predictions(three, p)


def test_validation_modules_do_not_import_pandas() -> None:
    code = textwrap.dedent(
        """
        import sys
        import fmacro.validation.binary, fmacro.validation.multiclass
        import fmacro.validation.multilabel, fmacro.validation.frames
        print("pandas" in sys.modules)
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "False", done.stderr


# --------------------------------------------------------------------------- plot hint


def test_plot_without_matplotlib_says_pip_install_matplotlib(tmp_path: object) -> None:
    code = textwrap.dedent(
        f"""
        import sys

        class _Block:
            def find_spec(self, name, path=None, target=None):
                if name == "matplotlib" or name.startswith("matplotlib."):
                    raise ModuleNotFoundError(f"No module named {{name!r}}")
                return None

        sys.meta_path.insert(0, _Block())
        from fmacro.cli import main
        sys.exit(main(["thresholds", "--quiet", "--plot", {str(tmp_path)!r}]))
        """
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert done.returncode == 2
    assert done.stderr.strip().splitlines() == [
        "fmacro thresholds: error: plots need matplotlib, which is not installed; install it "
        "with: pip install matplotlib"
    ]
    assert done.stdout == ""

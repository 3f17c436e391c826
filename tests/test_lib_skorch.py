"""skorch (scikit-learn wrappers around torch modules) under the drop-in runner, compared with real torch:
NeuralNetClassifier with its internal validation split, EpochScoring and LRScheduler callbacks and history,
predict/predict_proba/score; NeuralNetRegressor; a Pipeline with StandardScaler inside GridSearchCV."""
import pytest
from conftest import lib_program_vs_torch


def test_skorch_fit_predict_and_grid_search_match_torch():
    pytest.importorskip("sklearn", reason="skorch needs scikit-learn")
    _, ours = lib_program_vs_torch("lib_skorch_sklearn.py", "torch", "skorch", timeout=600, rtol=1e-4)
    assert [line.split()[0] for line in ours] == ["epoch"] * 4 + ["proba", "pred", "reg", "grid"]
    assert "nan" not in " ".join(ours)

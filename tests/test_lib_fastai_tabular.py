"""fastai 2.8.12's tabular stack (fastai.tabular.all) under the drop-in runner, compared line by line with real
torch: TabularPandas preprocessing, TabularDataLoaders, tabular_learner trained with fit_one_cycle through fastai's
Optimizer and callbacks (its TensorBase subclass and __torch_function__ throughout), get_preds/predict, a y_range
regression learner and save/load. fastai's ``torch.as_subclass = torch.Tensor.as_subclass`` and its patched
``Tensor.as_subclass`` used to recurse forever under the runner (tests/test_torch_function.py)."""
from conftest import lib_program_vs_torch


def test_fastai_tabular_like_torch():
    _, ours = lib_program_vs_torch("lib_fastai_tabular.py", "fastai", "fastcore", "fasttransform", "plum",
                                   "fastprogress", timeout=600, rtol=1e-4)
    assert len(ours) == 13, ours
    assert ours[0] == "splits 180 60 [7, 16, 17, 18, 31]", ours[0]
    assert ours[3] == "params 431", ours[3]
    assert ours[7].startswith("epoch 3 [0.4545, 0.4587, 0.8667]"), ours[7]
    assert ours[-1] == "reloaded True ['m.pth']", ours[-1]

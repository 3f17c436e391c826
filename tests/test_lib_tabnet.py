"""pytorch-tabnet (TabNetClassifier with categorical embeddings, eval metrics, explain, feature importances,
save_model/load_model and warm start; TabNetRegressor with entmax masks, a StepLR schedule, RegressionSMOTE and
two targets; TabNetPretrainer and a fine-tune from it; TabNetMultiTaskClassifier; early stopping with a custom Metric,
loss and Callback on scipy sparse inputs with grouped features and ClassificationSMOTE) under the drop-in runner,
compared line by line with the same program under real torch.
"""
from conftest import lib_program_vs_torch


def test_tabnet_fit_predict_explain_save_load_like_torch():
    _, ours = lib_program_vs_torch("lib_tabnet.py", "torch", "pytorch_tabnet", "sklearn", timeout=600, rtol=5e-4)
    assert len(ours) == 31, ours
    assert ours[2].startswith("clf best 2 ") and ours[2].endswith(" params 6130"), ours[2]
    assert ours[7] == "clf explain normalized [1.0, 1.0, 1.0, 1.0]"
    assert ours[8:10] == ["clf saved clf.zip", "clf reload 8 [3, 4] True"], ours[8:10]
    assert ours[13].endswith("lr [0.02, 0.02, 0.01, 0.01]"), ours[13]
    assert ours[14].split(" [")[1] == ours[17].split(" [")[1], (ours[14], ours[17])  # the reloaded regressor
    assert ours[22].startswith("pretrain predict [4, 6] [4, 6] ")
    assert ours[27].startswith("Early stopping occurred at epoch 7 with best_epoch = 6"), ours[27]
    assert ours[28].startswith("early stop 6 ") and " 8 [(0, " in ours[28], ours[28]  # the best weights restored
    assert ours[26].startswith("multitask ") and "[['0', '0', '0', '0'], ['0', '0', '1', '1']]" in ours[26]
